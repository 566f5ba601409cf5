"""Candidate-reference pair statistics, all pairs at once.

Every candidate is compared with every reference of its image.  Per order,
the pair's similarity is a row-wise reduction over two aligned sparse
matrices (candidate rows gathered once per pair, reference rows likewise),
so the whole corpus is a handful of sparse elementwise operations.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["candidate_reference_pairs", "length_penalty", "pair_similarity"]


def candidate_reference_pairs(candidate_image: np.ndarray, reference_offsets: np.ndarray):
    """All (candidate, reference) index pairs, candidate after candidate.

    Preconditions: ``candidate_image`` (shape (n_candidates,)) holds image
    positions; image i's references are rows
    ``reference_offsets[i]:reference_offsets[i + 1]``, each image has at
    least one.  Cost: O(n_pairs).

    Returns
    -------
    pair_candidate, pair_reference : ndarray of int64, shape (n_pairs,)
        Pairs are grouped by candidate, references in their input order.
    """
    n_refs = np.diff(reference_offsets)[candidate_image]
    pair_candidate = np.repeat(np.arange(candidate_image.shape[0], dtype=np.int64), n_refs)
    pair_starts = np.zeros(candidate_image.shape[0] + 1, dtype=np.int64)
    np.cumsum(n_refs, out=pair_starts[1:])
    # position of each pair within its candidate's group, plus the image's first reference
    within = np.arange(pair_starts[-1], dtype=np.int64) - np.repeat(pair_starts[:-1], n_refs)
    pair_reference = reference_offsets[candidate_image][pair_candidate] + within
    return pair_candidate, pair_reference


def length_penalty(delta: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian length penalty ``exp(-delta**2 / (2 sigma**2))`` (CIDEr-D)."""
    return np.exp(-(delta.astype(np.float64) ** 2) / (2.0 * sigma**2))


def row_norms(matrix: sp.csr_matrix) -> np.ndarray:
    """Euclidean norm of each row of a CSR matrix, shape (n_rows,)."""
    squares = matrix.copy()
    squares.data **= 2
    return np.sqrt(np.asarray(squares.sum(axis=1)).ravel())


def _take_rows(matrix: sp.csr_matrix, rows: np.ndarray) -> sp.csr_matrix:
    if rows.shape[0] == matrix.shape[0] and np.array_equal(rows, np.arange(rows.shape[0])):
        return matrix
    return matrix[rows]


def pair_similarity(
    candidates: sp.csr_matrix,
    references: sp.csr_matrix,
    pair_candidate: np.ndarray,
    pair_reference: np.ndarray,
    *,
    clip: bool,
) -> np.ndarray:
    """One order's similarity for every pair, before any length penalty.

    ``clip=True`` (CIDEr-D): ``sum_g min(c_g, r_g) * r_g``; ``clip=False``
    (CIDEr): ``sum_g c_g * r_g``.  Either is divided by ``||c|| * ||r||`` when
    both norms are non-zero, and left undivided otherwise (then it is 0),
    exactly as pycocoevalcap.

    Preconditions: both matrices are tf-idf CSR over the same columns with
    non-negative values, canonical (sorted, no duplicates).  Cost: two row
    gathers and one or two elementwise passes, O(nnz of the gathered rows).

    Returns
    -------
    ndarray of float64, shape (n_pairs,)
    """
    cand = _take_rows(candidates, pair_candidate)
    ref = _take_rows(references, pair_reference)
    # min(c, r) * r over the shared n-grams; entries present on one side only are 0
    overlap = cand.minimum(ref) if clip else cand
    dot = np.asarray(overlap.multiply(ref).sum(axis=1), dtype=np.float64).ravel()
    cand_norm = row_norms(candidates)[pair_candidate]
    ref_norm = row_norms(references)[pair_reference]
    np.divide(dot, cand_norm * ref_norm, out=dot, where=(cand_norm != 0) & (ref_norm != 0))
    return dot


def all_pairs_dot(
    a: sp.csr_matrix, b: sp.csr_matrix, weights: np.ndarray, *, clip: bool
) -> np.ndarray:
    """``sum_g w_g^2 * min(a_g, b_g) * b_g`` (clip) or ``sum_g w_g^2 a_g b_g`` for all row pairs.

    Preconditions: ``a`` and ``b`` hold raw integer counts over the same
    columns, ``weights`` (the idf, >= 0) one per column.  For integer counts
    ``min(x, y) = sum_{t >= 1} [x >= t][y >= t]``, so the clipped sum is a
    handful of sparse products, one per count level t up to the largest count
    in ``a``.  Cost: O(max count) sparse matrix products.

    Returns
    -------
    ndarray of float64, shape (a.shape[0], b.shape[0])
    """
    w2 = weights * weights
    b_weighted = b.multiply(w2[None, :]).tocsr()  # y * w^2
    if not clip:
        return np.asarray((a @ b_weighted.T).todense())
    out = np.zeros((a.shape[0], b.shape[0]))
    top = int(a.data.max(initial=0))
    for t in range(1, top + 1):
        a_t = (a >= t).astype(np.float64)
        b_t = b_weighted.multiply(b >= t).tocsr()
        out += np.asarray((a_t @ b_t.T).todense())
    return out
