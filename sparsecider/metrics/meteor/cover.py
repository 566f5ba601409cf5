"""``spec54b`` (METEOR_BEHAVIOUR.md 6.3, N131, N135): in the FINAL sort, a square paraphrase and
a second reading of an exact word against its shifted sibling, the state covering more words
first.

Two final states equal on the key's first term (uncontested matches) are ordered by this rule,
before every other comparison of the final sort (spec47a's, spec53a's, the keys, the paths),
where all of these hold:

* each state holds exactly two matches (span pairs) the other lacks: one NON-EXACT multi-word
  match (``t_len > 1`` or ``r_len > 1``) and one EXACT one-word match;
* the two multi-word matches overlap on the test side and on the reference side;
* the coverages differ (test + reference words covered by ALL the state's matches), and the
  multi-word match of the state covering more is square (``t_len == r_len``).

Then the state covering more comes first.  Jar toys ``BB1``-``BB7`` and COCO 35293 (``a couple
of people ...`` / ``a few people ...``: {``couple of``/``a few`` 2:2, ``a``/``a`` t0-r5} before
{``a``/``a`` t0-r0, ``couple of``/``few`` 2:1}, though it has one chunk more).

The comparison reads only the two states' own matches.  The per-pair search
(:func:`.align.align`) asks it through :func:`.paths.first_by_path`'s ``cov``, on the states
equal with the best on the first term where it acts in some pair of them (:func:`cov_states`).
The array search searches every pair as before and then answers again, with the per-pair search,
the pairs where the rule can act: a pair of :func:`cov_pairs` (a non-exact square multi-word
candidate, a non-exact multi-word candidate with fewer words overlapping it on both sides, two
exact one-word candidates) whose final states equal with the best on the first term hold such a
P and such a Q in two different states (:func:`cov_redo`, :func:`cov_answer`).
"""

from __future__ import annotations

import numpy as np

from .batch import Candidates, expand_ranges
from .farrival import per_pair_rows
from .matchers import EXACT
from .tiesort import held_rows

__all__ = ["cov_answer", "cov_order", "cov_pairs", "cov_redo", "cov_states"]


def _multi(m: tuple) -> bool:
    return m[1] > 1 or m[3] > 1


def cov_order(a: dict, b: dict) -> int:
    """The rule for two final states' matches (``span pair -> stage``): -1 (``a`` first), 1, or
    0 (it does not apply; the first key term is the caller's)."""
    da, db = a.keys() - b.keys(), b.keys() - a.keys()
    if len(da) != 2 or len(db) != 2:
        return 0
    ma, mb = [m for m in da if _multi(m)], [m for m in db if _multi(m)]
    if len(ma) != 1 or len(mb) != 1 or a[ma[0]] == EXACT or b[mb[0]] == EXACT:
        return 0
    (xa,), (xb,) = da - {ma[0]}, db - {mb[0]}
    if a[xa] != EXACT or b[xb] != EXACT or _multi(xa) or _multi(xb):
        return 0
    p, q = ma[0], mb[0]
    if not (
        p[0] < q[0] + q[1] and q[0] < p[0] + p[1] and p[2] < q[2] + q[3] and q[2] < p[2] + p[3]
    ):
        return 0
    ca, cb = (sum(m[1] + m[3] for m in s) for s in (a, b))
    if ca == cb or (p if ca > cb else q)[1] != (p if ca > cb else q)[3]:
        return 0
    return -1 if ca > cb else 1


def cov_states(states: list, ranks: list[int], n: int, objs: list, unit: int) -> tuple:
    """How many of one pair's final states (``n`` ordered so far; sorted by packed rank unless
    all are) the final sort orders, and the rule as ``cov(i, k)`` over their indices (or None):
    those equal with the best on the first term (``rank // unit``) when the rule orders some
    two of them (``states``: the search's, each state's chain of objects at ``[5]``)."""
    if not any(m[4] != EXACT and m[1] == m[3] > 1 for m in objs):
        return n, None  # (most pairs: no non-exact square multi-word candidate)
    g = n
    while g < len(ranks) and ranks[g] // unit == ranks[0] // unit:
        g += 1
    if g < 2:
        return n, None
    sets = []
    for st in states[:g]:
        node, held = st[5], {}
        while node is not None:
            m = objs[node[0]]
            held[m[:4]] = m[4]
            node = node[1]
        sets.append(held)
    # only states holding a non-exact square multi-word match can win by the rule
    sq = [
        i for i, h in enumerate(sets) if any(s != EXACT and m[1] == m[3] > 1 for m, s in h.items())
    ]
    if not sq or not any(
        cov_order(sets[i], sets[k]) and ranks[i] // unit == ranks[k] // unit
        for i in sq
        for k in range(g)
        if k != i
    ):
        return n, None

    def cov(i: int, k: int) -> int:
        return cov_order(sets[i], sets[k]) if ranks[i] // unit == ranks[k] // unit else 0

    return max(n, g), cov


