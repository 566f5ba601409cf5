"""A pure-Python emulation of Stanford CoreNLP 3.4.1's ``PTBLexer``.

The reference captioning pipeline (pycocoevalcap's ``PTBTokenizer``) runs the
JFlex-generated lexer of CoreNLP 3.4.1 with the options ``-preserveLines
-lowerCase``.  This module re-expresses the rules of that lexer's
specification (``PTBLexer.flex`` at tag ``v3.4.1``) as Python regular
expressions and applies them with JFlex's semantics:

- at every position the rule with the **longest** match wins, the length
  including any trailing context (``r1/r2``); ties go to the earlier rule;
- ``%caseless``: literal characters match either case, character classes
  do not (so ``[A]bout`` needs a capital A); literals are spelled out here as
  two-case classes (``[cC][aA]...``) rather than with ``re.IGNORECASE``,
  which would also fold characters such as the Kelvin sign;
- ``%unicode`` in JFlex 1.4 works on UTF-16 code units: a character outside
  the Basic Multilingual Plane is two surrogate units, which no letter or
  symbol class contains, so emoji are "untokenizable" and deleted unless a
  negated class (URLs, e-mail addresses) swallows them;
- the options of the reference run: ``tokenizeNLs`` (from ``-preserveLines``)
  and the default ``ptb3Escaping`` normalisations (brackets to ``-LRB-``,
  quotes to LaTeX style, ``...`` and ``--``, currency, fractions,
  ``&amp;``), untokenizable characters deleted.

Character classes ``[:letter:]``, ``[:digit:]`` and ``[:uppercase:]`` are
Python's Unicode categories (L*, Nd, Lu) over the BMP; the jar's tables were
made with the Unicode version of its 2014 JDK, so characters assigned since
may differ (none occurs in the real caption sets).

:func:`lex` returns the tokens of one span of text as the Java lexer would,
before lower-casing and the punctuation filter (see :mod:`.ptb`).  It is the
slow, exact path; :mod:`.ptb` sends the common simple captions through a
fast path proven equal to it.
"""

from __future__ import annotations

import functools
import re
import re._constants as _sre_constants  # the parse tree's opcodes, for _first_chars
import re._parser as _sre_parser
import unicodedata
from collections.abc import Callable

import numpy as np

__all__ = ["from_utf16_units", "lex", "to_utf16_units"]


