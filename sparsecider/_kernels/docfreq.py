"""Document frequencies: in how many images each n-gram occurs in a reference.

Documents are images, not sentences (pycocoevalcap counts an n-gram once per
image however many of the image's references contain it); candidates never
count.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["image_document_frequency"]


def image_document_frequency(
    counts: sp.csc_matrix, runs: np.ndarray, candidate: np.ndarray | None = None
) -> np.ndarray:
    """Per column, the number of distinct images among its reference entries.

    Preconditions: ``counts`` is a CSC count matrix of
    :func:`sparsecider._kernels.counts.count_columns` whose rows (slots) are grouped
    by image, references before candidates within an image; ``runs`` marks
    where each (column, image) run of entries starts
    (:func:`sparsecider._kernels.counts.image_runs`); ``candidate`` marks the entries
    of candidate rows (None: there are none), which do not count.  A run
    holds a reference exactly when its first entry is one, so the document
    frequency is the number of such run starts per column.  Cost: one
    running sum over the stored entries, O(nnz).

    Returns
    -------
    ndarray of float64, shape (n_columns,)

    Examples
    --------
    Image 0 has slots 0 (a reference holding keys 4, 9) and 1 (its candidate,
    holding 9); image 1 has slot 2 (a reference holding 4):

    >>> from sparsecider._kernels.counts import count_columns, image_runs
    >>> counts, _ = count_columns(np.array([4, 9, 9, 4], dtype=np.uint64), np.array([0, 2, 3, 4]))
    >>> image, candidate = np.array([0, 0, 1]), np.array([False, True, False])
    >>> runs = image_runs(counts, image)
    >>> image_document_frequency(counts, runs, candidate[counts.indices]).tolist()
    [2.0, 1.0]
    """
    if counts.shape[1] == 0:
        return np.zeros(0, dtype=np.float64)
    counted = runs if candidate is None else runs & ~candidate
    # per-column sums as differences of one running count (cheaper than reduceat)
    nnz = counted.shape[0]
    running = np.empty(nnz + 1, dtype=np.int32 if nnz < 2**31 else np.int64)
    running[0] = 0
    np.cumsum(counted, out=running[1:])
    at_bounds = running[counts.indptr]
    out = np.empty(counts.shape[1], dtype=np.float64)
    np.subtract(at_bounds[1:], at_bounds[:-1], out=out)
    return out
