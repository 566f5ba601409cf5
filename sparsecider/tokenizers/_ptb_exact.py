"""The exact path of the PTB tokenizer: token rules with longest-match semantics.

Written from the behaviour specification ``PTB_BEHAVIOUR.md`` (section
numbers below refer to it) and black-box runs of the reference jar, with no
CoreNLP code or specification.  :func:`scan` reads a text (captions joined with
``"\\n"``) from left to right; at each position it tries the rules that can
start with the character there, keeps the longest match (the first rule
listed wins a tie), emits that rule's tokens and moves past it.  Rules are
anchored regular expressions without nested repetition, so each attempt is
linear in what it reads.  After a word, two follow-up decisions are made on
the characters after it: a clitic (section 9) and a final period (sections
12-14).  :func:`tokenize_text` turns the tokens into the pipeline's output
lines: lower-cased (section 4) and filtered as pycocoevalcap does (section 1).
"""

from __future__ import annotations

import bisect
import re

from . import _ptb_classes as c

__all__ = [
    "PUNCTUATIONS",
    "lower_token",
    "tokenize_text",
]

LETTER, DIGIT, RUN, LRUN = c.LETTER, c.DIGIT, c.RUN, c.LRUN
WORD_CONT = c.WORD_CONT

#: pycocoevalcap's punctuation filter (exact, case-sensitive matches).
PUNCTUATIONS = frozenset(
    ["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--",
     "...", ";"]
)  # fmt: skip

_APOS = "'\u2019"  # straight and curly apostrophes act alike in clitics (section 9)

