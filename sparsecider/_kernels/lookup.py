"""Sorted key tables: merging them, and looking keys up in them.

Document frequencies are stored as strictly increasing uint64 n-gram keys
with a count each.  These kernels merge such tables (summing the counts of
equal keys) and add a table's counts to the positions of matching query
keys, by a two-run merge (:func:`lookup_sorted`, for two tables of similar
size) or through a bucket index on the keys' top bits (:func:`lookup_buckets`,
for few queries against a large table; :func:`bucket_positions` returns
where each key is, in several tables at once).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "bucket_index",
    "bucket_positions",
    "lookup_buckets",
    "lookup_sorted",
    "merge_sorted",
    "merge_two",
]


def merge_sorted(
    keys: Sequence[np.ndarray], counts: Sequence[np.ndarray], *, consume: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Union of several strictly increasing key arrays, with the counts of equal keys summed.

    Folded two at a time (:func:`merge_two`): no sort and no copy of the
    concatenation, so merging a table into a large one needs about two
    output-sized arrays (the streaming fit merges partial tables this way).
    Counts are exact integer sums, so the order of merging does not matter.
    ``consume=True`` (``keys`` and ``counts`` are lists the caller gives
    away) drops each input as soon as it is folded in, so inputs already
    merged are not held beside the growing result.

    Examples
    --------
    >>> a = np.array([2, 5, 9], dtype=np.uint64)
    >>> b = np.array([1, 5, 12], dtype=np.uint64)
    >>> ones = np.ones(3, dtype=np.int64)
    >>> k, c = merge_sorted([a, b, a], [np.array([1, 2, 3]), np.array([4, 5, 6]), ones])
    >>> k.tolist(), c.tolist()
    ([1, 2, 5, 9, 12], [4, 2, 8, 4, 6])
    """
    if len(keys) != len(counts):
        raise ValueError(f"{len(keys)} key arrays but {len(counts)} count arrays")
    merged_keys = np.asarray(keys[0], dtype=np.uint64)
    merged_counts = np.asarray(counts[0])
    if consume:
        keys[0] = counts[0] = None
    for i in range(1, len(keys)):
        more_keys, more_counts = np.asarray(keys[i]), np.asarray(counts[i])
        if consume:
            keys[i] = counts[i] = None
        merged_keys, merged_counts = merge_two(merged_keys, merged_counts, more_keys, more_counts)
        del more_keys, more_counts
    return merged_keys, merged_counts


