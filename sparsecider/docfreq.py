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
    reference_counts: sp.csr_matrix, reference_offsets: np.ndarray
) -> np.ndarray:
    """Column-wise nonzero count of the image-level union of reference rows.

    Preconditions: the rows of ``reference_counts`` are references grouped by
    image, ``reference_offsets`` (shape (n_images + 1,)) delimits the groups,
    and every stored value is positive (counts).  Re-reading the same
    ``indices`` with image boundaries as row pointers gives the image-level
    matrix without copying rows; summing its duplicates leaves one entry per
    (image, n-gram).  Cost: one sort per image row, O(nnz log row).

    Returns
    -------
    ndarray of float64, shape (n_columns,)
    """
    by_image = sp.csr_matrix(
        # fresh data and indices: summing duplicates sorts them in place
        (
            np.ones(reference_counts.nnz),
            reference_counts.indices.copy(),
            reference_counts.indptr[reference_offsets],
        ),
        shape=(reference_offsets.shape[0] - 1, reference_counts.shape[1]),
    )
    by_image.sum_duplicates()
    return np.bincount(by_image.indices, minlength=reference_counts.shape[1]).astype(np.float64)