# ---- words and numbers (sections 5, 6) ------------------------------------------------
_JOIN = "[-_" + c.UNICODE_HYPHENS + "]"
WORD = re.compile(
    # (a word that starts with a soft hyphen joins no hyphen: "\xadTWO-SEATER")
    f"\xad{WORD_CONT}*|(?!\xad)(?:{RUN}(?<=[0-9])(?:[.,]{DIGIT}+)+(?=-)|{RUN})"
    f"(?:{_JOIN}(?:{DIGIT}+/{DIGIT}+(?!{WORD_CONT})|{RUN}))*"
)
#: Prefixes that keep their hyphen before a space ("anti- and pro-war").
PREFIX = re.compile(f"(?i:anti|pro)-(?!{WORD_CONT}|-)")
DOTTED = re.compile(f"{LRUN}(?:[.!?]{LRUN})+")
#: ASCII letters, digits, periods and commas joined by hyphens to ASCII letters
#: and digits ("road.2.5-inch", "dog.-x", "U.S.-based", "trains,-LRB"; section 20).
HYPH_DOT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.,]*(?:-[A-Za-z0-9]+)+")
_HYPH_DOT_RUN = re.compile(r"[A-Za-z0-9.,]*")
# words of ASCII letters and digits joined by "/" (and "-"): "and/or", "a-b/c"
SLASHED = re.compile("[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?:/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)+")
# an e-mail address: an ASCII letter or digit (or "<") first, then anything but
# spaces, brackets ( ) < > { }, "|" and '"' on both sides of the "@"; no final "."
_ADDR = '[^ \\t\\n\\xa0()<>{|}"'
# (the part after the "@" has no empty dot group: "a@b...c" is "a@b" "..." "c")
AT_WORD = re.compile(f"[A-Za-z0-9<]{_ADDR}@]*@{_ADDR}.]+(?:\\.{_ADDR}.]+)*")
#: A word of ASCII letters (soft hyphens aside: section 20).
_ASCII_LETTERS = re.compile("[A-Za-z\xad]+")
_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
#: The run of local-part characters after an address's first character.
_ADDR_RUN = re.compile(f"{_ADDR}@]*")
NUMBER = re.compile(
    f"[-+]?(?:{DIGIT}+(?:[.,]{DIGIT}+)+|{DIGIT}+(?::{DIGIT}+)+|{DIGIT}+(?:/{DIGIT}+)+|{DIGIT}+)"
)
SIGNED = re.compile(f"[-+]{DIGIT}+(?:[.,:]{DIGIT}+)*")
POINT_NUMBER = re.compile(f"[.,:]{DIGIT}+(?:[.,:]{DIGIT}+)*")
# Numbers separated by single spaces that become one token (section 6).
FRACTION_PAIR = re.compile(f"{DIGIT}+[ \xa0]{DIGIT}+/{DIGIT}+(?!{DIGIT})")
PHONE = re.compile(
    r"(?:\+?[0-9]{2,4} |\(\+?[0-9]{2,4}\) ?)(?:[0-9]{2,4} )?[0-9]{3,4}[ -]?[0-9]{3,}(?![0-9])"
)
AMPERSAND = re.compile(r"[A-Z]+&(?:amp;)?[A-Z]+(?:-[0-9]+)?")
CPLUSPLUS = re.compile(r"[Cc]\+\+")
SHARP = re.compile(r"[CcFf]#")
CURRENCY_PREFIX = re.compile(r"[A-Z]+\$")
_TLD = "com|net|org|edu|gov|mil|int|info|biz|co|uk|us|ca|de|fr|jp|au|io|tv|me"
# after "http://", "www." or a domain: anything but spaces, brackets and quotes,
# not ending in "." "," ";" "!" "?" "-"
_URL_BODY = r"[^\s<>\"(){}\[\]]*[^\s<>\"(){}\[\].,;!?-]"
URL = re.compile(
    rf"(?i:https?://){_URL_BODY}|mailto:[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
)
# "www." needs a path: its host is ASCII (or a quote), then "/" (section 20)
_WWW_HOST = "[!#-'*-.0-;=?-Z\\\\^_a-z|~\u2018\u2019\u201c\u201d\u201e\xab\xbb\u2039\u203a]*"
URL_WWW = re.compile(f"(?i:www\\.){_WWW_HOST}/{_URL_BODY}")
_URL_WWW_RUN = re.compile(_WWW_HOST)
# a domain name with a path
URL_PATH = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*\.(?:com|org|net|edu|gov)[/?]"
    r"[^\s<>\"(){}\[\]]+[^\s<>\"(){}\[\].,;!?-]"
)
_URL_PATH_RUN = re.compile("[A-Za-z0-9.-]*")
# A domain in .com, .org, .net or .edu: dot groups of anything but ASCII capitals
# and digits, " ", tab and $ ' ( ) , - / : ; < = > [ \ ] ^ _ ` { | } " @ ! ?
# ("a★b.com", "&ab.com", "exa&mple.com"; no boundary needed after it:
# "a★b.comx" -> "a★b.com" "x"; section 20)
_DOMAIN_PART = r'[^A-Z0-9 \t\n.$\'(),\-/:;<=>\[\\\]^_`{|}"@!?]+'
DOMAIN = re.compile(rf"{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*\.(?i:com|org|net|edu)")
HAS_DOMAIN = re.compile(r"\.(?i:com|org|net|edu)")
#: The dot groups a domain may span from a position (where it could end).
_DOMAIN_RUN = re.compile(rf"{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*")
# Words that keep an apostrophe (section 9).
APOS_WORD = re.compile(
    f"(?:[DdLlNnOo]|[A-HJ-XZ])[{_APOS}\u2018`]{LETTER}{{2,}}{WORD_CONT}*"
    # d', l', o' before two letters or digits ("o'123", "d'90sown")
    f"|[DdLlOo]'(?:{LETTER}|{DIGIT}){{2,}}{WORD_CONT}*"
    f"|(?i:c[{_APOS}]mon|qu[{_APOS}]il|ma[{_APOS}]am|ne[{_APOS}]er|e[{_APOS}]er|o[{_APOS}]er"
    f"|hawai[{_APOS}]i|cap[{_APOS}]n)(?!{WORD_CONT})|(?i:cont[{_APOS}]d\\.)"
    f"|(?i:ol|dunkin|somethin)[{_APOS}](?!{WORD_CONT})"
    # a vowel, the apostrophe, a vowel ("pe'e", "graffiti'ed")
    f"|{LETTER}{LETTER}+(?<=[AEIOUYaeiouy])[{_APOS}\u2018`][AEIOUaeiouA-Z]{WORD_CONT}*"
)
# "y'all", "l'a", "d'k"; not "y'" before a clitic's letters ("y'sitting", "y'dog")
APOS_PREFIX = re.compile(
    f"(?:[LlDd][{_APOS}]|[JjYy][{_APOS}](?!(?i:s|d|m|re|ve|ll)))(?={LETTER})"
    "|[DdJjLl]'(?=')"  # before a second apostrophe: "d''x" -> "d'" "'" "x"
)
MULTI = {"gonna": 3, "gotta": 3, "wanna": 3, "lemme": 3, "gimme": 3, "cannot": 3}

