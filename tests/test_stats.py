"""Bootstrap intervals and paired significance, on hand-checkable cases."""

from __future__ import annotations

import numpy as np
import pytest

from sparsecider.significance import approximate_randomization, bootstrap_ci, paired_bootstrap


def test_no_variation_no_uncertainty():
    ci = bootstrap_ci([3.5] * 10, n_resamples=200)
    assert (ci.low, ci.score, ci.high) == (3.5, 3.5, 3.5)


def test_two_images_resample_distribution():
    # resampling 2 images from {0, 10}: means 0 (p 1/4), 5 (p 1/2), 10 (p 1/4).
    # The 30th and 70th percentiles (a 40% interval) both fall on 5; the
    # 2.5th and 97.5th on 0 and 10.
    narrow = bootstrap_ci([0.0, 10.0], n_resamples=20_000, confidence=0.4, seed=1)
    assert (narrow.low, narrow.high) == (5.0, 5.0)
    wide = bootstrap_ci([0.0, 10.0], n_resamples=20_000, confidence=0.95, seed=1)
    assert (wide.low, wide.high) == (0.0, 10.0)


def test_seeded_and_chunked_consistently():
    scores = np.random.default_rng(3).random(5000)
    a = bootstrap_ci(scores, n_resamples=2000, seed=7)
    b = bootstrap_ci(scores, n_resamples=2000, seed=7)
    assert a == b
    # the interval of a mean of 5000 uniform scores: about +-1.96 * 0.2887 / sqrt(5000)
    half = 1.96 * np.sqrt(1 / 12) / np.sqrt(5000)
    assert abs((a.high - a.low) / 2 - half) < 0.15 * half
    assert a.low < a.score < a.high


def test_randomization_exact_by_enumeration():
    # d = b - a = [2, 1, -1]: observed |mean| = 2/3.  Sign patterns give sums
    # +-4, +-2, +-2, 0, 0: six of eight reach |sum| >= 2, so p = 6/8
    t = approximate_randomization([0, 0, 0], [2, 1, -1])
    assert (t.p_value, t.method, t.n_trials) == (0.75, "randomization-exact", 8)
    assert t.delta == pytest.approx(2 / 3)
    assert approximate_randomization([1, 2, 3], [1, 2, 3]).p_value == 1.0


def test_randomization_sampled_agrees_with_exact():
    rng = np.random.default_rng(0)
    a, b = rng.random(12), rng.random(12) + 0.3
    exact = approximate_randomization(a, b, n_trials=5000)  # 2**12 = 4096 <= 5000: exact
    sampled = approximate_randomization(a, b, n_trials=4000, seed=3)
    assert exact.method == "randomization-exact" and sampled.method == "randomization"
    assert abs(exact.p_value - sampled.p_value) < 0.01


def test_paired_bootstrap_extremes():
    a = np.arange(20, dtype=float)
    same = paired_bootstrap(a, a, n_resamples=500)
    assert (same.delta, same.p_value) == (0.0, 1.0)
    # b better by exactly 1 on every image: every resampled difference is 1,
    # none as far from 0 once re-centred: p = 1 / (B + 1)
    shifted = paired_bootstrap(a, a + 1, n_resamples=500)
    assert shifted.delta == 1.0 and shifted.p_value == pytest.approx(1 / 501)


def test_errors():
    with pytest.raises(ValueError, match=r"same images: 3 scores against 2"):
        paired_bootstrap([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\)"):
        bootstrap_ci([1.0], confidence=1.5)
    with pytest.raises(ValueError, match=r"non-empty 1-D array"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match=r"non-finite score"):
        bootstrap_ci([1.0, float("nan")])


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_paired_tests_check_their_counts(bad):
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 1"):
        paired_bootstrap([1.0, 2.0], [2.0, 3.0], n_resamples=bad)
    with pytest.raises(ValueError, match=r"n_trials must be an integer >= 1"):
        approximate_randomization([1.0, 2.0], [2.0, 3.0], n_trials=bad)
