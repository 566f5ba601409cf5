"""The alignment search of :mod:`.align`, run for many pairs at once on arrays.

Same states, same order, same result as :func:`~.align.align` (the per-pair reading of the
specification, section 6), but every pair of a chunk advances one test position per step, its
partial alignments held as rows of flat arrays: 64-bit masks of the used test and reference
words (so captions of at most 64 tokens), the weighted coverage, chunks, coverage, the end of
the last match, and a back pointer into a table of chosen matches.  A pair whose candidates do
not overlap and are not contested keeps all of them: that common case costs no search.
"""

from __future__ import annotations

import numpy as np

from .align import BEAM
from .batch import Candidates
from .matchers import EXACT

__all__ = ["align_pairs", "contested"]

_WEIGHT_X = np.array([10, 6, 8, 6], dtype=np.int64)  # module weights times 10: exact sums
_U1 = np.uint64(1)


def contested(c: Candidates) -> np.ndarray:
    """Non-exact one-word candidates the jar takes only when they add no chunk.

    Proposed more than once, or sharing its test (reference) word with another such candidate
    (whose other word then differs): :func:`~.align._contested` restricted to what it can
    return.
    """
    one = (c.stage != EXACT) & (c.tl == 1) & (c.rl == 1)
    out = one & (c.count > 1)
    for pos in (c.ts, c.rs):
        key = (c.pair * 64 + pos)[one]
        uniq, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
        out[np.flatnonzero(one)[cnt[inv] > 1]] = True
    return out


def _span_mask(start: np.ndarray, length: np.ndarray) -> np.ndarray:
    s = start.astype(np.uint64)
    return ((_U1 << length.astype(np.uint64)) - _U1) << s


def align_pairs(c: Candidates, n_pairs: int) -> np.ndarray:
    """Indexes (into ``c``) of the candidates each pair's alignment keeps.

    Parameters
    ----------
    c : Candidates
        Sorted by (pair, t_start, t_len, r_start, r_len), spans within 64 tokens.
    n_pairs : int

    Returns
    -------
    ndarray of int
        Chosen candidate indexes, grouped by pair, in test order.
    """
    nc = c.pair.size
    if nc == 0:
        return np.zeros(0, dtype=np.int64)
    gain = np.where(contested(c), 0, _WEIGHT_X[c.stage] * (c.tl + c.rl))
    # How many candidates cover each word, and how many start at each test position.
    touch_t = np.zeros(n_pairs * 64 + 8, dtype=np.int64)
    touch_r = np.zeros(n_pairs * 64 + 8, dtype=np.int64)
    for d in range(int(max(c.tl.max(), c.rl.max()))):
        np.add.at(touch_t, (c.pair * 64 + c.ts + d)[c.tl > d], 1)
        np.add.at(touch_r, (c.pair * 64 + c.rs + d)[c.rl > d], 1)
    at_start = np.bincount(c.pair * 64 + c.ts, minlength=n_pairs * 64)
    alone = gain > 0
    for d in range(int(max(c.tl.max(), c.rl.max()))):
        alone &= (c.tl <= d) | (touch_t[c.pair * 64 + c.ts + d] == 1)
        alone &= (c.rl <= d) | (touch_r[c.pair * 64 + c.rs + d] == 1)
    forced = alone & (at_start[c.pair * 64 + c.ts] == 1)
    # The common case: nothing overlaps, nothing is contested: every candidate is kept.
    free_pair = np.ones(n_pairs, dtype=bool)
    free_pair[c.pair[~forced]] = False
    # rest[p, i]: the most weight positions >= i of pair p could still add.
    best = np.zeros((n_pairs, 66), dtype=np.int64)
    np.maximum.at(best, (c.pair, c.ts), gain)
    rest = np.cumsum(best[:, ::-1], axis=1)[:, ::-1]
    search = ~free_pair[c.pair]
    chosen = [np.flatnonzero(~search)]
    if search.any():
        chosen.append(_search(c, np.flatnonzero(search), gain, forced, rest, n_pairs))
    out = np.concatenate(chosen)
    return out[np.argsort(c.pair[out] * 64 + c.ts[out], kind="stable")]


