"""``spec54a`` (METEOR_BEHAVIOUR.md 6.3, N130, N133): before the final sort, a final state
holding contested one-word matches is DROPPED when a related state reading their reference
words' neighbours exactly from earlier test words lies farther from the diagonal.

A final state S (the X state) is dropped where another final state A (the alt) exists with:

* S and A equal on the key's first THREE terms (uncontested matches, chunks, ``spec36e``'s
  count) and different on the fourth (the certain count);
* S holds contested non-exact one-word matches X that A lacks, and A holds none S lacks;
* every match of A that S lacks is an exact one-word match (t', r) and S reads r with an exact
  one-word match from a LATER test word t > t'; every other match of S that A lacks is such a
  later reading (``rw``);
* neither state holds a multi-word match (``nomw``); A reads no test word of an X (``nx``); the
  beam is larger than the number of proposals of each X's span pair (``bp``);
* D(A) > D(S), D the sum of ``|t - r|`` over a state's matches, a contested non-exact one-word
  match counted (its span pair's proposals - 1) times (``w``; jar grids, toys ``BA1``-``BA13``).

The drops are decided on the whole final list at once (A may be dropped too), so the answer
no longer depends on the sort's comparison order (``spec53a``'s comparison inside the sort,
N122, N127, was not transitive).  A state of the largest D is never dropped.

:func:`far_drops` serves the per-pair search (:func:`.align.align`), :func:`far_keep_rows` the
array search (:mod:`.beam`): the final states of every pair, before its ties are decided.
"""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from ..._kernels.arrays import popcount
from .batch import expand_ranges, or_by
from .matchers import EXACT, exact_one

if TYPE_CHECKING:
    from .batch import Candidates

__all__ = ["far_drops", "far_keep_rows", "may_drop"]


