"""Two per-pair flags of ``spec38b`` (specification 6.3, N50), fixed before the search.

*Enclosed* one-word matches ("A one-word match enclosed by a paraphrase longer on the
reference side"): a non-exact one-word-to-one-word object Y is enclosed when a non-exact
*host* H with a longer reference span than test span holds Y on both sides, Y is not at H's two
starts, every test word of H is Y's or that of an exact object inside H on both sides, and
every other reference word of H (not Y's, not such an exact object's) is covered by no object
but H's own proposals.  The search treats Y as contested from the start, as having a square
twin (it counts neither in the fourth key nor in ``spec36e``'s term) and as never certain.

*Exposed squares* ("Ties between a square paraphrase and an exact word it exposes, off the
diagonal"): a non-exact square object longer than one word, off the diagonal (test start !=
reference start), that holds no exact object on both sides and one on one side only, weighs
-1 in the search's fifth key, like :func:`~.diagonal.diagonal_squares` (on the diagonal: the
two never meet on one object) -- unless (``spec47c``, N77) an exact object off the diagonal
reads its LAST test word (and so a reference word outside it): then it weighs 0.

Hosts and squares are paraphrases, rare in captions: the pairs without one cost one test per
object.  Exact objects match one word to one word.
"""

from __future__ import annotations

from itertools import compress

import numpy as np

from .batch import Candidates, expand_ranges, find_sorted, rows_of_pairs
from .matchers import EXACT

