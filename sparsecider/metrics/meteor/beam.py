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
    n = int(c.pair.max()) + 1 if c.pair.size else 0
    for pos in (c.ts, c.rs):
        key = (c.pair * 64 + pos)[one]
        out[np.flatnonzero(one)[np.bincount(key, minlength=n * 64)[key] > 1]] = True
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
        touch_t += np.bincount((c.pair * 64 + c.ts + d)[c.tl > d], minlength=touch_t.size)
        touch_r += np.bincount((c.pair * 64 + c.rs + d)[c.rl > d], minlength=touch_r.size)
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
    cell = c.pair * 66 + c.ts  # sorted: candidates are in (pair, t_start) order
    first = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]])
    best.ravel()[cell[first]] = np.maximum.reduceat(gain, first)
    rest = np.cumsum(best[:, ::-1], axis=1)[:, ::-1]
    search = ~free_pair[c.pair]
    chosen = [np.flatnonzero(~search)]
    if search.any():
        chosen.append(_search(c, np.flatnonzero(search), gain, forced, rest, n_pairs))
    out = np.concatenate(chosen)
    return out[np.argsort(c.pair[out] * 64 + c.ts[out], kind="stable")]


# A state's rank (-weight, chunks, -coverage) packed in one int64 that is linear in the three, so
# taking a match adds a constant: |weight| <= 10 * 128, chunks <= 64 and coverage <= 128 for
# captions of at most 64 tokens.  Pair p's states sort by (p << _PAIR_SHIFT) + key.
_W0, _W_SHIFT, _CH = 2048, 16, 512
_PAIR_SHIFT = 28


def _search(c, idx, gain, forced, rest, n_pairs) -> np.ndarray:
    """The beam search of :func:`~.align.align` for the candidates ``idx`` (whole pairs)."""
    by_ts = idx[np.argsort(c.ts[idx], kind="stable")]  # by position, then pair, then key
    ts_sorted = c.ts[by_ts]
    tmask = _span_mask(c.ts, c.tl)
    rmask = _span_mask(c.rs, c.rl)
    # Per candidate: the rank change it brings (one more chunk added apart), where it starts
    # and ends as a packed (test, reference) position (the chunk test compares them).
    dkey = -gain * (1 << _W_SHIFT) - c.tl - c.rl
    start_at = (c.ts + 1) * 128 + c.rs + 1
    end_at = (c.ts + c.tl + 1) * 128 + c.rs + c.rl + 1
    pairs = c.pair[idx][_heads(c.pair[idx])]  # idx is in candidate order: sorted by pair
    slot_of = np.full(n_pairs, -1, dtype=np.int64)
    slot_of[pairs] = np.arange(pairs.size)
    # States: pair slot q holds count[q] states in rows q * BEAM ..., in beam order, so a step
    # reads and writes only the pairs with a candidate at that position.
    n_rows = pairs.size * BEAM
    skey = np.full(n_rows, (_W0 << _W_SHIFT) + 256, dtype=np.int64)
    sut = np.zeros(n_rows, dtype=np.uint64)
    sur = np.zeros(n_rows, dtype=np.uint64)
    send = np.zeros(n_rows, dtype=np.int64)  # "no match yet": never a start
    snode = np.full(n_rows, -1, dtype=np.int64)
    count = np.ones(pairs.size, dtype=np.int64)
    node_c: list[np.ndarray] = []
    node_parent: list[np.ndarray] = []
    n_nodes = 0
    for i in range(int(ts_sorted[-1]) + 1):
        lo, hi = np.searchsorted(ts_sorted, [i, i + 1])
        if lo == hi:
            continue
        block = by_ts[lo:hi]
        bp = c.pair[block]  # sorted: the block is in (pair, key) order
        a_first = np.flatnonzero(_heads(bp))
        a_n = np.diff(np.r_[a_first, bp.size])
        slots = slot_of[bp[a_first]]
        fm = (a_n == 1) & forced[block[a_first]]
        # Forced pairs: every state takes the only candidate (in place, order kept).
        fs = slots[fm]
        owner, row = _expand_counts(fs * BEAM, count[fs])
        fc = block[a_first[fm]][owner]
        node_c.append(fc)
        node_parent.append(snode[row])
        snode[row] = np.arange(n_nodes, n_nodes + row.size)
        n_nodes += row.size
        skey[row] += dkey[fc] + _CH * (start_at[fc] != send[row])
        sut[row] |= tmask[fc]
        sur[row] |= rmask[fc]
        send[row] = end_at[fc]
        # The others: each state tries each candidate (key order), then skips the word.
        gs, g_n, g_first = slots[~fm], a_n[~fm], a_first[~fm]
        if gs.size == 0:
            continue
        owner, row = _expand_counts(gs * BEAM, count[gs])
        rep = g_n[owner] + 1
        srow, k = _expand_counts(np.zeros(row.size, dtype=np.int64), rep)
        oj = owner[srow]
        sr = row[srow]
        is_take = k < g_n[oj]
        gc = block[np.minimum(g_first[oj] + k, hi - lo - 1)]
        t_idx = np.flatnonzero(is_take)
        ok = np.ones(sr.size, dtype=bool)
        ok[t_idx] = ((sut[sr[t_idx]] & tmask[gc[t_idx]]) == 0) & (
            (sur[sr[t_idx]] & rmask[gc[t_idx]]) == 0
        )
        oj, sr, gc, is_take = oj[ok], sr[ok], gc[ok], is_take[ok]
        gkey, gut, gur, gend, gnode = skey[sr], sut[sr], sur[sr], send[sr], snode[sr]
        t_idx = np.flatnonzero(is_take)
        tc, tr = gc[t_idx], sr[t_idx]
        gkey[t_idx] += dkey[tc] + _CH * (start_at[tc] != send[tr])
        gut[t_idx] |= tmask[tc]
        gur[t_idx] |= rmask[tc]
        gend[t_idx] = end_at[tc]
        keep, pos = _select(oj, gkey, gut, gur, gend, rest[pairs[gs[oj]], i + 1], np.uint64(i))
        tpos = np.flatnonzero(is_take[keep])
        gnode = gnode[keep]
        node_c.append(gc[keep][tpos])
        node_parent.append(gnode[tpos])
        gnode[tpos] = np.arange(n_nodes, n_nodes + tpos.size)
        n_nodes += tpos.size
        q = gs[oj[keep]]
        dest = q * BEAM + pos
        skey[dest], sut[dest], sur[dest] = gkey[keep], gut[keep], gur[keep]
        send[dest], snode[dest] = gend[keep], gnode
        count[gs] = np.bincount(oj[keep], minlength=gs.size)
    # The best final state of each pair (the first of equals).
    owner, row = _expand_counts(np.arange(pairs.size) * BEAM, count)
    order = np.argsort((owner << _PAIR_SHIFT) + skey[row], kind="stable")
    node = snode[row[order[_heads(owner[order])]]]
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


