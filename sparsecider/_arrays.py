"""Two array idioms the kernels share: offsets from lengths, and ranges without a loop."""

from __future__ import annotations

import numpy as np

__all__ = ["exclusive_cumsum", "ranges"]


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
