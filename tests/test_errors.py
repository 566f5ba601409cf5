"""Bad input: a precise error naming the offending item, never a silent drop."""

from __future__ import annotations

import time

import numpy as np
import pytest

import sparsecider

REFS = [["a b"], ["c d"]]


@pytest.mark.parametrize("fn", [sparsecider.cider_d, sparsecider.cider])
def test_bare_string_candidates(fn):
    with pytest.raises(
        TypeError, match=r"candidates must be a list of strings .* got str; wrap a single caption"
    ):
        fn("a dog", [["a dog"]])


def test_bare_string_references():
    with pytest.raises(TypeError, match=r"references must be a list of reference lists .* got str"):
        sparsecider.cider_d(["a dog"], "a dog")


def test_bare_string_as_one_image_references():
    with pytest.raises(
        TypeError,
        match=r"references\[1\] is a string; references must be a list of strings per image",
    ):
        sparsecider.cider_d(["a", "b"], [["a"], "b c"])


def test_different_lengths():
    with pytest.raises(
        ValueError, match=r"candidates has 3 images but references has 2; they must be aligned"
    ):
        sparsecider.cider_d(["a", "b", "c"], REFS)


def test_ids_on_one_side_only_are_listed():
    cands = {i: "a" for i in range(10)}
    refs = {i: ["a"] for i in range(3, 12)}
    with pytest.raises(
        ValueError,
        match=r"same image ids; 3 id\(s\) only in candidates: \[0, 1, 2\]; "
        r"2 id\(s\) only in references: \[10, 11\]",
    ):
        sparsecider.cider_d(cands, refs)


def test_many_missing_ids_are_abbreviated():
    with pytest.raises(
        ValueError, match=r"8 id\(s\) only in candidates: \[0, 1, 2, 3, 4\] and 3 more"
    ):
        sparsecider.cider_d({i: "a" for i in range(10)}, {8: ["a"], 9: ["a"]})


def test_mapping_and_sequence_mixed():
    with pytest.raises(TypeError, match=r"candidates is a dict but references is a list"):
        sparsecider.cider_d({1: "a"}, [["a"]])


def test_non_string_candidate_names_its_index():
    with pytest.raises(
        TypeError, match=r"candidates\[1\] must be a string or a list of strings, got int"
    ):
        sparsecider.cider_d(["a", 5], REFS)
    with pytest.raises(TypeError, match=r"candidates\[0\]\[1\] must be a string, got NoneType"):
        sparsecider.cider_d([["a", None], "b"], REFS)
    with pytest.raises(
        TypeError, match=r"candidates\['k'\] must be a string or a list of strings, got bytes"
    ):
        sparsecider.cider_d({"k": b"a dog"}, {"k": ["a"]})


def test_non_string_reference_names_its_index():
    with pytest.raises(TypeError, match=r"references\[1\]\[2\] must be a string, got float"):
        sparsecider.cider_d(["a", "b"], [["a"], ["b", "c", 1.5]])


def test_image_with_no_references():
    with pytest.raises(
        ValueError, match=r"references\[1\] is empty; every candidate needs at least one reference"
    ):
        sparsecider.cider_d(["a", "b"], [["a"], []])
    with pytest.raises(ValueError, match=r"references\['y'\] is empty"):
        sparsecider.cider_d({"x": "a", "y": "b"}, {"x": ["a"], "y": []})


def test_image_with_no_candidates():
    with pytest.raises(
        ValueError, match=r"candidates\[0\] is an empty list; give at least one candidate per image"
    ):
        sparsecider.cider_d([[], "b"], REFS)


def test_nothing_to_score():
    with pytest.raises(ValueError, match="there are no images to score"):
        sparsecider.cider_d([], [])


@pytest.mark.parametrize("n", [0, -1])
def test_n_below_one(n):
    with pytest.raises(ValueError, match=rf"n must be >= 1, got {n}"):
        sparsecider.cider_d(["a", "b"], REFS, n=n)


@pytest.mark.parametrize("n", [2.0, "4", True])
def test_n_not_an_integer(n):
    with pytest.raises(TypeError, match=r"n must be an integer, got"):
        sparsecider.cider(["a", "b"], REFS, n=n)


@pytest.mark.parametrize("sigma", [0, -1.0, float("nan"), float("inf")])
def test_sigma_not_positive(sigma):
    with pytest.raises(ValueError, match=r"sigma must be a finite number > 0, got"):
        sparsecider.cider_d(["a", "b"], REFS, sigma=sigma)


def test_scale_not_positive():
    with pytest.raises(ValueError, match=r"scale must be a finite number > 0, got 0"):
        sparsecider.cider_d(["a", "b"], REFS, scale=0)


def test_unknown_df_and_tokenizer():
    with pytest.raises(ValueError, match=r"df='train' is not supported"):
        sparsecider.cider_d(["a", "b"], REFS, df="train")
    with pytest.raises(ValueError, match=r"tokenizer='spacy' is not known"):
        sparsecider.cider_d(["a", "b"], REFS, tokenizer="spacy")
    with pytest.raises(TypeError, match=r"tokenizer must be a name .* got int"):
        sparsecider.cider_d(["a", "b"], REFS, tokenizer=3)


def test_custom_tokenizer_is_checked():
    with pytest.raises(ValueError, match=r"returned 1 token lists for 2 captions"):
        sparsecider.cider_d(["a", "b"], REFS, tokenizer=lambda caps: [["a"]])
    with pytest.raises(
        ValueError, match=r"output \[1\] = \['a b'\] holds an empty token or one with whitespace"
    ):
        sparsecider.cider_d(
            ["a", "b"],
            REFS,
            tokenizer=lambda caps: [c.split() if c != "b" else ["a b"] for c in caps],
        )


def test_custom_tokenizer_is_used():
    upper = sparsecider.cider_d(
        ["A B", "C D"], REFS, tokenizer=lambda caps: [c.lower().split() for c in caps]
    )
    assert upper.scores.tolist() == pytest.approx([5.0, 5.0], abs=1e-12)
    assert "|tok:custom:test_custom_tokenizer_is_used.<locals>.<lambda>|" in upper.signature


def test_numpy_string_arrays_are_accepted():
    r = sparsecider.cider_d(np.array(["a b", "c d"]), [np.array(["a b"]), ["c d"]])
    assert r.scores.tolist() == pytest.approx([5.0, 5.0], abs=1e-12)


def test_threaded_errors_name_the_first_failing_shard():
    # 4,000 images: two shards with n_jobs=2.  Both shards fail, the second
    # one first in time; the error raised is the first shard's, every time
    refs = [[f"r{i} a"] for i in range(4000)]
    cands = [f"c{i} a" for i in range(4000)]
    cands[0], cands[-1] = "bad0", "bad3999"

    def tokenizer(captions):
        for caption in captions:
            if caption.startswith("bad"):
                if caption == "bad0":
                    time.sleep(0.3)
                raise ValueError(f"cannot tokenize {caption!r}")
        return [caption.split() for caption in captions]

    for _ in range(2):
        with pytest.raises(ValueError, match="cannot tokenize 'bad0'"):
            sparsecider.cider_d(cands, refs, tokenizer=tokenizer, n_jobs=2)
