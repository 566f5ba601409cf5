"""METEOR 1.5's ``-norm`` text normalisation (behaviour specification, section 2).

Each caption is normalised on its own, before matching; the statistics count
the tokens of the result (split on single spaces).  The steps and their order
are those of the specification, section 2.1; each regular expression replaces
left to right without overlap, as the specification requires.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import compress, count, repeat

import numpy as np

__all__ = ["Prefixes", "normalize", "normalize_ids", "normalize_many"]

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
    # Only tokens ending with a period can change (found at C speed, then decided one by one in
    # order: each decision reads the next token, still unchanged then).
    tokens = list(filter(None, _TOKEN_SPLIT.split(s)))
    last = len(tokens) - 1
    for i in list(compress(count(), map(str.endswith, tokens, repeat(".")))):
        w = tokens[i]
        if w.strip("."):
            pre = w[:-1]
            nxt = tokens[i + 1] if i < last else ""
            if "." in pre and _LETTER_RE.search(pre):
                tokens[i] = w.replace(".", "")
            elif pre in prefixes.plain:
                pass
            elif nxt[:1] in _ASCII_LOWER:
                pass
            elif pre in prefixes.numeric and nxt[:1] in _DIGITS:
                pass
            else:
                tokens[i] = pre + " ."
    return " ".join(tokens)


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
    s = _steps(s.strip(_JTRIM), prefixes)
    s = _SPACES.sub(" ", s).strip(_JTRIM)
    return _RUNS.sub(" ", s)


def _steps(s: str, prefixes: Prefixes) -> str:
    """Section 2.1 from the quotes to lowercasing (spaces not yet collapsed)."""
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
    return s


def normalize_many(texts: Iterable[str], prefixes: Prefixes) -> list[str]:
    """:func:`normalize` over many captions, each distinct text normalised once.

    The common shape (:data:`_SIMPLE`) is recognised for all captions at once on their UTF-8
    bytes and normalised as one string; the other captions go through :func:`normalize`.
    """
    out, ids = normalize_ids(list(texts), prefixes)
    return [out[i] for i in ids.tolist()]


def normalize_ids(texts: list[str], prefixes: Prefixes) -> tuple[list[str], np.ndarray]:
    """The distinct normalised texts of ``texts`` (in order of first occurrence) and, per text,
    the index of its normalised text among them.

    What :func:`normalize` of each text followed by a numbering of the results gives, without
    the list of every text's result: each distinct raw text is normalised once and only the
    distinct results are hashed again.  The order is the same: the first text normalising to x
    is the first occurrence of the first distinct raw text normalising to x.
    """
    memo = dict.fromkeys(texts)
    raw = None  # per text, its distinct raw text's index (None: all distinct)
    if len(memo) == len(texts):
        norm = _normalize_distinct(list(texts), prefixes)
    else:
        distinct = list(memo)
        norm = _normalize_distinct(distinct, prefixes)
        memo.update(zip(distinct, range(len(distinct)), strict=True))
        raw = np.fromiter(map(memo.__getitem__, texts), np.int64, len(texts))
    seen: dict = dict.fromkeys(norm)
    if len(seen) == len(norm):  # the usual case: distinct raw texts normalise apart
        ids = np.arange(len(norm))
        out = norm
    else:  # numbered in order of first occurrence, looked up at C speed
        out = list(seen)
        seen.update(zip(out, range(len(out)), strict=True))
        ids = np.fromiter(map(seen.__getitem__, norm), np.int64, len(norm))
    return out, ids if raw is None else ids[raw]


# Byte classes of the simple shape: 0 anything else, 1 ASCII letter, 2 space, 3 comma, 4 period,
# 5 line break (between captions), 6 apostrophe, 7 hyphen, 8 digit.  A caption has the simple shape
# when every pair of consecutive bytes of "\n" + caption + "\n" is allowed: letters, digits,
# spaces or ", " between letters, an apostrophe or a hyphen between letters, a period only after
# a letter at the end.  Digits only touch letters, digits, spaces and line breaks: there no step
# of section 2.1 tells them from letters (the comma, apostrophe and period steps do, elsewhere).
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", np.uint8)] = 1
for _c, _k in ((" ", 2), (",", 3), (".", 4), ("\n", 5), ("'", 6), ("-", 7)):
    _CLASS[ord(_c)] = _k
_CLASS[np.frombuffer(b"0123456789", np.uint8)] = 8
_OK = ((5, 1), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 7), (2, 1), (2, 2), (3, 2),
       (4, 5), (6, 1), (7, 1), (5, 8), (8, 8), (1, 8), (8, 1), (2, 8), (8, 2), (8, 5))  # fmt: skip
# Flags of two consecutive classes (a, b), indexed by a * 16 + b (one byte): 1 when the pair is
# not allowed, 2 for two spaces (collapsed afterwards), 4 for an apostrophe or a hyphen before
# a letter (rare): not allowed when the letter is alone between two of them (the second is not
# split, the first split consuming the letter, unlike the simple route).
_FLAGS = np.ones(256, dtype=np.uint8)
for _a, _b in _OK:
    _FLAGS[_a * 16 + _b] = 0
_FLAGS[6 * 16 + 1] = _FLAGS[7 * 16 + 1] = 4
_FLAGS[2 * 16 + 2] = 2


def _simple_mask(
    data: np.ndarray, n: int, plain: frozenset
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Which of ``n`` trimmed captions have the simple shape, which of those end with a period
    after a nonbreaking prefix (the period then stays) and which hold two spaces in a row; None
    when one holds a line break.

    ``data`` are the UTF-8 bytes of "\\n" + the captions joined by "\\n" + "\\n\\0".  The
    table reads every pair of consecutive bytes but the last, so no pair holds the padding
    byte; the rare apostrophe or hyphen check (``c[at[rare] + 2]``, after a letter) reads at
    most the final line break; the break and digit searches see class 0 there (neither).
    """
    # take: with a uint8 table and uint8 indices, faster than indexing (measured 0.40 against
    # 0.72 ms on 544,000 bytes, numpy 2.4)
    c = _CLASS.take(data)
    brk = np.flatnonzero(c == 5)
    if brk.size != n + 1:
        return None
    t = c[:-2] << 4  # every pair of bytes but the last (the padding)
    t |= c[1:-1]
    flags = _FLAGS.take(t)
    # few: most bytes are fine (a bool mask: numpy's nonzero is several times faster on bools)
    at = np.flatnonzero(flags != 0)
    f = flags[at]
    rare = np.flatnonzero(f == 4)  # a letter after an apostrophe or a hyphen: alone?
    f[rare] = c[at[rare] + 2] == c[at[rare]]
    # A pair belongs to the caption its first byte is in (or starts, for a break).
    owner = np.searchsorted(brk, at, side="right") - 1
    simple = np.ones(n, dtype=bool)
    simple[owner[f == 1]] = False
    spaces = np.zeros(n, dtype=bool)
    spaces[owner[f == 2]] = True
    if _digit_prefixes(plain):  # then a word with digits may be a prefix: the full route
        simple[np.searchsorted(brk, np.flatnonzero(c == 8), side="right") - 1] = False
    # The last word before a final period: the letters after the last space, hyphen or line
    # break (after an apostrophe the word starts with it: never a prefix; a digit sends the
    # caption to the full route).
    end = brk[1:] - 1
    line = np.flatnonzero(simple & (c[end] == 4))
    keep = np.zeros(n, dtype=bool)
    words, known = _prefix_codes(plain)
    if line.size and words:
        e = end[line]
        longest = max(map(len, words))
        # The bytes before each period, nearest first, as far as a prefix can reach (byte 0
        # is a line break: nothing earlier is read).
        back = np.arange(1, longest + 2)
        win = c[np.maximum(e[:, None] - back, 0)]
        other = win != 1
        first = other.argmax(axis=1)
        found = other[np.arange(e.size), first]
        stop = win[np.arange(e.size), first]
        simple[line[found & (stop == 8)]] = False  # rare: not worth a route of its own
        ok = np.flatnonzero(found & (stop != 6) & (stop != 8))
        line, e = line[ok], e[ok]
        start = e - first[ok]
        if known is not None:  # as little-endian integers
            code = np.zeros(line.size, dtype=np.uint64)
            for d in range(longest):
                live = e - start > d
                code[live] |= data[start[live] + d].astype(np.uint64) << np.uint64(8 * d)
            # known is sorted: a search, cheaper than np.isin's sort of both
            at = np.minimum(np.searchsorted(known, code), known.size - 1)
            keep[line[known[at] == code]] = True
        else:
            got = [data[a:b].tobytes() in words for a, b in zip(start, e, strict=True)]
            keep[line[np.asarray(got, dtype=bool)]] = True
    return simple, keep, spaces


