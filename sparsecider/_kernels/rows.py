"""A small batch of captions as padded rows: each row's distinct n-grams, sorted, with counts.

The engine counts n-grams by sorting every n-gram of a corpus once
(:mod:`.counts`).  A reward batch is a few hundred short captions, for
which one padded matrix per order is cheaper: the keys of row r's k-grams
fill row r of the order's matrix, the rest of the row holds
:data:`SENTINEL`, and ``np.sort(axis=-1)`` sorts every row at once (rows
of a few dozen words sort in a few microseconds).  The sentinel is the
largest uint64, so after the sort a row's first ``max(length - k + 1, 0)``
entries are exactly its own keys, in order, even if a key equals the
sentinel.

The padded matrix costs rows x longest caption: one 400,000-word caption
among 300 would need 3.6 GiB.  :func:`caption_ngrams` therefore pads only
when padding at most :data:`PAD_FACTOR` times the tokens; otherwise it sorts
the flat n-grams (:func:`flat_ngrams`, the same entries in the same order),
so memory and time stay linear in the tokens.
"""

from __future__ import annotations

import numpy as np

from .hashing import next_order_keys, ngram_keys
from .tokens import Tokens

__all__ = ["PAD_FACTOR", "SENTINEL", "caption_ngrams", "flat_ngrams", "padded_hashes", "row_ngrams"]

SENTINEL = np.uint64(0xFFFFFFFFFFFFFFFF)

#: Pad the rows when the padded matrix holds at most this many cells per
#: token (plus a few per row): a batch of similar captions pads about 2x
#: and sorts fastest padded; a very long caption among short ones sorts flat.
PAD_FACTOR = 8


def caption_ngrams(tokens: Tokens, n: int):
    """:func:`row_ngrams` of the captions, padded or flat, whichever stays linear.

    Examples
    --------
    >>> t = Tokens(np.array([1, 2, 1, 2, 5], np.uint64), np.array([4, 0, 1]))
    >>> a, b = row_ngrams(padded_hashes(t), t.lengths, 2), flat_ngrams(t, 2)
    >>> all((x == y).all() for x, y in zip(a, b, strict=True)), caption_ngrams(t, 2)[2].tolist()
    (True, [2, 2, 1, 2, 1])
    """
    lengths = tokens.lengths
    width = max(int(lengths.max(initial=0)), 1)
    if lengths.shape[0] * width <= PAD_FACTOR * (tokens.hashes.shape[0] + 4 * lengths.shape[0]):
        return row_ngrams(padded_hashes(tokens), lengths, n)
    return flat_ngrams(tokens, n)


def flat_ngrams(tokens: Tokens, n: int):
    """:func:`row_ngrams`'s output (same entries, same order) from the unpadded tokens.

    Cost: the k-gram keys of :func:`sparsecider._kernels.hashing.ngram_keys`
    and one sort of them by (order and row, key): O(N log N) in the n-grams
    N, with nothing proportional to rows x longest caption.
    """
    lengths = tokens.lengths
    n_rows = lengths.shape[0]
    keys, groups = [], []
    for k, (order_keys, indptr) in enumerate(ngram_keys(tokens.hashes, lengths, n)):
        keys.append(order_keys)
        groups.append(np.repeat(np.arange(k * n_rows, (k + 1) * n_rows), np.diff(indptr)))
    keys, group = np.concatenate(keys), np.concatenate(groups)
    # groups run in increasing order already: a stable sort by key, then by group
    by_key = np.argsort(keys, kind="stable")
    order = by_key[np.argsort(group[by_key], kind="stable")]
    values, group = keys[order], group[order]
    new = np.empty(values.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(values[1:], values[:-1], out=new[1:])
    new[1:] |= group[1:] != group[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(starts, append=values.shape[0])
    return np.take(values, starts), np.take(group, starts), counts


def padded_hashes(tokens: Tokens) -> np.ndarray:
    """The token hashes as a padded matrix, row i holding caption i's tokens.

    Returns
    -------
    ndarray of uint64, shape (n_captions, max(1, max length))
        ``out[i, :lengths[i]]`` are caption i's hashes; the rest is 0.

    Examples
    --------
    >>> t = Tokens(np.array([7, 8, 9], dtype=np.uint64), np.array([2, 0, 1]))
    >>> padded_hashes(t).tolist()
    [[7, 8], [0, 0], [9, 0]]
    """
    lengths = tokens.lengths
    width = max(int(lengths.max(initial=0)), 1)
    out = np.zeros((lengths.shape[0], width), dtype=np.uint64)
    # row-major, as the hashes are stored: caption after caption
    out[np.arange(width) < lengths[:, None]] = tokens.hashes
    return out


def row_ngrams(rows: np.ndarray, lengths: np.ndarray, n: int):
    """Each row's distinct k-grams for k = 1..n, in key order, and how often each occurs.

    Preconditions: ``rows`` from :func:`padded_hashes` (row i's first
    ``lengths[i]`` entries are its token hashes).  The k-gram keys are those
    of :func:`sparsecider._kernels.hashing.ngram_keys`.  Cost: n passes of
    :func:`sparsecider._kernels.hashing.next_order_keys` over the matrix,
    one row-wise sort of an (n, n_rows, width) array, a few passes over its
    valid entries.

    Returns
    -------
    keys : ndarray of uint64, shape (n_entries,)
    group : ndarray of int64, shape (n_entries,)
        ``(k - 1) * n_rows + row``: entries run order after order, row after
        row within an order, keys increasing within a row.
    counts : ndarray of int64, shape (n_entries,)
        Occurrences of the k-gram in the row.

    Examples
    --------
    One row "a b a b" (hashes 1 2 1 2) and an empty row, n = 2: unigrams
    1 and 2 twice each; bigrams "a b" twice and "b a" once:

    >>> keys, group, counts = row_ngrams(np.array([[1, 2, 1, 2], [0, 0, 0, 0]], np.uint64),
    ...                                  np.array([4, 0]), 2)
    >>> keys[:2].tolist(), group.tolist(), counts.tolist()
    ([1, 2], [0, 0, 2, 2], [2, 2, 2, 1])
    """
    n_rows, width = rows.shape
    flat = rows.ravel()
    grid = np.full((n, n_rows, width), SENTINEL, dtype=np.uint64)
    position = np.arange(width)
    n_valid = np.maximum(lengths[None, :] - np.arange(n)[:, None], 0)  # (n, n_rows)
    valid = position < n_valid[..., None]  # (n, n_rows, width)
    keys = flat
    for k in range(1, n + 1):
        if k > 1:
            # k-grams at every flat position; those crossing a row end are not valid
            every, _ = next_order_keys(keys, flat, k)
            keys = np.zeros(flat.shape[0], dtype=np.uint64)
            keys[: every.shape[0]] = every
        np.copyto(grid[k - 1], keys.reshape(n_rows, width), where=valid[k - 1])
    grid.sort(axis=-1)
    values = np.compress(valid.ravel(), grid.ravel())  # order, row, then increasing keys
    group = np.repeat(np.arange(n * n_rows, dtype=np.int64), n_valid.ravel())
    new = np.empty(values.shape[0], dtype=bool)
    new[:1] = True
    np.not_equal(values[1:], values[:-1], out=new[1:])
    new[1:] |= group[1:] != group[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(starts, append=values.shape[0])
    return np.take(values, starts), np.take(group, starts), counts