_AFTER_WORD = f"(?!{WORD_CONT})"
#: ASCII letters followed by a character that ends every word rule.
# (no other word rule can match longer: each needs, right after the letters, a
# character that is none of these; "." "!" "?" join only a following letter)
PLAIN_WORD = re.compile(
    r"[A-Za-z]+(?=[ \n,;()\[\]{}\"<>*%=~^|\\]"
    r"|[.!?](?:[\x00-\x2b/:-\x40\x5b-\x60\x7b-\x7f]|\Z)|\Z)"
)
# (a straight clitic must not run on into an ASCII letter; any other character ends it)
#: Where the text holds an "@", only what ends an e-mail address ends a plain word.
PLAIN_WORD_AT = re.compile(r'[A-Za-z]+(?=[ \t\n()<>{}"|]|\Z)')
CLITIC = re.compile("(?:'|&apos;)(?i:s|m|d|re|ve|ll)(?![A-Za-z])|\u2019(?i:s|m|d|re|ve|ll)")
NT = re.compile(f"(?i:[{_APOS}`\u2018]t|&apos;t){LETTER}*")
# "'n" before a space or the end, "'n'"; a curly "’n" before anything (section 20)
N_CLITIC = re.compile(f"'[nN]'|'[nN](?={c.SPACE_CLASS}|\\Z)|\u2019[nN][{_APOS}]?")
_APOS_CLITIC = re.compile(f"(.+?)[{_APOS}](?i:s|m|d|re|ve|ll)")
_NT_QUOTES = _APOS + "`&\u2018"
ACRONYM = re.compile(r"[A-Za-z](?:\.[A-Za-z])+")

# ---- quotes and apostrophes at a token start -------------------------------------------
LONE_CLITIC = CLITIC
# a decade ("'90s"), or two digits before a space or the end ("'85")
YEAR = re.compile(f"[{_APOS}](?:[1-9]0[sS]|[0-9]{{2}}(?={c.SPACE_CLASS}|\\Z))")
QUOTE_WORD = re.compile(f"'(?i:em)|'(?i:cause){_AFTER_WORD}|'(?i:n)'|'(?i:till?)")
#: A curly "\u2019em" stays as typed.
CURLY_EM = re.compile("\u2019(?i:em)")
TIS = re.compile("'(?i:t)(?=(?i:is|was))")

#: Curly and angle quotes: a run of them is one token, each rewritten (section 10).
QUOTE_CHARS = "\u2018\u2019\u201b\u2039\u203a\u201c\u201d\xab\xbb\x91\x92\x93\x94"
QUOTE_RUN = re.compile(f"[{QUOTE_CHARS}]+")

# ---- other symbols ---------------------------------------------------------------------
ENTITY = re.compile(r"&(?i:amp|lt|gt|quot|apos|nbsp|mdash|ndash);|&#[0-9]+;")
_ENTITY_TEXT = {"&amp;": "&", "&AMP;": "&", "&Amp;": "&", "&lt;": "<", "&LT;": "<",
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
    r"(?:>?[:;=][-']?[)(\]\[DdPp3@|\\O]|\(\^_\^\)|\(-_-\)|\^_\^|>_<|-_-)" f"(?!{WORD_CONT})"
)
BRACKET_WORD = re.compile(r"-(?i:LRB|RRB|LSB|RSB|LCB|RCB)-")
ELLIPSIS = re.compile(r"\.{3,5}|\.(?: \.){2,}")
DASHES = re.compile(r"-{2,}")
HASH_WORD = re.compile(f"#{LETTER}+")
AT_HANDLE = re.compile(f"@{RUN}")
BANGS = re.compile(r"[!?]+")

