"""Confidence intervals and paired significance for corpus CIDEr scores.

Everything resamples *images*: a corpus score is the mean of per-image
scores, document frequencies held fixed at those of the full corpus (as is
usual for corpus metrics, and stated in the signature).  Resamples are drawn
with a seeded ``numpy.random.Generator`` and processed in vectorised chunks.

- :func:`bootstrap_ci`: percentile bootstrap interval of the corpus score.
- :func:`paired_bootstrap`: is system B better than system A on the same
  images?  The two-sided p-value of the mean difference, from the
  bootstrap distribution of the difference re-centred at zero.
- :func:`approximate_randomization`: the same question by randomly swapping
  the two systems' scores per image (exhaustive when ``2**n_images`` is at
  most the number of trials, hence exact for small cases).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

__all__ = [
    "DEFAULT_SEED",
    "MAX_RESAMPLES",
    "BootstrapCI",
    "PairedTest",
    "approximate_randomization",
    "bootstrap_ci",
    "paired_bootstrap",
]

#: The seed of every resampling when none is given, here and on the command line
#: (``--seed``): the same data give the same interval and p-values either way.
DEFAULT_SEED = 12345

_CHUNK_ELEMENTS = 4_000_000  # resample indices drawn at once (about 32 MB)


@dataclass(frozen=True)
class BootstrapCI:
    """A percentile bootstrap interval: ``low <= score <= high`` at ``confidence``.

    Returned by :func:`bootstrap_ci`.

    Attributes
    ----------
    score : float
        The mean of the per-image scores (the corpus score).
    low, high : float
        The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles
        of the resampled means.
    confidence : float
        As requested, e.g. 0.95.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int
        Seed of the random generator, for reproduction.

    Notes
    -----
    ``low <= score <= high`` holds in practice, not by construction: with
    very few resamples the percentiles may all lie on one side of ``score``.

    Examples
    --------
    >>> ci = bootstrap_ci([1.0, 1.0], n_resamples=10, seed=3)
    >>> ci
    BootstrapCI(score=1.0, low=1.0, high=1.0, confidence=0.95, n_resamples=10, seed=3)
    """

    score: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    seed: int


@dataclass(frozen=True)
class PairedTest:
    """Difference ``mean(b) - mean(a)`` and its two-sided p-value.

    Returned by :func:`paired_bootstrap` and :func:`approximate_randomization`.

    Attributes
    ----------
    delta : float
        ``mean(b) - mean(a)``: positive when system B scores higher.
    p_value : float
        Two-sided p-value of ``delta`` under the null hypothesis of no
        difference, in (0, 1].
    method : str
        ``"paired-bootstrap"``, ``"randomization"`` (random sign patterns)
        or ``"randomization-exact"`` (all sign patterns).
    n_trials : int
        Resamples or sign patterns used.
    seed : int
        Seed of the random generator, for reproduction.

    Examples
    --------
    >>> # 2 images: of the 4 sign patterns, 2 reach |mean difference| = 1
    >>> approximate_randomization([0.0, 0.0], [1.0, 1.0], seed=0)
    PairedTest(delta=1.0, p_value=0.5, method='randomization-exact', n_trials=4, seed=0)
    """

    delta: float
    p_value: float
    method: str
    n_trials: int
    seed: int


def _check(scores: object, name: str) -> np.ndarray:
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of per-image scores")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} holds a non-finite score")
    return arr


def _resampled_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``values`` over ``n_resamples`` bootstrap resamples (columns of values)."""
    n = values.shape[0]
    out = np.empty((n_resamples, *values.shape[1:]))
    step = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_resamples, step):
        stop = min(start + step, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = values[idx].mean(axis=1)
    return out


def bootstrap_ci(
    scores: object,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
    weights: object = None,
) -> BootstrapCI:
    """Percentile bootstrap confidence interval of the mean of per-image scores.

    Parameters
    ----------
    scores : array-like of float, shape (n_images,)
        Per-image scores, e.g. ``CiderResult.image_scores()``.
    weights : array-like of int, shape (n_images,), optional
        The number of candidates of each image, when images have several:
        the images are resampled, each counting with its candidates, so the
        interval is that of the mean over candidates (the score of such a
        run, ``CiderResult.score``), and ``score`` is that mean.
    n_resamples : int, default 1000
        Number of resamples of the images (with replacement).
    confidence : float, default 0.95
        Coverage of the interval, in (0, 1).
    seed : int, default 12345
        Seed of ``numpy.random.default_rng``: the same seed gives the same
        interval.

    Returns
    -------
    BootstrapCI
        The mean of ``scores`` and the percentile interval around it.

    Raises
    ------
    ValueError
        ``scores`` is empty, not 1-D or holds a non-finite value;
        ``confidence`` is not in (0, 1); ``n_resamples`` not in 1 .. :data:`MAX_RESAMPLES`.

    Examples
    --------
    >>> ci = bootstrap_ci([2.0, 2.0, 2.0])  # no variation, no uncertainty
    >>> (ci.low, ci.score, ci.high)
    (2.0, 2.0, 2.0)
    >>> ci = bootstrap_ci([0.0, 1.0, 2.0, 3.0], n_resamples=200, seed=1)
    >>> bool(0.0 <= ci.low < ci.score == 1.5 < ci.high <= 3.0)  # the mean lies within
    True

    Image 0 has three candidates scoring 1, 2 and 3 (mean 2), image 1 one
    scoring 6: the mean over the four candidates is 3:

    >>> bootstrap_ci([2.0, 6.0], weights=[3, 1], n_resamples=50).score
    3.0
    """
    values = _check(scores, "scores")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    n_resamples = _check_count("n_resamples", n_resamples)
    rng = np.random.default_rng(seed)
    if weights is None:
        score = float(values.mean())
        means = _resampled_means(values, int(n_resamples), rng)
    else:
        counts = _weights(weights, values.shape[0])
        # resampled sums of (count * score, count): their ratio is the mean over candidates
        sums = _resampled_means(np.column_stack((counts * values, counts)), int(n_resamples), rng)
        score = float((counts * values).sum() / counts.sum())
        means = sums[:, 0] / sums[:, 1]
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return BootstrapCI(score, float(low), float(high), confidence, n_resamples, seed)


def _weights(weights: object, n: int) -> np.ndarray:
    counts = np.asarray(weights, dtype=np.float64)
    if counts.shape != (n,) or not (np.isfinite(counts).all() and (counts >= 1).all()):
        raise ValueError(f"weights must hold one count >= 1 per image ({n}), got {weights!r:.60}")
    fractional = counts != np.floor(counts)
    if fractional.any():
        at = int(np.flatnonzero(fractional)[0])
        raise ValueError(
            f"weights[{at}] = {counts[at].item()!r} is not a whole number: weights are counts (the "
            "candidates of each image, CiderResult.image_index's bincount), not fractions"
        )
    return counts


#: The most resamples (or trials) of one test: their means are kept (8 bytes
#: each, per order), and beyond a million the percentiles no longer move.
MAX_RESAMPLES = 1_000_000


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r:.60}")
    if value > MAX_RESAMPLES:
        raise ValueError(
            f"{name} must be at most {MAX_RESAMPLES:,} (the means of every resample are "
            f"kept; a million already fixes the interval to 3 decimals), got {int(value):,}"
        )
    return int(value)


