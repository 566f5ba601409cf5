"""``Bleu`` and ``Rouge``: pycocoevalcap's, over :func:`sparsecider.bleu` and
:func:`sparsecider.rouge_l`."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._checks import MAX_N, check_int
from ..core.corpus import as_corpus
from ..metrics.bleu import corpus_bleu, corpus_statistics, sentence_bleu
from ..metrics.rouge import rouge_l
from ..tokenizers import get_tokenizer
from .cider import candidate_captions, one_caption

__all__ = ["Bleu", "Rouge"]


class Bleu:
    """pycocoevalcap's ``Bleu``: BLEU-1..n of already tokenized captions.

    Parameters
    ----------
    n : int, default 4
        Highest n-gram order (pycocoevalcap raises ``IndexError`` for n > 4;
        here larger n extend the same formula).

    See Also
    --------
    sparsecider.bleu : The function doing the work, with more options.

    Examples
    --------
    >>> gts = {"a": ["a dog runs fast"], "b": ["the red bus stops"]}
    >>> res = {"a": ["a dog runs fast"], "b": ["one green tram"]}
    >>> score, scores = Bleu(4).compute_score(gts, res, verbose=0)

    "one green tram" adds 3 unmatched words, 2 bigrams and 1 trigram to the
    totals of the corpus score, so the corpus BLEU grows with the order
    (pycocoevalcap's numbers):

    >>> [round(s, 4) for s in score]
    [0.4954, 0.5076, 0.53, 0.5994]
    >>> [[round(v, 4) for v in order] for order in scores]
    [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    """

    def __init__(self, n: int = 4) -> None:
        self._n = check_int("n", n, maximum=MAX_N)

    def compute_score(self, gts: Mapping, res: Mapping, verbose: int = 1):
        """Score ``res`` against ``gts``, as pycocoevalcap's ``Bleu.compute_score``.

        Parameters
        ----------
        gts : dict
            Image id -> list of reference captions (already tokenized).
        res : dict
            Image id -> list holding exactly one candidate caption.
        verbose : int, default 1
            Print the corpus totals and the length ratio, as the reference does.

        Returns
        -------
        score : list of float, length n
            Corpus BLEU-1..n.
        scores : list of n lists of float
            Per order, the per-image BLEU in the order of ``gts``'s keys.

        Raises
        ------
        TypeError, ValueError
            As :meth:`Cider.compute_score`.
        """
        candidates = candidate_captions(gts, res)
        stats = corpus_statistics(
            as_corpus(candidates, gts), n=self._n, tokenizer=get_tokenizer("whitespace")
        )
        score = corpus_bleu(stats)
        if verbose > 0:
            # the reference's own report of its totals
            testlen, reflen = int(stats.testlen.sum()), int(stats.reflen.sum())
            print({"testlen": testlen, "reflen": reflen,
                   "guess": stats.guess.sum(axis=0).tolist(),
                   "correct": stats.correct.sum(axis=0).tolist()})  # fmt: skip
            print("ratio:", (testlen + 1e-15) / (reflen + 1e-9))
        return score, sentence_bleu(stats).T.tolist()

    def method(self) -> str:
        """``"Bleu"``, as pycocoevalcap reports it."""
        return "Bleu"


class Rouge:
    """pycocoevalcap's ``Rouge``: ROUGE-L (beta 1.2) of already tokenized captions.

    Captions are split on single spaces, as there (see :mod:`sparsecider.metrics.rouge`).

    See Also
    --------
    sparsecider.rouge_l : The function doing the work, with more options.

    Examples
    --------
    >>> gts = {"a": ["a dog runs fast", "the dog runs"], "b": ["the red bus stops"]}
    >>> res = {"a": ["a dog runs"], "b": ["one green tram"]}
    >>> score, scores = Rouge().compute_score(gts, res)
    >>> round(float(score), 6), scores.round(6).tolist()
    (0.417808, [0.835616, 0.0])
    """

    def __init__(self) -> None:
        self.beta = 1.2

    def calc_score(self, candidate: list, refs: list) -> float:
        """ROUGE-L of one image: ``candidate`` a list of one caption, ``refs`` its references.

        Examples
        --------
        >>> Rouge().calc_score(["a dog runs"], ["a dog runs fast", "the dog runs"])
        0.8356164383561644
        """
        caption = one_caption(candidate, "candidate")
        return float(rouge_l([caption], [refs], beta=self.beta, tokenizer="whitespace").score)

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        """Score ``res`` against ``gts``, as pycocoevalcap's ``Rouge.compute_score``.

        Returns
        -------
        score : numpy.float64
            The mean ROUGE-L.
        scores : ndarray of shape (len(gts),)
            Per-image scores in the order of ``gts``'s keys.

        Raises
        ------
        TypeError, ValueError
            As :meth:`Cider.compute_score`.
        """
        result = rouge_l(candidate_captions(gts, res), gts, beta=self.beta, tokenizer="whitespace")
        return np.float64(result.score), np.array(result.scores)

    def method(self) -> str:
        """``"Rouge"``, as pycocoevalcap reports it."""
        return "Rouge"
