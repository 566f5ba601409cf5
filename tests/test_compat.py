"""sparsecider.compat against pycocoevalcap's Cider (live when the `ref` extra is installed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparsecider.compat import Cider, CiderD

from .twin import twin_scores

try:
    from pycocoevalcap.cider.cider import Cider as ReferenceCider
except ImportError:
    ReferenceCider = None

caption = st.lists(st.sampled_from(["a", "dog", "the", "on", "grass", "runs"]), max_size=8).map(
    " ".join
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.integers(0, 10**6),
        st.tuples(caption, st.lists(caption, min_size=1, max_size=4)),
        min_size=2,
        max_size=8,
    )
)
def test_cider_equals_reference_on_random_dicts(data):
    gts = {k: refs for k, (_, refs) in data.items()}
    res = {k: [cand] for k, (cand, _) in data.items()}
    if not any(r.split() for refs in gts.values() for r in refs):
        return  # the reference itself fails on it; pinned in test_errors
    score, scores = Cider().compute_score(gts, res)
    if ReferenceCider is not None:
        want_score, want = ReferenceCider().compute_score(gts, res)
    else:
        want = np.array(twin_scores([[c] for c, _ in data.values()], [r for _, r in data.values()]))
        want_score = want.mean()
    np.testing.assert_allclose(scores, want, rtol=1e-12, atol=1e-12)
    assert abs(score - want_score) <= 1e-12
    assert isinstance(score, np.float64) and isinstance(scores, np.ndarray)


def test_scores_follow_gts_key_order():
    gts = {"b": ["a dog runs"], "a": ["the cat"], "c": ["a bus"]}
    res = {"a": ["the cat"], "c": ["a"], "b": ["a dog runs"]}
    _, scores = Cider().compute_score(gts, res)
    _, swapped = Cider().compute_score({k: gts[k] for k in ["a", "b", "c"]}, res)
    assert scores.tolist() == [swapped[1], swapped[0], swapped[2]]


def test_cider_d_list_of_dicts_treats_every_entry_as_a_document():
    gts = {1: ["a dog runs on grass", "a dog"], 2: ["a red bus"], 3: ["the cat sleeps"]}
    res = [
        {"image_id": 1, "caption": ["a dog runs"]},
        {"image_id": 1, "caption": ["a dog"]},
        {"image_id": 2, "caption": ["a bus"]},
        {"image_id": 3, "caption": ["a cat"]},
    ]
    score, scores = CiderD().compute_score(gts, res)
    as_dict = Cider().compute_score(
        {i: gts[e["image_id"]] for i, e in enumerate(res)},
        {i: e["caption"] for i, e in enumerate(res)},
    )
    np.testing.assert_array_equal(scores, as_dict[1])
    assert score == as_dict[0]
    assert CiderD().method() == "CIDEr-D" and Cider().method() == "CIDEr"


def test_compat_errors_name_the_image():
    with pytest.raises(ValueError, match=r"same image ids; only in gts: \[2\]; only in res: \[3\]"):
        Cider().compute_score({1: ["a"], 2: ["b"]}, {1: ["a"], 3: ["b"]})
    with pytest.raises(ValueError, match=r"res\[2\] must hold exactly one caption, got 2"):
        Cider().compute_score({1: ["a"], 2: ["b"]}, {1: ["a"], 2: ["b", "c"]})
    with pytest.raises(TypeError, match=r"res\[1\] must be a list holding one caption .* got str"):
        Cider().compute_score({1: ["a"], 2: ["b"]}, {1: "a", 2: ["b"]})
    with pytest.raises(TypeError, match=r"gts and res must be dicts"):
        Cider().compute_score([["a"]], [["a"]])
    with pytest.raises(ValueError, match=r"res\[1\] has image_id 9, which gts does not have"):
        CiderD().compute_score(
            {1: ["a"]}, [{"image_id": 1, "caption": ["a"]}, {"image_id": 9, "caption": ["a"]}]
        )
    with pytest.raises(ValueError, match=r"df='coco-val-df' is not supported; use df='corpus'"):
        CiderD(df="coco-val-df")
