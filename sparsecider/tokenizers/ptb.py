"""``ptb_tokenize``: the reference captioning tokenizer, without Java.

pycocoevalcap's ``PTBTokenizer`` (used for every published COCO number)
replaces ``\\n`` in each caption by a space, joins the captions with ``\\n``,
runs Stanford CoreNLP 3.4.1's ``PTBTokenizer -preserveLines -lowerCase`` over
the result, and drops the tokens ``'' ' `` ` -LRB- -RRB- -LCB- -RCB- . ? ! ,
: - -- ... ;``.  :func:`ptb_tokenize` gives the same strings in pure Python.

Examples
--------
>>> ptb_tokenize(["A dog -- on the grass; running!"])
['a dog on the grass running']
>>> sorted(t for t in ("-", "--", ";", "!", "dog") if t in PUNCTUATIONS)
['!', '-', '--', ';']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

import numpy as np

from .._kernels.hashing import hash_code_point_tokens
from .ptb_lexer import ABBREV1, ABBREV2, ABBREV3, ACRONYM, NL, from_utf16_units, lex, to_utf16_units

__all__ = ["PUNCTUATIONS", "ptb_tokenize"]

#: Tokens the reference drops after tokenizing (pycocoevalcap's list, verbatim;
#: the upper-case bracket names never match the lower-cased output).
PUNCTUATIONS = frozenset(
    [
        "''",
        "'",
        "``",
        "`",
        "-LRB-",
        "-RRB-",
        "-LCB-",
        "-RCB-",
        ".",
        "?",
        "!",
        ",",
        ":",
        "-",
        "--",
        "...",
        ";",
    ]
)

# Java ends a line at each of these; pycocoevalcap would then shift every
# later caption onto the wrong image.  sparsecider reads them as spaces.
_LINE_BREAKS = str.maketrans({c: " " for c in "\n\r\x0b\x0c\x85\u2028\u2029"})
_LINE_BREAK_CP = np.zeros(0x202B, dtype=bool)  # index 0x202A: every higher code point
_LINE_BREAK_CP[[0x0D, 0x0B, 0x0C, 0x85, 0x2028, 0x2029]] = True


def _lower(token: str) -> str:
    # Java's String.toLowerCase(Locale.ENGLISH)
    return token.lower()


# ---- the fast path ---------------------------------------------------------
# Most captions are ASCII words, numbers and hyphenated words, maybe with a
# clitic ('s 're 've 'll 'm 'd n't) or one chunk-final punctuation mark
# (. , ! ?, always filtered), separated by spaces, tabs or double quotes.  For those the
# lexer's result is certain: lower-case, split the clitic off, drop the
# chunk-final punctuation.  A caption leaves the fast path when any rule
# could read across chunks or keep a period: digits on both sides of a
# space (fractions, phone numbers), spaced dots (an ellipsis), the words
# the lexer splits (cannot, gonna, ...), or a period after an abbreviation
# or a single letter (whose fate can depend on the next caption).  Those
# captions, and all others, go through the exact lexer.  The checks and the
# output run as array operations over the code points of all captions.
# tests/test_ptb.py compares the two paths.

_OTHER, _LETTER, _DIGIT, _BLANK, _NEWLINE, _DOT, _COMMA, _BANG, _QUESTION, _APOS, _HYPHEN = range(
    11
)
_CLASS = np.zeros(129, dtype=np.int8)  # code points >= 128 are _OTHER
for _c in range(128):
    _ch = chr(_c)
    _CLASS[_c] = (
        _LETTER if _ch.isascii() and _ch.isalpha()
        else _DIGIT if _ch.isdigit()
        else {" ": _BLANK, "\t": _BLANK, '"': _BLANK, "\n": _NEWLINE, ".": _DOT, ",": _COMMA,
              "!": _BANG, "?": _QUESTION, "'": _APOS, "-": _HYPHEN}.get(_ch, _OTHER)
    )  # fmt: skip
# A double quote is always a token of its own (`` or ''), which the filter
# drops: for the fast path it separates chunks exactly as a blank does.  (A
# chunk it closes is still checked like any other: "B." keeps its period
# before a quote, so abbreviation-like chunks take the exact lexer.)
_CLITIC_CHUNK = re.compile(
    r"[A-Za-z]*[A-MO-Za-mo-z]n't[.,!?]?|[A-Za-z]{2,}'(?:s|re|ve|ll|m|d)[.,!?]?"
)
_SPLIT_WORDS = ("cannot", "gonna", "gotta", "lemme", "gimme", "wanna")


@functools.cache
def _abbreviation() -> re.Pattern:
    """Matches a chunk that the lexer could treat as an abbreviation with its period."""
    return re.compile(f"(?:{ABBREV1}|{ABBREV2}|{ABBREV3}|{ACRONYM})")


def _chunk_bounds(blank_pos: np.ndarray, pos: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of the blank-delimited chunk holding each position."""
    bounds = np.concatenate(([-1], blank_pos, [n]))
    i = np.searchsorted(blank_pos, pos)
    return bounds[i] + 1, bounds[i + 1]


