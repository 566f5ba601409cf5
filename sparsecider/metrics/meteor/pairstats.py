"""The 23 statistics of many alignments at once (specification 4.1), on arrays."""

from __future__ import annotations

import numpy as np

from .batch import Candidates, CaptionTable
from .stats import N_STATS

__all__ = ["alignment_statistics"]


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