@lru_cache(maxsize=4)
def _digit_prefixes(plain: frozenset) -> bool:
    """Whether a prefix holds a digit (none of the jar's does)."""
    return any(ch in _DIGITS for w in plain for ch in w)


@lru_cache(maxsize=4)
def _prefix_codes(plain: frozenset) -> tuple[frozenset, np.ndarray | None]:
    """The ASCII letter-only prefixes as bytes, and as little-endian integers when all fit in
    8 bytes (worked out once per prefix list, not once per call)."""
    words = frozenset(w.encode() for w in plain if w.isascii() and w.isalpha())
    if not words or max(map(len, words)) > 8:
        return words, None
    return words, np.sort(np.array([int.from_bytes(w, "little") for w in words], dtype=np.uint64))


def _normalize_distinct(texts: list[str], prefixes: Prefixes) -> list[str]:
    # normalize()'s first step, then what its full route does to the simple shape, for all
    # such captions at once: spaces collapse, a comma before a space and an apostrophe become
    # their own token start, a hyphen between letters a space; a final period splits unless the
    # last word is a nonbreaking prefix.
    trimmed = texts
    joined = "\n".join(texts)
    data = np.frombuffer(("\n" + joined + "\n\0").encode("utf-8"), dtype=np.uint8)
    # The trim (code points up to U+0020, which are the bytes up to 0x20 in UTF-8) only for the
    # few captions starting or ending with such a byte, found on the bytes (a line break inside
    # a caption: the per-caption route below, which trims).
    brk = np.flatnonzero(data == 10)
    if brk.size == len(texts) + 1:
        edge = np.flatnonzero((data[brk[:-1] + 1] <= 32) | (data[brk[1:] - 1] <= 32))
        if edge.size:
            trimmed = list(texts)
            for k in edge.tolist():
                trimmed[k] = trimmed[k].strip(_JTRIM)
            joined = "\n".join(trimmed)
            data = np.frombuffer(("\n" + joined + "\n\0").encode("utf-8"), dtype=np.uint8)
    got = _simple_mask(data, len(texts), prefixes.plain) if texts else None
    if got is None:
        return [normalize(t, prefixes) for t in texts]
    simple, keep, spaces = got
    # Every caption goes through the simple route on one string (none of its replacements
    # adds or removes a line break, so line i stays caption i); the lines of the captions
    # without the simple shape are then overwritten by the full route.
    s = joined.replace(",", " ,").replace("'", " '").replace("-", " ") + "\n"
    low = s.replace(".\n", " .\n").lower().split("\n")[:-1]
    # Runs of spaces collapse, in the few lines that have them (a simple line holds no other
    # white space, and starts and ends with no space).
    for k in np.flatnonzero(spaces & simple).tolist():
        low[k] = " ".join(low[k].split())
    for k in np.flatnonzero(keep).tolist():
        low[k] = low[k][:-2] + "."
    rest = np.flatnonzero(~simple).tolist()
    if rest:
        for i, n in zip(rest, _full_many([trimmed[i] for i in rest], prefixes), strict=True):
            low[i] = n
    return low


def _full_many(texts: list[str], prefixes: Prefixes) -> list[str]:
    """:func:`_full` of trimmed captions, run once on them joined by line breaks.

    Every step looks at most one character beyond a match, or at whole tokens, and the first
    one makes each line break a token of its own between spaces; so each caption sees spaces
    around it, as alone, and a caption's result is its line of the result, trimmed.
    """
    s = "\n".join(texts)
    if s.count("\n") != len(texts) - 1:
        return [_full(t, prefixes) for t in texts]
    s = _steps(s, prefixes)
    s = _RUNS.sub(" ", _SPACES.sub(" ", s))
    return [line.strip(_JTRIM) for line in s.split("\n")]
