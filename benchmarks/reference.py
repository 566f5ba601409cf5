"""The reference approaches the benchmarks (and some tests) compare with.

Nothing here reimplements the metric: these functions drive pycocoevalcap
1.2's own ``CiderScorer`` the way existing code does.
"""

from __future__ import annotations

import numpy as np


def scst_document_frequency(reference_texts: list[list[str]]) -> dict:
    """pycocoevalcap's df dict for a training corpus (one list of texts per image)."""
    from pycocoevalcap.cider.cider_scorer import CiderScorer

    fit = CiderScorer()
    for refs in reference_texts:
        fit.cook_append(None, refs)
    fit.compute_doc_freq()
    return fit.document_frequency


def scst_rewards(
    candidates: list[str], references: list[list[str]], document_frequency: dict, n_images: int
) -> np.ndarray:
    """CIDEr-D rewards as self-critical training code computes them.

    A ``CiderScorer`` per batch, its ``document_frequency`` and ``ref_len``
    (log N) taken from the training corpus.  pycocoevalcap's
    ``compute_cider`` sets ``ref_len = np.log(len(crefs))`` itself (its first
    ``np.log`` call); the SCST copies use the corpus's value instead, which is
    emulated by answering that one call with ``log(n_images)``.  Every other
    operation is the reference's own.
    """
    import pycocoevalcap.cider.cider_scorer as module

    scorer = module.CiderScorer()
    for cand, refs in zip(candidates, references, strict=True):
        scorer.cook_append(cand, refs)
    scorer.document_frequency = document_frequency
    ref_len = np.log(float(n_images))
    calls: list[object] = []

    class _FixedRefLen:
        def __getattr__(self, name):
            return getattr(np, name)

        @staticmethod
        def log(x):
            calls.append(x)
            return ref_len if len(calls) == 1 else np.log(x)

    module.np = _FixedRefLen()
    try:
        return np.array(scorer.compute_cider())
    finally:
        module.np = np
