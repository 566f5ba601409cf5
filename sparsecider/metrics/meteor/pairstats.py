"""The 23 statistics of many alignments at once (specification 4.1), on arrays."""

from __future__ import annotations

import numpy as np

from .batch import Candidates, CaptionTable
from .stats import ALPHA, BETA, DELTA, GAMMA, N_STATS, WEIGHTS, segment_scores

__all__ = ["alignment_statistics", "multi_word_bounds", "one_word_bounds", "score_bounds"]


def alignment_statistics(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, chosen: np.ndarray
) -> np.ndarray:
    """Statistics of the pairs (hyp[p], ref[p]) aligned with candidates ``chosen``.

    Parameters
    ----------
    tab : CaptionTable
    hyp, ref : ndarray of int
        Caption indexes of each pair.
    c : Candidates
    chosen : ndarray of int
        Indexes into ``c``, grouped by pair in test order (:func:`~.beam.align_pairs`).

    Returns
    -------
    ndarray of shape (n_pairs, 23), int64
    """
    n = hyp.size
    off = tab.off
    func_before = np.zeros(tab.func.size + 1, dtype=np.int64)
    np.cumsum(tab.func, out=func_before[1:])
    n_func = func_before[off[1:]] - func_before[off[:-1]]
    s = np.zeros((n, N_STATS), dtype=np.int64)
    s[:, 0], s[:, 1] = off[hyp + 1] - off[hyp], off[ref + 1] - off[ref]
    s[:, 2], s[:, 3] = n_func[hyp], n_func[ref]
    if chosen.size == 0:
        return s
    p, stage = c.pair[chosen], c.stage[chosen]
    ts, tl, rs, rl = c.ts[chosen], c.tl[chosen], c.rs[chosen], c.rl[chosen]
    cells = []
    for d in range(int(max(tl.max(), rl.max()))):
        for start, length, first, side in ((ts, tl, off[hyp[p]], 0), (rs, rl, off[ref[p]], 1)):
            m = length > d
            f = tab.func[(first + start + d)[m]]
            cells.append(p[m] * N_STATS + 4 + 4 * stage[m] + side + 2 * f)
    flat = np.bincount(np.concatenate(cells), minlength=n * N_STATS)
    s += flat[: n * N_STATS].reshape(n, N_STATS)
    s[:, 21] = np.bincount(p, weights=tl, minlength=n).astype(np.int64)
    s[:, 22] = np.bincount(p, weights=rl, minlength=n).astype(np.int64)
    new = np.ones(p.size, dtype=bool)
    new[1:] = (p[1:] != p[:-1]) | (ts[1:] != (ts + tl)[:-1]) | (rs[1:] != (rs + rl)[:-1])
    s[:, 20] = np.bincount(p[new], minlength=n)
    return s


def _assign_max(out: np.ndarray, cells: np.ndarray, weights: np.ndarray) -> None:
    """``np.maximum.at(out, cells, weights)`` for the few distinct module weights (and out
    holding none larger yet): each weight written over its cells, lightest first."""
    for w in sorted(set(WEIGHTS)):
        hit = cells[weights == w]
        out[hit] = np.maximum(out[hit], w)


def _best_ratios(
    best: np.ndarray, first: np.ndarray, length: np.ndarray, tab: CaptionTable
) -> np.ndarray:
    """Per pair and M, the largest share of one side's weighted length that M matched words can
    cover: the M heaviest coverable words (best module weight, function words weighted by delta)
    over the side's weighted length."""
    width = best.shape[1]
    pos = np.minimum(first[:, None] + np.arange(width), tab.func.size - 1)
    func = tab.func[pos] & (np.arange(width) < length[:, None])
    weight = np.where(func, best * (1.0 - DELTA), best * DELTA)
    n_func = func.sum(axis=1)
    den = DELTA * (length - n_func) + (1.0 - DELTA) * n_func
    return np.cumsum(-np.sort(-weight, axis=1), axis=1) / den[:, None]


