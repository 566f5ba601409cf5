"""DocumentFrequencies: fitting, exactness, merging, files, legacy pickles, safety."""

from __future__ import annotations

import contextlib
import math
import pickle
import warnings
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings

import sparsecider
from sparsecider import DocumentFrequencies
from sparsecider._kernels.lookup import lookup_sorted

from .test_properties import corpora

try:
    from pycocoevalcap.cider.cider_scorer import CiderScorer
except ImportError:
    CiderScorer = None


def reference_df_dict(references: list[list[str]]) -> dict:
    """The reference's own df dict ({ngram_tuple: float}); a dict-based count
    written from tests/SPEC.md, section 1 when pycocoevalcap is not installed."""
    if CiderScorer is not None:
        scorer = CiderScorer()
        for refs in references:
            scorer.cook_append(None, refs)
        scorer.compute_doc_freq()
        return scorer.document_frequency
    table: dict = defaultdict(float)
    for refs in references:
        seen = set()
        for r in refs:
            w = r.split()
            seen.update(tuple(w[i : i + k]) for k in range(1, 5) for i in range(len(w) - k + 1))
        for g in seen:
            table[g] += 1
    return table


REFS = [["a dog runs on grass", "the dog runs"], ["a red bus", "a bus stops here"], ["a cat"]]


@settings(max_examples=100, deadline=None)
@given(corpora())
def test_precomputed_from_the_same_references_equals_corpus_mode(corpus):
    cands, refs = corpus
    df = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    with _quiet():
        corpus_mode = sparsecider.cider_d(cands, refs, tokenizer="whitespace")
    pre = sparsecider.cider_d(cands, refs, tokenizer="whitespace", df=df)
    np.testing.assert_allclose(pre.scores, corpus_mode.scores, rtol=0, atol=1e-12)
    plain = sparsecider.cider(cands, refs, tokenizer="whitespace", df=df).scores
    with _quiet():
        np.testing.assert_allclose(
            plain, sparsecider.cider(cands, refs, tokenizer="whitespace").scores, atol=1e-12
        )