def _pair(a: object, b: object) -> tuple[np.ndarray, np.ndarray]:
    x, y = _check(a, "scores_a"), _check(b, "scores_b")
    if x.shape != y.shape:
        raise ValueError(
            f"paired tests need the same images: {x.shape[0]} scores against {y.shape[0]}"
        )
    return x, y


def paired_bootstrap(
    a: object, b: object, *, n_resamples: int = 1000, seed: int = DEFAULT_SEED
) -> PairedTest:
    """Paired bootstrap test of ``mean(b) - mean(a)`` over the same images.

    The p-value is the share of resampled differences, re-centred at zero,
    at least as far from zero as the observed one (with the usual +1
    correction): small when B's advantage is unlikely to be resampling noise.

    Parameters
    ----------
    a, b : array-like of float, shape (n_images,)
        Per-image scores of systems A and B on the same images, in the same order.
    n_resamples : int, default 1000
        Number of resamples of the images (with replacement).
    seed : int, default 12345
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    PairedTest
        ``delta = mean(b) - mean(a)``, its p-value, ``method="paired-bootstrap"``.

    Raises
    ------
    ValueError
        ``a`` or ``b`` is empty, not 1-D or holds a non-finite value, or the
        two have different lengths.

    Examples
    --------
    Identical systems: no difference, p-value 1.

    >>> paired_bootstrap([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]).p_value
    1.0

    B better by exactly 1 on every image: every resample shows the same
    difference, none is as far from zero once re-centred, and the p-value
    is the smallest possible, ``1 / (n_resamples + 1)``:

    >>> t = paired_bootstrap([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], n_resamples=99)
    >>> t.delta, t.p_value
    (1.0, 0.01)
    """
    n_resamples = _check_count("n_resamples", n_resamples)
    x, y = _pair(a, b)
    d = y - x
    observed = float(d.mean())
    means = _resampled_means(d, n_resamples, np.random.default_rng(seed))
    extreme = int(np.count_nonzero(np.abs(means - observed) >= abs(observed) - 1e-15))
    return PairedTest(
        observed, (extreme + 1) / (n_resamples + 1), "paired-bootstrap", n_resamples, seed
    )