# The rules of a token that starts with a symbol, by the symbols they can start with
# (in order: the first listed wins a tie).
_SYMBOL_RULE_STARTS = (
    (SGML, "sgml", "<"), (ENTITY, "entity", "&"), (EMOTICON, "emoticon", ">:;=(^-"),
    (PHONE, "phone", "(+"), (BRACKET_WORD, "bracket", "-"), (SIGNED, "number", "-+"),
    (POINT_NUMBER, "number", ".,:"), (ELLIPSIS, "ellipsis", "."), (DASHES, "dashes", "-"),
    (HASH_WORD, "plain", "#"), (AT_HANDLE, "plain", "@"), (BANGS, "plain", "!?"),
)  # fmt: skip
_SYMBOL_RULES: dict[str, tuple] = {}
for _rule, _name, _starts in _SYMBOL_RULE_STARTS:
    for _ch in _starts:
        _SYMBOL_RULES[_ch] = (*_SYMBOL_RULES.get(_ch, ()), (_rule, _name))

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


def _rewrite_brackets(s: str) -> str:
    for k in "()":
        s = s.replace(k, _BRACKETS[k])
    return s


_SPACES = re.compile(c.SPACE_CLASS + "+")


def _followed_by_starter(text: str, pos: int) -> bool:
    """A sentence starter after the period ending at ``pos`` (section 14)."""
    if c.STARTER_AFTER_RE.match(text, pos) is not None:
        return True
    # an SGML tag followed by a space starts a sentence too
    m = _SPACES.match(text, pos)
    if m is None or text[m.end() : m.end() + 1] != "<":
        return False
    tag = SGML.match(text, m.end())
    return tag is not None and text[tag.end() : tag.end() + 1] in c.LOOKAHEAD_SPACE


def _period_stays(word: str, text: str, pos: int) -> bool:
    """Whether ``word``'s following period (at ``pos``) stays with it (section 12)."""
    form = word + "."
    if c.ABBR_KEEP.fullmatch(form) or ACRONYM.fullmatch(word):
        return True
    if len(word) == 1 and word.isascii() and word.isalpha():
        return not _followed_by_starter(text, pos + 1)
    if c.ABBR_NUMBER.fullmatch(form):
        nxt = text[pos + 1 : pos + 2]
        if nxt.isdigit() and nxt.isascii():
            return True
        after = text[pos + 2 : pos + 3]
        return nxt in c.LOOKAHEAD_SPACE and after.isdigit() and after.isascii()
    return False


