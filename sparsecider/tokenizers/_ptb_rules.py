"""The token rules of the PTB tokenizer's exact path: patterns and character tables.

Written from the behaviour specification ``PTB_BEHAVIOUR.md`` (section numbers
in comments refer to it) and black-box runs of the reference jar, with no
CoreNLP code or specification.  :mod:`._ptb_exact` scans text with them.
"""

from __future__ import annotations

import re

from . import _ptb_classes as c

__all__ = [
    "ACRONYM",
    "ADDR_RUN",
    "AMPERSAND",
    "APOS",
    "APOS_CLITIC",
    "APOS_PREFIX",
    "APOS_WORD",
    "ASCII_ALNUM",
    "ASCII_LETTERS",
    "AT_WORD",
    "CLITIC",
    "CPLUSPLUS",
    "CURLY_EM",
    "CURRENCY_PREFIX",
    "DOMAIN",
    "DOMAIN_RUN",
    "DOTTED",
    "ENTITY_TEXT",
    "ENTITY_WORD",
    "FILE_NAME",
    "FILE_NAME_RUN",
    "FRACTION_PAIR",
    "HAS_DOMAIN",
    "HYPHEN_FRACTION",
    "HYPH_DOT",
    "HYPH_DOT_RUN",
    "LONE_CLITIC",
    "MULTI",
    "NT",
    "NT_QUOTES",
    "NUMBER",
    "N_CLITIC",
    "PHONE",
    "PLAIN_WORD",
    "PLAIN_WORD_AT",
    "PREFIX",
    "PUNCTUATIONS",
    "QUOTE_CHARS",
    "QUOTE_WORD",
    "SGML",
    "SHARP",
    "SLASHED",
    "SPACES",
    "SPECIAL",
    "SYMBOL_RULES",
    "TIS",
    "URL",
    "URL_PATH",
    "URL_PATH_RUN",
    "URL_WWW",
    "URL_WWW_RUN",
    "WORD",
    "WORD_RULES",
    "WORD_RULES_AT",
    "YEAR",
    "drop_soft_hyphens",
    "followed_by_starter",
    "lower_token",
    "period_stays",
    "rewrite_brackets",
]

LETTER, DIGIT, RUN, LRUN = c.LETTER, c.DIGIT, c.RUN, c.LRUN
WORD_CONT = c.WORD_CONT

#: pycocoevalcap's punctuation filter (exact, case-sensitive matches).
PUNCTUATIONS = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--",
     "...", ";"]
)  # fmt: skip

APOS = "'\u2019"  # straight and curly apostrophes act alike in clitics (section 9)

