"""CiderAccumulator: states filled anywhere merge into the result of one call.

Expected values come from one call of the library's own functions over the
whole corpus (:func:`sparsecider.cider_d`, ``cider``, ``bleu``, ``rouge_l``,
each checked against pycocoevalcap in ``test_reference_parity.py`` and
``test_bleu_rouge.py``): the accumulator must not change a number.
"""

from __future__ import annotations

import multiprocessing
import pickle
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import CiderAccumulator, DocumentFrequencies

TOL = 1e-12


def split_ids(ids, parts, seed):
    """``ids`` dealt into ``parts`` random parts (some possibly empty), in random order."""
    rng = np.random.default_rng(seed)
    owner = rng.integers(0, parts, len(ids))
    order = rng.permutation(len(ids))
    return [[ids[i] for i in order if owner[i] == p] for p in range(parts)]


def accumulate(parts, cands, refs, through_states=True, **options):
    """One accumulator per part, merged (through pickled states) into a fresh one."""
    states = []
    for part in parts:
        acc = CiderAccumulator(**options)
        if part:
            acc.update({i: cands[i] for i in part}, {i: refs[i] for i in part})
        states.append(pickle.loads(pickle.dumps(acc.state())) if through_states else acc)
    return CiderAccumulator(**options).merge(*states).compute()


def assert_same_by_id(got, want):
    """Per image id, the same scores (the accumulator keeps the parts' order)."""
    rows = {i: np.flatnonzero(want.image_index == k) for k, i in enumerate(want.ids)}
    order = np.concatenate([rows[i] for i in got.ids])  # want's candidates in got's order
    np.testing.assert_allclose(got.per_order, want.per_order[order], rtol=0, atol=TOL)
    np.testing.assert_allclose(got.scores, want.scores[order], rtol=0, atol=TOL)
    assert abs(got.score - want.score) <= TOL
    assert got.signature == want.signature and got.n_images == want.n_images


@pytest.fixture(scope="module")
def coco(coco_data):
    return coco_data.coco_val()  # reference-tokenized: tokenizer="whitespace"


@pytest.mark.parametrize("df", ["corpus", "coco-val2014"])
def test_coco_val_in_2_3_and_7_random_parts_equals_one_call(coco, df):
    cands, refs = coco
    want = sparsecider.cider_d(cands, refs, df=df, tokenizer="whitespace")
    for parts in (2, 3, 7):
        split = split_ids(list(cands), parts, seed=parts)
        got = accumulate(split, cands, refs, df=df, tokenizer="whitespace")
        assert got.n_images == 40504
        assert_same_by_id(got, want)


@pytest.fixture(scope="module")
def small(coco):
    cands, refs = coco
    ids = list(cands)[:1500]
    return {i: cands[i] for i in ids}, {i: refs[i] for i in ids}


@pytest.mark.parametrize(
    ("metric", "function", "options"),
    [
        ("CIDEr", sparsecider.cider, {}),
        ("CIDEr-D", sparsecider.cider_d, {"n": 3, "sigma": 2.5, "scale": 1.0}),
        ("BLEU", sparsecider.bleu, {}),
        ("BLEU", sparsecider.bleu, {"n": 2}),
        ("ROUGE-L", sparsecider.rouge_l, {"beta": 2.0}),
    ],
)
def test_every_metric_merges_to_one_call(small, metric, function, options):
    cands, refs = small
    want = function(cands, refs, tokenizer="whitespace", **options)
    got = accumulate(split_ids(list(cands), 3, 0), cands, refs, metric=metric,
                     tokenizer="whitespace", **options)  # fmt: skip
    assert_same_by_id(got, want)
    if metric == "BLEU":  # corpus BLEU sums integer statistics: exactly the same
        assert got.score == want.score
        assert got.corpus_per_order.tolist() == want.corpus_per_order.tolist()


def test_raw_text_with_the_ptb_tokenizer_and_several_candidates_per_image():
    refs = {"a": ["A dog runs.", "The dog's running!"], "b": ["A red bus."], "c": ["Cats sleep."]}
    cands = {"a": ["a dog runs", "A cat."], "b": ["The bus, red."], "c": ["cats"]}
    want = sparsecider.cider_d(cands, refs)
    acc = CiderAccumulator()
    acc.update({"a": cands["a"]}, {"a": refs["a"]})
    acc.update({k: cands[k] for k in "bc"}, {k: refs[k] for k in "bc"})
    got = acc.compute()
    assert np.array_equal(got.scores, want.scores) and got.ids == ("a", "b", "c")
    assert got.image_index.tolist() == [0, 0, 1, 2]