def _ci(word: str) -> str:
    """A caseless literal: 'ab' -> '[aA][bB]', escaping the rest."""
    out = []
    for ch in word:
        lo, up = ch.lower(), ch.upper()
        if lo != up and len(lo) == len(up) == 1:
            out.append(f"[{lo}{up}]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _alts(*words: str) -> str:
    """Caseless alternatives, longest first (so leftmost-first finds the longest)."""
    return "(?:" + "|".join(_ci(w) for w in sorted(words, key=len, reverse=True)) + ")"


def _class_of(predicate: Callable[[str], bool]) -> str:
    """A regex class body for the BMP code points satisfying a predicate."""
    ranges: list[tuple[int, int]] = []
    for cp in range(0x10000):
        if 0xD800 <= cp <= 0xDFFF or not predicate(chr(cp)):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    parts = []
    for a, b in ranges:
        parts.append(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}")
    return "".join(parts)


_LETTER_CLASS = _class_of(lambda c: unicodedata.category(c) in {"Lu", "Ll", "Lt", "Lm", "Lo"})
_DIGIT_CLASS = _class_of(lambda c: unicodedata.category(c) == "Nd")
_UPPER_CLASS = _class_of(lambda c: unicodedata.category(c) == "Lu")

# ---- macros of PTBLexer.flex (v3.4.1), in its order --------------------------

LETTER_ = f"[{_LETTER_CLASS}]"  # [:letter:]
DIGIT_ = f"[{_DIGIT_CLASS}]"  # [:digit:]
UPPER_ = f"[{_UPPER_CLASS}]"  # [:uppercase:]

SGML_NAME = r"[A-Za-z][A-Za-z0-9_:\.\-]*"
SGML = (
    r"<(?:[!\?][A-Za-z\-][^>\r\n]*"
    rf"|{SGML_NAME}(?:[ ]+(?:{SGML_NAME}[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\")|{SGML_NAME}))*[ ]*/?"
    rf"|/{SGML_NAME})[ ]*>"
)
SPMDASH = rf"&{_alts('MD', 'mdash', 'ndash')};|[\u0096\u0097\u2013\u2014\u2015]"
SPAMP = _ci("&amp;")
SPPUNC = rf"&(?:{_alts('HT', 'TL', 'UR', 'LR', 'QC', 'QL', 'QR', 'odq', 'cdq')}|#[0-9]+);"
SPLET = rf"&[aeiouAEIOU]{_alts('acute', 'grave', 'uml')};"
SPACE = r"[ \t\u00a0\u2000-\u200a\u3000]"
SPACES = SPACE + "+"
NEWLINE = r"(?:\r?\n|\r|\u2028|\u2029|\u000b|\u000c|\u0085)"
SPACENL = rf"(?:{SPACE}|{NEWLINE})"
SPACENLS = SPACENL + "+"
SENTEND = rf"{SPACENL}(?:{SPACENL}|{UPPER_}|{SGML})"
DIGIT = rf"(?:{DIGIT_}|[\u07c0-\u07c9])"
DATE = rf"{DIGIT}{{1,2}}[\-/]{DIGIT}{{1,2}}[\-/]{DIGIT}{{2,4}}"
NUM = rf"(?:{DIGIT}*(?:[.:,\u00ad\u066b\u066c]{DIGIT}+)+|{DIGIT}+)"
NUMBER = rf"[\-+]?{NUM}"
SUBSUPNUM = (
    r"[\u207a\u207b\u208a\u208b]?(?:[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+|[\u2080-\u2089]+)"
)
FRAC = rf"(?:{DIGIT}{{1,4}}[- \u00a0])?{DIGIT}{{1,4}}(?:\\?/|\u2044){DIGIT}{{1,4}}"
FRAC2 = r"[\u00bc\u00bd\u00be\u2153-\u215e]"
DOLSIGN = r"(?:[A-Z]*\$|#)"
DOLSIGN2 = r"[\u00a2\u00a3\u00a4\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]"
LETTER_EXTRA = (
    r"[\u00ad\u0237-\u024f\u02c2-\u02c5\u02d2-\u02df\u02e5-\u02ff\u0300-\u036f\u0370-\u037d"
    r"\u0384\u0385\u03cf\u03f6\u03fc-\u03ff\u0483-\u0487\u04cf\u04f6-\u04ff\u0510-\u0525"
    r"\u055a-\u055f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0615-\u061a\u063b-\u063f"
    r"\u064b-\u065e\u0670\u06d6-\u06ef\u06fa-\u06ff\u070f\u0711\u0730-\u074f\u0750-\u077f"
    r"\u07a6-\u07b1\u07ca-\u07f5\u07fa\u0900-\u0903\u093c\u093e-\u094e\u0951-\u0955"
    r"\u0962-\u0963\u0981-\u0983\u09bc-\u09c4\u09c7\u09c8\u09cb-\u09cd\u09d7\u09e2\u09e3"
    r"\u0a01-\u0a03\u0a3c\u0a3e-\u0a4f\u0a81-\u0a83\u0abc-\u0acf\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8"
    r"\u0bca-\u0bcd\u0c01-\u0c03\u0c3e-\u0c56\u0d3e-\u0d44\u0d46-\u0d48\u0e30-\u0e3a\u0e47-\u0e4e"
    r"\u0eb1-\u0ebc\u0ec8-\u0ecd]"
)
LETTER = rf"(?:{LETTER_}|{SPLET}|{LETTER_EXTRA})"
WORD = rf"{LETTER}(?:{LETTER}|{DIGIT})*(?:[.!?]{LETTER}(?:{LETTER}|{DIGIT})*)*"
FILENAME_EXT = _alts(
    *"bat bmp c class cgi cpp dll doc docx exe gif gz h htm html jar java jpeg jpg mov mp3 "
    "pdf php pl png ppt ps py sql tar txt wav x xml zip".split()
)
FILENAME = rf"(?:{LETTER}|{DIGIT})+(?:[.](?:{LETTER}|{DIGIT})+)*(?:[.]{FILENAME_EXT})"
APOS = rf"(?:['\u0092\u2019]|{_ci('&apos;')})"
APOSETCETERA = rf"(?:{APOS}|[`\u0091\u2018\u201b])"
HYPHEN = r"[-_\u058a\u2010\u2011]"
_LD = rf"(?:{LETTER_}|{DIGIT_})"
_THING_PART = rf"(?:[dDoOlL]{APOSETCETERA}{_LD})?{_LD}+"
THING = rf"{_THING_PART}(?:{HYPHEN}{_THING_PART})*"
THINGA = rf"[A-Z]+(?:(?:[+&]|{SPAMP})[A-Z]+)+"
THING3 = r"[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}"
_ACRO_SPECIAL = (
    rf"{_alts('Canada', 'Sino', 'Korean', 'EU', 'Japan', 'non')}-{_ci('U.S')}"
    rf"|{_ci('U.S.-')}(?:{_ci('U.S.S.R')}|{_ci('U.K')})"
)
ACRO = rf"(?:[A-Za-z](?:\.[A-Za-z])*|{_ACRO_SPECIAL})"
ACRO2 = rf"(?:[A-Za-z](?:\.[A-Za-z])+|{_ACRO_SPECIAL})"
HTHING = rf"[A-Za-z0-9][A-Za-z0-9.,\u00ad]*(?:-(?:{ACRO2}\.|[A-Za-z0-9\u00ad]+))+"
REDAUX = rf"{APOS}(?:[msdMSD]|{_alts('re', 've', 'll')})"
SWORD = r"[A-Za-z\u00ad]*[A-MO-Za-mo-z]\u00ad*"
SREDAUX = rf"{_ci('n')}{APOSETCETERA}{_ci('t')}"
APOWORD_ALTS = [
    rf"{APOS}{_ci('n')}{APOS}?",
    rf"[lLdDjJ]{APOS}",
    rf"{_ci('Dunkin')}{APOS}",
    rf"{_ci('somethin')}{APOS}",
    rf"{_ci('ol')}{APOS}",
    rf"{APOS}{_ci('em')}",
    rf"[A-HJ-XZn]{APOSETCETERA}{LETTER_}{{2}}{LETTER_}*",
    rf"{APOS}[2-9]0{_ci('s')}",
    rf"{APOS}{_ci('til')}{_ci('l')}?",
    rf"{LETTER_}{LETTER_}*[aeiouyAEIOUY]{APOSETCETERA}[aeiouA-Z]{LETTER_}*",
    rf"{APOS}{_ci('cause')}",
    rf"{_ci('cont')}'{_ci('d')}\.?",
    rf"'{_ci('twas')}",
    rf"{_ci('nor')}'{_ci('easter')}",
    rf"{_ci('c')}'{_ci('mon')}",
    rf"{_ci('e')}'{_ci('er')}",
    rf"{_ci('s')}'{_ci('mores')}",
    rf"{_ci('ev')}'{_ci('ry')}",
    rf"{_ci('li')}'{_ci('l')}",
    rf"{_ci('nat')}'{_ci('l')}",
    rf"{_ci('O')}{APOSETCETERA}{_ci('o')}",
]
APOWORD2 = rf"{_ci('y')}{APOS}"
FULLURL = rf"{_ci('http')}{_ci('s')}?://[^ \t\n\f\r\"<>|(){{}}]+[^ \t\n\f\r\"<>|.!?(){{}},-]"
_URL_TAIL = r"(?:/[^ \t\n\f\r\"<>|()]+[^ \t\n\f\r\"<>|.!?(){},-])?"
LIKELYURL_ALTS = [
    rf"{_ci('www')}\.(?:[^ \t\n\f\r\"<>|.!?(){{}},]+\.)+[a-zA-Z]{{2,4}}{_URL_TAIL}",
    rf"(?:[^ \t\n\f\r\"`'<>|.!?(){{}},-_$]+\.)+{_alts('com', 'net', 'org', 'edu')}{_URL_TAIL}",
]
_EMAIL_DOMAIN = r"[^ \t\n\f\r\"<>|(){}.\u00a0]"
EMAIL = (
    rf"(?:{_ci('&lt;')}|<)?[a-zA-Z0-9][^ \t\n\f\r\"<>|()\u00a0{{}}]*@"
    rf"(?:{_EMAIL_DOMAIN}+\.)*(?:{_EMAIL_DOMAIN}+)(?:{_ci('&gt;')}|>)?"
)
TWITTER = rf"(?:@[a-zA-Z_][a-zA-Z_0-9]*|#{LETTER}+)"

ABMONTH = _alts(*"Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec".split())
ABDAYS = _alts(*"Mon Tue Tues Wed Thu Thurs Fri".split())


def _first_upper(word: str) -> str:
    """``[A]rk``: a case-sensitive first letter, the rest caseless."""
    return f"[{word[0]}]{_ci(word[1:])}"


ABSTATE = (
    "(?:"
    + "|".join(
        [
            _ci(w)
            for w in "Ariz Ala Calif Colo Conn Ct Dak Fla Ga Ind Kans Kan Ky Md Mich Minn".split()
        ]
        + [_ci(w) for w in "Mont Mo Neb Nev Okla Penn Tenn Va Vt Wisc Wis Wyo".split()]
        + [_first_upper(w) for w in "Az Ark Del Ill La Mass Miss Ore Pa Tex Wash".split()]
    )
    + ")"
)
ABCOMP = (
    "(?:"
    + "|".join(_ci(w) for w in "Inc Cos Co Corp Ltd Plc Rt Bancorp Bhd Assn Univ Intl Sys".split())
    + rf"|{_ci('P')}{_ci('p')}?{_ci('t')}[ye]{_ci('s')}?)"
)
ABNUM = _alts("tel", "est", "ext", "sq")
ABPTIT = rf"(?:{_alts('Jr', 'Sr', 'Bros', 'Blvd', 'Rd', 'Esq')}|{_alts('Ed', 'Ph')}\.{_ci('D')})"
_ABBREV1_MORE = _alts("etc", "al", "seq", "Bldg")
ABBREV1 = rf"(?:{ABMONTH}|{ABDAYS}|{ABSTATE}|{ABCOMP}|{ABNUM}|{ABPTIT}|{_ABBREV1_MORE})\."
ABTITLE = (
    "(?:"
    + "|".join(
        _ci(w)
        for w in (
            "Messrs Mrs Mr Ms Drs Dr Profs Prof Sens Sen Reps Rep Attys Atty Lt Col Gen Govs Gov "
            "Adm Rev Maj Sgt Cpl Pvt Capt Ste St Ave Pres Lieut Hon Brig Comdr Cmdr Pfc Spc "
            "Supts Supt Det Mt Ft Adj Adv Asst Assoc Ens Insp Mlle Mme Msgr Sfc"
        ).split()
    )
    + f"|{_first_upper('Miss')})"
)
ABCOMP2 = rf"(?:{_alts('Invt', 'Elec', 'Natl', 'Dept')}|{_ci('M')}[ft]{_ci('g')})"
_ABBREV4_MORE = _alts("vs", "Alex", "Wm", "Jos", "Cie", "a.k.a", "cf", "TREAS", "Ph")
ABBREV4 = rf"(?:{ABTITLE}|{_ABBREV4_MORE}|{ACRO}|{ABCOMP2})"
ABBREV2 = rf"{ABBREV4}\."
ACRONYM = rf"{ACRO}\."
ABBREV3 = rf"{_alts('ca', 'figs', 'fig', 'prop', 'nos', 'no', 'art', 'bldg', 'pp', 'op')}\."
PHONE = (
    r"(?:(?:\([0-9]{2,3}\)[ \u00a0]?|(?:\+\+?)?(?:[0-9]{2,4}[\- \u00a0])?[0-9]{2,4}[\- \u00a0])"
    r"[0-9]{3,4}[\- \u00a0]?[0-9]{3,5}"
    r"|(?:(?:\+\+?)?[0-9]{2,4}\.)?[0-9]{2,4}\.[0-9]{3,4}\.[0-9]{3,5})"
)
LESSTHAN = rf"(?:<|{_ci('&lt;')})"
GREATERTHAN = rf"(?:>|{_ci('&gt;')})"
HYPHENS = r"-+"
LDOTS = r"(?:\.{3,5}|(?:\.[ \u00a0]){2,4}\.|[\u0085\u2026])"
FNMARKS = r"(?:@+|#+|_+)"
ASTS = r"(?:\*+|(?:\\\*){1,3})"
INSENTP = r"[,;:\u3001]"
QUOTES_ALTS = [
    APOS,
    "''",
    r"[`\u2018\u2019\u201a\u201b\u201c\u201d\u0091\u0092\u0093\u0094\u201e\u201f\u2039\u203a\u00ab\u00bb]{1,2}",
]
DBLQUOT = rf"(?:\"|{_ci('&quot;')})"
TBSPEC = (
    rf"(?:-{_alts('RRB', 'LRB', 'RCB', 'LCB', 'RSB', 'LSB')}-"
    rf"|{_ci('C.D.s')}|{_ci('pro-')}|{_ci('anti-')}"
    rf"|{_ci('S')}(?:{SPAMP}|&){_ci('P-500')}|{_ci('S')}(?:{SPAMP}|&){_ci('Ls')}"
    rf"|{_ci('Cap')}{APOS}{_ci('n')}|{_ci('c')}{APOS}{_ci('est')})"
)
TBSPEC2 = rf"{APOS}[0-9][0-9]"
SMILEY = r"[<>]?[:;=][\-o\*']?[\(\)DPdpO\\{@\|\[\]]"
ASIANSMILEY_ALTS = [
    r"[\^x=~<>]\.\[\^" + _ci("x") + r"=~<>\]",
    r"[\-\^x=~<>']_[\-\^x=~<>']",
    r"\([\-\^x=~<>'][_.]?[\-\^x=~<>']\)",
    r"\([\^x=~<>']-[\^x=~<>'`]\)",
]
MISCSYMBOL = (
    r"[+%&~\^|\\\u00a6\u00a7\u00a8\u00a9\u00ac\u00ae\u00af\u00b0-\u00b3\u00b4-\u00ba\u00d7\u00f7"
    r"\u0387\u05be\u05c0\u05c3\u05c6\u05f3\u05f4\u0600-\u0603\u0606-\u060a\u060c\u0614\u061b"
    r"\u061e\u066a\u066d\u0703-\u070d\u07f6\u07f7\u07f8\u0964\u0965\u0e4f\u1fbd\u2016\u2017"
    r"\u2020-\u2023\u2030-\u2038\u203b\u203e-\u2042\u2044\u207a-\u207f\u208a-\u208e\u2100-\u214f"
    r"\u2190-\u21ff\u2200-\u2bff\u3012\u30fb\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]"
)
_ACRONYM_FOLLOWERS = (
    "About According Additionally After An A As At But Earlier He Her Here However If In It Last "
    "Many More Now Once One Other Our She Since So Some Such That The Their Then There These They "
    "This We When While What Yet You"
).split()
ACRONYM_NEXT = (
    "(?:"
    + "|".join(f"[{w[0]}]{_ci(w[1:])}" for w in sorted(_ACRONYM_FOLLOWERS, key=len, reverse=True))
    + rf"|[M]{_ci('r.')}|[M]{_ci('s.')}|{SGML})"
)

# ---- token normalisations of the default (ptb3Escaping) options -------------

_SOFT_HYPHEN = "\u00ad"


def _remove_soft_hyphens(s: str) -> str:
    if _SOFT_HYPHEN not in s:
        return s
    out = s.replace(_SOFT_HYPHEN, "")
    return out or "-"


def _normalize_amp(s: str) -> str:
    return re.sub("(?i:&amp;)", "&", s)


_FRACTIONS = {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}
_CURRENCY = str.maketrans(
    {"\u00a2": "cents", "\u00a3": "#", "\u0080": "$", "\u00a4": "$", "\u20a0": "$", "\u20ac": "$"}
)
_SINGLE_QUOTE = re.compile("&apos;|'")
_DOUBLE_QUOTE = re.compile('"|&quot;')
_LATEX_QUOTES = str.maketrans(
    {
        "\u0091": "`", "\u2018": "`", "\u201b": "`", "\u2039": "`",
        "\u0092": "'", "\u2019": "'", "\u203a": "'",
        "\u0093": "``", "\u201c": "``", "\u00ab": "``",
        "\u0094": "''", "\u201d": "''", "\u00bb": "''",
    }
)  # fmt: skip


def _quotes(s: str, probably_left: bool) -> str:
    """latexQuotes: the reference's default quote normalisation."""
    if probably_left:
        s = _SINGLE_QUOTE.sub("`", s)
        s = _DOUBLE_QUOTE.sub("``", s)
    else:
        s = _SINGLE_QUOTE.sub("'", s)
        s = _DOUBLE_QUOTE.sub("''", s)
    return s.translate(_LATEX_QUOTES)


def _parens(s: str) -> str:
    return s.replace("(", "-LRB-").replace(")", "-RRB-")


def _nbsp(s: str) -> str:
    return s.replace(" ", "\u00a0")


_SKIP = object()  # the rule produces no token
_NL = object()  # the newline token of -preserveLines
_ASIS: Callable[[str], str] = str


def _hyphens(s: str) -> str:
    return "--" if 3 <= len(s) <= 4 else s


# (token pattern, trailing-context pattern or None, action, pushback)
# action: a function of the matched token text, or _SKIP / _NL.
# pushback n > 0: yypushback(n) before yytext(), the token loses its last n
# characters; n < 0: yytext() before yypushback(-n), the token keeps them and
# they are lexed again (an abbreviation's period is also a sentence end).
_RULES: list[tuple[str, str | None, object, int]] = [
    (rf"{_ci('c')}[+][+]", None, _ASIS, 0),
    (r"[cCfF]#", None, _ASIS, 0),
    (_ci("cannot"), None, _ASIS, 3),
    ("'" + _ci("twas"), None, _ASIS, 3),
    ("'" + _ci("tis"), None, _ASIS, 2),
    (_alts("gonna", "gotta", "lemme", "gimme", "wanna"), None, _ASIS, 2),
    (SGML, None, _nbsp, 0),
    (SPMDASH, None, lambda s: "--", 0),
    (SPAMP, None, _normalize_amp, 0),
    (SPPUNC, None, _ASIS, 0),
    (WORD, REDAUX, _remove_soft_hyphens, 0),
    (SWORD, SREDAUX, _remove_soft_hyphens, 0),
    (WORD, None, _remove_soft_hyphens, 0),
    *[(alt, None, _ASIS, 0) for alt in APOWORD_ALTS],
    (APOWORD2, LETTER_, _ASIS, 0),
    (FULLURL, None, _ASIS, 0),
    *[(alt, None, _ASIS, 0) for alt in LIKELYURL_ALTS],
    (EMAIL, None, _ASIS, 0),
    (TWITTER, None, _ASIS, 0),
    (REDAUX, "[^A-Za-z]", lambda s: _quotes(s, False), 0),
    (SREDAUX, "[^A-Za-z]", lambda s: _quotes(s, False), 0),
    (DATE, None, _ASIS, 0),
    (NUMBER, None, _remove_soft_hyphens, 0),
    (SUBSUPNUM, None, _ASIS, 0),
    (FRAC, None, _nbsp, 0),
    (FRAC2, None, lambda s: _FRACTIONS.get(s, s), 0),
    (TBSPEC, None, _normalize_amp, 0),
    (THING3, None, _ASIS, 0),
    (DOLSIGN, None, _ASIS, 0),
    (DOLSIGN2, None, lambda s: s.translate(_CURRENCY), 0),
    (ACRONYM, rf"{SPACENLS}{ACRONYM_NEXT}{SPACENL}", "acronym", 0),
    (ABBREV3, rf"{SPACENL}?{DIGIT_}", _ASIS, 0),
    (rf"(?:{_ci('pt')}[eyEY]|{_ci('co')})\.", rf"{SPACE}{_alts('ltd', 'lim')}", _ASIS, 0),
    (ABBREV1, SENTEND, _ASIS, -1),
    (ABBREV1, r"(?s:..)", _ASIS, 0),
    (ABBREV1, None, _ASIS, -1),
    (ABBREV2, None, _ASIS, 0),
    (ABBREV4, SPACE, _ASIS, 0),
    (ACRO, SPACENL, _ASIS, 0),
    (TBSPEC2, SPACENL, _ASIS, 0),
    (FILENAME, rf"(?:{SPACENL}|[.?!,])", _ASIS, 0),
    (rf"{WORD}\.", INSENTP, _remove_soft_hyphens, 0),
    (PHONE, None, lambda s: _parens(_nbsp(s)), 0),
    (DBLQUOT, "[A-Za-z0-9$]", lambda s: _quotes(s, True), 0),
    (DBLQUOT, None, lambda s: _quotes(s, False), 0),
    ("\x7f", None, _SKIP, 0),
    (LESSTHAN, None, lambda s: "<", 0),
    (GREATERTHAN, None, lambda s: ">", 0),
    (SMILEY, "[^A-Za-z0-9]", _parens, 0),
    *[(alt, None, _parens, 0) for alt in ASIANSMILEY_ALTS],
    (r"\{", None, lambda s: "-LCB-", 0),
    (r"\}", None, lambda s: "-RCB-", 0),
    (r"\[", None, lambda s: "-LSB-", 0),
    (r"\]", None, lambda s: "-RSB-", 0),
    (r"\(", None, lambda s: "-LRB-", 0),
    (r"\)", None, lambda s: "-RRB-", 0),
    (HYPHENS, None, _hyphens, 0),
    (LDOTS, None, lambda s: "...", 0),
    (FNMARKS, None, _ASIS, 0),
    (ASTS, None, _ASIS, 0),
    (INSENTP, None, _ASIS, 0),
    (r"[?!]+", None, _ASIS, 0),
    ("[.\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002]", None, _ASIS, 0),
    ("=", None, _ASIS, 0),
    ("/", None, _ASIS, 0),
    (rf"{HTHING}\.", INSENTP, _remove_soft_hyphens, 0),
    (HTHING, None, _remove_soft_hyphens, 0),
    (rf"{THING}\.", INSENTP, _ASIS, 0),
    (THING, None, _ASIS, 0),
    (rf"{THINGA}\.", INSENTP, _normalize_amp, 0),
    (THINGA, None, _normalize_amp, 0),
    ("'", "[A-Za-z][^ \t\n\r\u00a0]", lambda s: _quotes(s, True), 0),
    (REDAUX, None, lambda s: _quotes(s, False), 0),
    (SREDAUX, None, lambda s: _quotes(s, False), 0),
    *[(alt, None, lambda s: _quotes(s, False), 0) for alt in QUOTES_ALTS],
    ("<<|>>", None, _ASIS, 0),
    (MISCSYMBOL, None, _ASIS, 0),
    (f"\x00|{SPACES}|[\u200b\u200e\u200f\ufeff]", None, _SKIP, 0),
    (NEWLINE, None, _NL, 0),
    (_ci("&nbsp;"), None, _SKIP, 0),
    (r"[^\n]", None, _SKIP, 0),  # untokenizable: deleted (the reference logs a warning)
]


@functools.cache
def _compiled_rules() -> tuple[list[tuple[re.Pattern, object, int]], np.ndarray]:
    """The compiled rules and, per UTF-16 code unit, which rules can start there.

    Built on first use (compiling the rules takes a few hundred ms).  Row c
    of the dispatch table lists the rules whose first character can be c
    (from each pattern's parse tree, see :func:`_first_chars`); the lexer
    tries only those, in rule order.
    """
    compiled = []
    first = np.zeros((len(_RULES), 0x10000), dtype=bool)
    for r, (tok, ctx, action, pushback) in enumerate(_RULES):
        pattern = f"({tok})" + (f"(?:{ctx})" if ctx else "")
        compiled.append((re.compile(pattern), action, pushback))
        first[r] = _first_chars(pattern)
    return compiled, first


@functools.cache
def _rules_for(unit: int) -> tuple[tuple[re.Pattern, object, int], ...]:
    compiled, first = _compiled_rules()
    return tuple(compiled[r] for r in np.flatnonzero(first[:, unit]))


def _first_chars(pattern: str) -> np.ndarray:
    """Which BMP code units can begin a match of ``pattern`` (a superset).

    Walks the parse tree of Python's regex compiler; anything it does not
    model (or a pattern that can match the empty string) yields "any".
    """
    everything = np.ones(0x10000, dtype=bool)
    try:
        tree = _sre_parser.parse(pattern)
    except Exception:  # pragma: no cover - a parser change: be conservative
        return everything
    chars, nullable = _first_of_sequence(tree)
    return everything if nullable else chars


def _first_of_sequence(items) -> tuple[np.ndarray, bool]:
    acc = np.zeros(0x10000, dtype=bool)
    for op, av in items:
        chars, nullable = _first_of_item(op, av)
        acc |= chars
        if not nullable:
            return acc, False
    return acc, True


def _first_of_item(op, av) -> tuple[np.ndarray, bool]:
    c = _sre_constants
    out = np.zeros(0x10000, dtype=bool)
    if op is c.LITERAL:
        if av < 0x10000:
            out[av] = True
        return out, False
    if op is c.IN:
        negate = False
        for sub_op, sub_av in av:
            if sub_op is c.NEGATE:
                negate = True
            elif sub_op is c.LITERAL:
                if sub_av < 0x10000:
                    out[sub_av] = True
            elif sub_op is c.RANGE:
                out[sub_av[0] : min(sub_av[1], 0xFFFF) + 1] = True
            else:  # categories and the like: anything
                out[:] = True
        return (~out if negate else out), False
    if op is c.BRANCH:
        nullable = False
        for branch in av[1]:
            chars, n = _first_of_sequence(branch)
            out |= chars
            nullable |= n
        return out, nullable
    if op is c.SUBPATTERN:
        return _first_of_sequence(av[-1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        chars, nullable = _first_of_sequence(av[2])
        return chars, nullable or av[0] == 0
    if op is c.ATOMIC_GROUP:
        return _first_of_sequence(av)
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return out, True
    out[:] = True  # NOT_LITERAL, ANY, GROUPREF, ...: anything
    return out, False


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogates(m: re.Match) -> str:
    cp = ord(m.group()) - 0x10000
    return chr(0xD800 + (cp >> 10)) + chr(0xDC00 + (cp & 0x3FF))


def to_utf16_units(text: str) -> str:
    """Split characters outside the BMP into their two UTF-16 surrogate units."""
    return _ASTRAL.sub(_surrogates, text)


def from_utf16_units(token: str) -> str:
    """Join surrogate pairs back into characters (as Java's UTF-8 writer does)."""
    if token.isascii():
        return token
    return token.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


# Shortcuts that skip the rule loop where its outcome is certain: a run of
# spaces/tabs (only the SPACES rule starts there), and a plain ASCII word
# followed by a space, tab or newline, which every applicable rule returns
# as itself (WORD, THING; ACRO/{SPACENL} and ABBREV4/{SPACE} match longer
# with trailing context but return the same text), except the words that
# the split-assimilation rules cut in two.
_BLANKS = re.compile(r"[ \t]+")
_PLAIN_WORD = re.compile(r"[A-Za-z]+(?=[ \t\n])")
_SPLIT_WORDS = frozenset(["cannot", "gonna", "gotta", "lemme", "gimme", "wanna"])


def lex(text: str, start: int = 0, end: int | None = None) -> list:
    """Tokens of ``text[start:end]`` as the Java lexer returns them.

    ``text`` must already be in UTF-16 units (:func:`to_utf16_units`); the
    rules may look past ``end`` (trailing context), as the Java lexer looks
    past the end of a line.  Returns token strings, with the module-level
    ``NL`` marker for each newline token.
    """
    if end is None:
        end = len(text)
    tokens: list = []
    pos = start
    while pos < end:
        m = _BLANKS.match(text, pos)
        if m is not None:
            pos = m.end()
            continue
        m = _PLAIN_WORD.match(text, pos)
        if m is not None and m.group().lower() not in _SPLIT_WORDS:
            tokens.append(m.group())
            pos = m.end()
            continue
        best_len = -1
        best = None
        for pattern, action, pushback in _rules_for(ord(text[pos])):
            m = pattern.match(text, pos)
            if m is not None and m.end() - pos > best_len:
                best_len = m.end() - pos
                best = (m, action, pushback)
        m, action, pushback = best
        tok = m.group(1)
        if action == "acronym":
            # yylength() == 2 ("I.", "K."): the letter, then the period next time;
            # else the acronym with its period, and the period again next time
            if len(tok) == 2:
                tokens.append(tok[0])
                pos += 1
            else:
                tokens.append(tok)
                pos += len(tok) - 1
            continue
        if pushback > 0:
            tok = tok[: len(tok) - pushback]
        pos += len(tok) + min(pushback, 0)
        if action is _SKIP:
            continue
        tokens.append(NL if action is _NL else action(tok))
    return tokens


NL = _NL