# ---- words and numbers (sections 5, 6) ------------------------------------------------
_JOIN = "[-_" + c.UNICODE_HYPHENS + "]"
_PRUN = c.PLAIN_RUN
WORD = re.compile(
    # (a word that starts with a soft hyphen joins no hyphen: "\xadTWO-SEATER")
    f"\xad{WORD_CONT}*|(?!\xad)(?:{_PRUN}(?<=[0-9])(?:[.,]{DIGIT}+)+(?=-{_PRUN})|{_PRUN})"
    f"(?:{_JOIN}{_PRUN})*"
)
#: A run holding entity letters: no hyphen joins it, nor a digit before
#: ("9on" "&eacute;"; section 21.3).
ENTITY_WORD = re.compile(f"(?:{LETTER}|{c.MARK}){WORD_CONT}*")
#: The run of dot groups a failed :data:`FILE_NAME` has read (it fails from
#: every later start in it: linear time).
FILE_NAME_RUN = re.compile("[A-Za-z0-9]*(?:[.][A-Za-z0-9]+)*")
#: A number, a hyphen and a fraction ("1-1/2"; section 21.1).
HYPHEN_FRACTION = re.compile(f"{DIGIT}+-{DIGIT}+/{DIGIT}+")
#: Prefixes that keep their hyphen before a space ("anti- and pro-war").
PREFIX = re.compile(f"(?i:anti|pro)-(?!{WORD_CONT}|-)")
DOTTED = re.compile(f"{LRUN}(?:[.!?]{LRUN})+")
#: ASCII letters, digits, periods and commas joined by hyphens to ASCII letters
#: and digits ("road.2.5-inch", "dog.-x", "U.S.-based", "trains,-LRB"; section 20).
HYPH_DOT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,]*(?:-[A-Za-z0-9]+)+")
HYPH_DOT_RUN = re.compile(r"[A-Za-z0-9.,]*")
# two or three words of ASCII letters and digits joined by "/", a hyphen joining
# only letters inside each: "and/or", "a-b/c", "red/white/blue" (section 21.1)
_SLASH_PART = "[A-Za-z0-9]+(?:-[A-Za-z]+)*"
SLASHED = re.compile(f"{_SLASH_PART}(?:/{_SLASH_PART}){{1,2}}")
# an e-mail address: an ASCII letter or digit (or "<") first, then anything but
# spaces, brackets ( ) < > { }, "|" and '"' on both sides of the "@"; no final "."
_ADDR = '[^ \\t\\n\\xa0()<>{|}"'
# (the part after the "@" has no empty dot group: "a@b...c" is "a@b" "..." "c")
AT_WORD = re.compile(f"[A-Za-z0-9<]{_ADDR}@]*@{_ADDR}.]+(?:\\.{_ADDR}.]+)*")
#: A word of ASCII letters (soft hyphens aside: section 20).
ASCII_LETTERS = re.compile("[A-Za-z\xad]+")
ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
#: The run of local-part characters after an address's first character.
ADDR_RUN = re.compile(f"{_ADDR}@]*")
NUMBER = re.compile(
    # (".", "," and ":" mix: "2:30.10", "1,5:30"; section 21.7)
    f"[-+]?(?:{DIGIT}+(?:[.,:]{DIGIT}+)+|{DIGIT}+(?:/{DIGIT}+){{1,2}}|{DIGIT}+)"
)
#: A file name that starts with a digit, by its extension ("5.txt", "3d.h"; section 21.10).
FILE_NAME = re.compile(
    "[0-9][A-Za-z0-9]*(?:[.][A-Za-z0-9]+)*[.](?i:c|h|x|gz|pl|ps|py|bat|bmp|cgi|cpp|dll|docx?"
    # (then a space, "." "," "!" "?" or the end: "5.h:" -> "5" "." "h" ":")
    "|exe|gif|html?|jar|java|jpe?g|mov|pdf|php|png|ppt|sql|tar|txt|wav|xml|zip)(?=[\\s.,!?]|\\Z)"
)
SIGNED = re.compile(f"[-+](?:{DIGIT}|[.,:](?={DIGIT}))(?:{DIGIT}|[.,:](?={DIGIT}))*")
POINT_NUMBER = re.compile(f"[.,:]{DIGIT}+(?:[.,:]{DIGIT}+)*")
# Numbers separated by single spaces that become one token (section 6).
FRACTION_PAIR = re.compile(f"{DIGIT}+[ \xa0]{DIGIT}+/{DIGIT}+(?!{DIGIT})")
PHONE = re.compile(
    r"(?:\+?[0-9]{2,4} |\(\+?[0-9]{2,4}\) ?)(?:[0-9]{2,4} )?[0-9]{3,4}[ -]?[0-9]{3,}(?![0-9])"
)
# capitals joined by "&" ("AT&T", "S&AMP;P") or "+" ("A+B"; section 21.9)
AMPERSAND = re.compile(r"[A-Z]+&(?i:amp;)?[A-Z]+(?:-[0-9]+)?|[A-Z]+\+[A-Z]+")
CPLUSPLUS = re.compile(r"[Cc]\+\+")
SHARP = re.compile(r"[CcFf]#")
CURRENCY_PREFIX = re.compile(r"[A-Z]+\$")
_TLD = "com|net|org|edu|gov|mil|int|info|biz|co|uk|us|ca|de|fr|jp|au|io|tv|me"
# after "http://", "www." or a domain: anything but spaces, brackets and quotes,
# not ending in "." "," ";" "!" "?" "-"
# (two characters at least: "http://x" is no address; section 21.11)
_URL_BODY = r"[^\s<>\"(){}\[\]]+[^\s<>\"(){}\[\].,;!?-]"
URL = re.compile(
    rf"(?i:https?://){_URL_BODY}|mailto:[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
)
# "www." needs a path (section 20); its host: dot groups of anything but ASCII
# spaces and , " ( ) { } < > / ! ? | ("www.a★b.uk/xy", "www.a\xa0b.uk/xy"), the
# last of 2 to 4 ASCII letters ("www.a.b/xy", "www.a.uk²/xy" are none; section 21.11)
_WWW_GROUP = '[^ \t\n,"(){}<>/!?|.]+'
URL_WWW = re.compile(f"(?i:www\\.)(?:{_WWW_GROUP}\\.)+[A-Za-z]{{2,4}}/{_URL_BODY}")
#: The host run a failed "www." has read (no empty dot group: "www..www.a.uk/x").
URL_WWW_RUN = re.compile(f"(?:{_WWW_GROUP}|[.](?![.]))*")
# a domain name with a path
URL_PATH = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*\.(?:com|org|net|edu|gov)[/?]"
    r"[^\s<>\"(){}\[\]]+[^\s<>\"(){}\[\].,;!?-]"
)
URL_PATH_RUN = re.compile("[A-Za-z0-9.-]*")
# A domain in .com, .org, .net or .edu: dot groups of anything but ASCII capitals
# and digits, " ", tab and $ ' ( ) , - / : ; < = > [ \ ] ^ _ ` { | } " @ ! ?
# ("a★b.com", "&ab.com", "exa&mple.com"; no boundary needed after it:
# "a★b.comx" -> "a★b.com" "x"; section 20)
_DOMAIN_PART = r'[^A-Z0-9 \t\n.$\'(),\-/:;<=>\[\\\]^_`{|}"@!?]+'
DOMAIN = re.compile(rf"{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*\.(?i:com|org|net|edu)")
HAS_DOMAIN = re.compile(r"\.(?i:com|org|net|edu)")
#: The dot groups a domain may span from a position (where it could end).
DOMAIN_RUN = re.compile(rf"{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*")
# Words that keep an apostrophe (section 9).
# after d, l, n, o an apostrophe word joins hyphens ("o'clock-x"; section 21.4)
_HYPHENS_ON = f"(?:{_JOIN}{_PRUN})*"
_OPEN = f"{APOS}\u2018\u201b`"
_PL, _PC = c.PLAIN_LETTER, c.PLAIN_CONT  # no entity letter inside (section 21.4)
APOS_WORD = re.compile(
    f"(?:[DdLlNnOo][{_OPEN}]{_PL}{{2,}}{_PC}*"
    # d', l', o' before two letters or digits ("o'123", "d'90sown")
    f"|[DdLlOo][{APOS}](?:{_PL}|{DIGIT}){{2,}}{_PC}*){_HYPHENS_ON}"
    f"|[A-HJ-XZ][{_OPEN}]{_PL}{{2,}}{_PC}*"
    # a vowel, the apostrophe, a vowel ("pe'e", "graffiti'ed")
    # (only letters after it: "pe'e2" -> "pe'e" "2"; no entity letter: section 21.4)
    f"|{_PL}{_PL}+(?<=[AEIOUYaeiouy])[{_OPEN}][AEIOUaeiouA-Z](?:{_PL}|{c.MARK})*"
    f"|(?i:qu[{APOS}]il|ma[{APOS}]am|ne[{APOS}]er|o[{APOS}]er"
    f"|hawai[{APOS}]i)(?!{LETTER})|(?i:cont'd\\.)"
    # closed words that need no boundary after them (section 21.4)
    f"|(?i:(?:li'l|nat'l)(?!l)|ev'ry|c'mon|e'er|o[{APOS}]o|c[{APOS}]est|cap[{APOS}]n"
    # (not before the letters of a clitic or, after n, of n't: "ol'screen" -> "ol" "screen")
    f"|(?:ol|dunkin|somethin)[{APOS}](?!s|d|m|re|ve|ll|(?<=n.)t))"
)
# "y'all", "l'a", "d'k"; not "y'" before a clitic's letters ("y'sitting", "y'dog")
APOS_PREFIX = re.compile(
    f"[LlDd][{APOS}]|[JjYy][{APOS}](?!(?i:s|d|m|re|ve|ll))(?={LETTER})"
    f"|[Jj][{APOS}](?!{LETTER})"  # "j'" before anything but a letter, as "d'" (section 21.4)
)
MULTI = {"gonna": 3, "gotta": 3, "wanna": 3, "lemme": 3, "gimme": 3, "cannot": 3}