words = st.lists(st.sampled_from(["a", "dog", "the", "on", "red", "bus", "runs"]), max_size=7)
caption = words.map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.lists(caption, min_size=1, max_size=3),
                       st.lists(caption, min_size=1, max_size=4)), min_size=1, max_size=9),
    st.integers(1, 4),
    st.integers(0, 10**6),
    st.sampled_from(["CIDEr-D", "CIDEr"]),
)  # fmt: skip
def test_random_corpora_and_splits(data, parts, seed, metric):
    cands = {i: c for i, (c, _) in enumerate(data)}
    refs = {i: r for i, (_, r) in enumerate(data)}
    if not any(r.split() for rs in refs.values() for r in rs):
        return  # every reference empty: an error in both (test_errors)
    if len(cands) > 1 and all(
        len(c) > 1 and all(len(x.split()) == 1 for x in c) for c in cands.values()
    ):
        return  # every image's list one-word captions: refused as token lists (test_hardening_3)
    function = sparsecider.cider_d if metric == "CIDEr-D" else sparsecider.cider
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one image: its score is 0, as the warning says
        want = function(cands, refs, tokenizer="whitespace")
        split = split_ids(list(cands), parts, seed)
        got = accumulate(split, cands, refs, seed % 2, metric=metric, tokenizer="whitespace")
    assert_same_by_id(got, want)


# ---- real worker processes -----------------------------------------------------------


def _rank_state(args):
    """A worker: accumulate its share, return the state (pickled back to the parent)."""
    part, cands, refs, options = args
    acc = CiderAccumulator(**options)
    for start in range(0, len(part), 50):  # batch after batch
        batch = part[start : start + 50]
        acc.update({i: cands[i] for i in batch}, {i: refs[i] for i in batch})
    return acc.state()


def _context():
    return multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")


@pytest.mark.parametrize("df", ["corpus", "coco-val2014"])
def test_worker_processes_with_an_empty_rank(small, df):
    cands, refs = small
    options = {"df": df, "tokenizer": "whitespace"}
    want = sparsecider.cider_d(cands, refs, **options)
    split = [*split_ids(list(cands), 3, seed=7), []]  # the fourth rank gets nothing
    with _context().Pool(2) as pool:
        states = pool.map(_rank_state, [(p, cands, refs, options) for p in split])
    assert states[-1]["ids"].shape == (0,)
    got = CiderAccumulator(**options).merge(*states).compute()
    assert_same_by_id(got, want)
    # from_state on "rank 0", then the others
    first = CiderAccumulator.from_state(states[0])
    assert_same_by_id(first.merge(*states[1:]).compute(), want)


def test_an_image_on_two_ranks_is_an_error_not_a_double_count(small):
    cands, refs = small
    ids = list(cands)
    # a DistributedSampler pads the last rank with the first images
    split = [ids[:600], ids[600:], ids[:7]]
    options = {"tokenizer": "whitespace"}
    with _context().Pool(2) as pool:
        states = pool.map(_rank_state, [(p, cands, refs, options) for p in split])
    acc = CiderAccumulator(**options).merge(states[0], states[1])
    with pytest.raises(ValueError, match=rf"image id\(s\) \[{ids[0]}, {ids[1]}, .*\] and 2 more "
                       r"are in both states: each image must be scored once"):  # fmt: skip
        acc.merge(states[2])
    assert acc.n_images == len(ids)  # the refused state added nothing


def test_states_are_plain_arrays_and_small(small):
    cands, refs = small
    acc = CiderAccumulator(tokenizer="whitespace")
    acc.update(cands, refs)
    state = acc.state()
    for key, value in state.items():
        assert isinstance(value, np.ndarray | str | int | dict), key
        if isinstance(value, np.ndarray):
            assert value.dtype.kind in "uifbU", key  # no objects, no strings but ids
    text = sum(len(c) for c in cands.values()) + sum(len(r) for rs in refs.values() for r in rs)
    assert len(pickle.dumps(state)) < text  # token indices of 1-2 bytes: smaller than the text
    assert state["reference_tokens"].dtype == np.uint16


# ---- refusals ----------------------------------------------------------------------


def filled(**options):
    acc = CiderAccumulator(tokenizer="whitespace", **options)
    acc.update({1: "a dog runs"}, {1: ["a dog runs fast", "the dog"]})
    return acc


def test_other_metrics_and_options_refuse_to_merge_and_say_why():
    acc = filled()
    with pytest.raises(ValueError, match=r"cannot merge states made with other options: metric "
                       r"\('CIDEr-D' here, 'BLEU' in the other state\)"):  # fmt: skip
        acc.merge(CiderAccumulator("BLEU", tokenizer="whitespace").state())
    with pytest.raises(ValueError, match=r"sigma \(6\.0 here, 3\.0 in the other state\)"):
        acc.merge(CiderAccumulator(sigma=3.0, tokenizer="whitespace"))
    with pytest.raises(ValueError, match=r"tokenizer \('whitespace' here, 'ptb' in the other"):
        acc.merge(CiderAccumulator().state())
    df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"df \('corpus' here, 'precomputed\(n_images=2,sha="):
        acc.merge(CiderAccumulator(df=df, tokenizer="whitespace").state())
    other = DocumentFrequencies.from_references([["a dog"], ["a bus"]], tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"df_sha \('"):
        filled(df=df).merge(filled(df=other).state())
    assert acc.n_images == 1


