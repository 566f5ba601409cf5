"""cider_d_ids: rewards from token ids equal the string path, and the reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import DocumentFrequencies, cider_d_ids

try:
    from pycocoevalcap.cider.cider_scorer import CiderScorer
except ImportError:
    CiderScorer = None

EOS, PAD = 0, 9


def as_text(seq, include_eos=False, pad=PAD):
    """The string the id path must be equivalent to (SCST's array_to_str with include_eos)."""
    out = []
    for t in seq:
        if t == EOS:
            if include_eos:
                out.append(str(t))
            break
        if t != pad:
            out.append(str(t))
    return " ".join(out)


seqs = st.lists(st.integers(0, 9), min_size=0, max_size=10)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(seqs, min_size=1, max_size=4), min_size=2, max_size=6),
    st.data(),
    st.booleans(),
)
def test_ids_equal_the_string_path(ref_ids, data, include_eos):
    n_images = len(ref_ids)
    image_index = data.draw(st.lists(st.integers(0, n_images - 1), min_size=1, max_size=12))
    width = data.draw(st.integers(1, 12))
    cand = np.array(
        [
            data.draw(st.lists(st.integers(0, 9), min_size=width, max_size=width))
            for _ in image_index
        ]
    )
    refs = [[np.array(s, dtype=np.int64) for s in r] for r in ref_ids]
    text_refs = [[as_text(s, include_eos) for s in r] for r in ref_ids]
    if not any(t for r in text_refs for t in r):
        return
    df = DocumentFrequencies.from_id_references(refs, eos=EOS, pad=PAD, include_eos=include_eos)
    # the same n-grams and counts as the strings'; the table records that it counts ids
    words = DocumentFrequencies.from_references(text_refs, tokenizer="whitespace")
    assert df == words.renamed("ids", tokenizer=f"ids(eos={EOS}{',with-eos' * include_eos})")
    assert df.tokenizer == ("ids(eos=0,with-eos)" if include_eos else "ids(eos=0)")
    got = cider_d_ids(
        cand, refs, df=df, eos=EOS, pad=PAD, include_eos=include_eos, image_index=image_index
    )
    want = sparsecider.cider_d(
        [[as_text(c, include_eos)] for c in cand],
        [text_refs[i] for i in image_index],
        df=df,
        tokenizer="whitespace",
    )
    np.testing.assert_allclose(got.scores, want.scores, rtol=0, atol=1e-12)


def test_scst_batch_against_the_reference_scorer():
    """The reference SCST approach: pycocoevalcap's CiderScorer with its
    document_frequency and ref_len set from a training corpus, and the eos id
    appended to every sequence."""
    rng = np.random.default_rng(0)
    # padded label rows, as SCST data loaders give them: words, then eos (0) padding
    train = [
        [np.concatenate((rng.integers(1, 30, rng.integers(3, 12)), [0, 0, 0])) for _ in range(5)]
        for _ in range(300)
    ]
    batch_refs = train[:8]
    samples = rng.integers(0, 30, (8 * 6, 14))  # 5 samples + 1 greedy per image
    image_index = np.repeat(np.arange(8), 6)
    df = DocumentFrequencies.from_id_references(train, eos=EOS, include_eos=True)
    got = cider_d_ids(
        samples, batch_refs, df=df, eos=EOS, include_eos=True, image_index=image_index
    )
    if CiderScorer is None:
        pytest.skip("the `ref` extra (pycocoevalcap) is not installed")
    from benchmarks.reference import scst_document_frequency, scst_rewards

    # SCST's array_to_str: the ids up to and including the first 0
    text_train = [[as_text(r, include_eos=True, pad=None) for r in refs] for refs in train]
    want = scst_rewards(
        [as_text(row, include_eos=True, pad=None) for row in samples],
        [text_train[i] for i in image_index],
        scst_document_frequency(text_train),
        len(train),
    )
    np.testing.assert_allclose(got.scores, want, rtol=0, atol=1e-12)


def test_ragged_references_and_torch_like_inputs():
    class Tensor:
        def __init__(self, a):
            self.a = np.asarray(a)

        def __array__(self, dtype=None, copy=None):
            return self.a

    refs = [[np.array([1, 2, 3, 0]), np.array([1, 2])], np.array([[4, 5, 6, 0, 0]])]
    df = DocumentFrequencies.from_id_references(refs, eos=0)
    a = cider_d_ids(Tensor([[1, 2, 0, 7], [4, 5, 6, 0]]), refs, df=df, eos=0)
    b = sparsecider.cider_d(
        ["1 2", "4 5 6"], [["1 2 3", "1 2"], ["4 5 6"]], df=df, tokenizer="whitespace"
    )
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-12)
    assert "|tok:ids(eos=0)|" in a.signature


def test_errors():
    refs = [np.array([[1, 2, 0]]), np.array([[3, 0, 0]])]
    df = DocumentFrequencies.from_id_references(refs, eos=0)
    with pytest.raises(ValueError, match=r"candidates has 3 rows but references has 2 images"):
        cider_d_ids(np.zeros((3, 4), int), refs, df=df, eos=0)
    with pytest.raises(ValueError, match=r"image_index\[1\] = 5 is not an image \(0..1\)"):
        cider_d_ids(np.zeros((2, 4), int), refs, df=df, eos=0, image_index=[0, 5])
    with pytest.raises(
        TypeError, match=r"candidates must hold integer token ids, got dtype float64"
    ):
        cider_d_ids(np.zeros((2, 4)), refs, df=df, eos=0)
    with pytest.raises(
        ValueError, match=r"candidates must be a 2-D integer array, got shape \(4,\)"
    ):
        cider_d_ids(np.zeros(4, int), refs, df=df, eos=0)
    with pytest.raises(ValueError, match=r"references\[1\] is empty"):
        cider_d_ids(np.zeros((2, 4), int), [refs[0], []], df=df, eos=0)
    with pytest.raises(TypeError, match=r"eos must be an integer id"):
        cider_d_ids(np.zeros((2, 4), int), refs, df=df, eos=None)