#: ASCII letters followed by a character that ends every word rule.
# (no other word rule can match longer: each needs, right after the letters, a
# character that is none of these; "." "!" "?" join only a following letter,
# an entity letter's "&" included: "dishes.&uuml;")
PLAIN_WORD = re.compile(
    r"(?!(?i:www\.))[A-Za-z]+(?=[ \n,;()\[\]{}\"<>*%=~^|\\]"
    r"|[.!?](?:[\x00-\x25\x27-\x2b/:-\x40\x5b-\x60\x7b-\x7f]|\Z)|\Z)"
)
# (a straight clitic must not run on into an ASCII letter; any other character ends it)
#: Where the text holds an "@", only what ends an e-mail address ends a plain word.
PLAIN_WORD_AT = re.compile(r'[A-Za-z]+(?=[ \t\n()<>{}"|]|\Z)')
# ("&apos;" is read as a curly apostrophe: section 21.5)
CLITIC = re.compile("'(?i:s|m|d|re|ve|ll)(?![A-Za-z])|\u2019(?i:s|m|d|re|ve|ll)")
NT = re.compile(f"(?i:[{APOS}`\u2018]t){c.PLAIN_LETTER}*")
# "'n" before a space or the end, "'n'"; a curly "’n" before anything (section 20)
N_CLITIC = re.compile(f"'[nN]'|'[nN](?={c.SPACE_CLASS}|\\Z)|\u2019[nN][{APOS}]?")
APOS_CLITIC = re.compile(f"(.+?)[{APOS}](?i:s|m|d|re|ve|ll)")
NT_QUOTES = APOS + "`&\u2018"
ACRONYM = re.compile(r"[A-Za-z](?:\.[A-Za-z])+")

