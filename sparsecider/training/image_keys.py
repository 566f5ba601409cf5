"""Image keys -> positions, for scorers that hold a fixed set of images.

A :class:`~sparsecider.RewardScorer` built from a list knows its images by
position (0 .. n - 1), one built from a dict by the dict's keys.  Each batch
names the image of every candidate row; :class:`ImageKeys` turns those
names into positions once per batch (integer keys in one vectorised search,
other keys through a dict), and refuses any name it does not know.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from .._checks import check_int64_ids, describe_keys, id_kind_mismatch, int_array

__all__ = ["ImageKeys"]


class ImageKeys:
    """The images of a scorer: by position (``keys=None``), or by the given keys.

    Examples
    --------
    >>> ImageKeys(None, 3).positions([2, 0]).tolist()
    [2, 0]
    >>> ImageKeys((391895, 7, 522418), 3).positions([522418, 7]).tolist()
    [2, 1]
    >>> ImageKeys(("a", "b"), 2).positions(["b", "c"])
    Traceback (most recent call last):
    ...
    ValueError: images[1] = 'c' is not an image of this scorer; it knows 2 images, by the keys ...
    """

    def __init__(self, keys: Sequence | None, n_images: int) -> None:
        self.keys = None if keys is None else tuple(keys)
        self.n_images = n_images
        self._sorted = self._order = self._index = None
        if self.keys is None:
            return
        if all(isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in self.keys):
            check_int64_ids([int(k) for k in self.keys], "references key {v}")
            ints = np.array(self.keys, dtype=np.int64) if self.keys else np.zeros(0, np.int64)
            self._order = np.argsort(ints, kind="stable")
            self._sorted = ints[self._order]
        else:
            self._index = {k: i for i, k in enumerate(self.keys)}

    def _unknown(self, name: str, at: int, value: object) -> ValueError:
        if self.keys is None:
            known = f"by position 0..{self.n_images - 1}"
        else:
            known = f"by the keys of its references (e.g. {describe_keys(self.keys, 3)})"
        kinds = id_kind_mismatch([value], self.keys or [0], name, "the scorer's references")
        return ValueError(
            f"{name}[{at}] = {value!r:.60} is not an image of this scorer; it knows "
            f"{self.n_images} images, {known}" + (f"; {kinds}" if kinds else "")
        )

    def positions(self, images: object, name: str = "images") -> np.ndarray:
        """The position of each named image, int64 of shape (len(images),)."""
        if self._index is not None:
            if isinstance(images, str) or not isinstance(images, Sequence | np.ndarray):
                raise TypeError(f"{name} must be a list of image keys, got {type(images).__name__}")
            out = np.empty(len(images), dtype=np.int64)
            for i, key in enumerate(images):
                try:
                    out[i] = self._index[key]
                except (KeyError, TypeError):
                    raise self._unknown(name, i, key) from None
            return out
        if isinstance(images, Sequence) and not isinstance(images, str) and images:
            first = images[0]
            if isinstance(first, str):  # integer images named by strings ("391895")
                raise self._unknown(name, 0, first)
        wanted = int_array(images, name, 1)
        if self._sorted is None:
            bad = (wanted < 0) | (wanted >= self.n_images)
            if bad.any():
                at = int(np.flatnonzero(bad)[0])
                raise self._unknown(name, at, int(wanted[at]))
            return wanted
        at = np.searchsorted(self._sorted, wanted)
        found = at < self._sorted.shape[0]
        found[found] = self._sorted[at[found]] == wanted[found]
        if not found.all():
            first = int(np.flatnonzero(~found)[0])
            raise self._unknown(name, first, int(wanted[first]))
        return self._order[at]

    def names(self, positions: np.ndarray) -> tuple:
        """The keys of images given by position (the positions themselves without keys)."""
        if self.keys is None:
            return tuple(positions.tolist())
        return tuple(self.keys[i] for i in positions.tolist())
