"""``Meteor``: pycocoevalcap's, over :func:`sparsecider.meteor` (no Java)."""

from __future__ import annotations

import threading
from collections.abc import Mapping

from ..metrics.meteor.api import meteor, resources
from .cider import candidate_captions

__all__ = ["Meteor"]


class Meteor:
    """pycocoevalcap's ``Meteor``: METEOR 1.5 (``-l en -norm``) of already tokenized captions.

    The same ``compute_score(gts, res)`` and return value, without Java: a
    clean-room rewrite of the jar's behaviour that reads the jar's data
    from the installed pycocoevalcap (``pip install "sparsecider[meteor]"``).
    The data is loaded when the scorer is made (the first time ever, an
    index of the paraphrase table is built and cached: a minute or so), as
    the real one starts its Java process there.

    Raises
    ------
    ImportError
        The ``meteor`` extra (pycocoevalcap 1.2, snowballstemmer 2.2.0) is missing.
    MeteorDataError
        pycocoevalcap's METEOR files are damaged or truncated (named).

    See Also
    --------
    sparsecider.meteor : The function doing the work, with the 23 statistics.

    Examples
    --------
    The corpus score comes from the statistics summed over the images, not
    from the mean of their scores (pycocoevalcap's numbers):

    >>> gts = {"x": ["a man is riding a horse on the beach"], "y": ["two cats sleep on a sofa"]}
    >>> res = {"x": ["a person rides a horse at the beach"], "y": ["two cats sleeping on a couch"]}
    >>> score, scores = Meteor().compute_score(gts, res)
    >>> round(score, 6), [round(s, 6) for s in scores]
    (0.436643, [0.369047, 0.85])
    """

    def __init__(self) -> None:
        resources()  # the extra and the data, checked (and loaded) now
        self.lock = threading.Lock()

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[float, list[float]]:
        """Score ``res`` against ``gts``, as pycocoevalcap's ``Meteor.compute_score``.

        Parameters
        ----------
        gts : dict
            Image id -> list of reference captions (already tokenized).
        res : dict
            Image id -> list holding exactly one candidate caption.

        Returns
        -------
        score : float
            The corpus METEOR, from the statistics summed over all images.
        scores : list of float
            Per-image scores in the order of ``gts``'s keys.

        Raises
        ------
        TypeError, ValueError
            As :meth:`sparsecider.compat.Cider.compute_score` (different ids,
            not one caption per image: named, where the reference asserts).
        """
        candidates = candidate_captions(gts, res)
        with self.lock:
            result = meteor(candidates, gts, tokenizer="whitespace")
        self.signature = result.signature
        return result.score, result.scores.tolist()

    def method(self) -> str:
        """``"METEOR"``, as pycocoevalcap reports it."""
        return "METEOR"
