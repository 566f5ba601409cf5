"""Inverse document frequencies and tf-idf weighting, in place."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["apply_idf", "idf"]


def idf(document_frequency: np.ndarray, n_documents: float) -> np.ndarray:
    """``log(N) - log(max(1, df))`` for each column.

    pycocoevalcap clamps df at 1, so an n-gram seen in no reference gets the
    largest weight ``log(N)``, and one seen in every image gets 0.
    """
    return np.log(float(n_documents)) - np.log(np.maximum(document_frequency, 1.0))


def apply_idf(counts: sp.csc_matrix, weights: np.ndarray) -> sp.csc_matrix:
    """Turn raw counts (CSC, columns: n-grams) into tf-idf values in place.

    Each column's entries are multiplied by its weight.  The tf is the raw
    count, not divided by length (as pycocoevalcap).
    """
    counts.data *= np.repeat(weights, np.diff(counts.indptr))
    return counts
