"""The 23 statistics of many alignments at once (specification 4.1), on arrays."""

from __future__ import annotations

import numpy as np

from .batch import Candidates, CaptionTable
from .stats import N_STATS, WEIGHTS, segment_scores

__all__ = ["alignment_statistics", "score_bounds"]


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
                np.maximum.at(best, (c.pair * 64 + start + d)[m], w[m])
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