def cov_pairs(c: Candidates, sel: np.ndarray) -> np.ndarray:
    """Per object of ``sel`` (whole pairs), whether its pair can hold two states the rule orders
    (the pairs :mod:`.beam` leaves to the per-pair search): a non-exact square multi-word
    candidate P, a non-exact multi-word candidate Q with fewer words overlapping P on both
    sides, and two exact one-word candidates."""
    out = np.zeros(sel.size, dtype=bool)
    if sel.size == 0:
        return out
    p_of, st, tl, rl = c.pair[sel], c.stage[sel], c.tl[sel], c.rl[sel]
    sq = (st != EXACT) & (tl == rl) & (tl > 1)
    if not sq.any():
        return out
    n = int(p_of.max()) + 1
    ok = np.zeros(n, dtype=bool)
    ok[p_of[sq]] = True
    ok &= np.bincount(p_of[(st == EXACT) & (tl == 1) & (rl == 1)], minlength=n) >= 2
    mw = (st != EXACT) & ((tl > 1) | (rl > 1)) & ok[p_of]
    if not sq[mw].any():
        return out
    # every (P, Q) of one pair among its few multi-word candidates
    rows = np.flatnonzero(mw)
    rows = rows[np.argsort(p_of[rows], kind="stable")]
    pa = p_of[rows]
    size = np.bincount(pa, minlength=n)
    start = np.cumsum(size) - size
    ps = np.flatnonzero(sq[rows])
    own, k = expand_ranges(start[pa[ps]], size[pa[ps]])
    i = ps[own]
    hit = _overlaps_fewer(c, sel[rows[i]], sel[rows[k]])
    good = np.zeros(n, dtype=bool)
    good[pa[i[hit]]] = True
    return good[p_of]


