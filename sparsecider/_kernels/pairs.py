"""Candidate-reference pair statistics, all pairs at once.

Every candidate is compared with every reference of its image.  Per order,
the scorer joins, inside each column of the count matrix
(:mod:`.counts`), each candidate entry with the reference entries of its
own image (:func:`column_pair_dots`), so the whole corpus is a handful of
array passes and one weighted ``bincount``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .arrays import ranges

__all__ = [
    "candidate_reference_pairs",
    "column_pair_dots",
    "column_pair_entries",
    "length_penalty",
    "slot_norms",
    "sum_by",
]


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
    # each candidate's image's references, one range per candidate
    pair_reference = ranges(reference_offsets[candidate_image], n_refs)
    return pair_candidate, pair_reference


def length_penalty(delta: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian length penalty ``exp(-delta**2 / (2 sigma**2))`` (CIDEr-D)."""
    return np.exp(-(delta.astype(np.float64) ** 2) / (2.0 * sigma**2))


def sum_by(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """``out[i] = sum of values[index == i]`` in array order, float64 of shape (n,).

    ``np.bincount`` with weights, except that empty input still gives float64.

    Examples
    --------
    >>> sum_by(np.array([2, 0, 2]), np.array([0.5, 1.0, 2.0]), 4).tolist()
    [1.0, 0.0, 2.5, 0.0]
    >>> sum_by(np.array([], dtype=np.int64), np.array([]), 2).dtype.name
    'float64'
    """
    return np.bincount(index, values, minlength=n).astype(np.float64, copy=False)


def slot_norms(weighted: sp.csc_matrix) -> np.ndarray:
    """Euclidean norm of each row of a CSC matrix, shape (n_rows,).

    Each row's squares are added in column order (the order of the stored
    entries), so a row's norm does not depend on the other rows.
    """
    return np.sqrt(sum_by(weighted.indices, weighted.data * weighted.data, weighted.shape[0]))


def column_pair_dots(
    weighted: sp.csc_matrix,
    runs: np.ndarray,
    candidate: np.ndarray,
    slot_pair_base: np.ndarray,
    n_pairs: int,
    *,
    clip: bool,
) -> np.ndarray:
    """Every candidate-reference pair's dot product, by a join inside each column.

    ``clip=True`` (CIDEr-D): ``sum_g min(c_g, r_g) * r_g``; ``clip=False``
    (CIDEr): ``sum_g c_g * r_g``.

    Preconditions: ``weighted`` is a tf-idf CSC matrix of
    :func:`sparsecider._kernels.counts.count_columns` over slots laid out by
    :func:`sparsecider._kernels.counts.layout`: within a column, the rows of one
    image are adjacent, references first.  ``runs`` marks where each
    (column, image) run starts (:func:`sparsecider._kernels.counts.image_runs`),
    ``candidate`` the entries of candidate rows, and ``slot_pair_base`` is
    the layout's.  So each candidate entry meets the reference entries of its
    own image just before it, in its run; the pairs are generated with
    ``np.repeat`` and summed per pair.  No candidate row is copied per
    reference.  Cost: O(nnz + number of (candidate, reference) entry pairs
    sharing an n-gram).  A pair's terms are added in column order, whatever
    the other images.

    Returns
    -------
    ndarray of float64, shape (n_pairs,)

    Examples
    --------
    One image: reference 0 holds n-grams 1 and 2, reference 1 holds 2, the
    candidate holds 1 twice and 2 once (weights left at 1):

    >>> from sparsecider._kernels.counts import count_columns, image_runs, layout
    >>> s = layout(np.array([0]), np.array([0, 2]))
    >>> keys = np.array([1, 2, 2, 1, 1, 2], dtype=np.uint64)
    >>> counts, _ = count_columns(keys, np.array([0, 2, 3, 6]))
    >>> counts.toarray().tolist()  # rows: reference 0, reference 1, the candidate
    [[1.0, 1.0], [0.0, 1.0], [2.0, 1.0]]
    >>> args = (image_runs(counts, s.slot_image), s.slot_is_candidate[counts.indices],
    ...         s.slot_pair_base, 2)
    >>> column_pair_dots(counts, *args, clip=True).tolist()  # min(2, 1) * 1 + 1 * 1; 1 * 1
    [2.0, 1.0]
    >>> column_pair_dots(counts, *args, clip=False).tolist()  # 2 * 1 + 1 * 1; 1 * 1
    [3.0, 1.0]
    """
    cand_of_term, ref_of_term = column_pair_entries(runs, candidate)
    data = weighted.data
    ref_value = data[ref_of_term]
    if clip:
        terms = np.minimum(data[cand_of_term], ref_value)
        terms *= ref_value
    else:
        terms = data[cand_of_term] * ref_value
    rows = weighted.indices
    pair = slot_pair_base[rows[cand_of_term]] + slot_pair_base[rows[ref_of_term]]
    return sum_by(pair, terms, n_pairs)


def column_pair_entries(runs: np.ndarray, candidate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (candidate entry, reference entry) of one column and one image: the join.

    The index work of :func:`column_pair_dots`, for statistics other than a
    dot product (any function of the two entries' values, summed per pair).
    Preconditions as there: entries are those of a CSC matrix laid out by
    :func:`sparsecider._kernels.counts.layout`, ``runs`` marks where each
    (column, image) run starts, ``candidate`` the entries of candidate rows.
    The pair of a term is ``slot_pair_base[indices[c]] +
    slot_pair_base[indices[r]]``.  Cost: O(nnz + number of terms).

    Returns
    -------
    cand_of_term, ref_of_term : ndarray of int64, shape (n_terms,)
        Entry positions (into ``data`` / ``indices``), in column order; within
        a candidate entry, its image's reference entries in slot order.

    Examples
    --------
    One image with two references and a candidate (slots 0, 1, 2); column 0
    holds reference 0 and the candidate, column 1 all three:

    >>> runs = np.array([True, False, True, False, False])
    >>> candidate = np.array([False, True, False, False, True])
    >>> [a.tolist() for a in column_pair_entries(runs, candidate)]
    [[1, 4, 4], [0, 2, 3]]
    """
    # the first entry of each candidate entry's run, from the running count of runs
    run_number = np.cumsum(runs, dtype=np.int32 if runs.shape[0] < 2**31 else np.int64)
    cand_entry = np.flatnonzero(candidate)
    first = np.flatnonzero(runs)[run_number[cand_entry] - 1]
    # a run holds its references, then its candidates: the references end
    # at the run's first candidate entry
    new_run = np.diff(first, prepend=-1) != 0
    n_refs = cand_entry[new_run][np.cumsum(new_run) - 1] - first
    shared = n_refs > 0
    cand_entry, first, n_refs = cand_entry[shared], first[shared], n_refs[shared]
    return np.repeat(cand_entry, n_refs), ranges(first, n_refs)
