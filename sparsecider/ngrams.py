"""n-gram keys to per-order CSR count matrices.

For one order k, the keys of all captions (references and candidates) are
mapped to one exact column space (one column per distinct 64-bit key: no
modulo), and each caption becomes a row of raw n-gram counts.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["columns_for_keys", "count_matrix", "factorize"]


def factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct values of a uint64 array: ``uniques[codes] == keys``.

    A vectorised open-addressing hash table with linear probing, sized to at
    most half full.  Preconditions: the keys are well mixed in their low bits
    (true of the hashes of :mod:`.hashing`).  Cost: O(len(keys)) expected,
    in a few passes (the number of passes is the longest probe sequence,
    which stays small at load <= 0.5); exact: keys are compared in full.
    Codes are in order of first claim, not sorted.

    Returns
    -------
    codes : ndarray of int64, shape keys.shape
    uniques : ndarray of uint64, shape (n_distinct,)
    """
    n = keys.shape[0]
    size = 1 << max(int(2 * n - 1).bit_length(), 4)
    mask = np.uint64(size - 1)
    index_dtype = np.int32 if n < 2**31 else np.int64
    owner = np.full(size, -1, dtype=index_dtype)
    slot_of = np.empty(n, dtype=np.int64)
    pending = np.arange(n, dtype=index_dtype)
    slot = (keys & mask).astype(np.int64)
    while pending.shape[0]:
        free = owner[slot] == -1
        owner[slot[free]] = pending[free]  # among equal slots the last write wins
        found = keys[owner[slot]] == keys[pending]
        slot_of[pending[found]] = slot[found]
        pending = pending[~found]
        slot = (slot[~found] + 1) & (size - 1)
    occupied = owner != -1
    code_of_slot = np.cumsum(occupied, dtype=index_dtype)
    code_of_slot -= 1
    return code_of_slot[slot_of].astype(np.int64), keys[owner[occupied]]


def columns_for_keys(*key_arrays: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Map several key arrays to one exact column space.

    Returns
    -------
    column_keys : ndarray of uint64, shape (n_columns,)
        Column j holds the n-gram whose key is ``column_keys[j]``.
    columns : list of ndarray of int64
        For each input array, the column of each of its keys.
    """
    sizes = [a.shape[0] for a in key_arrays]
    codes, column_keys = factorize(np.concatenate(key_arrays))
    return column_keys, np.split(codes, np.cumsum(sizes)[:-1])


def count_matrix(columns: np.ndarray, indptr: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """CSR matrix of raw n-gram counts, one row per caption.

    Preconditions: ``columns[indptr[j]:indptr[j + 1]]`` are the columns of
    caption j's n-grams, one entry per occurrence.  Built directly from
    ``indptr``/``indices``/``data`` (no COO round trip); repeated n-grams
    are summed into counts.  Cost: sorting each row's indices, O(nnz log row).

    Returns
    -------
    csr_matrix of float64, shape (len(indptr) - 1, n_columns)
        With sorted indices and no duplicates.
    """
    index_dtype = np.int32 if max(n_columns, columns.shape[0]) < 2**31 else np.int64
    matrix = sp.csr_matrix(
        (np.ones(columns.shape[0]), columns.astype(index_dtype), indptr.astype(index_dtype)),
        shape=(indptr.shape[0] - 1, n_columns),
    )
    matrix.sum_duplicates()
    return matrix