# ---- quotes and apostrophes at a token start -------------------------------------------
LONE_CLITIC = CLITIC
# a decade ("'90s"), or two digits before a space or the end ("'85")
YEAR = re.compile(f"[{APOS}](?:[1-9]0[sS]|[0-9]{{2}}(?={c.SPACE_CLASS}|\\Z))")
QUOTE_WORD = re.compile("'(?i:em|cause|n'|till?)")
#: A curly "\u2019em", "\u2019cause", "\u2019til" stays as typed, needing no boundary.
CURLY_EM = re.compile("\u2019(?i:em|cause|till?)")
TIS = re.compile("'(?i:t)(?=(?i:is|was))")

#: Curly, angle and low quotes and the backtick: two of them in a row are one
#: token, each rewritten (sections 10, 21.6).
QUOTE_CHARS = (
    "\u2018\u2019\u201b\u2039\u203a\u201c\u201d\xab\xbb\x91\x92\x93\x94\u201a\u201e\u201f`"
)

# ---- other symbols ---------------------------------------------------------------------
# (any letter case; "&quot;" is decoded in lower case only: section 21.3)
ENTITY = re.compile(r"&(?i:amp|lt|gt|quot|apos|nbsp|mdash|ndash);|&#[0-9]+;")
ENTITY_TEXT = {"&amp;": "&", "&AMP;": "&", "&Amp;": "&", "&lt;": "<", "&LT;": "<",
                "&gt;": ">", "&GT;": ">", "&quot;": "''", "&apos;": "'", "&nbsp;": "",
                "&NBSP;": "", "&mdash;": "--", "&ndash;": "--"}  # fmt: skip
