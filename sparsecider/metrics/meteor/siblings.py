"""Non-exact siblings in the final tie (``spec48b``, METEOR_BEHAVIOUR.md 6.3 "Siblings in the
final tie", 6.5, N83).

Two final states equal on every key are ordered by their paths (:mod:`.paths`, ``spec39a``).
Where the first reference position at which they differ holds, in each state, a NON-EXACT
object with the same test start and the same reference span but a different test length
(siblings: `a couple`/`two` and `a couple of`/`two`), the state holding the LONGER one comes
first when one of its extra test words w (covered by the longer, not by the shorter) has an
exact one-word candidate OFF the diagonal (reference position r' != w) whose reference word the
shorter one's state reads with an exact one-word match from another test word (t'' != w).
Otherwise the path order stands.  The check sits after spec46b's crossing test and before
spec39a's diagonal one-word exception (the siblings are non-exact, spec46b's pairs hold an
exact object: at most one of the two acts).

:func:`sibling_order` serves the per-pair search (:func:`~.paths.first_by_path`'s ``sib``),
:func:`sibling_rows` the array search (:func:`~.paths.first_by_path_rows`'s ``sibs``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batch import Candidates, exact_one_rows, find_sorted
from .matchers import EXACT, exact_one

__all__ = ["sibling_order", "sibling_rows"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def sibling_order(objs: list[Match], by_r: dict, chains: list[list[int]]) -> Callable | None:
    """The rule for one pair's tied states (module docstring), or None where it cannot act.

    ``objs``: the pair's objects (all proposals), ``by_r``: their numbers by reference start in
    option order (a path entry's place indexes it), ``chains``: each tied state's objects.
    Returns ``sib(i, k, x, y)``: for states ``i`` and ``k`` whose first differing path entries
    ``x``, ``y`` (reference start, place, kind) start at the same reference position, -1 (state
    ``i`` first), 1 (state ``k`` first) or 0 (the rule does not act).
    """
    off: dict[int, set[int]] = {}  # test position -> its exact one-word candidates off the diagonal
    for o in objs:
        if exact_one(o) and o[0] != o[2]:
            off.setdefault(o[0], set()).add(o[2])
    if not off:
        return None
    # per state: reference position -> the test position reading it with an exact one-word match
    reads = [{objs[m][2]: objs[m][0] for m in ks if exact_one(objs[m])} for ks in chains]

    def sib(i: int, k: int, x: tuple, y: tuple) -> int:
        a, b = objs[by_r[x[0]][x[1]]], objs[by_r[y[0]][y[1]]]
        if a[4] == EXACT or b[4] == EXACT or a[0] != b[0] or a[3] != b[3] or a[1] == b[1]:
            return 0
        lng, sht, s, sign = (a, b, k, -1) if a[1] > b[1] else (b, a, i, 1)
        for w in range(sht[0] + sht[1], lng[0] + lng[1]):
            for r in off.get(w, ()):
                t = reads[s].get(r)
                if t is not None and t != w:
                    return sign
        return 0

    return sib


def sibling_rows(c: Candidates, sel: np.ndarray, state: np.ndarray, obj: np.ndarray, n: int):
    """:func:`sibling_order` on arrays, or None where no two tied states of a pair hold siblings.

    ``sel``: the searched objects (rows of ``c``, whole pairs, captions of at most 64 tokens);
    ``state``, ``obj``: one entry per object a tied state holds (the walk's; the tail's are
    alone, so never the exact reading the rule looks for: its reference word has the exact
    candidate of w too); ``n``: the number of tied states.  Returns ``sibs(u, v, j)``: for the
    states ``u`` against ``v`` whose paths first differ at reference position ``j``, whether the
    rule acts and whether ``u`` comes first where it does.
    """
    nx = c.stage[obj] != EXACT
    # siblings: two held non-exact objects of one pair, same test start and reference span,
    # different test lengths (a cheap screen: most chunks have none)
    span = ((c.pair[obj].astype(np.int64) * 64 + c.rs[obj]) * 64 + c.ts[obj]) * 8 + c.rl[obj]
    spans = np.unique(span[nx] * 8 + c.tl[obj[nx]])
    if not (spans[1:] // 8 == spans[:-1] // 8).any():
        return None
    rs = c.rs[obj].astype(np.int64)
    at = np.full((n, int(rs.max()) + 1), -1, dtype=np.int64)  # the object starting at r, per state
    at[state, rs] = obj
    ex = exact_one_rows(c, obj)
    rt = np.full((n, 64), 64, dtype=np.int64)  # per state and test position: the exact reading's r
    rt[state[ex], c.ts[obj[ex]]] = rs[ex]
    one, zero = np.uint64(1), np.uint64(0)
    read = np.zeros(n, dtype=np.uint64)  # per state: reference positions read exactly one-word
    np.bitwise_or.at(read, state[ex], one << rs[ex].astype(np.uint64))
    # per (pair, test position): the reference positions of its exact one-word candidates off the
    # diagonal, as bits
    e = sel[exact_one_rows(c, sel)]
    e = e[c.ts[e] != c.rs[e]]
    key = c.pair[e].astype(np.int64) * 64 + c.ts[e]
    order = np.argsort(key, kind="stable")
    key, bits = key[order], one << c.rs[e[order]].astype(np.uint64)
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
    table = key[first]
    off = np.bitwise_or.reduceat(bits, first) if key.size else np.zeros(0, np.uint64)

    def sibs(u: np.ndarray, v: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        fire = np.zeros(u.size, dtype=bool)
        inside = j < at.shape[1]
        ou = np.where(inside, at[u, np.minimum(j, at.shape[1] - 1)], -1)
        ov = np.where(inside, at[v, np.minimum(j, at.shape[1] - 1)], -1)
        q = np.flatnonzero((ou >= 0) & (ov >= 0))
        a, b = ou[q], ov[q]
        q = q[
            (c.stage[a] != EXACT)
            & (c.stage[b] != EXACT)
            & (c.ts[a] == c.ts[b])
            & (c.rl[a] == c.rl[b])
            & (c.tl[a] != c.tl[b])
        ]
        first = np.zeros(u.size, dtype=bool)
        if q.size == 0:
            return fire, first
        longer = c.tl[ou[q]] > c.tl[ov[q]]
        lng, sht = np.where(longer, ou[q], ov[q]), np.where(longer, ov[q], ou[q])
        s = np.where(longer, v[q], u[q])  # the shorter one's state
        lo = c.ts[sht].astype(np.int64) + c.tl[sht]
        hi = c.ts[lng].astype(np.int64) + c.tl[lng]
        hit = np.zeros(q.size, dtype=bool)
        for d in range(int((hi - lo).max())):  # the extra test words, one offset at a time
            w = lo + d
            at_t, found = find_sorted(table, c.pair[lng].astype(np.int64) * 64 + w)
            cand = np.where(found & (w < hi), off[at_t] if off.size else zero, zero)
            r_w = rt[s, np.minimum(w, 63)]  # (the reading of w itself does not count)
            own = np.where(r_w < 64, one << (r_w & 63).astype(np.uint64), zero)
            hit |= (cand & read[s] & ~own) != 0
        fire[q] = hit
        first[q] = longer
        return fire, first

    return sibs
