"""Drop-in replacements for the reference implementation's scorer classes.

``Cider`` replaces ``pycocoevalcap.cider.cider.Cider`` (which, despite its
name, computes CIDEr-D) and ``CiderD`` replaces the ``CiderD`` class of the
CIDEr authors' repository and of the self-critical training code derived
from it.  Same constructor, same ``compute_score(gts, res)`` inputs, same
``(float, ndarray)`` return value and the same numbers, computed by
:func:`sparsecider.cider_d`.  ``Bleu`` and ``Rouge`` replace pycocoevalcap's
``Bleu`` and ``Rouge`` (:func:`sparsecider.bleu`, :func:`sparsecider.rouge_l`),
``Meteor`` its ``Meteor`` (:func:`sparsecider.meteor`, no Java; the
``meteor`` extra), and ``COCOEvalCap`` fills the COCO caption table
(BLEU-1..4, METEOR, ROUGE-L, CIDEr) without Java, SPICE being delegated to
pycocoevalcap on request.

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

from .bleu_rouge import Bleu, Rouge
from .cider import Cider, CiderD
from .coco import COCOEvalCap, EvalScores
from .hook import install, uninstall
from .meteor import Meteor
from .tokenizer import PTBTokenizer

__all__ = [
    "Bleu",
    "COCOEvalCap",
    "Cider",
    "CiderD",
    "EvalScores",
    "Meteor",
    "PTBTokenizer",
    "Rouge",
    "install",
    "uninstall",
]