SGML = re.compile(
    r"<(?:/?[A-Za-z][A-Za-z0-9:_.-]*"
    # (only a quoted value may hold a line end: a tag may span captions only there)
    r"(?:[^\S\n]+[A-Za-z_:][-A-Za-z0-9_:.]*"
    r"(?:[^\S\n]*=[^\S\n]*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"']+))?)*[^\S\n]*/?"
    r"|!--[^<>]*--)>"
)
EMOTICON = re.compile(
    # (a brow "<", a nose "o" or "*", a mouth "{"; "3" without a nose; the faces
    # need no boundary: section 21.8)
    r"(?:[<>]?[:;=][-'o*]?[)(\]\[{DdPp@|\\O]|>?:3)"
    "(?![A-Za-z0-9])"
    r"|\((?:\^_\^|-_-|>_<)\)|\^_\^|>_<|-_-"
)
BRACKET_WORD = re.compile(r"-(?i:LRB|RRB|LSB|RSB|LCB|RCB)-")
ELLIPSIS = re.compile(r"\.{3,5}|\.(?: \.){2,}")
DASHES = re.compile(r"-{2,}")
HASH_WORD = re.compile(f"#{LETTER}+")
AT_HANDLE = re.compile("@[A-Za-z_][A-Za-z0-9_]*")  # section 21.2
BANGS = re.compile(r"[!?]+")

# The rules of a token that starts with a symbol, by the symbols they can start with
# (in order: the first listed wins a tie).
_SYMBOL_RULE_STARTS = (
    (SGML, "sgml", "<"), (ENTITY, "entity", "&"), (EMOTICON, "emoticon", "<>:;=(^-"),
    (PHONE, "phone", "(+"), (BRACKET_WORD, "bracket", "-"), (SIGNED, "number", "-+"),
    (POINT_NUMBER, "number", ".,:"), (ELLIPSIS, "ellipsis", "."), (DASHES, "dashes", "-"),
    (HASH_WORD, "plain", "#"), (AT_HANDLE, "plain", "@"), (BANGS, "plain", "!?"),
)  # fmt: skip
SYMBOL_RULES: dict[str, tuple] = {}
for _rule, _name, _starts in _SYMBOL_RULE_STARTS:
    for _ch in _starts:
        SYMBOL_RULES[_ch] = (*SYMBOL_RULES.get(_ch, ()), (_rule, _name))

_BRACKETS = {"(": "-LRB-", ")": "-RRB-", "[": "-LSB-", "]": "-RSB-", "{": "-LCB-", "}": "-RCB-"}
#: Characters rewritten on their own (section 10, 11; appendix A "special").
SPECIAL = {
    **_BRACKETS,
    "\u2013": "--", "\u2014": "--", "\u2015": "--", "\x96": "--", "\x97": "--",
    "\x80": "$", "\xa4": "$", "\u20a0": "$", "\u20ac": "$",
    "\x91": "`", "\u2018": "`", "\u201b": "`", "\u2039": "`",
    "\x92": "'", "\u2019": "'", "\u203a": "'",
    "\x93": "``", "\xab": "``", "\u201c": "``",
    "\x94": "''", "\xbb": "''", "\u201d": "''",
    '"': "''", "\xa2": "cents", "\xa3": "#",
    "\xbc": "1/4", "\xbd": "1/2", "\xbe": "3/4", "\u2026": "...", "\u2153": "1/3", "\u2154": "2/3",
}  # fmt: skip