def _fast_path(text: str, cp: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Fast-path output for every line of ``text``, and the lines it cannot do.

    ``cp`` holds the code points of ``text`` (one caption per line, no other
    line breaks).  Returns the token strings of all lines (meaningful for
    the fast lines only) and the sorted indices of the lines needing the
    exact lexer.
    """
    n = cp.shape[0]
    cls = _CLASS[np.minimum(cp, 128)]
    prev = np.empty_like(cls)
    prev[0] = _NEWLINE
    prev[1:] = cls[:-1]
    nxt = np.empty_like(cls)
    nxt[-1:] = _NEWLINE
    nxt[:-1] = cls[1:]
    punct = (cls >= _DOT) & (cls <= _QUESTION)
    ends_chunk = (nxt == _BLANK) | (nxt == _NEWLINE)
    alnum_prev = (prev == _LETTER) | (prev == _DIGIT)
    alnum_next = (nxt == _LETTER) | (nxt == _DIGIT)
    bad = cls == _OTHER
    bad |= punct & ~ends_chunk
    bad |= punct & (prev >= _DOT)
    bad |= (cls == _HYPHEN) & ~(alnum_prev & alnum_next)
    bad_pos = [np.flatnonzero(bad)]

    blank_pos = np.flatnonzero((cls == _BLANK) | (cls == _NEWLINE))
    apos = np.flatnonzero(cls == _APOS)
    starts, ends = _chunk_bounds(blank_pos, apos, n)
    bad_pos.append(
        np.array(
            [p for p, a, b in zip(apos.tolist(), starts.tolist(), ends.tolist(), strict=True)
             if not _CLITIC_CHUNK.fullmatch(text, a, b)],
            dtype=np.int64,
        )
    )  # fmt: skip

    # digits, or dots, on both sides of a run of blanks
    is_blank = cls == _BLANK
    run_first = np.flatnonzero(is_blank & (prev != _BLANK))
    run_last = np.flatnonzero(is_blank & (nxt != _BLANK))
    left = cls[np.maximum(run_first - 1, 0)]
    right = cls[np.minimum(run_last + 1, n - 1)]
    inside = (run_first > 0) & (run_last < n - 1)
    across = inside & (((left == _DIGIT) & (right == _DIGIT)) | ((left == _DOT) & (right == _DOT)))
    bad_pos.append(run_first[across])

    # The positions found below must be positions in ``text``.  ``str.lower``
    # can lengthen a string ("İ" becomes two characters, shifting every later
    # position; no character gets shorter), so when it does, only ASCII letters
    # are lower-cased (lines with any other character take the exact lexer
    # anyway).
    low = text.lower()
    if len(low) == n:
        low_cp = np.frombuffer(low.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    else:
        low_cp = cp + ((cp >= 65) & (cp <= 90)).astype(np.uint32) * 32
        low = low_cp.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    for word in _SPLIT_WORDS:
        hits, at = [], low.find(word)
        while at >= 0:
            hits.append(at)
            at = low.find(word, at + 1)
        bad_pos.append(np.array(hits, dtype=np.int64))

    # a chunk-final period after an abbreviation or a single letter
    dots = np.flatnonzero((cls == _DOT) & ends_chunk)
    starts, _ = _chunk_bounds(blank_pos, dots, n)
    keys = hash_code_point_tokens(cp, starts, dots + 1 - starts)
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    is_abbrev = np.array(
        [_abbreviation().fullmatch(text, a, b) is not None
         for a, b in zip(starts[first].tolist(), (dots[first] + 1).tolist(), strict=True)],
        dtype=bool,
    )  # fmt: skip
    bad_pos.append(dots[is_abbrev[inverse]] if distinct.size else dots[:0])

    # At the very end of the input the clitic rule needs a following
    # character; without one, "'re", "'ve" and "'ll" tie with the quote rule,
    # which comes first: the jar gives "they ` re" there.
    if text.endswith(("'re", "'ve", "'ll")):
        bad_pos.append(np.array([n - 1], dtype=np.int64))

    newlines = np.flatnonzero(cls == _NEWLINE)
    slow = np.unique(np.searchsorted(newlines, np.concatenate(bad_pos)))

    # the output: lower-case ASCII, drop chunk-final punctuation, a blank
    # before each clitic, then one blank between tokens and none at line ends
    drop = np.flatnonzero(punct & ends_chunk)
    kept = np.delete(low_cp, drop)
    kept[(kept == 9) | (kept == 34)] = 32  # tabs and double quotes become blanks
    is_nt = (cp[np.maximum(apos - 1, 0)] == ord("n")) & (
        cp[np.minimum(apos + 1, n - 1)] == ord("t")
    )
    clitic_at = apos - is_nt  # the blank goes before "'s" or before "n't"
    clitic_at = clitic_at - np.searchsorted(drop, clitic_at)  # positions in ``kept``
    out = np.insert(kept, clitic_at, np.uint32(32))
    blank = out == 32
    lead = blank & np.concatenate(([True], blank[:-1] | (out[:-1] == 10)))
    out = out[~lead]
    blank = out == 32
    trail = blank & np.concatenate((out[1:] == 10, [True]))
    out = out[~trail]
    lines = out.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass").split("\n")
    return lines, slow


def _slow_tokenize(text: str, start: int, end: int) -> str:
    """The exact lexer over one caption's span of the whole sequence."""
    words = []
    for tok in lex(text, start, end):
        if tok is NL:
            continue
        w = _lower(from_utf16_units(tok))
        if w not in PUNCTUATIONS:
            words.append(w)
    return " ".join(words)


def _exact_tokenize(captions: list[str]) -> list[str]:
    """Every caption through the exact lexer (no fast path): for tests."""
    clean = [c.translate(_LINE_BREAKS) for c in captions]
    lengths = [len(to_utf16_units(c)) for c in clean]
    units = to_utf16_units("\n".join(clean))
    out, start = [], 0
    for length in lengths:
        out.append(_slow_tokenize(units, start, start + length))
        start += length + 1
    return out


def ptb_tokenize(captions: Sequence[str]) -> list[str]:
    """Tokenize captions exactly as pycocoevalcap's ``PTBTokenizer`` does.

    Parameters
    ----------
    captions : sequence of str
        Tokenized together, as one sequence in this order: the Java lexer
        looks past the end of a caption, so a caption's tokens can depend on
        how the next one begins (``"... reads K."`` keeps its period unless
        the next caption starts with a capitalised word such as ``"A"``).

    Returns
    -------
    list of str
        One string per caption: its tokens, lower-cased, punctuation removed,
        joined by single spaces.

    Raises
    ------
    TypeError
        ``captions`` is a string, or holds something other than strings.

    Examples
    --------
    >>> ptb_tokenize(["A man's dog doesn't bark (loudly)!", "It costs $5.50..."])
    ["a man 's dog does n't bark -lrb- loudly -rrb-", 'it costs $ 5.50']

    The next caption can decide a final period (see ``captions`` above):

    >>> ptb_tokenize(["He reads K.", "A dog."]), ptb_tokenize(["He reads K.", "the dog."])
    (['he reads k', 'a dog'], ['he reads k.', 'the dog'])
    """
    if isinstance(captions, str):
        raise TypeError(
            "captions must be a list of strings, got str; wrap one caption as [caption]"
        )
    clean = list(captions)
    if not set(map(type, clean)) <= {str}:  # one C-level pass; then name the culprit
        for i, c in enumerate(clean):
            if not isinstance(c, str):
                raise TypeError(f"captions[{i}] must be a string, got {type(c).__name__}")
    text = "\n".join(clean)
    if text.count("\n") != max(len(clean) - 1, 0):  # some captions hold a newline
        clean = [c.replace("\n", " ") if "\n" in c else c for c in clean]
        text = "\n".join(clean)
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    if _LINE_BREAK_CP[np.minimum(cp, 0x202A)].any():
        cp = cp.copy()
        cp[_LINE_BREAK_CP[np.minimum(cp, 0x202A)]] = 32
        text = cp.tobytes().decode("utf-32-le", "surrogatepass")
        clean = text.split("\n")
    if cp.shape[0] == 0:  # no captions, or only one and it is empty
        return [""] * len(clean)
    out, slow = _fast_path(text, cp)
    if slow.size:
        lengths = np.fromiter(map(len, clean), dtype=np.int64, count=len(clean))
        units = text
        astral = np.flatnonzero(cp > 0xFFFF)
        if astral.size:  # characters outside the BMP are two UTF-16 units each
            units = to_utf16_units(text)
            newlines = np.flatnonzero(cp == 10)
            lengths += np.bincount(np.searchsorted(newlines, astral), minlength=len(clean))
        line_starts = np.cumsum(lengths + 1) - (lengths + 1)
        for i in slow.tolist():
            start = int(line_starts[i])
            out[i] = _slow_tokenize(units, start, start + int(lengths[i]))
    return out
