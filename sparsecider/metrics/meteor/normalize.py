"""METEOR 1.5's ``-norm`` text normalisation (behaviour specification, section 2).

Each caption is normalised on its own, before matching; the statistics count
the tokens of the result (split on single spaces).  The steps and their order
are those of the specification, section 2.1; each regular expression replaces
left to right without overlap, as the specification requires.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["Prefixes", "normalize", "normalize_many"]

# Letters as the jar classifies them (measured on every BMP code point).
_LETTER = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e\u0400-\u0527"
    "\u1d00-\u1d7f\ua640-\ua66e\ua67e-\ua697"
)
_LETTER_RE = re.compile(f"[{_LETTER}]")
_JTRIM = "".join(chr(i) for i in range(33))  # Java String.trim strips every code point <= U+0020

_SEPARATE = re.compile(f"([^{_LETTER}0-9 \\t\\x0b\\x0c.',\\-])")
_DOTS = re.compile(r"(\.{2,})")
_COMMAS = (
    re.compile(r"([^0-9]),([^0-9])"),
    re.compile(r"([0-9]),([^0-9])"),
    re.compile(r"([^0-9]),([0-9])"),
)
_A, _NA = f"[{_LETTER}]", f"[^{_LETTER}]"
_APOSTROPHES = (
    (re.compile(f"({_NA})'({_NA})"), r"\1 ' \2"),
    (re.compile(f"([^{_LETTER}0-9])'({_A})"), r"\1 ' \2"),
    (re.compile(f"({_A})'({_NA})"), r"\1 ' \2"),
    (re.compile(f"({_A})'({_A})"), r"\1 '\2"),
    (re.compile(r"([0-9])'(s)"), r"\1 '\2"),
)
_HYPHEN = re.compile(f"([{_LETTER}0-9.])-([{_LETTER}0-9])")
_TOKEN_SPLIT = re.compile(r"[ \t\x0c]+")
_SPACES = re.compile("[\t\x0c\u00a0\u2000-\u200a\u202f\u205f\u3000]")
_RUNS = re.compile(" {2,}")
# Upper-case letters added to Unicode after version 13: Java 17 leaves them alone.
_KEEP_CASE = {"\u2c2f", "\ua7c0", "\ua7d0", "\ua7d6", "\ua7d8"}
# The common shape of a caption: ASCII words separated by single spaces (a comma may end a word
# followed by a space), maybe a final period.
_SIMPLE = re.compile(r"[A-Za-z]+(?:,? [A-Za-z]+)*(\.?)")


class Prefixes:
    """The nonbreaking prefixes (``nonbreaking/english.prefixes`` in the jar).

    Parameters
    ----------
    text : str
        The file's text: ``#`` comments, blank lines, ``Word`` or
        ``Word #NUMERIC_ONLY#`` lines.
    """

    def __init__(self, text: str) -> None:
        plain, numeric = set(), set()
        for line in text.splitlines():
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            (numeric if "#NUMERIC_ONLY#" in fields[1:] else plain).add(fields[0])
        self.plain = frozenset(plain)
        self.numeric = frozenset(numeric)


def _lower(s: str) -> str:
    if s.isascii():
        return s.lower()
    if _KEEP_CASE.isdisjoint(s):
        return s.lower()
    return "".join(c if c in _KEEP_CASE else c.lower() for c in s)


def _periods(s: str, prefixes: Prefixes) -> str:
    tokens = [t for t in _TOKEN_SPLIT.split(s) if t]
    out = []
    for i, w in enumerate(tokens):
        if w.endswith(".") and w.strip("."):
            pre = w[:-1]
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
            if "." in pre and _LETTER_RE.search(pre):
                w = w.replace(".", "")
            elif pre in prefixes.plain:
                pass
            elif nxt[:1] in _ASCII_LOWER:
                pass
            elif pre in prefixes.numeric and nxt[:1] in _DIGITS:
                pass
            else:
                w = pre + " ."
        out.append(w)
    return " ".join(out)


_ASCII_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_DIGITS = frozenset("0123456789")


def normalize(s: str, prefixes: Prefixes) -> str:
    """Normalise one caption as the jar's ``-norm`` does.

    Parameters
    ----------
    s : str
        The caption (any Unicode text without line breaks).
    prefixes : Prefixes
        The nonbreaking prefixes of the jar.

    Returns
    -------
    str
        Lower-cased tokens separated by single spaces (empty for a blank caption).
    """
    if s[:1] <= " " or s[-1:] <= " ":
        s = s.strip(_JTRIM)  # the first step of the full route below
    simple = _SIMPLE.fullmatch(s)
    if simple is not None:
        # Only the final period can need a decision: no next token, so it splits
        # unless the last word is a nonbreaking prefix.  A comma before a space is its
        # own token.
        if "," in s:
            s = s.replace(",", " ,")
        if not simple.group(1):
            return s.lower()
        pre = s[:-1]
        last = pre[pre.rfind(" ") + 1 :]
        if last in prefixes.plain:
            return s.lower()
        return pre.lower() + " ."
    return _full(s, prefixes)


def _full(s: str, prefixes: Prefixes) -> str:
    """Every step of section 2.1, for any caption."""
    s = s.strip(_JTRIM)
    s = s.replace("`", "'").replace("\u2018", "'").replace("\u2019", "'")
    s = s.replace("''", '"').replace("\u201c", '"').replace("\u201d", '"')
    s = _SEPARATE.sub(r" \1 ", s)
    s = _DOTS.sub(r" \1 ", s)
    s = " " + s + " "
    for pattern in _COMMAS:
        s = pattern.sub(r"\1 , \2", s)
    s = s.replace("--", "-")
    for pattern, repl in _APOSTROPHES:
        s = pattern.sub(repl, s)
    s = _HYPHEN.sub(r"\1 \2", s)
    s = s.replace("\u2013", "-")
    s = _periods(s, prefixes)
    s = _lower(s)
    s = _SPACES.sub(" ", s).strip(_JTRIM)
    return _RUNS.sub(" ", s)


def normalize_many(texts: Iterable[str], prefixes: Prefixes) -> list[str]:
    """:func:`normalize` over many captions, each distinct text normalised once."""
    memo: dict[str, str] = {}
    out = []
    for t in texts:
        n = memo.get(t)
        if n is None:
            n = memo[t] = normalize(t, prefixes)
        out.append(n)
    return out
