"""n-gram keys to per-order CSR count matrices.

For one order k, the keys of all captions (references and candidates) are
mapped to one exact column space (one column per distinct 64-bit key: no
modulo), and each caption becomes a row of raw n-gram counts.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["columns_for_keys", "count_matrix", "factorize"]


def estimate_distinct(keys: np.ndarray) -> int:
    """Number of distinct uint64 keys, exactly for small inputs, else estimated.

    The keys are hashes, so those with their low 4 bits zero are a uniform
    1/16 sample of the *distinct* keys (with all their repetitions): counting
    that sample exactly and scaling by 16 estimates the total within a few
    percent.  Cost: one pass, and a sort of about 1/16 of the keys.
    """
    if keys.shape[0] <= 1 << 16:
        return int(np.unique(keys).shape[0])
    sample = keys[(keys & np.uint64(15)) == 0]
    return 16 * int(np.unique(sample).shape[0])


def factorize(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct values of a uint64 array: ``uniques[codes] == keys``.

    A vectorised open-addressing hash table with linear probing, sized to
    about twice the (estimated) number of distinct keys so that low orders
    stay in cache.  Preconditions: the keys are well mixed in their low bits
    (true of the hashes of :mod:`.hashing`).  Cost: O(len(keys)) expected, in
    a few passes (the number of passes is the longest probe sequence, which
    stays small at load <= 0.5), plus a sort of the distinct keys; exact: keys
    are compared in full.  Codes follow the order of the keys: ``uniques`` is
    strictly increasing.

    Returns
    -------
    codes : ndarray of int64, shape keys.shape
    uniques : ndarray of uint64, shape (n_distinct,)
    """
    expected = int(1.1 * estimate_distinct(keys)) + 16
    while True:
        size = 1 << max(int(2 * expected - 1).bit_length(), 4)
        found = _factorize_sized(keys, size)
        if found is not None:
            return found
        expected *= 2  # the estimate was too low: a bigger table


def _factorize_sized(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`factorize` with a table of ``size`` slots; None if it fills up."""
    n = keys.shape[0]
    mask = np.uint64(size - 1)
    index_dtype = np.int32 if n < 2**31 else np.int64
    owner = np.full(size, -1, dtype=index_dtype)
    slot_of = np.empty(n, dtype=np.int64)
    pending = np.arange(n, dtype=index_dtype)
    slot = (keys & mask).astype(np.int64)
    rounds = 0
    while pending.shape[0]:
        rounds += 1
        if rounds % 16 == 0 and (owner != -1).sum() > (3 * size) // 4:
            return None  # nearly full: probing would crawl (or never end)
        free = owner[slot] == -1
        owner[slot[free]] = pending[free]  # among equal slots the last write wins
        found = keys[owner[slot]] == keys[pending]
        slot_of[pending[found]] = slot[found]
        pending = pending[~found]
        slot = (slot[~found] + 1) & (size - 1)
    # number the distinct keys in increasing key order: column order (and so
    # the order of every row sum) is then the same whatever else is in the
    # corpus, which makes chunked and parallel scoring bit-identical
    occupied = np.flatnonzero(owner != -1)
    uniques = keys[owner[occupied]]
    order = np.argsort(uniques)
    code_of_slot = np.empty(size, dtype=index_dtype)
    code_of_slot[occupied[order]] = np.arange(order.shape[0], dtype=index_dtype)
    return code_of_slot[slot_of].astype(np.int64), uniques[order]


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