class _Scanner:
    """One left-to-right pass over ``text`` collecting ``(start, token)`` pairs."""

    def __init__(self, text: str, at_end: bool) -> None:
        self.text = text
        self.n = len(text)
        self.at_end = at_end
        self.domain = HAS_DOMAIN.search(text) is not None
        self.mail = "@" in text
        self.plain_word = PLAIN_WORD_AT if self.mail or self.domain else PLAIN_WORD
        # the runs the address rules last looked at (each is read once: linear time)
        self._addr = (-1, -1, False)  # run start, run end, no address ends there
        self._dom = (-1, -1)  # run start, run end
        self._hd = (-1, -1)  # run start, run end: no HYPH_DOT starts in it
        self._runs: dict[str, tuple[int, int]] = {}
        #: where each ".com" (".org", ...) starts
        self._tlds = [m.start() for m in HAS_DOMAIN.finditer(text)] if self.domain else []
        #: the tokens, and "\n" for each line end between them
        self.out: list[str] = []

    def run_cached(self, rule: re.Pattern, run: re.Pattern, key: str, i: int) -> re.Match | None:
        """``rule`` at ``i``, unless it failed from an earlier start in the same run."""
        start, end = self._runs.get(key, (-1, -1))
        if start < i < end:
            return None
        m = rule.match(self.text, i)
        if m is None:
            self._runs[key] = (i, run.match(self.text, i).end())
        return m

    def hyph_dot_at(self, i: int) -> re.Match | None:
        """:data:`HYPH_DOT` at ``i``; a failure holds for the rest of its run."""
        start, end = self._hd
        if start < i < end:
            return None
        m = HYPH_DOT.match(self.text, i)
        if m is None:
            self._hd = (i, _HYPH_DOT_RUN.match(self.text, i).end())
        return m

    def mail_at(self, i: int) -> re.Match | None:
        """An e-mail address starting at ``i``, read in linear time overall."""
        start, end, failed = self._addr
        if not start < i < end:
            end = _ADDR_RUN.match(self.text, i + 1).end()
            start, failed = i, False
        if failed or self.text[end : end + 1] != "@":
            self._addr = (start, end, failed)
            return None
        m = AT_WORD.match(self.text, i)
        # every start in the run meets the same "@" and what follows it
        self._addr = (start, end, m is None and self.text[i] in _ASCII_ALNUM)
        return m

    def domain_at(self, i: int) -> re.Match | None:
        """A domain name starting at ``i`` (only where one ends in the run)."""
        start, end = self._dom
        if not start <= i < end:
            m = _DOMAIN_RUN.match(self.text, i)
            if m is None:
                return None
            start, end = i, m.end()
            self._dom = (start, end)
        # a ".com" must start after i, inside the run or where it stops
        k = bisect.bisect_right(self._tlds, i)
        if k == len(self._tlds) or self._tlds[k] > end:
            return None
        return DOMAIN.match(self.text, i)

    def emit(self, pos: int, token: str) -> None:
        """Add ``token`` (which starts at ``pos``) to the output."""
        if token:
            self.out.append(token)

    # -- after a word: clitics and the final period ------------------------------------
    def finish_word(self, start: int, end: int, word: str, periods: bool = True) -> int:
        text = self.text
        low = word.lower()
        split = MULTI.get(low)
        if split is not None and word.isascii():
            self.emit(start, word[:split])
            self.emit(start + split, word[split:])
            return end
        # "n't": the n leaves the word (section 9)
        if (
            word[-1:] in "nN"
            and _ASCII_LETTERS.fullmatch(word) is not None  # only they give up their n
            and (len(word) < 2 or word[-2] not in "nN")  # "sann't" stays "sann" "t"
            and "." not in word
            and end < self.n
            and text[end] in _NT_QUOTES
        ):
            m = NT.match(text, end)
            if m:
                self.emit(start, word[:-1])
                body = m.group()
                if body.startswith("&apos;"):
                    body = "'" + body[6:]
                if len(body) == 2:  # "n't", "n`t"; as typed when letters follow
                    body = body.replace("\u2019", "'").replace("\u2018", "`")
                self.emit(end - 1, word[-1] + body)
                return m.end()
        if end < self.n and text[end] in _APOS + "&":
            m = N_CLITIC.match(text, end)
            if m is None:
                m = CLITIC.match(text, end)
                if m is not None and self._clitic_at_end(m):
                    m = None
            if m is not None:
                self.emit(start, word)
                body = m.group()
                if body.startswith("&apos;"):
                    body = "'" + body[6:]
                # a curly "’n" stays as typed; every other clitic gets a straight "'"
                self.emit(end, body if body[:2].lower() == "\u2019n" else "'" + body[1:])
                return m.end()
        if periods and end < self.n and text[end] == "." and _period_stays(word, text, end):
            self.emit(start, word + ".")
            return end + 1
        # a period before ",", ";" or ":" stays with any word
        if periods and text[end : end + 1] == "." and text[end + 1 : end + 2] in (",", ";", ":"):
            self.emit(start, word + ".")
            return end + 1
        self.emit(start, word)
        return end

    def _clitic_at_end(self, m: re.Match) -> bool:
        # 're, 've, 'll are no clitics at the very end of the input (section 15.1)
        return (
            self.at_end
            and m.end() == self.n
            and len(m.group().lstrip("&apos;")) >= 2
            and (m.group()[-2:].lower() in ("re", "ve", "ll"))
        )

    # -- the rules ---------------------------------------------------------------------
    def word_rules(self, i: int) -> int:
        text = self.text
        m = self.plain_word.match(text, i)
        # no other rule can match longer (each needs a non-letter), but for a
        # comma that may continue a period-hyphen word ("trains,-LRB")
        if m is not None and not (
            text.startswith(",", m.end()) and self.hyph_dot_at(i) is not None
        ):
            return self.finish_word(i, m.end(), m.group())
        best_end, kind = i, None
        for rule, name in (
            (URL, "url"), (AMPERSAND, "amp"), (APOS_WORD, "apos"), (CPLUSPLUS, "plain"),
            (SHARP, "plain"), (CURRENCY_PREFIX, "plain"), (PHONE, "phone"),
            (FRACTION_PAIR, "phone"), (NUMBER, "number"), (SLASHED, "word"),
            (DOTTED, "dotted"), (WORD, "word"), (APOS_PREFIX, "prefix"), (PREFIX, "plain"),
        ):  # fmt: skip
            m = rule.match(text, i)
            if m is not None and m.end() > best_end:
                best_end, kind = m.end(), name
        if text[i] < "\x80":
            m = self.hyph_dot_at(i)
            if m is not None and m.end() > best_end:
                best_end, kind = m.end(), "hyphdot"
            for rule, run, key in (
                (URL_PATH, _URL_PATH_RUN, "path"),
                (URL_WWW, _URL_WWW_RUN, "www"),
            ):
                m = self.run_cached(rule, run, key, i)
                if m is not None and m.end() > best_end:
                    best_end, kind = m.end(), "url"
        if self.mail:
            m = self.mail_at(i)
            if m is not None and m.end() > best_end:
                best_end, kind = m.end(), "mail"
        if self.domain:
            m = self.domain_at(i)
            if m is not None and m.end() > best_end:
                best_end, kind = m.end(), "domain"
        if kind is None:
            return i
        token = text[i:best_end]
        if kind == "domain":
            return self.finish_word(i, best_end, token, periods=False)
        if kind == "prefix":
            # "y'all" -> "y'" "all", unless the apostrophe starts a clitic ("y's")
            if CLITIC.match(text, i + 1):
                return self.finish_word(i, i + 1, text[i])
            self.emit(i, token)  # the apostrophe as typed
            return best_end
        if kind == "phone":
            self.emit(i, _rewrite_brackets(token).replace(" ", "\xa0"))
            return best_end
        if kind == "amp":
            return self.finish_word(i, best_end, token.replace("&amp;", "&"))
        if kind == "apos":
            clitic = _APOS_CLITIC.fullmatch(token)
            if clitic is not None:  # "l'll", "K'll": the clitic wins
                return self.finish_word(i, i + clitic.end(1), clitic.group(1))
            if token.endswith("."):
                self.emit(i, token)
                return best_end
            return self.finish_word(i, best_end, token, periods=False)
        if kind == "mail":
            self.emit(i, token)
            return best_end
        if kind == "url":
            # one token, a final clitic included ("http://x.com/a's"; section 20)
            self.emit(i, token)
            return best_end
        if kind == "number":
            m = re.match(r"[0-9]+:[0-9]+(?::[0-9]+)*", token)
            return self.finish_word(i, best_end, token, periods=False)
        if kind == "hyphdot":
            head = token[: token.index("-")]
            # a class-2 abbreviation reads two characters after its period and wins a tie
            if (
                head.endswith(".")
                and c.ABBR_SENTENCE.fullmatch(head)
                and len(token) - len(head) <= 2
            ):
                return self.finish_word(i, i + len(head) - 1, head[:-1])
        if kind == "dotted":
            head = token[:-1]
            if head.endswith(".") and c.ABBR_SENTENCE.fullmatch(head):
                # "Inc.a" (one letter after): the abbreviation ends at its period
                self.emit(i, head)
                return i + len(head)
        return self.finish_word(i, best_end, token)

    def quote_rules(self, i: int) -> int:
        text, ch = self.text, self.text[i]
        if self.domain and ch == "\u2019":
            m = self.domain_at(i)
            if m is not None:
                return self.finish_word(i, m.end(), m.group(), periods=False)
        m = N_CLITIC.match(text, i)
        if m is not None:
            self.emit(i, m.group())
            return m.end()
        for rule in (YEAR, LONE_CLITIC, QUOTE_WORD):
            m = rule.match(text, i)
            if m is None:
                continue
            if m.end() == self.n and self.at_end and rule is not QUOTE_WORD:
                tail = m.group()[-2:].lower()
                if (rule is YEAR and tail[-1] != "s") or tail in ("re", "ve", "ll"):
                    continue
            tok = m.group().replace("&apos;", "'")
            self.emit(i, tok if rule is YEAR else "'" + tok[1:])
            return m.end()
        if ch == "&":
            return self.symbol_rules(i)
        m = TIS.match(text, i)
        if m:
            self.emit(i, "'t")
            return m.end()
        if ch == "'":
            return self.pairs(i)
        m = CURLY_EM.match(text, i)
        if m is not None:
            self.emit(i, m.group())
            return m.end()
        m = QUOTE_RUN.match(text, i)
        self.emit(i, "".join(SPECIAL[q] for q in m.group()))
        return m.end()

    def pairs(self, i: int) -> int:
        """A run of one character as tokens of two, the odd one last (3 quotes: 2 + 1)."""
        text, ch, j = self.text, self.text[i], i
        while j < self.n and text[j] == ch:
            j += 1
        odd = (j - i) % 2
        if odd and ch == "'" and j - i > 1 and self._clitic_quote(j - 1):
            j -= 1  # three apostrophes and "em": two, then "'em"
            odd = 0
        for k in range(i, j - 1, 2):
            self.emit(k, text[k : k + 2])
        if odd:
            self.emit(j - 1, ch)
        return j

    def _clitic_quote(self, i: int) -> bool:
        """Whether the apostrophe at ``i`` starts a clitic or a quote word."""
        return any(r.match(self.text, i) for r in (LONE_CLITIC, QUOTE_WORD, N_CLITIC, YEAR))

    def symbol_rules(self, i: int) -> int:
        text, ch = self.text, self.text[i]
        best, kind = i + 1, "single"
        for rule, name in _SYMBOL_RULES.get(ch, ()):
            m = rule.match(text, i)
            if m is not None and m.end() > best:
                if name == "emoticon" and self.at_end and m.end() == self.n:
                    continue
                best, kind = m.end(), name
        if self.mail and ch == "<":
            m = self.mail_at(i)
            if m is not None and m.end() > best:
                best, kind = m.end(), "mail"
        if self.domain:
            m = self.domain_at(i)
            if m is not None and m.end() > best:
                return self.finish_word(i, m.end(), m.group(), periods=False)
        token = text[i:best]
        if kind == "single":
            if ch in "`<>":
                return self.pairs(i)
            if ch in QUOTE_CHARS:
                m = QUOTE_RUN.match(text, i)
                self.emit(i, "".join(SPECIAL[q] for q in m.group()))
                return m.end()
            if ch in c.OWN_RUNS or ch in "#@_":
                j = i + 1
                while j < self.n and text[j] == ch:
                    j += 1
                self.emit(i, text[i:j])
                return j
            self.emit(i, SPECIAL.get(ch, ch))
            return best
        if kind == "sgml":
            token = re.sub(c.SPACE_CLASS.replace("\\n", ""), "\xa0", token)
        elif kind == "entity":
            token = _ENTITY_TEXT.get(token, token)
        elif kind in ("emoticon", "phone"):
            token = _rewrite_brackets(token).replace(" ", "\xa0")
        elif kind == "ellipsis":
            token = "..."
        elif kind == "dashes":
            token = "--" if len(token) < 5 else token
        elif kind == "number":
            return self.finish_word(i, best, token, periods=False)
        elif kind == "mail":
            pass
        self.emit(i, token)
        return best

    def run(self) -> list[str]:
        text, n, i = self.text, self.n, 0
        rules = {_WORD: self.word_rules, _QUOTE: self.quote_rules, _SYMBOL: self.symbol_rules}
        while i < n:
            ch = text[i]
            kind = _KIND.get(ch)
            if kind is None:
                kind = _kind(ch)
            if kind is _NEWLINE:
                self.out.append("\n")
                i += 1
            elif kind is _SKIP_KIND:  # spaces and deleted characters print nothing (section 3)
                i = _SKIP.match(text, i).end()
            else:
                if kind is _SYMBOL and ch == "&" and text.startswith("&apos;", i):
                    kind = _QUOTE
                j = rules[kind](i)
                i = j if j > i else i + 1
        return self.out