def score_bounds(tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates) -> np.ndarray:
    """Per pair, a segment score no alignment of its candidates can exceed.

    Every word that some candidate covers counted as matched with its best candidate's weight,
    in one chunk; a pair whose bound is below a score already
    found for its segment cannot be the segment's reference, so it need not be aligned.
    """
    n = hyp.size
    s = np.zeros((n, N_STATS), dtype=np.float64)
    off = tab.off
    func_before = np.zeros(tab.func.size + 1, dtype=np.int64)
    np.cumsum(tab.func, out=func_before[1:])
    n_func = func_before[off[1:]] - func_before[off[:-1]]
    s[:, 0], s[:, 1] = off[hyp + 1] - off[hyp], off[ref + 1] - off[ref]
    s[:, 2], s[:, 3] = n_func[hyp], n_func[ref]
    if c.pair.size:
        w = np.asarray(WEIGHTS)[c.stage]
        for start, length, first, side in ((c.ts, c.tl, off[hyp], 0), (c.rs, c.rl, off[ref], 1)):
            best = np.zeros(n * 64, dtype=np.float64)
            for d in range(int(length.max())):
                m = length > d
                _assign_max(best, (c.pair * 64 + start + d)[m], w[m])
            cell = np.flatnonzero(best)
            p = cell // 64
            f = tab.func[first[p] + cell % 64]
            s[:, 4 + side] = np.bincount(p[~f], weights=best[cell[~f]], minlength=n)
            s[:, 6 + side] = np.bincount(p[f], weights=best[cell[f]], minlength=n)
            s[:, 21 + side] = np.bincount(p, minlength=n)
    # One chunk over every word that can be matched: the least fragmentation possible (none
    # only if every word of both captions can be matched).
    s[:, 20] = 1
    return segment_scores(s) * (1 + 1e-9)


def _pairs_of(
    tab: CaptionTable, hyp, ref, c: Candidates, which: np.ndarray, *, multi_word: bool
) -> tuple | None:
    """The pairs of ``which`` (sorted) that have a candidate longer than one word on some side
    (``multi_word``) or that have candidates and none such: their candidate rows ``k``, each
    row's slot among them, their places in ``which``, the pairs, their two caption lengths and
    the longest caption (None when no pair qualifies)."""
    chosen = np.zeros(hyp.size, dtype=bool)
    chosen[which] = True
    k = np.flatnonzero(chosen[c.pair])
    slot = np.searchsorted(which, c.pair[k])
    multi = np.zeros(which.size, dtype=bool)
    multi[slot[(c.tl[k] > 1) | (c.rl[k] > 1)]] = True
    keep = multi[slot] == multi_word
    k, slot = k[keep], slot[keep]
    live = np.flatnonzero((multi == multi_word) & (np.bincount(slot, minlength=which.size) > 0))
    if live.size == 0:
        return None
    pairs = which[live]
    off = tab.off
    lens = (off[hyp[pairs] + 1] - off[hyp[pairs]], off[ref[pairs] + 1] - off[ref[pairs]])
    width = int(max(lens[0].max(), lens[1].max()))
    return k, np.searchsorted(live, slot), live, pairs, lens, width


