"""The fast path of the PTB tokenizer: plain captions, all at once.

A caption is *plain* when it holds only ASCII letters, digits, spaces,
hyphens and slashes between two letters or digits (at most two slashes, and
no hyphen beside them: section 21.1), the clitic ``'s`` (after two letters
or digits, or alone after a space), ``n't`` (after a letter or digit), and
commas and periods that end a word or stand alone, and none of these
shapes: a word of an abbreviation class or a single letter before its
period (``Mr.``, ``K.``), a multi-word token (``gonna``, ``cannot``), two
numbers one space apart (they may become one token).  For such a caption
the specification (``PTB_BEHAVIOUR.md``) reduces to: lower-case, put a
space before ``n't`` and ``'s``, drop every comma and period, and collapse
spaces; its output depends on no other caption, and it changes no other
caption's output.

:func:`tokenize` does that to every caption at once, on one joined UTF-8
buffer: the tests are vectorised over its bytes (a class per byte, then
comparisons of shifted class arrays), the rewriting is a few C-level
passes.  It returns the indices of the other captions, for the exact path.
"""

from __future__ import annotations

import re

import numpy as np

from . import _ptb_tables as t

__all__ = [
    "clean",
    "tokenize",
]

_MULTI_WORDS = (b"gonna", b"gotta", b"wanna", b"lemme", b"gimme", b"cannot")

