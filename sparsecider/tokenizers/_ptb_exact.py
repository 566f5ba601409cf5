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

import itertools
import re

from . import _ptb_classes as c
from ._ptb_rules import (
    APOS,
    APOS_CLITIC,
    ASCII_LETTERS,
    CLITIC,
    CURLY_EM,
    ENTITY_TEXT,
    FILE_NAME,
    FILE_NAME_RUN,
    LONE_CLITIC,
    MULTI,
    N_CLITIC,
    NT,
    NT_QUOTES,
    PLAIN_WORD,
    PLAIN_WORD_AT,
    PUNCTUATIONS,
    QUOTE_CHARS,
    QUOTE_WORD,
    SPECIAL,
    SYMBOL_RULES,
    TIS,
    URL_PATH,
    URL_PATH_RUN,
    URL_WWW,
    URL_WWW_RUN,
    WORD_RULES,
    WORD_RULES_AT,
    YEAR,
    drop_soft_hyphens,
    lower_token,
    period_stays,
    rewrite_brackets,
)
from ._ptb_web import AddressScanner

__all__ = [
    "PUNCTUATIONS",
    "lower_token",
    "tokenize_text",
]


class _Scanner(AddressScanner):
    """One left-to-right pass over ``text`` collecting ``(start, token)`` pairs."""

    def __init__(self, text: str, at_end: bool, apos: dict[int, str] | None = None) -> None:
        super().__init__(text)
        #: where a "\u2019" stands for an "&apos;" of the input, as typed (section 21.5)
        self.apos = apos or {}
        self.n = len(text)
        self.at_end = at_end
        self.plain_word = PLAIN_WORD_AT if self.mail or self.domain else PLAIN_WORD
        #: the tokens, and "\n" for each line end between them
        self.out: list[str] = []

    def emit(self, pos: int, token: str) -> None:
        """Add ``token`` (which starts at ``pos``) to the output."""
        if token:
            if self.apos and ("\u2019" in token or "'" in token):
                # "&apos;" comes back where "\u2019" is printed as typed; in other
                # letter cases ("&APOS;") also where it would print "'"
                apos = self.apos
                token = "".join(
                    apos[pos + k]
                    if pos + k in apos
                    and (ch == "\u2019" or (ch == "'" and apos[pos + k] != "&apos;"))
                    else ch
                    for k, ch in enumerate(token)
                )
            self.out.append(token)

    # -- after a word: clitics and the final period ------------------------------------
    def finish_word(
        self, start: int, end: int, word: str, periods: bool = True, comma_period: bool = False
    ) -> int:
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
            and ASCII_LETTERS.fullmatch(word) is not None  # only they give up their n
            and (len(word) < 2 or word[-2] not in "nN")  # "sann't" stays "sann" "t"
            and "." not in word
            and end < self.n
            and text[end] in NT_QUOTES
        ):
            m = NT.match(text, end)
            if m:
                self.emit(start, word[:-1])
                body = m.group()
                if len(body) == 2:  # "n't", "n`t"; as typed when letters follow
                    body = body.replace("\u2019", "'").replace("\u2018", "`")
                self.emit(end - 1, word[-1] + body)
                return m.end()
        if end < self.n and text[end] in APOS:
            m = N_CLITIC.match(text, end)
            if m is None:
                m = CLITIC.match(text, end)
                if m is not None and self._clitic_at_end(m):
                    m = None
            if m is not None:
                self.emit(start, word)
                body = m.group()
                # a curly "’n" stays as typed; every other clitic gets a straight "'"
                self.emit(end, body if body[:2].lower() == "\u2019n" else "'" + body[1:])
                return m.end()
        if periods and end < self.n and text[end] == "." and period_stays(word, text, end):
            self.emit(start, word + ".")
            return end + 1
        # a period before ",", ";" or ":" stays with any word, and with a
        # number of ASCII digits only (section 21.7)
        if (
            (periods or comma_period or (word.isdigit() and word.isascii()))
            and text[end : end + 1] == "."
            and text[end + 1 : end + 2] in (",", ";", ":")
        ):
            self.emit(start, word + ".")
            return end + 1
        self.emit(start, word)
        return end

    def _clitic_at_end(self, m: re.Match) -> bool:
        # 're, 've, 'll are no clitics at the very end of the input (section 15.1)
        return self.at_end and m.end() == self.n and m.group()[-2:].lower() in ("re", "ve", "ll")

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
        for rule, name in WORD_RULES_AT.get(text[i], WORD_RULES):
            if rule is FILE_NAME:
                m = self.run_cached(FILE_NAME, FILE_NAME_RUN, "file", i)
            else:
                m = rule.match(text, i)
            if m is not None and m.end() > best_end:
                if rule is FILE_NAME and self.at_end and m.end() == self.n:
                    continue  # as an emoticon, not at the end of the input (section 21.10)
                best_end, kind = m.end(), name
        if text[i] < "\x80":
            m = self.hyph_dot_at(i)
            if m is not None and m.end() > best_end:
                best_end, kind = m.end(), "hyphdot"
            m = self.run_cached(URL_PATH, URL_PATH_RUN, "path", i)
            if m is not None and m.end() > best_end:
                best_end, kind = m.end(), "url"
            # (a failed "www." holds for every later "www." of its host run, not
            # for a "www." after other characters: "lamp,www.a.uk/x"; section 21.11)
            if text[i : i + 4].lower() == "www.":
                m = self.run_cached(URL_WWW, URL_WWW_RUN, "www", i)
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
            self.emit(i, rewrite_brackets(token).replace(" ", "\xa0"))
            return best_end
        if kind == "amp":
            return self.finish_word(i, best_end, _AMP.sub("&", token))
        if kind == "apos":
            clitic = APOS_CLITIC.fullmatch(token)
            if clitic is not None:  # "l'll", "K'll": the clitic wins
                return self.finish_word(i, i + clitic.end(1), clitic.group(1))
            if token.endswith("."):
                self.emit(i, token)
                return best_end
            # (after d, l, n, o a period before , ; : stays: section 21.7)
            keep = token[0] in "DdLlNnOo" and token[1] in "'\u2019\u2018\u201b`"
            return self.finish_word(i, best_end, token, periods=False, comma_period=keep)
        if kind == "mail":
            self.emit(i, token)
            return best_end
        if kind == "url":
            # one token, a final clitic included ("http://x.com/a's"; section 20)
            self.emit(i, token)
            return best_end
        if kind == "number":
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
            tok = m.group()
            self.emit(i, tok if rule is YEAR else "'" + tok[1:])
            return m.end()
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
        return self.quote_pair(i)

    def quote_pair(self, i: int) -> int:
        """A curly or low quote or backtick, with the next one if it is one too (section 21.6)."""
        text, j = self.text, i + 1
        # an "&apos;" pairs with nothing
        if j < self.n and text[j] in QUOTE_CHARS and i not in self.apos and j not in self.apos:
            j += 1
        self.emit(i, "".join(SPECIAL.get(q, q) for q in text[i:j]))
        return j

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
        for rule, name in SYMBOL_RULES.get(ch, ()):
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
            if ch in QUOTE_CHARS:
                return self.quote_pair(i)
            if ch in "<>":
                return self.pairs(i)
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
            low = token.lower()
            if low != "&quot;" or token == "&quot;":
                token = ENTITY_TEXT.get(low, token)
        elif kind in ("emoticon", "phone"):
            token = rewrite_brackets(token).replace(" ", "\xa0")
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
                if kind is _SYMBOL and ch == "&" and c.ENTITY_LETTER_RE.match(text, i):
                    kind = _WORD  # "&Eacute;cole" (section 21.3)
                j = rules[kind](i)
                i = j if j > i else i + 1
        return self.out