# Characters that start no token: spaces, silent separators, deleted characters.
_STARTERS = (
    c.WORD_CHAR_CLASS[1:-1]
    + "".join(re.escape(ch) for ch in sorted(c.OWN | c.OWN_RUNS | c.OWN_NUMBER_INNER))
    + "".join(re.escape(ch) for ch in SPECIAL)
    + re.escape("'\u2019&+-.!?#@_/")
)
_SKIP = re.compile(f"[^{_STARTERS}\\n]+")


# What a character starts: a word, a quote, a symbol, nothing, or a line end.
_WORD, _QUOTE, _SYMBOL, _SKIP_KIND, _NEWLINE = "word", "quote", "symbol", "skip", "newline"


def _kind(ch: str) -> str:
    if ch == "\n":
        return _NEWLINE
    if c.WORD_CHAR_RE.match(ch):
        return _WORD
    if ch in "'\u2019":
        return _QUOTE
    if (
        ch in c.OWN
        or ch in c.OWN_RUNS
        or ch in c.OWN_NUMBER_INNER
        or ch in SPECIAL
        or ch in "+-.!?#@_/&"
    ):
        return _SYMBOL
    return _SKIP_KIND


_KIND = {chr(k): _kind(chr(k)) for k in range(128)}


def _drop_soft_hyphens(tokens: list[str]) -> list[str]:
    """Soft hyphens leave every token but tags and web and mail addresses (section 20)."""
    return [
        t
        if t.startswith("<") or "@" in t or "://" in t or t[:4].lower() == "www."
        else t.replace("\xad", "")
        for t in tokens
    ]


