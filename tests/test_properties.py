"""The fast sparse path against the dict-based twin on random corpora."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider

from .twin import twin_scores

WORDS = ["a", "dog", "the", "cat", "on", "ü", "日本", "x-y", "A", "runs"]
SPACES = [" ", "  ", "\t", "\u3000", " \n "]


@st.composite
def captions(draw, max_words=9):
    words = draw(st.lists(st.sampled_from(WORDS), max_size=max_words))
    seps = draw(st.lists(st.sampled_from(SPACES), min_size=len(words) + 1, max_size=len(words) + 1))
    lead, *rest = seps
    edge = lead if draw(st.booleans()) else ""
    return edge + "".join(w + s for w, s in zip(words, rest, strict=True)) if words else edge


@st.composite
def corpora(draw):
    n_images = draw(st.integers(1, 7))
    refs = [draw(st.lists(captions(), min_size=1, max_size=5)) for _ in range(n_images)]
    if not any(r.split() for rr in refs for r in rr):
        refs[0].append("a dog")
    if draw(st.booleans()):
        # duplicate references within an image
        refs[0] = refs[0] + refs[0][:1]
    cands = [
        draw(st.lists(captions(max_words=14), min_size=1, max_size=3)) for _ in range(n_images)
    ]
    return cands, refs


def _score(fn, cands, refs, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # single-image corpora warn
        return fn(cands, refs, tokenizer="whitespace", **kw)


@settings(max_examples=200, deadline=None)
@given(corpora(), st.integers(1, 6), st.sampled_from([6.0, 1.0, 0.5, 30.0]))
def test_cider_d_matches_twin(corpus, n, sigma):
    cands, refs = corpus
    got = _score(sparsecider.cider_d, cands, refs, n=n, sigma=sigma)
    want = twin_scores(cands, refs, n=n, sigma=sigma)
    np.testing.assert_allclose(got.scores, want, rtol=1e-12, atol=1e-12)
    assert got.per_order.shape == (len(want), n)
    np.testing.assert_allclose(got.per_order.mean(axis=1), got.scores, rtol=1e-15, atol=0)
    assert got.score == np.mean(got.scores)


@settings(max_examples=200, deadline=None)
@given(corpora(), st.integers(1, 6), st.sampled_from([10.0, 1.0, 100.0]))
def test_plain_cider_matches_twin(corpus, n, scale):
    cands, refs = corpus
    got = _score(sparsecider.cider, cands, refs, n=n, scale=scale)
    want = twin_scores(cands, refs, n=n, sigma=None, scale=scale)
    np.testing.assert_allclose(got.scores, want, rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(corpora())
def test_nested_candidates_equal_one_call_per_slot(corpus):
    """Several candidates per image are scored exactly as if each were alone,
    with df still counted once per image."""
    cands, refs = corpus
    nested = _score(sparsecider.cider_d, cands, refs)
    flat_index = 0
    for i, image_cands in enumerate(cands):
        for c in image_cands:
            single = [c if j == i else cands[j][0] for j in range(len(cands))]
            alone = _score(sparsecider.cider_d, single, refs)
            assert abs(alone.scores[i] - nested.scores[flat_index]) < 1e-12
            assert nested.image_index[flat_index] == i
            flat_index += 1