# Byte classes.  SPACE: a space, or a double quote, which is always a token of
# its own that the filter drops (spec section 10): a separator.  PUNCT: a
# comma, semicolon, colon, question or exclamation mark: at the end of a word,
# a token of its own that the filter drops.  The order matters: the tests
# below compare classes (LOWER..DIGIT are word characters, SPACE..PERIOD end
# a clitic, SPACE..APOS after a space make its line's spaces odd).
LOWER, UPPER, DIGIT, SPACE, NEWLINE, PUNCT, PERIOD, APOS, HYPHEN, SLASH, OTHER = range(11)
_CLASS = np.full(256, OTHER, dtype=np.uint8)
_CLASS[np.frombuffer(b"abcdefghijklmnopqrstuvwxyz", np.uint8)] = LOWER
_CLASS[np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", np.uint8)] = UPPER
_CLASS[np.frombuffer(b"0123456789", np.uint8)] = DIGIT
for _bytes, _cls in ((b' "', SPACE), (b"\n", NEWLINE), (b",;:?!", PUNCT), (b".", PERIOD),
                     (b"'", APOS), (b"-", HYPHEN), (b"/", SLASH)):  # fmt: skip
    _CLASS[np.frombuffer(_bytes, np.uint8)] = _cls
#: The output: double quotes become spaces, the dropped punctuation goes.
_OUTPUT = bytes.maketrans(b'"', b" ")
_DROPPED = b",;:?!."


def _abbreviation_keys() -> dict[int, np.ndarray]:
    """Per length, the lower-case abbreviation words (no period) packed into integers.

    Every listed abbreviation of classes 1, 2 and 5 and every single letter,
    in any letter case (a superset of the lists' case patterns: a plain
    caption never holds one before a period).  Dotted forms (``Ph.D.``) hold
    an inner period, which a plain caption never has.
    """
    words: dict[int, set[bytes]] = {1: {bytes([c]) for c in range(ord("a"), ord("z") + 1)}}
    for entry in t.ABBR_TITLE + t.ABBR_SENTENCE + t.ABBR_NUMBER + ("[Mm][Ee][Ss][Ss][Rr][Ss].",):
        word = re.sub(r"\[(.)(.)\]", r"\1", entry).lower().rstrip(".")
        if "." not in word:
            words.setdefault(len(word), set()).add(word.encode())
    return {k: np.array(sorted(_pack(w) for w in ws), dtype=np.uint64) for k, ws in words.items()}


def _pack(word: bytes) -> int:
    return int.from_bytes(word, "big")


_ABBREVIATIONS = _abbreviation_keys()
_CLASS_TABLE = bytes(_CLASS.tolist())
_DOUBLED = np.zeros(256, dtype=bool)
_DOUBLED[np.frombuffer(b"ntm", np.uint8)] = True
_LINE_SEPARATORS = re.compile("[\r\x0b\x0c\x85\u2028\u2029]")
# one-byte joints (deleted characters, rare in text), and for each the translation
# that makes it a line end and the one-byte separators spaces
_JOINTS = "\x1e\x1f\x1d\x1c\x1a\x19\x18\x17"
_SEPARATOR_BYTES = {j: bytes.maketrans(b"\n\r\x0b\x0c" + j.encode(), b"    \n") for j in _JOINTS}
#: "n't" after a word holding a digit, hyphen or slash: only words of letters split.
_NT_AFTER_NON_LETTER = re.compile("[0-9/-][a-z]*n't")
_AS_SPACES = str.maketrans(dict.fromkeys("\n\r\x0b\x0c\x85\u2028\u2029", " "))


_PAD = 8  # line ends before and after the bytes, so that neighbours always exist


def _padded(cls: np.ndarray) -> np.ndarray:
    """``cls`` with ``_PAD`` line ends on each side (index ``k + _PAD`` is byte ``k``)."""
    q = np.full(cls.size + 2 * _PAD, NEWLINE, dtype=np.uint8)
    q[_PAD:-_PAD] = cls
    return q


def _not_plain(cls: np.ndarray, q: np.ndarray, data: bytes) -> tuple[np.ndarray, ...]:
    """Byte positions that a plain caption cannot hold, those of its apostrophes,
    and those of its slashes and hyphens.

    Only the bytes that are not letters, digits or spaces are looked at (a
    few per caption), with their neighbours gathered from ``q``.
    """
    raw = np.frombuffer(data, np.uint8)
    pos = np.flatnonzero(cls >= PUNCT)
    at = pos + _PAD
    prev2, prev, cur, nxt, nxt2 = q[at - 2], q[at - 1], q[at], q[at + 1], q[at + 2]
    bad = cur == OTHER
    # punctuation inside a word or after another mark (a run of periods is
    # dropped whole after a word that is no abbreviation)
    ends_word = (nxt == SPACE) | (nxt == NEWLINE)
    follows = (prev <= NEWLINE) | ((cur == PERIOD) & (prev == PERIOD))
    bad |= (cur == PUNCT) & ~(ends_word & follows)
    bad |= (cur == PERIOD) & ~((ends_word | (nxt == PERIOD)) & follows)
    # a hyphen or slash that is not between two letters or digits
    bad |= ((cur == HYPHEN) | (cur == SLASH)) & ((prev > DIGIT) | (nxt > DIGIT))
    # an apostrophe but in a clitic: 's after two letters or digits or alone, n't
    apos = cur == APOS
    if apos.any():
        ends = (nxt2 >= SPACE) & (nxt2 <= PERIOD)
        nxt_letter = raw[np.minimum(pos + 1, raw.size - 1)] | 0x20
        prev_letter = raw[np.maximum(pos - 1, 0)] | 0x20
        clitic_s = (nxt_letter == ord("s")) & (prev2 <= DIGIT) & ((prev <= DIGIT) | (prev == SPACE))
        prev2_letter = raw[np.maximum(pos - 2, 0)] | 0x20
        clitic_nt = (nxt_letter == ord("t")) & (prev2 <= DIGIT) & (prev_letter == ord("n"))
        clitic_nt &= prev2_letter != ord("n")  # "sann't" splits as "sann" "'" "t"
        bad |= apos & ~((clitic_s | clitic_nt) & ends)
    # numbers one space apart may merge into one token (section 6)
    digits = np.flatnonzero(cls == DIGIT) + _PAD
    merge = digits[(q[digits + 1] == SPACE) & (q[digits + 2] == DIGIT)] - _PAD
    periods = pos[cur == PERIOD]
    flagged = np.concatenate([pos[bad], merge, _abbreviation_periods(q, periods, raw)])
    return flagged, pos[apos], pos[cur == SLASH], pos[cur == HYPHEN]


def _abbreviation_periods(q: np.ndarray, periods: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """Periods after a word that may keep its period (a listed abbreviation, a letter)."""
    lower = raw | 0x20  # ASCII lower case (only letters are compared)
    found = []
    key = np.zeros(periods.size, dtype=np.uint64)
    letters = np.ones(periods.size, dtype=bool)
    for k in range(1, max(_ABBREVIATIONS) + 1):
        # the k bytes before the period are letters, and the one before them is none
        before = q[periods + _PAD - k]
        letters &= (before == LOWER) | (before == UPPER)
        key |= lower[np.maximum(periods - k, 0)].astype(np.uint64) << np.uint64(8 * (k - 1))
        boundary = q[periods + _PAD - k - 1]
        word_start = letters & (boundary > DIGIT) & (boundary != APOS)
        if k in _ABBREVIATIONS and word_start.any():
            # membership by binary search in the sorted list (no sort of the keys)
            keys, known = key[word_start], _ABBREVIATIONS[k]
            at = np.minimum(np.searchsorted(known, keys), known.size - 1)
            found.append(periods[word_start][known[at] == keys])
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def tokenize(captions: list[str]) -> tuple[list[str], list[int]]:
    """The outputs of the plain captions, and the indices of the others.

    Returns ``(out, slow)``: one string per caption; those at the indices
    ``slow`` are placeholders for the exact path to fill in.  Raises
    ``TypeError`` (from ``str.join``) if a caption is not a string.
    """
    data = _joined(captions)
    cls = np.frombuffer(data.translate(_CLASS_TABLE), dtype=np.uint8)
    newlines = np.flatnonzero(cls == NEWLINE)
    q = _padded(cls)
    bad, apostrophes, slashes, hyphens = _not_plain(cls, q, data)
    lowered = data.lower()  # ASCII letters only: every other byte is in a slow caption
    flagged = np.concatenate([bad, _multi_words(lowered)])
    slow = np.unique(np.searchsorted(newlines, flagged))
    if slashes.size:
        slow = np.union1d(slow, _slash_lists(newlines, slashes, hyphens))
    slow = slow.tolist()
    # every punctuation mark of a plain caption is a token of its own: dropped
    out = lowered.translate(_OUTPUT, _DROPPED).decode("utf-8", "surrogatepass").split("\n")
    held = []
    for i in np.unique(np.searchsorted(newlines, apostrophes)).tolist():
        if _NT_AFTER_NON_LETTER.search(out[i]) is not None:
            held.append(i)  # "a-don't", "ab1n't": the n stays (exact path)
        out[i] = out[i].replace("n't", " n't").replace("'s", " 's")
    if held:
        slow = sorted(set(slow).union(held))
    for i in _odd_spaces(cls, newlines).tolist():
        out[i] = " ".join(out[i].split())  # a plain caption's only whitespace is " "
    return out, slow


def _slash_lists(newlines: np.ndarray, slashes: np.ndarray, hyphens: np.ndarray) -> np.ndarray:
    """Captions whose slashes may not all join words: three or more slashes (a
    token holds at most three parts: "red/white/blue" "/" "green"), or a slash
    and a hyphen (a hyphen joins only letters there: "x-1" "/" "2"; section 21.1)."""
    lines, counts = np.unique(np.searchsorted(newlines, slashes), return_counts=True)
    both = np.intersect1d(lines, np.searchsorted(newlines, hyphens))
    return np.union1d(lines[counts >= 3], both)


def _joined(captions: list[str]) -> bytes:
    """The captions joined with line ends, UTF-8, their own line separators as spaces."""
    text = "\n".join(captions)
    if text.count("\n") == len(captions) - 1 and _LINE_SEPARATORS.search(text) is None:
        return text.encode("utf-8", "surrogatepass")
    # join with a one-byte character that no caption holds, then one translation
    # makes every separator a space and every joint a line end
    joint = next((ch for ch in _JOINTS if ch not in text), None)
    if joint is None:  # every candidate occurs: clean each caption
        return "\n".join(clean(captions)).encode("utf-8", "surrogatepass")
    data = joint.join(captions).encode("utf-8", "surrogatepass")
    data = data.translate(_SEPARATOR_BYTES[joint])
    for sep in ("\x85", "\u2028", "\u2029"):
        if sep.encode() in data:
            data = data.replace(sep.encode(), b" ")
    return data


def clean(captions: list[str]) -> list[str]:
    """Line separators inside each caption made spaces (for the exact path)."""
    return [c.translate(_AS_SPACES) for c in captions]


def _multi_words(lowered: bytes) -> np.ndarray:
    """Positions of the words split in two (``gonna``): each holds ``nn``, ``tt`` or ``mm``."""
    raw = np.frombuffer(lowered, dtype=np.uint8)
    double = np.flatnonzero(raw[1:] == raw[:-1])
    double = double[_DOUBLED[raw[double]]]
    found = []
    for word in _MULTI_WORDS:
        k = next(i for i in range(len(word)) if word[i] == word[i + 1])
        starts = double - k
        starts = starts[(starts >= 0) & (starts + len(word) <= raw.size)]
        hit = np.ones(starts.size, dtype=bool)
        for j, byte in enumerate(word):
            hit &= raw[starts + j] == byte
        found.append(starts[hit])
    return np.concatenate(found)


def _odd_spaces(cls: np.ndarray, newlines: np.ndarray) -> np.ndarray:
    """Captions whose output needs its spaces collapsed.

    A space doubled or at either end of a caption, or one before a dropped
    mark or a clitic (which the rewriting drops or gives a space of its own),
    or a dropped mark that starts a caption (the space after it would).
    """
    space = cls == SPACE
    odd = np.flatnonzero(space[:-1] & ((cls[1:] - SPACE) <= APOS - SPACE))
    # a space, or a dropped mark (which may leave the space after it first), at a line start
    starts = (cls[1:] == SPACE) | (cls[1:] == PUNCT) | (cls[1:] == PERIOD)
    lead = np.flatnonzero(starts & (cls[:-1] == NEWLINE)) + 1
    ends = [k for k in (0, cls.size - 1) if cls.size and SPACE <= cls[k] <= PERIOD]
    return np.unique(np.searchsorted(newlines, np.concatenate([odd, lead, ends])))