def _expand_counts(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each i, starts[i] + 0 .. counts[i] - 1: (owner i, value), grouped by i."""
    owner = np.repeat(np.arange(counts.size), counts)
    first = np.cumsum(counts) - counts
    return owner, np.arange(owner.size) - first[owner] + starts[owner]


def _select(sp, skey, sut, sur, send, rest, i: np.uint64) -> np.ndarray:
    """Rows kept of the grown states: per pair, :func:`~.align._select`."""
    order = np.argsort((sp << _PAIR_SHIFT) + skey, kind="stable")  # ties keep the order found
    op = sp[order]
    head = _heads(op)
    group = np.cumsum(head) - 1
    w = skey[order] >> _W_SHIFT
    alive = w <= w[head][group] + rest[order]
    order = order[alive]
    op = op[alive]
    # Keep the first (in rank order) of states with the same future: same pair, used words
    # from here on (test words: at most 7 ahead), used reference words, last match end.
    sig = ((op * 128 + (sut[order] >> i).astype(np.int64)) << 14) + send[order]
    ur = sur[order]
    dup = _duplicates(sig, ur)
    order = order[~dup]
    op = op[~dup]
    # At most BEAM per pair.
    starts = np.flatnonzero(_heads(op))
    pos = np.arange(op.size) - np.repeat(starts, np.diff(np.r_[starts, op.size]))
    return order[pos < BEAM], pos[pos < BEAM]


_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _duplicates(sig: np.ndarray, ur: np.ndarray) -> np.ndarray:
    """True for each row whose (sig, ur) occurred in an earlier row."""
    n = sig.size
    dup = np.zeros(n, dtype=bool)
    if n < 2:
        return dup
    with np.errstate(over="ignore"):
        h = sig.astype(np.uint64) * _K1 ^ ur * _K2
    by = np.argsort(h, kind="stable")  # equal hashes: in row order
    hs = h[by]
    eq_h = hs[1:] == hs[:-1]
    if not eq_h.any():
        return dup
    same = eq_h & (sig[by][1:] == sig[by][:-1]) & (ur[by][1:] == ur[by][:-1])
    if np.array_equal(same, eq_h):
        dup[by[1:][same]] = True
        return dup
    # Two different states share a hash (never seen): sort on the values themselves.
    by = np.lexsort((np.arange(n), ur, sig))
    same = (sig[by][1:] == sig[by][:-1]) & (ur[by][1:] == ur[by][:-1])
    dup[by[1:][same]] = True
    return dup