def cov_redo(c: Candidates, sel: np.ndarray, final: tuple, held: tuple, unit: int) -> np.ndarray:
    """Per pair (indexed like ``c.pair``'s values), whether the array search's final states of
    a pair of :func:`cov_pairs` (``sel``: whole pairs) can be ordered by the rule: a state equal
    with its pair's best on the first term (``rank // unit``) holds a non-exact square
    multi-word object P and another such state a non-exact multi-word object Q with fewer words
    overlapping P on both sides, and that second state is the pair's answer without the rule
    (elsewhere the rule cannot change the answer: the answer is ordered before every other state
    by the last sort's comparisons and is never put after one by the rule, so it stays first;
    the per-pair search answers the pairs found here again).  ``final``: per final state its
    slot, rank and last node, and per slot its answer's final state; ``held``: the nodes'
    objects, parents and the rows of ``sel`` they stand for."""
    slot_of, owner, rank, node, won = final
    obj, parent, w_obj = held
    redo = np.zeros(int(c.pair.max()) + 1 if c.pair.size else 0, dtype=bool)
    maybe = cov_pairs(c, sel)
    if not maybe.any():
        return redo
    on = np.zeros(int(owner.max()) + 1, dtype=bool)
    on[slot_of[c.pair[sel[maybe]]]] = True
    # (``owner`` non-decreasing: the states of those slots only, by two searches)
    qs = np.flatnonzero(on)
    lo = np.searchsorted(owner, qs)
    e, st = expand_ranges(lo, np.searchsorted(owner, qs, "right") - lo)
    low = np.full(qs.size, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(low, e, rank[st])
    st = st[rank[st] // unit == low[e] // unit]
    state, k = held_rows(node[st], obj, parent)
    r = w_obj[k]
    every = (st[state], r)
    mw = (c.stage[r] != EXACT) & ((c.tl[r] > 1) | (c.rl[r] > 1))
    state, r = st[state[mw]], r[mw]
    slot = owner[state]
    order = np.argsort(slot, kind="stable")
    state, r, slot = state[order], r[order], slot[order]
    size = np.bincount(slot, minlength=on.size)
    start = np.cumsum(size) - size
    ps = np.flatnonzero(c.tl[r] == c.rl[r])
    own, k = expand_ranges(start[slot[ps]], size[slot[ps]])
    pi, qk = r[ps[own]], r[k]
    answer = np.zeros(owner.size, dtype=bool)
    answer[won] = True
    hit = np.flatnonzero(
        (state[ps[own]] != state[k]) & answer[state[k]] & _overlaps_fewer(c, pi, qk)
    )
    if hit.size:
        first = _cov_first(c, state[ps[own[hit]]], state[k[hit]], every)
        redo[c.pair[pi[hit[first]]]] = True
    return redo


def _cov_first(c: Candidates, a: np.ndarray, b: np.ndarray, held: tuple) -> np.ndarray:
    """Per couple of final states (``a``, ``b``; ``held``: the objects, rows of ``c``, each
    state holds): whether the rule puts ``a`` first (:func:`cov_order` -1), on arrays."""
    hs, hr = held
    order = np.argsort(hs, kind="stable")
    hs, hr = hs[order], hr[order]
    ends = []
    for x in (a, b):
        lo = np.searchsorted(hs, x)
        ends.append(expand_ranges(lo, np.searchsorted(hs, x, "right") - lo))
    (ea, ka), (eb, kb) = ends
    e = np.concatenate((ea, eb))
    side = np.concatenate((np.zeros(ea.size, dtype=np.int64), np.ones(eb.size, dtype=np.int64)))
    r = hr[np.concatenate((ka, kb))]
    ts, tl, rs, rl = (x[r].astype(np.int64) for x in (c.ts, c.tl, c.rs, c.rl))
    idx = e * 2 + side  # (couple, side)
    m2 = a.size * 2
    cover = np.bincount(idx, weights=tl + rl, minlength=m2).reshape(-1, 2)
    # the matches (span pairs) only one side holds: two each, one non-exact multi-word, one
    # exact one-word
    key = (((e * 64 + ts) * 64 + tl) * 64 + rs) * 64 + rl
    o = np.argsort(key, kind="stable")
    same = key[o[1:]] == key[o[:-1]]
    dup = np.zeros(key.size, dtype=bool)
    dup[o[1:][same]] = dup[o[:-1][same]] = True
    multi, ex = (tl > 1) | (rl > 1), c.stage[r] == EXACT
    only = ~dup
    pm = only & multi & ~ex
    ok = (np.bincount(idx[only], minlength=m2) == 2) & (np.bincount(idx[pm], minlength=m2) == 1)
    ok = (ok & (np.bincount(idx[only & ~multi & ex], minlength=m2) == 1)).reshape(-1, 2)
    ok = ok.all(axis=1)
    # a's multi-word match P and b's Q overlap on both sides; a covers more, and P is square
    span = np.zeros((m2, 4), dtype=np.int64)
    span[idx[pm]] = np.stack((ts[pm], tl[pm], rs[pm], rl[pm]), axis=1)
    p, q = span[0::2].T, span[1::2].T
    over = (p[0] < q[0] + q[1]) & (q[0] < p[0] + p[1]) & (p[2] < q[2] + q[3]) & (q[2] < p[2] + p[3])
    return ok & over & (cover[:, 0] > cover[:, 1]) & (p[1] == p[3])


def _overlaps_fewer(c: Candidates, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per pair of rows ``p``, ``q`` of ``c``: Q overlaps P on the test side and on the
    reference side and covers fewer words (the rule's P and Q)."""
    tp, tq, rp, rq, lp, lq, mp, mq = (
        a[x].astype(np.int64) for a in (c.ts, c.rs, c.tl, c.rl) for x in (p, q)
    )
    return (tp < tq + lq) & (tq < tp + lp) & (rp < rq + mq) & (rq < rp + mp) & (lp + mp > lq + mq)


def cov_answer(c: Candidates, sel: np.ndarray, redo: np.ndarray, out: list, align) -> np.ndarray:
    """The array search's answer rows ``out`` with the pairs ``redo`` (:func:`cov_redo`)
    answered by the per-pair search (``align``) instead."""
    res = np.concatenate(out) if out else np.zeros(0, dtype=np.int64)
    if not redo.any():
        return res
    again = per_pair_rows(c, sel[redo[c.pair[sel]]], align)
    return np.concatenate((res[~redo[c.pair[res]]], again))
