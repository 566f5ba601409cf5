"""Regular-expression character classes and word patterns built from :mod:`._ptb_tables`.

Everything here is data turned into compiled patterns once, at import; the
rules that use them are in :mod:`._ptb_exact`.
"""

from __future__ import annotations

import re

from . import _ptb_tables as t

__all__ = [
    "ABBR_KEEP",
    "ABBR_NUMBER",
    "ABBR_SENTENCE",
    "CASED",
    "DIGIT",
    "ENTITY_LETTER",
    "ENTITY_LETTER_RE",
    "LETTER",
    "LOOKAHEAD_SPACE",
    "LRUN",
    "OWN",
    "OWN_NUMBER_INNER",
    "OWN_RUNS",
    "PLAIN_CONT",
    "PLAIN_LETTER",
    "PLAIN_RUN",
    "RUN",
    "SPACE_CLASS",
    "STARTER_AFTER_RE",
    "UNICODE_HYPHENS",
    "WORD_CHAR_CLASS",
    "WORD_CHAR_RE",
    "WORD_CONT",
    "abbreviation_re",
    "code_points",
    "ranges_to_class",
]


def ranges_to_class(ranges: str) -> str:
    """``"0041-005A 00AA"`` -> the inside of a regex character class."""
    parts = []
    for item in ranges.split():
        lo, _, hi = item.partition("-")
        a, b = int(lo, 16), int(hi or lo, 16)
        parts.append(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}")
    return "".join(parts)


def code_points(ranges: str) -> frozenset[str]:
    """The characters of ``ranges`` as a set."""
    out = set()
    for item in ranges.split():
        lo, _, hi = item.partition("-")
        out.update(chr(c) for c in range(int(lo, 16), int(hi or lo, 16) + 1))
    return frozenset(out)


# The letters of a word (digits excluded: numbers have rules of their own).
_letters = ranges_to_class(t.LETTERS) + "\u03a3"
# An HTML entity of a vowel with an acute, a grave or an umlaut counts as a
# letter ("caf&eacute;s", "&Eacute;cole"; sections 8, 21.3), but not in a
# word joined by hyphens (PLAIN_RUN)
ENTITY_LETTER = "&[aeiouAEIOU](?i:acute|grave|uml);"
ENTITY_LETTER_RE = re.compile(ENTITY_LETTER)
PLAIN_LETTER = f"(?:(?![0-9])[{_letters}])"
LETTER = f"(?:{PLAIN_LETTER}|{ENTITY_LETTER})"
# The soft hyphen acts as a mark inside words (the reference drops it from word
# tokens afterwards; section 20), not listed in appendix A's marks.
MARK = f"[{ranges_to_class(t.MARKS)}\xad]"
DIGIT = "[0-9]"
#: A character that continues a word: a letter, a digit, or a mark not after a digit.
WORD_CONT = f"(?:{LETTER}|{DIGIT}|(?<![0-9]){MARK})"
#: A run of word characters (a mark may start it, not follow a digit).
RUN = f"(?:(?:{LETTER}|{DIGIT}|{MARK}){WORD_CONT}*)"
#: A word character but an entity letter, after the first.
PLAIN_CONT = f"(?:{PLAIN_LETTER}|{DIGIT}|(?<![0-9]){MARK})"
#: A run of word characters without an entity letter (the parts of a hyphenated word).
PLAIN_RUN = f"(?:(?:{PLAIN_LETTER}|{DIGIT}|{MARK}){PLAIN_CONT}*)"
#: A run that begins with a letter or mark.
LRUN = f"(?:(?:{LETTER}|{MARK}){WORD_CONT}*)"
WORD_CHAR_RE = re.compile(f"(?:{LETTER}|{DIGIT}|{MARK})")
LETTER_RE = re.compile(LETTER)

UNICODE_HYPHENS = "\u058a\u2010\u2011"
OWN = code_points(t.OWN)
OWN_RUNS = code_points(t.OWN_RUNS)
OWN_NUMBER_INNER = code_points(t.OWN_NUMBER_INNER)
SPACE_LIKE = code_points(t.SPACE_LIKE)
#: Spaces for the look-ahead rules: these and the line end.
LOOKAHEAD_SPACE = code_points(t.LOOKAHEAD_SPACES) | {"\n"}
SPACE_CLASS = "[" + ranges_to_class(t.LOOKAHEAD_SPACES) + "\\n]"
# Appendix C leaves out A, B, a and b (an artefact of its probe, "ΑΣ-" then the
# letter): the jar lowers "ΑΣa" to "ασa", so they are cased like every letter.
CASED = code_points(t.CASED) | frozenset("ABab")
UPPERCASE = code_points(t.UPPERCASE)


def _pattern(entry: str) -> str:
    # a list entry: "[Aa][Dd]." with literal letters; the period is literal
    return entry.replace(".", r"\.")


def abbreviation_re(entries: tuple[str, ...]) -> re.Pattern:
    """One pattern matching exactly the listed forms (each with its final period)."""
    return re.compile("|".join(_pattern(e) for e in sorted(entries, key=len, reverse=True)))


# "Messrs." is in the specification's examples (section 12) but not in its lists
ABBR_KEEP = abbreviation_re(t.ABBR_TITLE + t.ABBR_SENTENCE + ("[Mm][Ee][Ss][Ss][Rr][Ss].",))
ABBR_NUMBER = abbreviation_re(t.ABBR_NUMBER)
ABBR_SENTENCE = abbreviation_re(t.ABBR_SENTENCE)
STARTER = (
    "(?:"
    + "|".join(
        _pattern(e) for e in sorted(t.STARTERS + t.STARTER_ABBREVIATIONS, key=len, reverse=True)
    )
    + ")"
)
#: After a single-letter abbreviation's period: spaces, a sentence starter, a space.
STARTER_AFTER_RE = re.compile(f"{SPACE_CLASS}+{STARTER}{SPACE_CLASS}")
#: One word character (a letter, digit or mark), as a one-character class.
WORD_CHAR_CLASS = f"[{_letters}{ranges_to_class(t.MARKS)}\xad]"