_SIGMA_CASED = c.CASED


def lower_token(token: str) -> str:
    """Java's lower-casing of one token (section 4): Python's, but for the final sigma."""
    if "\u03a3" not in token:
        return token.lower()
    out = []
    for k, ch in enumerate(token):
        if ch == "\u03a3":
            before = any(x in _SIGMA_CASED for x in token[:k])
            after = any(x in _SIGMA_CASED for x in token[k + 1 :])
            out.append("\u03c2" if before and not after else "\u03c3")
        else:
            out.append(ch.lower())
    return "".join(out)


def tokenize_text(text: str, at_end: bool) -> list[str]:
    """The pipeline's output lines for ``text`` (captions joined with ``"\\n"``).

    ``at_end``: whether the text ends where the whole input ends (section 15.1);
    otherwise its end is a line end followed by more captions.
    """
    tokens = _Scanner(text, at_end).run()
    if "\xad" in text:
        tokens = [t for t in _drop_soft_hyphens(tokens) if t]
    # Java prints a token as it is, so one spanning a line end (an SGML tag)
    # puts its tail at the start of the next line
    if any("\u03a3" in token for token in tokens):
        joined = " ".join(map(lower_token, tokens))
    else:
        joined = " ".join(tokens).lower()
    return [
        " ".join(w for w in line.split(" ") if w not in PUNCTUATIONS and w)
        for line in joined.split("\n")
    ]