def approximate_randomization(
    a: object, b: object, *, n_trials: int = 10_000, seed: int = DEFAULT_SEED
) -> PairedTest:
    """Approximate randomization test of ``mean(b) - mean(a)`` over the same images.

    Under the null hypothesis the two systems' scores of an image are
    exchangeable, so each per-image difference keeps or flips its sign.
    With ``2**n_images <= n_trials`` every sign pattern is enumerated and the
    p-value is exact; otherwise ``n_trials`` random patterns are drawn and the
    p-value is ``(extreme + 1) / (n_trials + 1)``.

    Parameters
    ----------
    a, b : array-like of float, shape (n_images,)
        Per-image scores of systems A and B on the same images, in the same order.
    n_trials : int, default 10000
        Number of random sign patterns (when not enumerating them all).
    seed : int, default 12345
        Seed of ``numpy.random.default_rng`` (unused when exact).

    Returns
    -------
    PairedTest
        ``delta = mean(b) - mean(a)``, its p-value, and ``method``
        ``"randomization-exact"`` (``n_trials`` then the number of patterns,
        ``2**n_images``) or ``"randomization"``.

    Raises
    ------
    ValueError
        ``a`` or ``b`` is empty, not 1-D or holds a non-finite value, or the
        two have different lengths.

    Examples
    --------
    >>> # 3 images, B better on each by 1: only the all-kept and all-flipped
    >>> # sign patterns (2 of 8) reach |mean| = 1
    >>> approximate_randomization([0, 0, 0], [1, 1, 1]).p_value
    0.25
    >>> # 30 images: 2**30 patterns, so 10,000 random ones; none of them is all
    >>> # kept or all flipped, hence the smallest p-value, 1 / 10001
    >>> t = approximate_randomization([0.0] * 30, [1.0] * 30)
    >>> t.method, t.n_trials, t.p_value == 1 / 10_001
    ('randomization', 10000, True)
    """
    n_trials = _check_count("n_trials", n_trials)
    x, y = _pair(a, b)
    d = y - x
    observed = abs(float(d.mean()))
    n = d.shape[0]
    if n <= 20 and 2**n <= n_trials:
        signs = np.array(list(product((1.0, -1.0), repeat=n)))
        stats = np.abs(signs @ d) / n
        extreme = int(np.count_nonzero(stats >= observed - 1e-12))
        return PairedTest(
            float(d.mean()), extreme / signs.shape[0], "randomization-exact", signs.shape[0], seed
        )
    rng = np.random.default_rng(seed)
    extreme = 0
    step = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_trials, step):
        rows = min(step, n_trials - start)
        signs = rng.integers(0, 2, size=(rows, n)) * 2.0 - 1.0
        extreme += int(np.count_nonzero(np.abs(signs @ d) / n >= observed - 1e-12))
    return PairedTest(
        float(d.mean()), (extreme + 1) / (n_trials + 1), "randomization", n_trials, seed
    )
