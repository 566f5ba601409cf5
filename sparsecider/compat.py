"""Drop-in replacements for the reference implementation's scorer classes.

``Cider`` replaces ``pycocoevalcap.cider.cider.Cider`` (which, despite its
name, computes CIDEr-D) and ``CiderD`` replaces the ``CiderD`` class of the
CIDEr authors' repository and of the self-critical training code derived
from it.  Same constructor, same ``compute_score(gts, res)`` inputs, same
``(float, ndarray)`` return value and the same numbers, computed by
:func:`sparsecider.cider_d`.

Differences, all deliberate:

- bad input raises ``TypeError``/``ValueError`` naming the offending image
  instead of a bare ``AssertionError``;
- ``n`` means what it says (pycocoevalcap always extracts 1- to 4-grams:
  ``n < 4`` raises ``IndexError`` there, ``n > 4`` averages in orders that
  are always 0); ``n=4``, the default, is identical.

Examples
--------
>>> from sparsecider.compat import Cider
>>> gts = {1: ["a dog runs on grass", "the dog runs"], 2: ["a red bus"]}
>>> res = {1: ["a dog runs"], 2: ["a bus"]}
>>> score, scores = Cider().compute_score(gts, res)
>>> scores.shape
(2,)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .inputs import describe_keys
from .scoring import cider_d

__all__ = ["Cider", "CiderD"]


def _one_caption(value: object, where: str) -> str:
    if not isinstance(value, list):
        raise TypeError(
            f"{where} must be a list holding one caption (as pycocoevalcap expects), "
            f"got {type(value).__name__}"
        )
    if len(value) != 1:
        raise ValueError(f"{where} must hold exactly one caption, got {len(value)}")
    return value[0]


class Cider:
    """pycocoevalcap's ``Cider`` (CIDEr-D), on sparse matrices.

    Parameters
    ----------
    test, refs : ignored
        Accepted for signature compatibility, as in pycocoevalcap.
    n : int, default 4
    sigma : float, default 6.0
    """

    _name = "CIDEr"

    def __init__(self, test=None, refs=None, n: int = 4, sigma: float = 6.0) -> None:
        self._n = n
        self._sigma = sigma

    def _score(self, candidates, references) -> tuple[np.float64, np.ndarray]:
        result = cider_d(candidates, references, n=self._n, sigma=self._sigma)
        return np.float64(result.score), np.array(result.scores)

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        """Score ``res`` against ``gts``.

        Parameters
        ----------
        gts : dict
            Image id -> list of reference captions (already tokenized).
        res : dict
            Image id -> list holding exactly one candidate caption.

        Returns
        -------
        score : numpy.float64
            Corpus CIDEr-D.
        scores : ndarray of shape (len(gts),)
            Per-image scores in the order of ``gts``'s keys.
        """
        if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
            raise TypeError(
                f"gts and res must be dicts keyed by image id, got {type(gts).__name__} "
                f"and {type(res).__name__}"
            )
        if gts.keys() != res.keys():
            only_g = [k for k in gts if k not in res]
            only_r = [k for k in res if k not in gts]
            raise ValueError(
                "gts and res must have the same image ids; "
                f"only in gts: {describe_keys(only_g)}; only in res: {describe_keys(only_r)}"
            )
        # scores follow gts's key order, as pycocoevalcap's
        candidates = {k: _one_caption(res[k], f"res[{k!r}]") for k in gts}
        return self._score(candidates, gts)

    def method(self) -> str:
        return self._name


class CiderD(Cider):
    """The CIDEr authors' ``CiderD`` (and its self-critical training copies).

    Parameters
    ----------
    n : int, default 4
    sigma : float, default 6.0
    df : {"corpus"}, default "corpus"
        Document frequencies from the references being scored.

    ``compute_score(gts, res)`` accepts ``res`` as that code does, a list of
    ``{"image_id": id, "caption": [caption]}`` dicts, in which case every
    entry is its own document (as there) and scores follow ``res``'s order;
    or as a dict like :class:`Cider`.
    """

    _name = "CIDEr-D"

    def __init__(self, n: int = 4, sigma: float = 6.0, df: str = "corpus") -> None:
        if df != "corpus":
            raise ValueError(
                f"df={df!r}: only 'corpus' (document frequencies from the references "
                "being scored) is supported"
            )
        super().__init__(n=n, sigma=sigma)
        self._df = df

    def compute_score(self, gts: Mapping, res) -> tuple[np.float64, np.ndarray]:
        if isinstance(res, Mapping):
            return super().compute_score(gts, res)
        if not isinstance(gts, Mapping) or not isinstance(res, list):
            raise TypeError(
                "gts must be a dict keyed by image id and res a list of "
                f"{{'image_id', 'caption'}} dicts (or a dict), got {type(gts).__name__} "
                f"and {type(res).__name__}"
            )
        candidates, references = [], []
        for i, entry in enumerate(res):
            if not isinstance(entry, Mapping) or "image_id" not in entry or "caption" not in entry:
                raise TypeError(
                    f"res[{i}] must be a dict with 'image_id' and 'caption', got {entry!r:.80}"
                )
            if entry["image_id"] not in gts:
                raise ValueError(
                    f"res[{i}] has image_id {entry['image_id']!r}, which gts does not have"
                )
            candidates.append(_one_caption(entry["caption"], f"res[{i}]['caption']"))
            references.append(gts[entry["image_id"]])
        return self._score(candidates, references)