# The token rules of a word, in order (the first listed wins a tie), each with
# the ASCII characters it can start with: an ASCII character tries only its own.
_LET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_DIG, _CAPS = "0123456789", _LET[:26]
_WORD_RULE_STARTS = (
    (URL, "url", "hHm"), (AMPERSAND, "amp", _CAPS), (APOS_WORD, "apos", _LET),
    (CPLUSPLUS, "plain", "Cc"), (SHARP, "plain", "CcFf"), (CURRENCY_PREFIX, "plain", _CAPS),
    (PHONE, "phone", _DIG), (FRACTION_PAIR, "phone", _DIG), (NUMBER, "number", _DIG),
    (SLASHED, "number", _LET + _DIG), (FILE_NAME, "number", _DIG),
    (DOTTED, "dotted", _LET + "&"), (WORD, "word", _LET + _DIG),
    (ENTITY_WORD, "word", _LET + "&"), (HYPHEN_FRACTION, "word", _DIG),
    (APOS_PREFIX, "prefix", "LlDdJjYy"), (PREFIX, "plain", "AaPp"),
)  # fmt: skip
WORD_RULES = tuple((rule, name) for rule, name, _ in _WORD_RULE_STARTS)
WORD_RULES_AT = {
    chr(k): tuple((rule, name) for rule, name, starts in _WORD_RULE_STARTS if chr(k) in starts)
    for k in range(128)
}


def rewrite_brackets(s: str) -> str:
    for k in "()":
        s = s.replace(k, _BRACKETS[k])
    return s


SPACES = re.compile(c.SPACE_CLASS + "+")


def followed_by_starter(text: str, pos: int) -> bool:
    """A sentence starter after the period ending at ``pos`` (section 14)."""
    if c.STARTER_AFTER_RE.match(text, pos) is not None:
        return True
    # an SGML tag followed by a space starts a sentence too
    m = SPACES.match(text, pos)
    if m is None or text[m.end() : m.end() + 1] != "<":
        return False
    tag = SGML.match(text, m.end())
    return tag is not None and text[tag.end() : tag.end() + 1] in c.LOOKAHEAD_SPACE


def period_stays(word: str, text: str, pos: int) -> bool:
    """Whether ``word``'s following period (at ``pos``) stays with it (section 12)."""
    form = word + "."
    if c.ABBR_KEEP.fullmatch(form) or ACRONYM.fullmatch(word):
        return True
    if len(word) == 1 and word.isascii() and word.isalpha():
        return not followed_by_starter(text, pos + 1)
    if c.ABBR_NUMBER.fullmatch(form):
        nxt = text[pos + 1 : pos + 2]
        if nxt.isdigit() and nxt.isascii():
            return True
        after = text[pos + 2 : pos + 3]
        return nxt in c.LOOKAHEAD_SPACE and after.isdigit() and after.isascii()
    return False


def drop_soft_hyphens(tokens: list[str]) -> list[str]:
    """Soft hyphens leave every token but tags and web and mail addresses (section 20)."""
    return [
        t
        if t.startswith("<") or "@" in t or "://" in t or t[:4].lower() == "www."
        else t.replace("\xad", "")
        for t in tokens
    ]


def lower_token(token: str) -> str:
    """Java's lower-casing of one token (section 4): Python's, but for the final sigma."""
    if "\u03a3" not in token:
        return token.lower()
    out = []
    for k, ch in enumerate(token):
        if ch == "\u03a3":
            before = any(x in c.CASED for x in token[:k])
            after = any(x in c.CASED for x in token[k + 1 :])
            out.append("\u03c2" if before and not after else "\u03c3")
        else:
            out.append(ch.lower())
    return "".join(out)