def one_word_bounds(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, which: np.ndarray
) -> np.ndarray:
    """Tighter bounds than :func:`score_bounds` for the pairs ``which`` (sorted) whose
    candidates all match one word with one word (others: infinity).

    An alignment of M such matches has M matched words on each side, each weighing at most its
    best candidate's weight (so a side's weighted matches are at most its M heaviest coverable
    words), M at most the coverable words of either side, and at least M - D chunks: D is the
    fewer of the test and of the reference positions i where candidates (i, j) and
    (i + 1, j + 1) both exist (only there can two matches join one chunk).  The bound is the
    best over M of the score with those values; no fragmentation only when M is both lengths.
    """
    out = np.full(which.size, np.inf)
    got = _pairs_of(tab, hyp, ref, c, which, multi_word=False)
    if got is None:
        return out
    k, slot, live, pairs, lens, width = got
    off = tab.off
    w = np.asarray(WEIGHTS)[c.stage[k]]
    ratios, masks, cover = [], [], []
    for start, other, first, length in (
        (c.ts[k], c.rs[k], off[hyp[pairs]], lens[0]),
        (c.rs[k], c.ts[k], off[ref[pairs]], lens[1]),
    ):
        cell = slot * width + start
        best = np.zeros(live.size * width, dtype=np.float64)
        _assign_max(best, cell, w)
        best = best.reshape(live.size, width)
        ratios.append(_best_ratios(best, first, length, tab))
        cover.append(np.count_nonzero(best, axis=1))
        # 64-bit rows: per position, the positions of the other side it has a candidate with
        mask = np.zeros(live.size * width, dtype=np.uint64)
        np.bitwise_or.at(mask, cell, np.uint64(1) << other.astype(np.uint64))
        mask = mask.reshape(live.size, width)
        masks.append(np.count_nonzero(mask[:, :-1] & (mask[:, 1:] >> np.uint64(1)), axis=1))
    links = np.minimum(masks[0], masks[1])
    matches = np.arange(1, width + 1, dtype=np.float64)
    chunks = np.maximum(1.0, matches - links[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        fmean = 1.0 / (ALPHA / ratios[1] + (1.0 - ALPHA) / ratios[0])
    pen = GAMMA * (chunks / matches) ** BETA
    pen[(matches == lens[0][:, None]) & (matches == lens[1][:, None])] = 0.0
    most = np.minimum(cover[0], cover[1])
    val = np.where(matches <= most[:, None], (1.0 - pen) * np.nan_to_num(fmean), 0.0)
    out[live] = val.max(axis=1) * (1 + 1e-9)
    return out


def multi_word_bounds(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, which: np.ndarray
) -> np.ndarray:
    """Tighter bounds than :func:`score_bounds` for the pairs ``which`` (sorted) with a
    candidate longer than one word on some side (others: infinity).

    An alignment matching Mt test and Mr reference words weighs at most the Mt (Mr) heaviest
    coverable words of a side, and has at least max(1, Mt - Gt, Mr - Gr) chunks: Gt is the
    number of test boundaries (i, i + 1) that a chunk can run across, namely inside one
    candidate, or where one candidate ends and another starts right after it on both sides
    (Gr likewise).  The bound is the best over (Mt, Mr) of the score with those values.
    """
    out = np.full(which.size, np.inf)
    got = _pairs_of(tab, hyp, ref, c, which, multi_word=True)
    if got is None:
        return out
    k, slot, live, pairs, lens, width = got
    off = tab.off
    ts, tl, rs, rl = c.ts[k], c.tl[k], c.rs[k], c.rl[k]
    w = np.asarray(WEIGHTS)[c.stage[k]]
    # candidates followed, on both sides at once, by another candidate of the pair
    span = width + 1
    joined = np.isin(((slot * span) + ts + tl) * span + rs + rl, ((slot * span) + ts) * span + rs)
    ratios, cover, glue = [], [], []
    for start, length, first, n in (
        (ts, tl, off[hyp[pairs]], lens[0]),
        (rs, rl, off[ref[pairs]], lens[1]),
    ):
        best = np.zeros(live.size * width, dtype=np.float64)
        glued = np.zeros(live.size * width, dtype=bool)  # boundary after the position
        glued[(slot * width + start + length - 1)[joined]] = True
        for d in range(int(length.max())):
            m = length > d
            _assign_max(best, (slot * width + start + d)[m], w[m])
            glued[(slot * width + start + d)[length > d + 1]] = True
        best = best.reshape(live.size, width)
        ratios.append(_best_ratios(best, first, n, tab))
        cover.append(np.count_nonzero(best, axis=1))
        glue.append(np.count_nonzero(glued.reshape(live.size, width), axis=1))
    # penalty by (chunks, Mt + Mr), looked up instead of a power per grid cell
    c_, s_ = np.arange(width + 1.0)[:, None], np.arange(2 * width + 1.0)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = GAMMA * (2.0 * c_ / s_) ** BETA
    # pairs in blocks of similar coverable counts: the grid of a block is (Mt, Mr) up to them
    order = np.argsort(np.maximum(cover[0], cover[1]), kind="stable")
    for a in range(0, order.size, 128):
        b = order[a : a + 128]
        nt, nr = int(cover[0][b].max()), int(cover[1][b].max())
        mt, mr = np.arange(1, nt + 1)[:, None], np.arange(1, nr + 1)[None, :]
        p, r = ratios[0][b, :nt][:, :, None], ratios[1][b, :nr][:, None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            fmean = 1.0 / (ALPHA / r + (1.0 - ALPHA) / p)
        chunks = np.maximum(
            np.maximum(1, mt - glue[0][b][:, None, None]), mr - glue[1][b][:, None, None]
        )
        pen = penalty[chunks, mt + mr]
        pen[(mt == lens[0][b][:, None, None]) & (mr == lens[1][b][:, None, None])] = 0.0
        ok = (mt <= cover[0][b][:, None, None]) & (mr <= cover[1][b][:, None, None])
        val = np.where(ok, (1.0 - pen) * fmean, 0.0)
        out[live[b]] = val.reshape(b.size, -1).max(axis=1) * (1 + 1e-9)
    return out