def may_drop(ranks: list[int], units: tuple[int, int]) -> bool:
    """Whether two of one pair's final states (``ranks``: packed, ascending) are equal on the
    key's first three terms and different on the fourth (``units``: the packed rank's weights
    of the third and the fourth term): the rule's first necessary condition."""
    third, fourth = units
    return any(a // third == b // third and a // fourth != b // fourth for a, b in pairwise(ranks))


def far_drops(finals: list[tuple], beam: int, props: dict, units: tuple[int, int]) -> set[int]:
    """The rule (module docstring) for one pair's final states: which to drop.  ``finals``: per
    state (its packed rank, its matches, its contested non-exact one-word matches), sets of
    ``(t_start, t_len, r_start, r_len, stage)``; ``props``: the pair's proposals by span pair."""
    third, fourth = units
    mw = [any(m[1] > 1 or m[3] > 1 for m in f[1]) for f in finals]
    dist: dict[int, int] = {}

    def d(i: int) -> int:
        if i not in dist:
            _, ms, cs = finals[i]
            dist[i] = sum(abs(m[0] - m[2]) * (len(props[m[:4]]) - 1 if m in cs else 1) for m in ms)
        return dist[i]

    drop = set()
    for i, (ri, mx, ci) in enumerate(finals):
        if not ci or mw[i]:
            continue
        for j, (rj, mo, co) in enumerate(finals):
            if j == i or mw[j] or ri // third != rj // third or ri // fourth == rj // fourth:
                continue
            cx = ci - co
            if not cx or co - ci:
                continue
            only_o, only_x = mo - mx, mx - mo - cx
            if not only_o or not all(exact_one(m) for m in only_o | only_x):
                continue
            # (rw; one-word matches: each state reads a reference word at most once)
            if {m[2] for m in only_o} != {m[2] for m in only_x}:
                continue
            if any(not any(w[2] == y[2] and w[0] > y[0] for w in only_x) for y in only_o):
                continue
            if any(len(props[m[:4]]) >= beam for m in cx) or any(
                y[0] == m[0] for m in cx for y in only_o
            ):
                continue  # (bp, nx)
            if d(j) > d(i):
                drop.add(i)
                break
    return drop


def far_keep_rows(
    c: Candidates, sel, slot, marks: tuple, finals: tuple, held, units: tuple, beam: int
) -> np.ndarray | None:
    """The rule in the array search: which final states to keep (a mask), or None (all).

    ``sel``: the searched objects (rows of ``c``), ``slot``: their pairs' slots (non-decreasing);
    ``marks``: the contest bits of ``sel``, each slot's final contested bits, the presence and
    contest bits of every row of ``c``; ``finals``: per final state its packed rank, slot,
    presence bits, test words used, and per slot a multi-word tail (the rule cannot act);
    ``held(states) -> (state, object)``: the objects the final states ``states`` hold (the
    tail's left out)."""
    cbit, flagged, obit, ocbit = marks
    rank, owner, sbits, used, t_mw = finals
    third, fourth = units
    n = flagged.size
    # Necessary, per slot: a reference word read exactly (one word) from two test words (rw),
    # no multi-word tail, a contested object ...
    one = (c.tl[sel] == 1) & (c.rl[sel] == 1)
    pre = (flagged != 0) & ~t_mw
    exact = c.stage[sel] == EXACT
    ex = np.flatnonzero(one & exact & pre[slot])  # (the exact readings of those slots only)
    r_of = c.rs[sel[ex]]
    width = int(r_of.max()) + 1 if ex.size else 1
    rkey, t_ex = slot[ex] * width + r_of, c.ts[sel[ex]].astype(np.int64)
    # ... and D(A) > D(S) possible: S gains at most |first - r| - |t - r| (> 0) for each exact
    # (t, r) it reads later than r's first exact reading ``first`` (A reads r from t' < t; the
    # farthest t' is ``first``), and pays (p - 1)|t - r| >= 0 for each X (common matches
    # cancel): the slot's largest total gain must exceed its cheapest X (below, per X state)
    first = np.full(n * width, 64)
    np.minimum.at(first, rkey, t_ex)
    later = t_ex > first[rkey]
    r_ex = rkey[later] % width
    g_obj = np.abs(first[rkey[later]] - r_ex) - np.abs(t_ex[later] - r_ex)
    gain = np.zeros(n * width, dtype=np.int64)
    np.maximum.at(gain, rkey[later], g_obj)
    pe = ex[later][g_obj > 0]
    pg = g_obj[g_obj > 0]
    gain = gain.reshape(n, width).sum(axis=1)
    on = (gain > 0) & pre
    rows = np.flatnonzero(one & ~exact & on[slot])
    rows = rows[(cbit[rows] & flagged[slot[rows]]) != 0]  # (contested: others never count)
    if rows.size == 0:
        return None
    # ... non-exact one-word, contested, of fewer proposals than the beam (X), or not (bp)
    npr = nprops(c, sel[rows])
    few = npr < beam
    xsel = sel[rows[few]]
    xcost_of = (npr[few] - 1) * np.abs(c.ts[xsel].astype(np.int64) - c.rs[xsel])
    cost = np.full(n, 1 << 40)
    np.minimum.at(cost, slot[rows[few]], xcost_of)
    xbits, big = (
        or_by(slot[rows], np.where(m, cbit[rows], np.uint64(0)), n) & flagged for m in (few, ~few)
    )
    xbits[gain <= cost] = 0
    if not xbits.any():
        return None
    # ... and a state holding an X, equal with another on three terms, not on four
    # (``owner`` non-decreasing: the states of the slots with an X, by two searches)
    xq = np.flatnonzero(xbits)
    lo = np.searchsorted(owner, xq)
    cand = expand_ranges(lo, np.searchsorted(owner, xq, "right") - lo)[1]
    k3 = owner[cand] * (1 << 40) + rank[cand] // third  # (ranks are far below 2**40 thirds)
    # (grouped by k3 only: the pairs below need no order inside a group; often already sorted)
    if k3.size > 1 and (k3[1:] < k3[:-1]).any():
        order = np.argsort(k3, kind="stable")
        cand, k3 = cand[order], k3[order]
    g = cand
    start = np.flatnonzero(np.r_[True, k3[1:] != k3[:-1]])
    size = np.diff(start, append=g.size)
    k4 = rank[g] // fourth
    og, sg = owner[g], sbits[g]
    mixed = np.minimum.reduceat(k4, start) != np.maximum.reduceat(k4, start)
    # (an X state reads more test words than its alt: fewer than the group's fewest, never)
    ug = used[g]
    pc = popcount(ug)
    few_pc = np.repeat(np.minimum.reduceat(pc, start), size)
    xs = np.flatnonzero(np.repeat(mixed, size) & ((sg & xbits[og]) != 0) & (pc > few_pc))
    if xs.size == 0:
        return None
    # per slot, the test words of exact one-word readings of a reference word read from a later
    # (``early``) or an earlier (``late``) test word too, and of the X objects
    last = np.full(n * width, -1)
    np.maximum.at(last, rkey, t_ex)
    one_t = np.left_shift(np.uint64(1), t_ex.astype(np.uint64))
    early, late = (
        or_by(slot[ex], np.where(m, one_t, np.uint64(0)), n)
        for m in (t_ex < last[rkey], t_ex > first[rkey])
    )
    xo, xc = rows[few], xcost_of
    oxs, sxs = og[xs], sg[xs]
    lo = np.searchsorted(slot[xo], oxs)
    e, k = expand_ranges(lo, np.searchsorted(slot[xo], oxs, "right") - lo)
    has = (sxs[e] & cbit[xo][k]) != 0
    tx = np.zeros(g.size, dtype=np.uint64)
    bit = np.left_shift(np.uint64(1), c.ts[xsel][k[has]].astype(np.uint64))
    np.bitwise_or.at(tx, xs[e[has]], bit)
    # (per X state: the gains of the later exact readings it holds against its cheapest X;
    # a reading of no presence bit counted as held)
    xcost = np.full(xs.size, 1 << 40)
    np.minimum.at(xcost, e[has], xc[k[has]])
    lo = np.searchsorted(slot[pe], oxs)
    e, k = expand_ranges(lo, np.searchsorted(slot[pe], oxs, "right") - lo)
    pb = obit[sel[pe]][k]
    has = (pb == 0) | ((sxs[e] & pb) != 0)
    sgain = np.bincount(e[has], weights=pg[k[has]], minlength=xs.size)
    xs = xs[sgain > xcost]
    if xs.size == 0:
        return None
    # every (X state, other state) of a group, different on four terms, where the X state holds
    # an X whose test word the other leaves unread (nx), no contested object of more proposals
    # the other lacks (bp), and the other no contested non-exact one-word object the X state
    # lacks (presence bits, used test words)
    at, cnt = np.repeat(start, size), np.repeat(size, size)
    i, j = expand_ranges(at[xs], cnt[xs])
    i = xs[i]
    # (the X state reads one test word more per X it holds: its other extra matches and the
    # other's are one-to-one on reference words)
    w = (k4[i] != k4[j]) & (pc[i] > pc[j])
    i, j = i[w], j[w]
    ui, uj = ug[i], ug[j]
    w = (tx[i] & ~uj) != 0
    # (the test words only the other reads are its extra readings: exact, of a reference word
    # the X state reads later; those only the X state reads, its Xs and such later readings)
    xt = or_by(og, tx, n)
    q = og[i]
    w &= ((uj & ~ui & ~early[q]) == 0) & ((ui & ~uj & ~(late[q] | xt[q])) == 0)
    i, j = i[w], j[w]
    si, sj, q = sg[i], sg[j], og[i]
    w = ((si & big[q] & ~sj) == 0) & ((sj & (xbits[q] | big[q]) & ~si) == 0)
    i, j = i[w], j[w]
    if i.size == 0:
        return None
    # D and the multi-word matches of the states of those first (D(A) > D(S) leaves about a
    # quarter), then the per-state tables of the states left only, renumbered 0 .. m - 1
    left = np.zeros(g.size, dtype=bool)
    left[i] = left[j] = True
    u = np.flatnonzero(left)
    num = np.cumsum(left) - 1
    state, obj = held(g[u])
    objs = _objects(c, obj, (obit, ocbit, flagged), og[u][state])
    mw, dist = _distances(state, objs, u.size)
    x, o = num[i], num[j]
    w = ~mw[x] & ~mw[o] & (dist[o] > dist[x])
    if not w.any():
        return None
    i, x, o = i[w], x[w], o[w]
    left = np.zeros(u.size, dtype=bool)
    left[x] = left[o] = True
    new = np.cumsum(left) - 1
    on = left[state]
    tables = _tables(c, (new[state[on]], obj[on]), tuple(a[on] for a in objs), int(left.sum()))
    fire = _fires(tables, new[x], new[o], beam)
    keep = np.ones(rank.size, dtype=bool)
    keep[g[i[fire]]] = False
    return keep


def nprops(c: Candidates, rows: np.ndarray) -> np.ndarray:
    """How many proposals the span pair of each row of ``c`` has (``c`` sorted by pair and
    span pair: a span pair's rows are consecutive; counted by walking each row's run both
    ways, one step for all rows at a time: runs are a few rows long)."""
    out = np.ones(rows.size, dtype=np.int64)
    key = _span_pair(c, rows)
    for step in (-1, 1):
        live, at = np.arange(rows.size), rows + step
        while live.size:
            ok = (at >= 0) & (at < c.pair.size)
            live, at = live[ok], at[ok]
            ok = _span_pair(c, at) == key[live]
            live, at = live[ok], at[ok] + step
            out[live] += 1
    return out


def _span_pair(c: Candidates, rows: np.ndarray) -> np.ndarray:
    """A key of each row's pair and span pair, ascending with ``c``'s order."""
    p, t, r = c.pair[rows].astype(np.int64), c.ts[rows], c.rs[rows]
    return (((p * 64 + t) * 64 + c.tl[rows]) * 64 + r) * 64 + c.rl[rows]


def _objects(c: Candidates, obj: np.ndarray, bits: tuple, q: np.ndarray) -> tuple:
    """Per held object (rows of ``c``; ``q``: their states' slots): test and reference start,
    one-word, contested non-exact one-word, its span pair's proposals (contested ones only)."""
    obit, ocbit, flagged = bits
    ts, rs = c.ts[obj].astype(np.int64), c.rs[obj].astype(np.int64)
    one = (c.tl[obj] == 1) & (c.rl[obj] == 1)
    con = ((obit[obj] & ocbit[obj] & flagged[q]) != 0) & one & (c.stage[obj] != EXACT)
    nprop = np.zeros(obj.size, dtype=np.int64)
    nprop[con] = nprops(c, obj[con])
    return ts, rs, one, con, nprop


def _distances(state: np.ndarray, objs: tuple, m: int) -> tuple:
    """Per state (``m``): whether it holds a multi-word match, and D (its contested non-exact
    one-word matches weighted by their proposals - 1)."""
    ts, rs, one, con, nprop = objs
    mw = np.zeros(m, dtype=bool)
    mw[state[~one]] = True
    weight = np.where(con, nprop - 1, 1)
    return mw, np.bincount(state, weights=np.abs(ts - rs) * weight, minlength=m)


def _tables(c: Candidates, held: tuple, objs: tuple, m: int) -> tuple:
    """Per state (``m``) and reference position: the match's identity (test start + 1, stage)
    or 0, its test start, contested non-exact one-word, exact one-word, its span pair's
    proposals; per state: the test words read."""
    state, obj = held
    ts, rs, one, con, nprop = objs
    shape = (m, int(rs.max()) + 1 if rs.size else 1)
    rid, tr, npt = (np.zeros(shape, dtype=np.int64) for _ in range(3))
    rid[state, rs] = (ts + 1) * 8 + c.stage[obj]
    tr[state, rs] = ts
    npt[state, rs] = nprop
    cn, ex = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    cn[state, rs] = con
    ex[state, rs] = one & (c.stage[obj] == EXACT)
    tread = np.zeros(m, dtype=np.uint64)
    np.bitwise_or.at(tread, state[one], np.left_shift(np.uint64(1), ts[one].astype(np.uint64)))
    return rid, tr, cn, ex, npt, tread


def _fires(tables: tuple, x: np.ndarray, o: np.ndarray, beam: int) -> np.ndarray:
    """Whether the X state ``x`` is dropped for the alt ``o`` (equal on three terms, not on
    four, no multi-word match, D(o) > D(x)), per entry."""
    rid, tr, con, ex, nprop, tread = tables
    ne = rid[x] != rid[o]
    cx = con[x] & ne
    fire = cx.any(axis=1) & ~(con[o] & ne).any(axis=1)
    only_o = (rid[o] != 0) & ne
    only_x = (rid[x] != 0) & ne & ~con[x]
    fire &= only_o.any(axis=1) & (only_o == only_x).all(axis=1)
    fire &= ~((only_o & ~ex[o]) | (only_x & ~ex[x]) | (only_o & (tr[x] <= tr[o]))).any(axis=1)
    read = (tread[o][:, None] >> tr[x].astype(np.uint64)) & np.uint64(1)
    return fire & ~(cx & ((nprop[x] >= beam) | (read != 0))).any(axis=1)