def _search(c, idx, gain, forced, rest, n_pairs) -> np.ndarray:
    """The beam search of :func:`~.align.align` for the candidates ``idx`` (whole pairs)."""
    by_ts = idx[np.argsort(c.ts[idx], kind="stable")]  # by position, then pair, then key
    ts_sorted = c.ts[by_ts]
    tmask = _span_mask(c.ts, c.tl)
    rmask = _span_mask(c.rs, c.rl)
    pairs = np.unique(c.pair[idx])
    # States (one row each), grouped by pair, in beam order.
    sp = pairs.copy()
    z = np.zeros(pairs.size, dtype=np.int64)
    sw, sch, scov = z.copy(), z.copy(), z.copy()
    sut = np.zeros(pairs.size, dtype=np.uint64)
    sur = sut.copy()
    ste, sre = z - 1, z - 1
    snode = z - 1
    node_c: list[np.ndarray] = []
    node_parent: list[np.ndarray] = []
    n_nodes = 0
    is_active = np.zeros(n_pairs, dtype=bool)
    n_cand = np.zeros(n_pairs, dtype=np.int64)
    first_cand = np.zeros(n_pairs, dtype=np.int64)
    for i in range(int(ts_sorted[-1]) + 1):
        lo, hi = np.searchsorted(ts_sorted, [i, i + 1])
        if lo == hi:
            continue
        block = by_ts[lo:hi]
        bp = c.pair[block]
        ap, a_first, a_n = np.unique(bp, return_index=True, return_counts=True)
        is_active[ap] = True
        n_cand[ap] = a_n
        first_cand[ap] = a_first
        act = is_active[sp]
        one = a_n == 1
        pforced = np.zeros(n_pairs, dtype=bool)
        pforced[ap[one]] = forced[block[a_first[one]]]
        # Forced pairs: every state takes the only candidate.
        f_rows = np.flatnonzero(act & pforced[sp])
        fc = block[first_cand[sp[f_rows]]]
        f_new = _take(f_rows, fc, c, gain, tmask, rmask, sw, sch, scov, sut, sur, ste, sre)
        # The other active pairs: each state tries each candidate (key order), then the skip.
        g_rows = np.flatnonzero(act & ~pforced[sp])
        rep = n_cand[sp[g_rows]] + 1
        srow, k = _expand_counts(g_rows, rep)
        is_take = k < n_cand[sp[srow]]
        gc = np.where(is_take, block[np.minimum(first_cand[sp[srow]] + k, hi - lo - 1)], -1)
        t_idx = np.flatnonzero(is_take)
        ok = np.ones(srow.size, dtype=bool)
        ok[t_idx] = ((sut[srow[t_idx]] & tmask[gc[t_idx]]) == 0) & (
            (sur[srow[t_idx]] & rmask[gc[t_idx]]) == 0
        )
        srow, gc, is_take = srow[ok], gc[ok], is_take[ok]
        t_idx = np.flatnonzero(is_take)
        g = [a[srow].copy() for a in (sp, sw, sch, scov, sut, sur, ste, sre, snode)]
        tk = _take(srow[t_idx], gc[t_idx], c, gain, tmask, rmask, sw, sch, scov, sut, sur, ste, sre)
        for col, val in zip(g[1:8], tk, strict=True):
            col[t_idx] = val
        keep = _select(g, rest[g[0], i + 1], np.uint64(i))
        g = [a[keep] for a in g]
        gtake = is_take[keep]
        # New nodes for kept takes (forced takes all kept).
        f_par = snode[f_rows]
        f_node = np.arange(n_nodes, n_nodes + f_rows.size)
        n_nodes += f_rows.size
        node_c.append(fc)
        node_parent.append(f_par)
        tpos = np.flatnonzero(gtake)
        node_c.append(gc[keep][tpos])
        node_parent.append(g[8][tpos])
        g[8][tpos] = np.arange(n_nodes, n_nodes + tpos.size)
        n_nodes += tpos.size
        # A pair's states stay in beam order; pairs may interleave (every sort below is by pair
        # first and stable), so the three groups are simply put one after the other.
        rest_rows = np.flatnonzero(~act)
        parts = [
            [a[rest_rows] for a in (sp, sw, sch, scov, sut, sur, ste, sre, snode)],
            [sp[f_rows], *f_new, f_node],
            g,
        ]
        sp, sw, sch, scov, sut, sur, ste, sre, snode = (
            np.concatenate([p[j] for p in parts]) for j in range(9)
        )
        is_active[ap] = False
    # The best final state of each pair (the first of equals).
    order = np.argsort(_rank_key(sp, sw, sch, scov), kind="stable")
    first = _heads(sp[order])
    node = snode[order[first]]
    nc_arr = np.concatenate(node_c) if node_c else np.zeros(0, np.int64)
    np_arr = np.concatenate(node_parent) if node_parent else np.zeros(0, np.int64)
    out = []
    node = node[node >= 0]
    while node.size:
        out.append(nc_arr[node])
        node = np_arr[node]
        node = node[node >= 0]
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def _heads(x: np.ndarray) -> np.ndarray:
    """True where a run of equal values starts."""
    out = np.ones(x.size, dtype=bool)
    out[1:] = x[1:] != x[:-1]
    return out


