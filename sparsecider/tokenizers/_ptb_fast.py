"""The fast path of the PTB tokenizer: plain captions, all at once.

A caption is *plain* when it holds only ASCII letters, digits, spaces,
hyphens between two letters or digits, the clitics ``'s`` (after two letters
or digits) and ``n't`` (after a letter or digit), and commas and periods
that end a word, and none of these shapes: a word of an abbreviation class
or a single letter before its period (``Mr.``, ``K.``), a multi-word token
(``gonna``, ``cannot``), two numbers separated by one space (they may become
one token).  For such a caption the specification (``PTB_BEHAVIOUR.md``)
reduces to: lower-case, put a space before ``n't`` and ``'s``, drop every
comma and period, and collapse spaces; its output depends on no other
caption, and it changes no other caption's output.

:func:`tokenize` does that to every caption at once on one joined buffer
(a few C-level passes), and returns the indices of the other captions, for
the exact path.
"""

from __future__ import annotations

import re

import numpy as np

from . import _ptb_tables as t

_MULTI_WORDS = ("gonna", "gotta", "wanna", "lemme", "gimme", "cannot")


def _abbreviation_lookbehinds() -> str:
    """``(?<=...)`` groups matching a listed abbreviation (or a letter) before a period.

    Python's look-behinds need a fixed width, so the forms are grouped by
    length; each is matched in any letter case (a superset of the lists'
    case patterns: a plain caption never holds one).
    """
    forms: dict[int, set[str]] = {1: {chr(c) for c in range(ord("a"), ord("z") + 1)}}
    for entry in t.ABBR_TITLE + t.ABBR_SENTENCE + t.ABBR_NUMBER:
        word = re.sub(r"\[(.)(.)\]", r"\1", entry).lower().rstrip(".")
        if "." not in word:  # dotted forms hold an inner period: never plain
            forms.setdefault(len(word), set()).add(word)
    groups = [
        f"(?<=(?<![A-Za-z0-9'])(?i:{'|'.join(sorted(words))})\\.)"
        for _, words in sorted(forms.items())
    ]
    return "|".join(groups)


# One pass finds every character or shape that a plain caption cannot hold.
# Each branch starts by consuming one non-alphanumeric character (so the
# regex engine skips the letters quickly) and then checks its context.
_NOT_PLAIN = re.compile(
    r"[^A-Za-z0-9 \n](?:"
    r"(?<=[^A-Za-z0-9 ,.'\n-])"  # any other character
    r"|(?<=['-])(?<![A-Za-z0-9].)"  # an apostrophe or hyphen not after a letter or digit
    r"|(?<=[,.])(?<![A-Za-z0-9 \n].)"  # a comma or period after another one
    r"|(?<=[,.])(?![ \n]|\Z)"  # a comma or period inside a word
    r"|(?<=-)(?![A-Za-z0-9])"  # a hyphen not followed by a letter or digit
    r"|(?<=')(?!(?<=[A-Za-z0-9]{2}')[sS](?![A-Za-z0-9'-])"
    r"|(?<=[A-Za-z0-9][nN]')[tT](?![A-Za-z0-9'-])"
    r"|(?<=[A-Za-z0-9] ')[sS](?![A-Za-z0-9'-]))"  # an apostrophe but in 's / n't
    f"|{_abbreviation_lookbehinds()}"
    r")"
    r"|[0-9](?= [0-9])"  # numbers one space apart
)
_MULTI_RE = re.compile("(?i:" + "|".join(_MULTI_WORDS) + ")")
# A space to remove: doubled, at either end of a caption, or left before a dropped
# comma or period, or before a clitic that gets one.
_ODD_SPACES = re.compile(r" (?:(?=[ \n,.']|\Z)|(?<![^\n] ))")


def _caption_of(positions: list[int], starts: np.ndarray) -> np.ndarray:
    """The caption index of each position of the joined text."""
    if not positions:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.searchsorted(starts, np.asarray(positions), side="right") - 1)


def tokenize(captions: list[str]) -> tuple[list[str], list[int]]:
    """The outputs of the plain captions, and the indices of the others.

    ``captions`` must hold no line separator (they are spaces by then).
    The returned list has one string per caption; those at the returned
    indices are placeholders for the exact path to fill in.
    """
    text = "\n".join(captions)
    lengths = np.fromiter(map(len, captions), dtype=np.int64, count=len(captions))
    starts = np.zeros(len(captions), dtype=np.int64)
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    bad = [m.start() for m in _NOT_PLAIN.finditer(text)]
    lowered = text.lower()
    if len(lowered) == len(text):
        for word in _MULTI_WORDS:
            k = lowered.find(word)
            while k >= 0:
                bad.append(k)
                k = lowered.find(word, k + 1)
    else:  # a character whose lower case is longer (U+0130): positions shift
        bad += [m.start() for m in _MULTI_RE.finditer(text)]
    slow = _caption_of(bad, starts)
    # every comma and period of a plain caption ends a word: dropped tokens
    data = lowered.encode("utf-8", "surrogatepass").translate(None, b",.")
    if b"'" in data:
        data = data.replace(b"n't", b" n't").replace(b"'s", b" 's")
    out = data.decode("utf-8", "surrogatepass").split("\n")
    odd = _caption_of([m.start() for m in _ODD_SPACES.finditer(text)], starts)
    for i in odd.tolist():
        out[i] = " ".join(w for w in out[i].split(" ") if w)
    return out, slow.tolist()