def merge_two(
    a: np.ndarray, a_counts: np.ndarray, b: np.ndarray, b_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Union of two strictly increasing key arrays, counts summed.

    Counts keep the inputs' common integer type (uint32 for document
    frequencies: a sum is at most the merged number of images, which their
    constructor bounds below 2**32).

    Each key of ``b`` is found in ``a`` by binary search: those present add
    their count in place (the positions are distinct, as ``b`` is strictly
    increasing), the others are inserted in one ``np.insert``.  Cost:
    O(len(b) log len(a) + len(a) + len(b)); memory: the two outputs plus
    one position per key of ``b``.
    """
    dtype = np.result_type(a_counts.dtype, b_counts.dtype)
    out_counts = a_counts.astype(dtype)  # a new array: the caller's stays intact
    if b.shape[0] == 0:
        return a, out_counts
    pos = np.searchsorted(a, b)
    found = pos < a.shape[0]
    found[found] = a[pos[found]] == b[found]
    out_counts[pos[found]] += b_counts[found].astype(dtype)
    new = ~found
    return (
        np.insert(a, pos[new], b[new]),
        np.insert(out_counts, pos[new], b_counts[new].astype(dtype)),
    )


def lookup_sorted(
    table: np.ndarray, counts: np.ndarray, keys: np.ndarray, out: np.ndarray
) -> np.ndarray:
    """Add ``counts[j]`` to ``out[i]`` wherever ``keys[i] == table[j]``.

    Preconditions: ``table`` and ``keys`` strictly increasing (the columns
    of two :func:`sparsecider._kernels.counts.count_columns`), ``out`` as long as
    ``keys``.  The two are merged by a stable sort of their concatenation
    (numpy's timsort merges the two sorted runs in one pass, several times
    cheaper than a binary search per key); a key present in both then
    follows its table entry directly.  Cost: O(len(table) + len(keys)).

    Examples
    --------
    >>> table = np.array([2, 5, 9], dtype=np.uint64)
    >>> keys = np.array([1, 5, 9, 12], dtype=np.uint64)
    >>> lookup_sorted(table, np.array([10.0, 20.0, 30.0]), keys, np.zeros(4)).tolist()
    [0.0, 20.0, 30.0, 0.0]
    """
    if table.size == 0 or keys.size == 0:
        return out
    both = np.concatenate((table, keys))
    order = np.argsort(both, kind="stable")
    merged = both[order]
    pair = np.flatnonzero(merged[1:] == merged[:-1])  # (table entry, key)
    out[order[pair + 1] - table.shape[0]] += counts[order[pair]]
    return out


def bucket_index(table: np.ndarray, extra_bits: int = 0) -> np.ndarray:
    """Where each bucket of a sorted key table starts, for :func:`lookup_buckets`.

    Keys are hashes, so their top bits are uniform: with B = bit_length(n) - 1
    top bits as the bucket, buckets hold about 2 keys each (each of
    ``extra_bits`` more halves that, and doubles the index).  ``out[b]`` is
    the position of the first key whose top B bits are >= b; shape
    (2**B + 1,).  Cost: one ``bincount`` over the table.
    """
    bits = max(int(table.shape[0]).bit_length() - 1 + extra_bits, 1)
    bucket = (table >> np.uint64(64 - bits)).astype(np.int64)
    dtype = np.int32 if table.shape[0] < 2**31 else np.int64
    index = np.zeros((1 << bits) + 1, dtype=dtype)
    np.cumsum(np.bincount(bucket, minlength=1 << bits), out=index[1:])
    return index


def lookup_buckets(
    table: np.ndarray, counts: np.ndarray, index: np.ndarray, keys: np.ndarray, out: np.ndarray
) -> np.ndarray:
    """Add ``counts[j]`` to ``out[i]`` wherever ``keys[i] == table[j]``.

    Preconditions: ``table`` strictly increasing and ``index`` its
    :func:`bucket_index`.  Each key is looked for in its bucket only, one
    vectorised step per place in the buckets (a handful: they hold about 2
    keys each), so a lookup costs about two random reads per key instead of
    a binary search through the whole table.  Cost: O(len(keys)).
    """
    bits = int(index.shape[0] - 1).bit_length() - 1
    bucket = (keys >> np.uint64(64 - bits)).astype(np.int64)
    position = index[bucket].astype(np.int64)
    end = index[bucket + 1]
    active = np.flatnonzero(position < end)
    while active.shape[0]:
        at = position[active]
        stored = table[at]
        wanted = keys[active]
        hit = stored == wanted
        out[active[hit]] += counts[at[hit]]
        # sorted buckets: go on only while the stored key is still smaller
        active = active[(stored < wanted) & (at + 1 < end[active])]
        position[active] += 1
    return out


def bucket_positions(
    table: np.ndarray, index: np.ndarray, bucket: np.ndarray, keys: np.ndarray
) -> np.ndarray:
    """The position of each key in ``table`` (-1 where absent), searched in its bucket.

    Preconditions: ``table[index[b]:index[b + 1]]`` is bucket b, strictly
    increasing, and ``bucket[i]`` is key i's bucket.  Several sorted tables
    laid end to end, each with its own :func:`bucket_index` shifted by the
    table's offset, are searched in one call (the per-order n-gram tables
    of a reference cache).  The steps are those of :func:`lookup_buckets`.
    Cost: O(len(keys)), about two random reads per key.

    Examples
    --------
    >>> table = np.array([2, 5, 9, 3, 7], dtype=np.uint64)  # two tables: [2, 5, 9], [3, 7]
    >>> index = np.array([0, 2, 3, 3, 5])  # buckets [2, 5], [9]; [], [3, 7]
    >>> keys = np.array([5, 9, 7, 4], dtype=np.uint64)
    >>> bucket_positions(table, index, np.array([0, 1, 3, 3]), keys).tolist()
    [1, 2, 4, -1]
    """
    if table.shape[0] == 0:
        return np.full(keys.shape[0], -1, dtype=np.int64)
    start = index[bucket].astype(np.int64)
    end = index[bucket + 1].astype(np.int64)
    # the first place of every bucket at once (most keys end there), then
    # the keys still below their bucket's entries, a place further each step
    stored = np.take(table, start, mode="clip")
    found = (stored == keys) & (start < end)
    out = start + 1
    out *= found
    out -= 1  # start where found, else -1 (cheaper than np.where)
    more = (stored < keys) & (start + 1 < end)
    active = np.flatnonzero(more)
    position = np.compress(more, start) + 1
    end, wanted = np.compress(more, end), np.compress(more, keys)
    while active.shape[0]:
        stored = table[position]
        hit = stored == wanted
        out[np.compress(hit, active)] = np.compress(hit, position)
        position += 1
        go = (stored < wanted) & (position < end)
        active, position = np.compress(go, active), np.compress(go, position)
        end, wanted = np.compress(go, end), np.compress(go, wanted)
    return out
