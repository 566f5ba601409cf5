"""Clipped n-gram counts (BLEU's modified precision), from one order's count matrix.

BLEU credits a candidate's n-gram at most as often as it occurs in the
reference of its image that holds it most often: ``min(c_g, max_r r_g)``.
In the count matrix of :func:`sparsecider._kernels.counts.count_columns`
over slots laid out by :func:`sparsecider._kernels.counts.layout`, the
entries of one column and one image are adjacent, references first
(:func:`sparsecider._kernels.counts.image_runs` marks where each such run
starts).  So the maximum over the references is a segmented maximum over
the reference entries of each run that holds a candidate entry, read back
at the run's candidate entries: vectorised steps over those runs, no
Python loop per n-gram.  Before counting, :func:`matchable_tokens` finds the
reference tokens that can take part in a match at all (those that may
occur in a candidate of their image); the others are left out.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["clipped_counts", "matchable_tokens"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


def _table_slot(hashes: np.ndarray, image: np.ndarray, bits: int) -> np.ndarray:
    """A slot of ``bits`` bits for each (image, token) pair."""
    slot = image.astype(np.uint64)
    slot *= _GOLDEN
    slot ^= hashes
    slot *= _MIX
    slot >>= np.uint64(64 - bits)
    return slot


def matchable_tokens(
    hashes: np.ndarray, image: np.ndarray, candidate_hashes: np.ndarray, candidate_image: np.ndarray
) -> np.ndarray:
    """Which reference tokens may occur in a candidate of their own image.

    A reference n-gram holding any other token equals no candidate n-gram
    of its image, so it never bounds a clipped count: leaving such tokens
    out (and cutting the reference there) changes no clipped count.  The
    test is a table of hashed (image, token) pairs of the candidates, with
    about 16 slots per candidate token: a false hit only keeps a token that
    is not needed (about 6% of the others), a miss is impossible.  Cost: a
    few passes over the tokens and one random access each to a table of
    ``16 * n_candidate_tokens`` bytes.

    Parameters
    ----------
    hashes, image : ndarray of uint64 and of int, shape (n_tokens,)
        The reference tokens' hashes and each one's image.
    candidate_hashes, candidate_image : ndarray of uint64 and of int, shape (n_candidate_tokens,)
        The candidates' tokens and each one's image.

    Returns
    -------
    ndarray of bool, shape (n_tokens,)

    Examples
    --------
    Image 0: reference "a b", candidate "b c"; image 1: reference "b", candidate "a":

    >>> h, image = np.array([1, 2, 2], dtype=np.uint64), np.array([0, 0, 1])
    >>> cand, cand_image = np.array([2, 3, 1], dtype=np.uint64), np.array([0, 0, 1])
    >>> matchable_tokens(h, image, cand, cand_image).tolist()
    [False, True, False]
    """
    bits = max(10, int(16 * candidate_hashes.shape[0] - 1).bit_length())
    table = np.zeros(1 << bits, dtype=bool)
    table[_table_slot(candidate_hashes, candidate_image, bits)] = True
    return table[_table_slot(hashes, image, bits)]


def clipped_counts(
    counts: sp.csc_matrix, runs: np.ndarray, candidate: np.ndarray, candidate_slot: np.ndarray
) -> np.ndarray:
    """Each candidate's clipped count: ``sum_g min(c_g, max over its image's references of r_g)``.

    Preconditions: ``counts`` is a raw-count CSC matrix of
    :func:`sparsecider._kernels.counts.count_columns` over slots laid out by
    :func:`sparsecider._kernels.counts.layout` (within a column the rows of
    one image are adjacent, references first); ``runs`` marks where each
    (column, image) run of stored entries starts
    (:func:`sparsecider._kernels.counts.image_runs`); ``candidate`` marks
    the entries of candidate rows.  Cost: one pass over ``candidate``, then
    work in proportion to the candidate entries and the reference entries
    of their runs (a step per reference of the largest such run), and one
    ``bincount``.

    Parameters
    ----------
    counts : csc_matrix of float64, shape (n_slots, n_columns)
    runs, candidate : ndarray of bool, shape (nnz,)
    candidate_slot : ndarray of int64, shape (n_candidates,)
        The slot of each candidate (``Layout.candidate_slot``).

    Returns
    -------
    ndarray of int64, shape (n_candidates,)

    Examples
    --------
    One image: reference 0 holds n-gram 1 once and n-gram 2 twice, reference
    1 holds n-gram 1 twice; the candidate holds n-gram 1 three times, n-gram
    2 once and n-gram 3 once: min(3, 2) + min(1, 2) + min(1, 0) = 3.

    >>> from sparsecider._kernels.counts import count_columns, image_runs, layout
    >>> s = layout(np.array([0]), np.array([0, 2]))
    >>> keys = np.array([1, 2, 2, 1, 1, 1, 1, 1, 2, 3], dtype=np.uint64)
    >>> counts, _ = count_columns(keys, np.array([0, 3, 5, 10]))
    >>> runs = image_runs(counts, s.slot_image)
    >>> clipped_counts(counts, runs, s.slot_is_candidate[counts.indices], s.candidate_slot).tolist()
    [3]
    """
    n_slots = counts.shape[0]
    data = counts.data
    cand_entry = np.flatnonzero(candidate)
    if cand_entry.shape[0] == 0:
        return np.zeros(candidate_slot.shape[0], dtype=np.int64)
    # A run holds its references, then its candidates (one per candidate of
    # the image holding the n-gram).  The first candidate entry of a run
    # looks back over the reference entries before it, one step for all
    # such heads at a time (as many steps as the most references sharing
    # one n-gram in one image); the run's other candidate entries follow it.
    head = runs[cand_entry] | ~candidate[cand_entry - 1]  # entry 0 starts a run
    heads = cand_entry[head]
    best = np.zeros(heads.shape[0])
    at = np.flatnonzero(~runs[heads])  # heads with references before them
    position = heads[at] - 1
    while at.shape[0]:
        best[at] = np.maximum(best[at], data[position])
        more = ~runs[position]  # the run goes on before this entry
        at, position = at[more], position[more] - 1
    reference_max = best[np.cumsum(head) - 1]
    clipped = np.minimum(data[cand_entry], reference_max)
    # integer counts: the float sums are exact (far below 2**53)
    per_slot = np.bincount(counts.indices[cand_entry], weights=clipped, minlength=n_slots)
    return per_slot[candidate_slot].astype(np.int64)