__all__ = ["enclosed", "enclosed_rows", "exposed_square_rows", "exposed_squares"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def enclosed(objs: list[Match], touch_r: dict[int, int], one: list[bool]) -> list[int]:
    """The enclosed objects of one pair (indices into ``objs``, every proposal of the span).

    Parameters
    ----------
    objs : list of (t_start, t_len, r_start, r_len, stage)
        Every proposal of the pair.
    touch_r : dict of int to int
        How many objects cover each reference word.
    one : list of bool
        Per object: is it non-exact and one word to one word (the search's ``can``).

    Returns
    -------
    list of int
    """
    # (one-word non-exact objects first: a long caption repeating a paraphrase has hundreds
    # of thousands of hosts and often no such object; then on arrays)
    ys = list(compress(range(len(objs)), one))
    if not ys:
        return ys  # the common case
    spans = [o[:4] for o in objs if o[3] > o[1] and o[4] != EXACT]
    if not spans:
        return []
    # each host once, with its number of proposals
    hosts, n_own = np.unique(np.array(spans, dtype=np.int64), axis=0, return_counts=True)
    ex = np.array([o[0] << 32 | o[2] for o in objs if o[4] == EXACT], dtype=np.int64)
    touch = np.zeros(max(touch_r) + 1, dtype=np.int64)
    touch[np.fromiter(touch_r, dtype=np.int64)] = np.fromiter(touch_r.values(), dtype=np.int64)
    cells = _enclosed_cells(tuple(hosts.T), n_own, np.unique(ex), touch)
    y = np.array([objs[k][0] << 32 | objs[k][2] for k in ys], dtype=np.int64)
    return [ys[i] for i in np.flatnonzero(find_sorted(cells, y)[1]).tolist()]


def exposed_squares(objs: list[Match]) -> list[int]:
    """The exposed squares of one pair (indices into ``objs``)."""
    odd = [
        k
        for k, o in enumerate(objs)
        if o[1] > 1 and o[1] == o[3] and o[0] != o[2] and o[4] != EXACT
    ]
    if not odd:
        return odd  # the common case
    # (on arrays: a long caption repeating a square paraphrase has tens of thousands)
    keys = np.sort(np.array([o[0] << 32 | o[2] for o in objs if o[4] == EXACT], dtype=np.int64))
    if keys.size == 0:
        return []
    sq = np.array([objs[k][:3] for k in odd], dtype=np.int64)
    ts, n, rs = sq[:, 0], sq[:, 1], sq[:, 2]
    one_side = np.zeros(len(odd), dtype=bool)
    for pos, start in ((np.unique(keys >> 32), ts), (np.unique(keys & 0xFFFFFFFF), rs)):
        one_side |= np.searchsorted(pos, start + n) > np.searchsorted(pos, start)
    own, i = expand_ranges(np.zeros(n.size, dtype=np.int64), n * n)
    cell = (ts[own] + i // n[own] << 32) + rs[own] + i % n[own]
    both = np.bincount(own[find_sorted(keys, cell)[1]], minlength=n.size) > 0
    last = _last_off_diagonal(keys, ts + n - 1 << 32, 1 << 32, ts + n - 1, rs, n)
    return [odd[k] for k in np.flatnonzero(one_side & ~both & ~last).tolist()]


def _last_off_diagonal(keys, base, width, t, rs, n) -> np.ndarray:
    """``spec47c`` (N77): does an exact object off the diagonal read the square's last test
    word ``t`` and a reference word outside ``rs .. rs + n - 1``?  Then the square loses its
    exposed weight: the jar keeps that exact reading in the final tie (the path order decides).
    ``keys``: the exact objects' cells, sorted; ``base``: the key of the cell (t, 0), so that
    ``base + r`` is that of (t, r) for every reference position ``r < width``.  Counts of cells
    between sorted positions: no loop over squares."""
    at = lambda r: np.searchsorted(keys, base + r)  # noqa: E731
    outside = at(rs) - at(0) + at(width) - at(rs + n)
    diag = (at(t + 1) - at(t)) * ((t < rs) | (t >= rs + n))  # (t, t) outside: not counted
    return outside > diag


def _cells(p, ts, tl, rs, rl) -> tuple[np.ndarray, ...]:
    """Every (test word, reference word) cell of each span pair: owner, offsets, packed key."""
    own, i = expand_ranges(np.zeros(tl.size, dtype=np.int64), tl * rl)
    dt, dr = i // rl[own], i % rl[own]
    return own, dt, dr, (p[own] * 64 + ts[own] + dt) * 64 + rs[own] + dr


def _enclosed_cells(hosts: tuple, n_own: np.ndarray, ex: np.ndarray, touch_r: np.ndarray):
    """Where an enclosed object can lie: the cells ``t << 32 | r`` of the hosts ``(t_start,
    t_len, r_start, r_len)`` (words numbered so that no two pairs share one) that meet the
    host conditions; ``n_own``: each host's proposals, ``ex``: the exact objects' cells (sorted),
    ``touch_r``: objects covering each reference word.  Sorted, unique."""
    ts, tl, rs, rl = hosts
    own, i = expand_ranges(np.zeros(ts.size, dtype=np.int64), tl * rl)
    dt, dr = i // rl[own], i % rl[own]
    cell = (ts[own] + dt << 32) + rs[own] + dr
    hit = find_sorted(ex, cell)[1]
    w = int(rl.max())  # (rl > tl)
    held_t = np.zeros((ts.size, w), dtype=bool)
    held_r = np.zeros((ts.size, w), dtype=bool)
    held_t[own[hit], dt[hit]] = True  # test / reference words of an exact object inside
    held_r[own[hit], dr[hit]] = True
    col = np.arange(w)
    # Y must take the one test word no exact object inside covers, if there is one, and the
    # one reference word (not held) that an object other than the host's proposals covers.
    missing = (col < tl[:, None]) & ~held_t
    word = rs[:, None] + np.minimum(col, rl[:, None] - 1)
    bad = (col < rl[:, None]) & ~held_r & (touch_r[word] > n_own[:, None])
    n_miss, n_bad = missing.sum(1)[own], bad.sum(1)[own]
    ok = ((n_miss == 0) | ((n_miss == 1) & missing[own, dt])) & (dt + dr > 0)
    ok &= (n_bad == 0) | ((n_bad == 1) & bad[own, dr])
    return np.unique(cell[ok])


def enclosed_rows(c: Candidates, sel: np.ndarray, touch_r: np.ndarray) -> np.ndarray:
    """:func:`enclosed` for the objects ``sel`` of many pairs (whole pairs, at most 64 tokens);
    one bool per row of ``sel``.  ``touch_r``: objects covering each reference word, indexed
    ``pair * 64 + word``."""
    out = np.zeros(sel.size, dtype=bool)
    is_host = (c.rl > c.tl) & (c.stage != EXACT)
    h = sel[is_host[sel]]
    if h.size == 0:
        return out  # the common case: no paraphrase longer on the reference side
    _, mine = rows_of_pairs(c, h)
    one = mine[(c.tl[mine] == 1) & (c.rl[mine] == 1) & (c.stage[mine] != EXACT)]
    if one.size == 0:
        return out
    ex = mine[c.stage[mine] == EXACT]
    # (already sorted: c is by (pair, t_start, ...) and exact objects are one word to one)
    ex_keys = (c.pair[ex] * 64 + c.ts[ex] << 32) + c.pair[ex] * 64 + c.rs[ex]
    # the hosts by span pair, with how many proposals each span pair has
    pts = c.pair[mine] * 64 + c.ts[mine]
    span = ((pts * 64 + c.tl[mine]) * 64 + c.rs[mine]) * 64 + c.rl[mine]
    _, first, n_own = np.unique(span, return_index=True, return_counts=True)
    hk = mine[first[is_host[mine[first]]]]
    n_own = n_own[is_host[mine[first]]]
    p = c.pair[hk] * 64  # words numbered pair * 64 + position
    cells = _enclosed_cells(
        (p + c.ts[hk], c.tl[hk], p + c.rs[hk], c.rl[hk]), n_own, ex_keys, touch_r
    )
    is_one = np.zeros(c.pair.size, dtype=bool)
    is_one[one] = True
    cands = np.flatnonzero(is_one[sel])
    y = sel[cands]
    out[cands] = find_sorted(cells, (c.pair[y] * 64 + c.ts[y] << 32) + c.pair[y] * 64 + c.rs[y])[1]
    return out


def exposed_square_rows(c: Candidates, sel: np.ndarray) -> np.ndarray:
    """:func:`exposed_squares` for the objects ``sel`` of many pairs (whole pairs, at most 64
    tokens); one bool per row of ``sel``."""
    out = np.zeros(sel.size, dtype=bool)
    is_sq = (c.tl == c.rl) & (c.tl > 1) & (c.ts != c.rs) & (c.stage != EXACT)
    cand = np.flatnonzero(is_sq[sel])
    if cand.size == 0:
        return out  # the common case: no square paraphrase off the diagonal
    rows = sel[cand]
    pairs, mine = rows_of_pairs(c, rows)
    ex = mine[c.stage[mine] == EXACT]
    if ex.size == 0:
        return out
    # exact objects per pair and word, as prefix counts (test side, reference side)
    slot = np.searchsorted(pairs, c.pair[ex]) * 65
    before = []
    for pos in (c.ts[ex], c.rs[ex]):
        n = np.bincount(slot + pos + 1, minlength=pairs.size * 65).reshape(-1, 65)
        before.append(np.cumsum(n, axis=1))
    s = np.searchsorted(pairs, c.pair[rows])
    ts, n, rs = c.ts[rows], c.tl[rows], c.rs[rows]
    one_side = (before[0][s, ts + n] > before[0][s, ts]) | (before[1][s, rs + n] > before[1][s, rs])
    own, _, _, cell = _cells(c.pair[rows], ts, n, rs, n)
    ex_keys = (c.pair[ex] * 64 + c.ts[ex]) * 64 + c.rs[ex]  # (sorted, as in enclosed_rows)
    both = np.bincount(own[find_sorted(ex_keys, cell)[1]], minlength=rows.size) > 0
    last = ts + n - 1
    off = _last_off_diagonal(ex_keys, (c.pair[rows] * 64 + last) * 64, 64, last, rs, n)
    out[cand] = one_side & ~both & ~off
    return out
