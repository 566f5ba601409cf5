"""The search's option order (specification 6.1), with ``spec47b``'s sibling term (6.5, N76).

At a reference position the search tries the objects starting there by stage, longer reference
span, test start, then (``spec47b``) even test spans first among siblings, squarer span pair
(smaller ``|t_len - r_len|``), shorter test span; equal ones keep the proposals' order.

``spec47b``: among non-exact objects with the same test start and the same reference span
whose test spans of two or more words have BOTH parities (a *firing* group: `a large number`/
`numerous` and `a large number of`/`numerous`), the jar tries the EVEN test lengths first, the
longest even one first, then the odd ones in the base order (squarer, shorter): it takes the
4:1 `a large number of` at every beam, ``-x 1`` included (toys ``AF1``-``AF8``).  A one-word
test span with the group's test start and reference span stays in front of the group (other
references probe 2127: `has`/`is` beside `has a`/`is`).  Only the order in which a state's
children are made changes (hence the beam-1 greedy choice, every later tie and spec39a's path
order, :mod:`.paths`), no key term.  The term: 0 outside a firing group and for a one-word
object beside one, ``8 - t_len`` for an even member (2 to 6: test spans have at most 7 words,
``paraphrase.MAX_PHRASE``), :data:`ODD` for an odd one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batch import Candidates
from .matchers import EXACT

__all__ = ["ODD", "option_key", "option_order", "parity_rank_rows", "parity_ranks"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage

#: The sibling term of an odd member of a firing group (after every even one, ``8 - t_len``).
ODD = 9


def option_key(objs: list[Match]) -> Callable[[Match], tuple]:
    """The sort key of one pair's option order (module docstring) for its objects ``objs``."""
    par = parity_ranks(objs)
    return lambda o: (o[2], o[4], -o[3], o[0], par.get(o[:4], 0), abs(o[1] - o[3]), o[1])


def option_order(c: Candidates) -> np.ndarray:
    """The rows of ``c`` (many pairs; positions under 64, spans of at most 7 words, as the
    candidates' sort key assumes) by pair, then in each pair's option order: one packed key,
    stably sorted."""
    key = ((((c.pair * 64 + c.rs) * 4 + c.stage) * 8 + 7 - c.rl) * 64 + c.ts) * 16
    key += parity_rank_rows(c)
    return np.argsort((key * 8 + np.abs(c.tl - c.rl)) * 8 + c.tl, kind="stable")


def parity_ranks(objs: list[Match]) -> dict:
    """The sibling term of the members of one pair's firing groups (module docstring).

    Parameters
    ----------
    objs : list of (t_start, t_len, r_start, r_len, stage)
        Every proposal of the pair.

    Returns
    -------
    dict
        ``(t_start, t_len, r_start, r_len) -> term`` for the non-exact spans of two or more
        test words in a firing group; every other object's term is 0.
    """
    groups: dict = {}  # (t_start, r_start, r_len) -> parity bits of its test lengths
    for ts, tl, rs, rl, st in objs:
        if tl > 1 and st != EXACT:
            groups[ts, rs, rl] = groups.get((ts, rs, rl), 0) | (1 << (tl & 1))
    return {
        (ts, tl, rs, rl): ODD if tl & 1 else 8 - tl
        for ts, tl, rs, rl, st in objs
        if tl > 1 and st != EXACT and groups[ts, rs, rl] == 3
    }


def parity_rank_rows(c: Candidates) -> np.ndarray:
    """:func:`parity_ranks` for every row of ``c`` (many pairs; positions under 64, spans of
    at most 7 words): one int64 per row, 0 outside the firing groups."""
    out = np.zeros(c.pair.size, dtype=np.int64)
    g = np.flatnonzero((c.tl > 1) & (c.stage != EXACT))
    if g.size == 0:
        return out  # (no multi-word test span: nothing to reorder)
    key = ((c.pair[g] * 64 + c.ts[g]) * 64 + c.rs[g]) * 8 + c.rl[g]
    uniq, inv = np.unique(key, return_inverse=True)
    odd = (c.tl[g] & 1).astype(bool)
    n_odd = np.bincount(inv, weights=odd, minlength=uniq.size)
    n_all = np.bincount(inv, minlength=uniq.size)
    fire = ((n_odd > 0) & (n_odd < n_all))[inv]
    out[g[fire]] = np.where(odd[fire], ODD, 8 - c.tl[g[fire]])
    return out
