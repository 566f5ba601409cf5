"""The address rules of the PTB tokenizer's exact path, read in linear time.

Written from the behaviour specification ``PTB_BEHAVIOUR.md`` (sections 7
and 20) and black-box runs of the reference jar, with no CoreNLP code or
specification.  E-mail addresses, domain names, web addresses and the
period-hyphen words can each be tried from every position of a long run of
characters; :class:`AddressScanner` remembers the run a failed attempt has
read and does not try again inside it, so no input makes a scan quadratic.
"""

from __future__ import annotations

import bisect
import re

from ._ptb_rules import (
    ADDR_RUN,
    ASCII_ALNUM,
    AT_WORD,
    DOMAIN,
    DOMAIN_RUN,
    HAS_DOMAIN,
    HYPH_DOT,
    HYPH_DOT_RUN,
)

__all__ = ["AddressScanner"]


class AddressScanner:
    """The address rules over ``text``, each failure remembered for its run."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.domain = HAS_DOMAIN.search(text) is not None
        self.mail = "@" in text
        # the runs the address rules last looked at (each is read once: linear time)
        self._addr = (-1, -1, False)  # run start, run end, no address ends there
        self._dom = (-1, -1)  # run start, run end
        self._hd = (-1, -1)  # run start, run end: no HYPH_DOT starts in it
        self._runs: dict[str, tuple[int, int]] = {}
        #: where each ".com" (".org", ...) starts
        self._tlds = [m.start() for m in HAS_DOMAIN.finditer(text)] if self.domain else []

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
            self._hd = (i, HYPH_DOT_RUN.match(self.text, i).end())
        return m

    def mail_at(self, i: int) -> re.Match | None:
        """An e-mail address starting at ``i``, read in linear time overall."""
        start, end, failed = self._addr
        if not start < i < end:
            end = ADDR_RUN.match(self.text, i + 1).end()
            start, failed = i, False
        if failed or self.text[end : end + 1] != "@":
            self._addr = (start, end, failed)
            return None
        m = AT_WORD.match(self.text, i)
        # every start in the run meets the same "@" and what follows it
        self._addr = (start, end, m is None and self.text[i] in ASCII_ALNUM)
        return m

    def domain_at(self, i: int) -> re.Match | None:
        """A domain name starting at ``i`` (only where one ends in the run)."""
        start, end = self._dom
        if not start <= i < end:
            m = DOMAIN_RUN.match(self.text, i)
            if m is None:
                return None
            start, end = i, m.end()
            self._dom = (start, end)
        # a ".com" must start after i, inside the run or where it stops
        k = bisect.bisect_right(self._tlds, i)
        if k == len(self._tlds) or self._tlds[k] > end:
            return None
        return DOMAIN.match(self.text, i)