_AMP = re.compile("&(?i:amp;)")
_APOS = re.compile("&(?i:apos;)")
_CLITIC_AFTER = re.compile("(?i:s|m|d|re|ve|ll)")


def _joins_capitals(text: str, m: re.Match) -> bool:
    """Whether the "&APOS;" of ``m`` is read as capitals joined by "&" (section 21.5)."""
    start, end = m.start(), m.end()
    if m.group()[1] != "A" or not "A" <= text[start - 1 : start] <= "Z":
        return False
    if text[start - 1] in "N" and text[end : end + 1] in "tT" and text[end:]:
        return False  # "DON&APOS;T": n't
    if text[start - 1] in "DLNO" and not text[start - 2 : start - 1].isalpha():
        # a longer apostrophe word or prefix: "N&APOS;ROLL", "L&APOS;A" (section 9)
        two = text[end : end + 2]
        return text[start - 1] in "NO" and not (len(two) == 2 and two.isalpha())
    return _CLITIC_AFTER.match(text, end) is None


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


def tokenize_text(text: str, at_end: bool) -> list[str]:
    """The pipeline's output lines for ``text`` (captions joined with ``"\\n"``).

    ``at_end``: whether the text ends where the whole input ends (section 15.1);
    otherwise its end is a line end followed by more captions.
    """
    apos: dict[int, str] = {}
    if "&" in text and _APOS.search(text) is not None:
        # "&apos;" (any letter case) acts as a curly apostrophe (section 21.5):
        # read it as one, and remember where, to print it as typed
        # (but for "&A..." after a capital, which joins it unless a clitic
        # follows: "ROCK&APOS;N" -> "rock&apos" ";" "n", as "AT&T")
        found = [m for m in _APOS.finditer(text) if not _joins_capitals(text, m)]
        pieces, spellings, k = [], [], 0
        for m in found:
            pieces.append(text[k : m.start()])
            spellings.append(m.group())
            k = m.end()
        pieces.append(text[k:])
        ends = itertools.accumulate(len(piece) + 1 for piece in pieces[:-1])
        apos = {e - 1: spelling for e, spelling in zip(ends, spellings, strict=True)}
        text = "\u2019".join(pieces)
    tokens = _Scanner(text, at_end, apos).run()
    if "\xad" in text:
        tokens = [t for t in drop_soft_hyphens(tokens) if t]
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