def test_states_of_a_newer_format_or_malformed_are_refused():
    state = filled().state()
    with pytest.raises(ValueError, match=r"format version 2, written by a newer sparsecider; "
                       r"this one reads versions up to 1"):  # fmt: skip
        CiderAccumulator(tokenizer="whitespace").merge({**state, "format_version": 2})
    with pytest.raises(ValueError, match=r"format version 3"):
        CiderAccumulator.from_state({**state, "format_version": 3})
    with pytest.raises(ValueError, match=r"not a valid accumulator state: expected a dict"):
        CiderAccumulator().merge({"ids": []})
    with pytest.raises(ValueError, match=r"'candidate_tokens' has 2 entries, expected 3"):
        CiderAccumulator.from_state({**state, "candidate_tokens": state["candidate_tokens"][:2]})
    with pytest.raises(ValueError, match=r"'reference_lengths' must be a numpy array, got list"):
        CiderAccumulator.from_state({**state, "reference_lengths": [4, 2]})
    df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"made with document frequencies precomputed.*pass them"):
        CiderAccumulator.from_state(filled(df=df).state())
    restored = CiderAccumulator.from_state(filled(df=df).state(), df=df)
    assert restored.compute().score == filled(df=df).compute().score


def test_errors_name_the_problem():
    acc = CiderAccumulator(tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"holds no image yet"):
        acc.compute()
    with pytest.raises(ValueError, match=r"give the image ids once: .* ids=\[\.\.\.\]"):
        acc.update(["a dog"], [["a dog"]])
    with pytest.raises(ValueError, match=r"ids= was given, but candidates and references are"):
        acc.update({1: "a"}, {1: ["a"]}, ids=[1])
    with pytest.raises(ValueError, match=r"image id\(s\) \[3\] repeat"):
        acc.update(["a", "b"], [["a"], ["b"]], ids=[3, 3])
    with pytest.raises(TypeError, match=r"image ids must be all integers or all strings"):
        acc.update(["a", "b"], [["a"], ["b"]], ids=[3, "x"])
    acc.update(["a dog", "a bus"], [["a dog"], ["a red bus"]], ids=np.array([5, 6]))
    with pytest.raises(ValueError, match=r"image id\(s\) \[6\] are in both states"):
        acc.update(["a"], [["a"]], ids=[6])
    assert acc.compute().ids == (5, 6)
    with pytest.raises(ValueError, match=r"BLEU takes no sigma"):
        CiderAccumulator("BLEU", sigma=6.0)
    with pytest.raises(ValueError, match=r"metric='SPICE' is not one of"):
        CiderAccumulator("SPICE")
    empty = CiderAccumulator(tokenizer="whitespace")
    empty.update({1: "a", 2: "b"}, {1: [""], 2: [" "]})
    with pytest.raises(ValueError, match=r"every reference is empty"):
        empty.compute()


def test_a_custom_tokenizer_travels_by_name():
    def letters(captions):
        return [list(c.replace(" ", "")) for c in captions]

    acc = CiderAccumulator(tokenizer=letters)
    acc.update({1: "ab"}, {1: ["ab", "ba"]})
    restored = CiderAccumulator.from_state(acc.state())
    name = "custom:test_a_custom_tokenizer_travels_by_name.<locals>.letters"
    assert restored.options["tokenizer"] == name
    with pytest.raises(ValueError, match=r"restored from a state of tokenizer 'custom:.*pass it"):
        restored.update({2: "ab"}, {2: ["ab"]})
    again = CiderAccumulator.from_state(acc.state(), tokenizer=letters)
    again.update({2: "ab"}, {2: ["ba"]})
    assert again.merge(acc.state().copy() | {"ids": np.array([3])}).n_images == 3


def test_string_ids_with_an_empty_rank_and_mixed_kinds_refused():
    refs = {"x": ["a dog runs"], "y": ["a red bus"], "z": ["a cat"]}
    cands = {"x": "a dog", "y": "a bus", "z": "a cat"}
    ranks = [CiderAccumulator(tokenizer="whitespace") for _ in range(3)]
    ranks[0].update({"x": cands["x"]}, {"x": refs["x"]})
    ranks[2].update({k: cands[k] for k in "yz"}, {k: refs[k] for k in "yz"})
    states = [pickle.loads(pickle.dumps(r.state())) for r in ranks]  # ranks[1] is empty
    got = CiderAccumulator(tokenizer="whitespace").merge(*states).compute()
    want = sparsecider.cider_d(cands, refs, tokenizer="whitespace")
    assert got.ids == ("x", "y", "z") and np.array_equal(got.scores, want.scores)
    numbered = CiderAccumulator(tokenizer="whitespace")
    numbered.update(["a dog"], [["a dog"]], ids=[1])
    with pytest.raises(TypeError, match=r"image ids must be of one kind across states"):
        numbered.merge(states[0])
