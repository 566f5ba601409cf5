"""tests/SPEC.md, section 1's edge cases, each with its expected value worked out by hand.

Notation: with N images, idf(g) = ln N - ln max(1, df(g)).  In a two-image
corpus an n-gram in one image only has idf ln 2, one in both has idf 0.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

import sparsecider

# These cases are about the scorer, so the captions are taken as already tokenized.
cider_d = partial(sparsecider.cider_d, tokenizer="whitespace")
cider = partial(sparsecider.cider, tokenizer="whitespace")

# refs: image 0 "a b", image 1 "c d": every n-gram is in one image (idf ln 2)
REFS = [["a b"], ["c d"]]


def test_identical_caption_two_image_corpus():
    # orders 1 and 2: candidate vector == reference vector, cosine 1;
    # orders 3 and 4: no n-grams on either side, 0.  Equal lengths: penalty 1.
    r = cider_d(["a b", "c d"], REFS)
    assert r.scores.tolist() == pytest.approx([10 * (1 + 1 + 0 + 0) / 4] * 2, abs=1e-12)
    assert r.per_order[0].tolist() == pytest.approx([10.0, 10.0, 0.0, 0.0], abs=1e-12)


def test_one_word_candidate_and_ngrams_longer_than_the_caption():
    # "c" vs "c d": order 1: min(ln2, ln2) * ln2 / (ln2 * sqrt(2) ln2) = 1/sqrt(2);
    # orders 2-4: the candidate has no n-grams (norm 0, sum 0).
    # length = bigram count: 0 vs 1, penalty exp(-1 / (2 * 6**2)).
    r = cider_d(["a b", "c"], REFS)
    expected = 10 * (1 / math.sqrt(2)) * math.exp(-1 / 72) / 4
    assert r.scores[1] == pytest.approx(expected, abs=1e-12)
    plain = cider(["a b", "c"], REFS)
    assert plain.scores[1] == pytest.approx(10 * (1 / math.sqrt(2)) / 4, abs=1e-12)


def test_clipping_limits_repeated_words():
    # candidate "c c" vs "c d": order 1 candidate vector (2 ln2), reference (ln2, ln2):
    # CIDEr-D: min(2ln2, ln2) * ln2 / (2ln2 * sqrt2 ln2) = 1 / (2 sqrt2);
    # CIDEr:   2ln2 * ln2 / (2ln2 * sqrt2 ln2) = 1 / sqrt2.
    # order 2: "c c" vs "c d" share nothing: 0.  Lengths 1 and 1: penalty 1.
    d = cider_d(["a b", "c c"], REFS)
    assert d.per_order[1].tolist() == pytest.approx([10 / (2 * math.sqrt(2)), 0, 0, 0], abs=1e-12)
    plain = cider(["a b", "c c"], REFS)
    assert plain.per_order[1].tolist() == pytest.approx([10 / math.sqrt(2), 0, 0, 0], abs=1e-12)


def test_ngram_in_every_image_has_zero_weight():
    # "x" occurs in both images: idf 0, so "x" alone scores 0 against anything
    r = cider_d(["x", "x"], [["x a"], ["x b"]])
    assert r.scores.tolist() == [0.0, 0.0]


def test_empty_candidate_scores_zero_and_changes_nothing_else():
    r = cider_d(["", "c d"], REFS)
    assert r.scores[0] == 0.0
    assert r.scores[1] == pytest.approx(5.0, abs=1e-12)


def test_empty_reference_counts_in_the_mean_and_adds_zero():
    # same df as REFS (an empty string adds no n-gram); the mean is over 2 references
    r = cider_d(["a b", "c d"], [["a b", ""], ["c d"]])
    assert r.scores.tolist() == pytest.approx([2.5, 5.0], abs=1e-12)


def test_duplicate_references_weigh_in_the_mean_but_not_in_df():
    # image 0: "a b" twice and "c": df(c) = 2 (also in "c d"), so "c" has idf 0 and
    # the pair with "c" adds 0; the two copies of "a b" add 5 each: (5+5+0)/3.
    r = cider_d(["a b", "c d"], [["a b", "a b", "c"], ["c d"]])
    # image 1: "c d" vs "c d": order 1 only d counts (idf(c) = 0): cosine 1
    # order 2: "c d" idf ln2: cosine 1 -> 5, as before
    assert r.scores.tolist() == pytest.approx([10 / 3, 5.0], abs=1e-12)


def test_unicode_tokens_score_like_any_other():
    ascii_ = cider_d(["a b x", "c d"], [["a b y", "a"], ["c d"]])
    mapping = {"a": "日本", "b": "ü", "c": "🐕", "d": "é", "x": "ß", "y": "\u0149"}
    uni = cider_d(
        [" ".join(mapping[w] for w in s.split()) for s in ["a b x", "c d"]],
        [
            [" ".join(mapping[w] for w in s.split()) for s in refs]
            for refs in [["a b y", "a"], ["c d"]]
        ],
    )
    np.testing.assert_array_equal(uni.scores, ascii_.scores)


def test_whitespace_variants_are_one_separator():
    base = cider_d(["a b", "c d"], REFS)
    odd = cider_d([" a\t\tb\u3000", "c\u00a0d"], [["a\nb"], ["  c  d "]])
    np.testing.assert_array_equal(odd.scores, base.scores)


def test_single_image_scores_zero_with_a_warning():
    with pytest.warns(UserWarning, match=r"single image .* gives 0: .* log\(1\) - log\(1\) = 0"):
        r = cider_d(["a dog runs"], [["a dog runs", "a dog"]])
    assert r.scores.tolist() == [0.0]
    assert r.n_images == 1


def test_every_reference_empty_is_a_clear_error():
    with pytest.raises(ValueError, match="every reference is empty after tokenization"):
        cider_d(["a", "b"], [["", " "], ["\t"]])


def test_image_whose_references_are_all_empty_scores_zero():
    r = cider_d(["a b", "c d", "a"], [["a b"], ["c d"], ["", ""]])
    assert r.scores[2] == 0.0


def test_n_other_than_four_really_changes_the_orders():
    r1 = cider_d(["a b", "c"], REFS, n=1)
    assert r1.per_order.shape == (2, 1)
    # n=1: only unigrams, mean over one order; and no length penalty: the
    # reference's length is the bigram count, and with n honoured there are
    # no bigrams (test_hardening checks this against pycocoevalcap run with
    # n honoured; this test used to expect the factor exp(-1/72))
    assert r1.scores[1] == pytest.approx(10 * (1 / math.sqrt(2)), abs=1e-12)
    r6 = cider_d(["a b", "c"], REFS, n=6)
    assert r6.per_order.shape == (2, 6)
    assert r6.scores[0] == pytest.approx(10 * 2 / 6, abs=1e-12)


def test_sigma_and_scale():
    # delta = 1: penalty exp(-1 / (2 sigma^2))
    r = cider_d(["a b", "c"], REFS, sigma=0.5, scale=1.0)
    assert r.scores[1] == pytest.approx((1 / math.sqrt(2)) * math.exp(-2) / 4, abs=1e-12)
    assert r.signature.startswith(
        "CIDEr-D|n:4|sigma:0.5|df:corpus(n_images=2)|tok:whitespace|scale:1|"
    )


def test_mapping_input_follows_candidate_order_and_keeps_ids():
    refs = {"x": ["a b"], "y": ["c d"]}
    r = cider_d({"y": "c d", "x": "a b c"}, refs)
    assert r.ids == ("y", "x")
    assert r.scores[0] == pytest.approx(5.0, abs=1e-12)
    listed = cider_d(["a b c", "c d"], [["a b"], ["c d"]])
    assert r.scores[1] == listed.scores[0]


def test_nested_candidates_share_df_and_are_flattened_in_order():
    r = cider_d([["a b", "", "c"], ["c d"]], REFS)
    assert r.image_index.tolist() == [0, 0, 0, 1]
    assert r.scores[:2].tolist() == pytest.approx([5.0, 0.0], abs=1e-12)
    assert r.image_scores().tolist() == pytest.approx([r.scores[:3].mean(), 5.0])


def test_result_is_read_only_and_prints_a_summary():
    r = cider_d(["a b", "c d"], REFS)
    with pytest.raises(ValueError):
        r.scores[0] = 1.0
    assert str(r) == f"CIDEr-D = 5.0000 | {r.signature}"
    assert float(r) == r.score
    assert (
        r.signature == "CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:whitespace|"
        f"version:{sparsecider.__version__}"
    )


def test_scoring_without_candidates_leaves_the_callers_tokens_alone():
    # the counting sorts in place the arrays it owns; with no candidates the
    # slot-ordered tokens must still be a copy of the references' hashes
    from sparsecider.core import reduce
    from sparsecider.core.engine import token_statistics
    from sparsecider.tokenizers import tokenize

    refs = tokenize(["b a", "c a"], "whitespace")
    before = refs.hashes.copy()
    stats = token_statistics(
        refs, tokenize([], "whitespace"), np.zeros(0, dtype=np.int64), np.array([0, 1, 2]),
        n=2, clip=True, df=None,
    )  # fmt: skip
    out = reduce.per_order_values(stats, 6.0, 10.0)
    assert out.shape == (0, 2)
    assert (refs.hashes == before).all()
