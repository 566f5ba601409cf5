"""METEOR 1.5 (as pycocoevalcap 1.2's ``meteor-1.5.jar`` computes it), without Java.

Written clean-room, from a behaviour specification and black-box runs of the jar (no METEOR
source, decompiled class or port was read); its data is read at run time from the user's
installed pycocoevalcap.

Layers: :mod:`.normalize` (``-norm``) -> :mod:`.matchers` (candidate matches, with
:mod:`.paraphrase` and :mod:`.cache` for the paraphrase table) -> :mod:`.align` (the
alignment) -> :mod:`.segment` (23 statistics per segment) -> :mod:`.stats` (scores).
:mod:`.score` is the functional entry; :mod:`.api` the public face
(:func:`sparsecider.meteor`).
"""

from __future__ import annotations

from .api import meteor
from .score import meteor_scores, segment_statistics
from .stats import corpus_score, segment_scores, summed

__all__ = [
    "corpus_score",
    "meteor",
    "meteor_scores",
    "segment_scores",
    "segment_statistics",
    "summed",
]