def _expand_counts(rows: np.ndarray, rep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    owner = np.repeat(rows, rep)
    first = np.cumsum(rep) - rep
    k = np.arange(owner.size) - np.repeat(first, rep)
    return owner, k


def _take(rows, cand, c, gain, tmask, rmask, sw, sch, scov, sut, sur, ste, sre):
    """States ``rows`` extended by candidates ``cand``: (w, chunks, cov, ut, ur, te, re)."""
    ts, tl, rs, rl = c.ts[cand], c.tl[cand], c.rs[cand], c.rl[cand]
    new_chunk = (ts != ste[rows]) | (rs != sre[rows])
    return (
        sw[rows] - gain[cand],
        sch[rows] + new_chunk,
        scov[rows] - tl - rl,
        sut[rows] | tmask[cand],
        sur[rows] | rmask[cand],
        ts + tl,
        rs + rl,
    )


def _rank_key(sp, sw, sch, scov) -> np.ndarray:
    """One int64 ordering states by pair, then -weight, chunks, -coverage (all bounded)."""
    # |w| <= 10 * 128, chunks <= 64, coverage <= 128 for captions of at most 64 tokens.
    return ((sp * 4096 + (sw + 2048)) * 128 + sch) * 512 + (scov + 256)


def _select(g: list[np.ndarray], rest: np.ndarray, i: np.uint64) -> np.ndarray:
    """Rows kept of the grown states ``g``: per pair, :func:`~.align._select`."""
    sp, sw, sch, scov, sut, sur, ste, sre = g[:8]
    order = np.argsort(_rank_key(sp, sw, sch, scov), kind="stable")  # ties keep the order found
    op = sp[order]
    head = _heads(op)
    group = np.cumsum(head) - 1
    best_w = sw[order][head][group]
    alive = sw[order] <= best_w + rest[order]
    order = order[alive]
    op = op[alive]
    # Keep the first (in rank order) of states with the same future: same pair, used words
    # from here on (test words: at most 7 ahead), used reference words, last match end.
    sig = ((op * 128 + (sut[order] >> i).astype(np.int64)) * 128 + ste[order] + 1) * 128 + (
        sre[order] + 1
    )
    ur = sur[order]
    by_sig = np.lexsort((np.arange(order.size), ur, sig))
    same = (sig[by_sig][1:] == sig[by_sig][:-1]) & (ur[by_sig][1:] == ur[by_sig][:-1])
    dup = np.zeros(order.size, dtype=bool)
    dup[by_sig[1:][same]] = True
    order = order[~dup]
    op = op[~dup]
    # At most BEAM per pair.
    starts = np.flatnonzero(_heads(op))
    pos = np.arange(op.size) - np.repeat(starts, np.diff(np.r_[starts, op.size]))
    return order[pos < BEAM]
