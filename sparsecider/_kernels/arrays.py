"""Array idioms the kernels share: offsets from lengths, ranges without a loop,
and cache-sized blocks for chains of elementwise passes."""

from __future__ import annotations

import numpy as np

__all__ = [
    "BLOCK",
    "blocks",
    "exclusive_cumsum",
    "popcount",
    "ranges",
    "smallest_uint",
    "span_bits",
]

# Chains of elementwise passes over millions of words run block by block:
# the passes over one block stay in the L2 cache instead of streaming the
# whole array through memory once per pass (the eight passes of SplitMix64
# run about twice as fast).  A loop over blocks runs len / BLOCK times, each
# step vectorised over the block.
BLOCK = 1 << 16
_S56 = np.uint64(56)
_bitwise_count = getattr(np, "bitwise_count", None)  # numpy >= 2.0; pyproject allows 1.24


def _swar_popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each uint64, as int64: the SWAR sum (numpy before 2.0)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> _S56).astype(np.int64)


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 of ``x``, as int64 (a count weighted or summed without overflow).

    Examples
    --------
    >>> popcount(np.array([0, 7, 2**64 - 1], dtype=np.uint64)).tolist()
    [0, 3, 64]
    """
    if _bitwise_count is None:
        return _swar_popcount(x)
    return _bitwise_count(x).astype(np.int64)


def blocks(n: int):
    """``(start, stop)`` of the consecutive blocks of ``range(n)``, BLOCK long.

    Examples
    --------
    >>> [(a, b) for a, b in blocks(BLOCK + 5)] == [(0, BLOCK), (BLOCK, BLOCK + 5)]
    True
    >>> list(blocks(0))
    []
    """
    return ((start, min(start + BLOCK, n)) for start in range(0, n, BLOCK))


def exclusive_cumsum(values: np.ndarray) -> np.ndarray:
    """Offsets from lengths: ``out[0] = 0``, ``out[i + 1] = values[:i + 1].sum()``.

    Examples
    --------
    >>> exclusive_cumsum(np.array([2, 0, 3])).tolist()
    [0, 2, 2, 5]
    """
    out = np.zeros(values.shape[0] + 1, dtype=np.int64)
    np.cumsum(values, out=out[1:])
    return out


def smallest_uint(maximum: int) -> type:
    """The smallest unsigned integer type that holds ``0 .. maximum``.

    Examples
    --------
    >>> [smallest_uint(m).__name__ for m in (255, 256, 2**32)]
    ['uint8', 'uint16', 'uint64']
    """
    dtypes = (np.uint8, np.uint16, np.uint32, np.uint64)
    return next(t for t in dtypes if maximum <= np.iinfo(t).max)


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``arange(starts[i], starts[i] + lengths[i])`` for every i, concatenated.

    Cost: one ``np.repeat`` and one ``arange``, O(lengths.sum()); no Python loop.

    Examples
    --------
    >>> ranges(np.array([10, 0, 5]), np.array([2, 0, 3])).tolist()
    [10, 11, 5, 6, 7]
    """
    offsets = exclusive_cumsum(lengths)
    out = np.repeat(np.asarray(starts, dtype=np.int64) - offsets[:-1], lengths)
    out += np.arange(offsets[-1], dtype=np.int64)
    return out


def span_bits(starts: np.ndarray, lengths) -> np.ndarray:
    """The uint64 bit masks of the spans ``starts[i] .. starts[i] + lengths[i] - 1`` (positions
    below 64; a length of 64 needs its start at 0).

    Examples
    --------
    >>> span_bits(np.array([0, 2, 5]), np.array([1, 3, 0])).tolist()
    [1, 28, 0]
    """
    one = np.uint64(1)
    size = np.asarray(lengths).astype(np.uint64)
    return ((one << size) - one) << np.asarray(starts).astype(np.uint64)