@contextlib.contextmanager
def _quiet():
    """Silence the single-image warning of tiny random corpora."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def test_single_images_score_as_inside_their_corpus(coco_data):
    cands, refs = coco_data.coco_val()
    ids = list(refs)
    df = DocumentFrequencies.from_references(list(refs.values()), tokenizer="whitespace")
    full = sparsecider.cider_d(cands, refs, tokenizer="whitespace")
    for i in [0, 1, 17, 20_000, 40_503]:
        one = sparsecider.cider_d([cands[ids[i]]], [refs[ids[i]]], df=df, tokenizer="whitespace")
        assert abs(one.score - full.scores[i]) <= 1e-12
    # memory: the ~1.6 million distinct n-grams of COCO val in well under 64 MB
    assert 1_400_000 < len(df) < 1_800_000
    assert df.nbytes < 64 * 2**20
    assert df.n_images == 40504


def test_file_round_trip_and_size(coco_data, tmp_path):
    _, refs = coco_data.coco_val()
    df = DocumentFrequencies.from_references(list(refs.values()), tokenizer="whitespace")
    path = df.save(tmp_path / "coco-val.df.npz")
    assert path.stat().st_size < 64 * 2**20
    back = DocumentFrequencies.load(path)
    assert back == df and back.digest == df.digest and back.tokenizer == "whitespace"


def test_merge_of_disjoint_shards_equals_fitting_the_union():
    refs = [*REFS, ["two dogs run"], ["a red bus again"]]
    whole = DocumentFrequencies.from_references(refs)
    a = DocumentFrequencies.from_references(refs[:2])
    b = DocumentFrequencies.from_references(refs[2:])
    assert a + b == whole and a.merge(b).n_images == 5
    with pytest.raises(ValueError, match=r"cannot merge frequencies of n=4 and n=2"):
        a + DocumentFrequencies.from_references(refs[2:], n=2)
    with pytest.raises(ValueError, match=r"tokenizer 'ptb' and 'whitespace'"):
        a + DocumentFrequencies.from_references(refs[2:], tokenizer="whitespace")


def test_lookup_never_changes_anything_and_the_object_is_immutable():
    df = DocumentFrequencies.from_references(REFS)
    before = len(df), df.digest
    unseen = np.array([1, 2, 3], dtype=np.uint64)
    assert df.lookup(unseen, 2).tolist() == [0.0, 0.0, 0.0]
    assert (len(df), df.digest) == before
    with pytest.raises(AttributeError, match="immutable"):
        df.n_images = 7
    with pytest.raises(ValueError):
        df.keys(1)[0] = 0


@pytest.mark.parametrize("case", ["one", "two", "spread", "crowded", "full range"])
def test_lookup_finds_exactly_the_stored_keys(case):
    # the bucket lookup against a dict, with absent keys, the extremes 0 and
    # 2**64 - 1, repeated and unsorted queries; "crowded" puts thousands of
    # keys in a few buckets (keys that share their top bits)
    rng = np.random.default_rng(len(case))
    if case == "crowded":
        keys = (np.uint64(5) << np.uint64(60)) | rng.integers(0, 2**20, 3000, dtype=np.uint64)
    elif case == "full range":
        ends = np.array([0, 2**64 - 1], dtype=np.uint64)
        keys = np.concatenate((ends, rng.integers(0, 2**64 - 1, 5000, dtype=np.uint64)))
    else:
        size = {"one": 1, "two": 2, "spread": 50_000}[case]
        keys = rng.integers(0, 2**64 - 1, size, dtype=np.uint64, endpoint=True)
    keys = np.unique(keys.astype(np.uint64))
    counts = rng.integers(1, 9, keys.shape[0]).astype(np.uint32)
    df = DocumentFrequencies([keys], [counts], n_images=8, tokenizer="whitespace")
    stored = dict(zip(keys.tolist(), counts.tolist(), strict=True))
    near = np.concatenate((keys, keys + np.uint64(1), keys - np.uint64(1)))  # wraps at the ends
    extremes = np.array([0, 1, 2**64 - 2, 2**64 - 1], dtype=np.uint64)
    queries = np.concatenate((
        rng.permutation(near), extremes,
        rng.integers(0, 2**64 - 1, 2000, dtype=np.uint64), keys[:5], keys[:5],
    ))  # fmt: skip
    for _ in range(2):  # the index is built on the first lookup, reused on the second
        got = df.lookup(queries, 1)
        assert got.tolist() == [float(stored.get(q, 0)) for q in queries.tolist()]


@pytest.mark.parametrize("sizes", [(0, 5), (5, 0), (1, 1), (3000, 40_000), (40_000, 3000)])
def test_sorted_lookup_merges_two_key_tables(sizes):
    # the shard merge of corpus document frequencies, against a dict: both
    # tables strictly increasing, sharing about half of their keys, with the
    # extremes 0 and 2**64 - 1 in both
    rng = np.random.default_rng(sizes[0])
    pool = np.unique(rng.integers(0, 2**64 - 1, 2 * sum(sizes), dtype=np.uint64, endpoint=True))
    ends = np.array([0, 2**64 - 1], dtype=np.uint64)
    table, keys = (
        np.union1d(rng.choice(pool, size, replace=False), ends) if size else ends[:0]
        for size in sizes
    )
    counts = rng.integers(1, 9, table.shape[0]).astype(np.float64)
    out = np.full(keys.shape[0], 0.5)
    lookup_sorted(table, counts, keys, out)
    stored = dict(zip(table.tolist(), counts.tolist(), strict=True))
    assert out.tolist() == [0.5 + stored.get(k, 0.0) for k in keys.tolist()]


def test_counts_of_a_hand_made_corpus():
    # REFS: "a" is in all three images; "bus" in two references of image 1 (one
    # document); "dog" twice in image 0; "a dog" once
    df = DocumentFrequencies.from_references(REFS, tokenizer="whitespace")
    for gram, want in [(("a",), 3), (("bus",), 1), (("dog",), 1), (("a", "dog"), 1), (("zzz",), 0)]:
        key = DocumentFrequencies.from_ngram_counts({gram: 1}, n_images=3).keys(len(gram))
        assert df.lookup(key, len(gram)).tolist() == [want]


def test_signature_names_the_frequencies():
    df = DocumentFrequencies.from_references(REFS)
    r = sparsecider.cider_d(["a dog"], [["a dog runs"]], df=df)
    assert f"|df:precomputed(n_images=3,sha={df.digest})|" in r.signature


def test_errors():
    df = DocumentFrequencies.from_references(REFS, n=2)
    with pytest.raises(ValueError, match=r"df was fitted for n=2; it cannot score n=4"):
        sparsecider.cider_d(["a"], [["a"]], df=df)
    with pytest.raises(ValueError, match=r"df='coco-val-df' is not supported"):
        sparsecider.cider_d(["a"], [["a"]], df="coco-val-df")
    with pytest.raises(ValueError, match=r"references\[0\] is empty"):
        DocumentFrequencies.from_references([[]])


def test_load_refuses_other_files(tmp_path):
    bad = tmp_path / "x.npz"
    np.savez(bad, metadata=np.frombuffer(b'{"format": "other"}', dtype=np.uint8))
    with pytest.raises(ValueError, match=r"format 'other' version None; this library reads"):
        DocumentFrequencies.load(bad)
    obj = tmp_path / "obj.npz"
    np.savez(obj, metadata=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match=r"not a sparsecider document frequency file|unreadable"):
        DocumentFrequencies.load(obj)
    (tmp_path / "t.npz").write_text("hello")
    with pytest.raises(ValueError, match=r"not a sparsecider document frequency file"):
        DocumentFrequencies.load(tmp_path / "t.npz")
    with pytest.raises(FileNotFoundError, match=r"document frequency file not found"):
        DocumentFrequencies.load(tmp_path / "missing.npz")


@pytest.mark.parametrize("layout", ["bare", "raw_ref_len", "log_ref_len"])
@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_legacy_pickles_round_trip(tmp_path, layout, protocol):
    refs = [*REFS, ["a dog and a cat"], ["the red bus"]]
    table = reference_df_dict(refs)
    n = len(refs)
    data = {
        "bare": table,
        "raw_ref_len": {"document_frequency": table, "ref_len": n},
        "log_ref_len": {"df": table, "ref_len": np.log(float(n)).item()},
    }[layout]
    path = tmp_path / "df.p"
    path.write_bytes(pickle.dumps(data, protocol=protocol))
    df = DocumentFrequencies.from_pickle(path, n_images=n if layout == "bare" else None)
    want = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    assert df == want


def test_legacy_idxs_pickle_with_the_eos_word(tmp_path):
    # SCST's *-idxs files: vocabulary indices as strings, "0" (end of sequence) appended
    id_refs = [["5 9 12", "5 9 7 3"], ["8 2"], ["5 4 4"]]
    with_eos = [[r + " 0" for r in refs] for refs in id_refs]
    path = tmp_path / "coco-train-idxs.p"
    path.write_bytes(
        pickle.dumps({"document_frequency": reference_df_dict(with_eos), "ref_len": 3})
    )
    df = DocumentFrequencies.from_pickle(path)
    # the same counts as the strings', recorded as ids with the eos 0 counted ("0" in
    # every image): cider_d_ids with eos=0, include_eos=True takes it, words do not
    words = DocumentFrequencies.from_references(with_eos, tokenizer="whitespace")
    assert df == words.renamed("x", tokenizer="ids(eos=0,with-eos)")
    assert df.tokenizer == "ids(eos=0,with-eos)"


def test_bare_pickle_defaults_to_coco_val_images(tmp_path):
    path = tmp_path / "coco-val-df.p"
    path.write_bytes(pickle.dumps({("a",): 3.0, ("a", "dog"): 1.0, ("x",): 0.0}))
    with pytest.warns(UserWarning, match=r"does not record how many images .* taking 40504"):
        df = DocumentFrequencies.from_pickle(path)
    assert df.n_images == 40504 and len(df) == 2  # the 0 entry weighs as unseen: dropped


class _Exploit:
    def __reduce__(self):
        import os

        return (os.system, ("touch exploited",))


def test_malicious_pickle_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil.p"
    path.write_bytes(pickle.dumps({"document_frequency": {("a",): 1}, "ref_len": _Exploit()}))
    with pytest.raises(ValueError, match=r"refusing to load (posix|nt|os)\.system"):
        DocumentFrequencies.from_pickle(path)
    assert not (tmp_path / "exploited").exists()


def test_pickle_with_bad_values(tmp_path):
    path = tmp_path / "bad.p"
    path.write_bytes(pickle.dumps({"df": {("a",): 1}, "ref_len": 2.5}))
    with pytest.raises(ValueError, match=r"ref_len 2.5 is not the log of a whole number"):
        DocumentFrequencies.from_pickle(path)
    path.write_bytes(pickle.dumps({"document_frequency": {("a",): 9}, "ref_len": 3}))
    with pytest.raises(ValueError, match=r"has count 9, not in 0..3"):
        DocumentFrequencies.from_pickle(path)
    path.write_bytes(pickle.dumps(["not", "a", "dict"]))
    with pytest.raises(ValueError, match=r"expected a dict, found list"):
        DocumentFrequencies.from_pickle(path)


def test_shared_between_threads():
    refs = [[f"a dog number {i} runs", f"dog {i % 7} runs fast"] for i in range(200)]
    cands = [f"a dog {i} runs" for i in range(200)]
    df = DocumentFrequencies.from_references(refs)
    want = sparsecider.cider_d(cands, refs, df=df).scores
    before = df.digest
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(lambda _: sparsecider.cider_d(cands, refs, df=df).scores, range(32))
        )
    for got in results:
        np.testing.assert_array_equal(got, want)
    assert df.digest == before and math.isfinite(float(want.sum()))


def test_a_consuming_merge_equals_the_plain_one_and_empties_its_parts():
    """The streaming fit hands its own partials to merge_all(consume=True), which
    releases each order's arrays once merged (the fit pass's memory peak)."""
    from sparsecider.core.df_fit import merge_all

    refs = [[f"a dog number {i} runs", f"the cat {i % 7} sleeps"] for i in range(60)]

    def parts():
        return [
            DocumentFrequencies.from_references(refs[a:b], tokenizer="whitespace")
            for a, b in [(0, 10), (10, 35), (35, 36), (36, 60)]
        ]

    whole = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    given = parts()
    assert merge_all(parts()) == whole
    assert merge_all(given, consume=True) == whole
    assert all(len(p) == 0 for p in given)  # handed over: no array left in the parts
