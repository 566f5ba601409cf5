"""Pure functions from pair statistics to scores.

:mod:`sparsecider.core.engine` computes per-order statistics of every
(candidate, reference) pair; here they become per-pair values (cosine, the
CIDEr-D length penalty), per-candidate per-order values (mean over the
image's references, times ``scale``), scores (mean over orders) and the
corpus mean.  No state, no I/O: the same statistics can be reduced with
other settings (``sigma``, ``scale``) or resampled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .._kernels.pairs import sum_by

if TYPE_CHECKING:
    from .engine import PairStatistics

__all__ = [
    "corpus_score",
    "length_penalty",
    "pair_values",
    "per_order_values",
    "reference_means",
    "scores",
]


def length_penalty(delta: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian length penalty ``exp(-delta**2 / (2 sigma**2))`` of CIDEr-D.

    Examples
    --------
    >>> length_penalty(np.array([0, 6]), 6.0).round(4).tolist()
    [1.0, 0.6065]
    """
    return np.exp(-(delta.astype(np.float64) ** 2) / (2.0 * sigma**2))


def pair_values(stats: PairStatistics, sigma: float | None) -> np.ndarray:
    """Per order, each pair's value, shape (n, n_pairs).

    The dot product divided by the product of the norms when both are
    non-zero (else the undivided dot, which is then 0), times the length
    penalty when ``sigma`` is given (CIDEr-D; None: plain CIDEr).
    """
    values = stats.candidate_norms * stats.reference_norms
    # a zero norm is a zero vector, whose dot is 0: the product (0) stands for it
    np.divide(stats.dots, values, out=values, where=values != 0)
    if sigma is not None:
        values *= length_penalty(stats.length_delta, sigma)
    return values


def per_order_values(stats: PairStatistics, sigma: float | None, scale: float) -> np.ndarray:
    """Per candidate and order: the mean over its image's references of
    :func:`pair_values`, times ``scale``; shape (n_candidates, n)."""
    return reference_means(stats, pair_values(stats, sigma), scale)


def reference_means(stats: PairStatistics, values: np.ndarray, scale: float) -> np.ndarray:
    """Per candidate and order: the mean over its image's references of
    per-pair ``values`` (shape (n, n_pairs), e.g. :func:`pair_values` times
    another penalty), times ``scale``; shape (n_candidates, n).

    Each candidate's values are added in reference order, then divided by
    the number of references (as the reference implementation averages).
    """
    sums = [sum_by(stats.pair_candidate, row, stats.n_candidates) for row in values]
    per_order = np.stack(sums, axis=1)
    # mean over references, then the reference's x10
    per_order /= np.diff(stats.reference_offsets)[stats.candidate_image][:, None]
    per_order *= scale
    return per_order


def scores(per_order: np.ndarray) -> np.ndarray:
    """Each candidate's score: the mean over orders, shape (n_candidates,)."""
    return per_order.mean(axis=1)


def corpus_score(candidate_scores: np.ndarray) -> float:
    """The corpus score: the plain mean over candidates."""
    return float(candidate_scores.mean())
