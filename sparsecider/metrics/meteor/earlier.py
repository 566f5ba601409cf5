"""A diagonal one-word paraphrase against an earlier-stage reading in the final tie
(``spec50a``, METEOR_BEHAVIOUR.md 6.3 "A diagonal one-word paraphrase loses the final tie to an
earlier-stage reading of its reference word", 6.5, N98).

Two final states equal on every key are ordered by their paths (:mod:`.paths`, ``spec39a``):
at the first reference position i where they hold different objects, a one-word match on the
diagonal makes them "equal" (the last sort's order stands).  Not here: where one object is a
NON-EXACT one-word match d on the diagonal (test = reference position i: `is`/`stands`) and the
other a non-exact one-word match w of the same reference word from another test word whose
stage is EARLIER than d's (the stem `standing`/`stands` against a paraphrase), w's state comes
first -- unless d's test word has another non-exact one-word candidate at a LATER reference
word (beyond i) that neither state covers with any of its matches (`are`/`be` free): then the
exception stands.  That last test reads both states, so the comparison stays a function of the
two tied states alone (what :mod:`.tiesort` needs).  The rule needs two non-exact one-word
objects at i, spec48b's siblings two of different test lengths and spec46b's an exact one: at
most one of them acts, and :func:`tie_order` / :func:`tie_rows` hand both to :mod:`.paths`
through its sibling hook (``sib`` / ``sibs``).

:func:`earlier_order` serves the per-pair search, :func:`earlier_rows` the array search.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._kernels.arrays import span_bits
from .batch import Candidates, find_sorted
from .matchers import EXACT
from .siblings import sibling_order, sibling_rows

__all__ = ["earlier_order", "earlier_rows", "tie_order", "tie_rows"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def _loose(o: Match) -> bool:  # a non-exact one-word object
    return o[4] != EXACT and o[1] == o[3] == 1


def earlier_order(objs: list[Match], by_r: dict, chains: list[list[int]]) -> Callable | None:
    """The rule for one pair's tied states (module docstring), or None where it cannot act.

    ``objs``: the pair's objects (all proposals), ``by_r``: their numbers by reference start in
    option order, ``chains``: each tied state's objects.  Returns ``rule(i, k, x, y)`` as
    :func:`.siblings.sibling_order`'s: -1 (state ``i`` first), 1 (state ``k`` first), 0 (no).
    """
    if not any(_loose(o) and o[0] == o[2] for o in objs):
        return None
    later: dict[int, int] = {}  # test position -> bits of its non-exact one-word readings' r
    for o in objs:
        if _loose(o):
            later[o[0]] = later.get(o[0], 0) | 1 << o[2]
    cover = [0] * len(chains)  # per state: the reference positions its matches cover
    for s, ks in enumerate(chains):
        for k in ks:
            cover[s] |= ((1 << objs[k][3]) - 1) << objs[k][2]

    def rule(i: int, k: int, x: tuple, y: tuple) -> int:
        a, b = objs[by_r[x[0]][x[1]]], objs[by_r[y[0]][y[1]]]
        for d, w, sign in ((a, b, 1), (b, a, -1)):
            j = d[2]
            if not (_loose(d) and _loose(w) and d[0] == j and w[0] != j and w[4] < d[4]):
                continue
            if later[d[0]] >> (j + 1) & ~(cover[i] | cover[k]) >> (j + 1):
                continue  # a free later reading of d's test word: the exception stands
            return sign
        return 0

    return rule


def earlier_rows(c: Candidates, sel: np.ndarray, state: np.ndarray, obj: np.ndarray, n: int):
    """:func:`earlier_order` on arrays, or None where no tied state holds a non-exact one-word
    object on the diagonal.

    ``sel``: the searched objects (rows of ``c``, whole pairs, captions of at most 64 tokens);
    ``state``, ``obj``: one entry per object a tied state holds (the walk's: the tail's objects
    are alone, so none covers a reference word another candidate reads); ``n``: the number of
    tied states.  Returns ``rule(u, v, j)`` as :func:`.siblings.sibling_rows`'s ``sibs``.
    """
    if not (loose_rows(c, obj) & (c.ts[obj] == c.rs[obj])).any():
        return None
    one = np.uint64(1)
    rs = c.rs[obj].astype(np.int64)
    at = np.full((n, int(rs.max()) + 1), -1, dtype=np.int64)  # the object starting at r, per state
    at[state, rs] = obj
    cover = np.zeros(n, dtype=np.uint64)  # per state: the reference positions covered, as bits
    span = span_bits(rs, c.rl[obj])
    np.bitwise_or.at(cover, state, span)
    # per (pair, test position): the reference positions of its non-exact one-word candidates
    e = sel[loose_rows(c, sel)]  # (the held diagonal one among them: never empty)
    key = c.pair[e].astype(np.int64) * 64 + c.ts[e]
    order = np.argsort(key, kind="stable")
    key, bits = key[order], one << c.rs[e[order]].astype(np.uint64)
    heads = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    table, later = key[heads], np.bitwise_or.reduceat(bits, heads)

    def rule(u: np.ndarray, v: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        fire, first = np.zeros(u.size, dtype=bool), np.zeros(u.size, dtype=bool)
        jj = np.minimum(j, at.shape[1] - 1)
        ou = np.where(j < at.shape[1], at[u, jj], -1)
        ov = np.where(j < at.shape[1], at[v, jj], -1)
        q = np.flatnonzero((ou >= 0) & (ov >= 0))
        a, b = ou[q], ov[q]
        ok = loose_rows(c, a) & loose_rows(c, b)
        diag_a, diag_b = c.ts[a] == j[q], c.ts[b] == j[q]
        ok &= diag_a != diag_b
        d, w = np.where(diag_a, a, b), np.where(diag_a, b, a)
        ok &= c.stage[w] < c.stage[d]
        q, d = q[ok], d[ok]
        if q.size == 0:
            return fire, first
        at_t, found = find_sorted(table, c.pair[d].astype(np.int64) * 64 + c.ts[d])
        jq = j[q].astype(np.uint64)
        beyond = ~(((one << jq) - one) | (one << jq))  # reference positions after j
        free = later[at_t] & beyond & ~(cover[u[q]] | cover[v[q]])
        hit = ~(found & (free != 0))
        fire[q] = hit
        first[q] = ~diag_a[ok]  # u's object is w: u first
        return fire, first

    return rule


def loose_rows(c: Candidates, rows: np.ndarray) -> np.ndarray:
    """Which of the candidates ``rows`` of ``c`` are non-exact one-word matches (a mask)."""
    return (c.stage[rows] != EXACT) & (c.tl[rows] == 1) & (c.rl[rows] == 1)


def tie_order(objs: list[Match], by_r: dict, chains: list[list[int]]) -> Callable | None:
    """spec50a's and spec48b's rules together, for :func:`.paths.first_by_path`'s ``sib``."""
    rules = [r for r in (earlier_order(objs, by_r, chains), sibling_order(objs, by_r, chains)) if r]
    if len(rules) < 2:
        return rules[0] if rules else None

    def both(i: int, k: int, x: tuple, y: tuple) -> int:
        return rules[0](i, k, x, y) or rules[1](i, k, x, y)

    return both


def tie_rows(c: Candidates, sel: np.ndarray, state: np.ndarray, obj: np.ndarray, n: int):
    """spec50a's and spec48b's rules together, for :func:`.paths.first_by_path_rows`'s ``sibs``."""
    made = (earlier_rows(c, sel, state, obj, n), sibling_rows(c, sel, state, obj, n))
    rules = [r for r in made if r]
    if len(rules) < 2:
        return rules[0] if rules else None

    def both(u: np.ndarray, v: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f1, s1 = rules[0](u, v, j)
        f2, s2 = rules[1](u, v, j)
        return f1 | f2, np.where(f1, s1, s2)

    return both
