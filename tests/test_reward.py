"""RewardScorer: cached rewards equal cider_d_ids bit for bit, and the reference SCST code.

Expected values come from :func:`sparsecider.cider_d_ids` (itself checked
against pycocoevalcap in ``test_ids.py``), from pycocoevalcap's
``CiderScorer`` driven as SCST code drives it (``benchmarks/reference.py``),
or from slow dict-based twins of the new kernels written here.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import DocumentFrequencies, RewardScorer, cider_d_ids
from sparsecider._kernels.lookup import bucket_index, bucket_positions
from sparsecider._kernels.rows import padded_hashes, row_ngrams
from sparsecider.tokenizers import split_whitespace

EOS, PAD = 0, 9


def as_text(row, include_eos=False, pad=None):
    """SCST's array_to_str (with include_eos): the ids up to the first eos."""
    out = []
    for t in np.asarray(row).tolist():
        if t == EOS:
            if include_eos:
                out.append(str(t))
            break
        if t != pad:
            out.append(str(t))
    return " ".join(out)


# ---- the kernels, against slow twins ----------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 3), max_size=9), min_size=1, max_size=6), st.integers(1, 5))
def test_row_ngrams_are_each_rows_distinct_ngrams_with_counts(rows, n):
    tokens = split_whitespace([" ".join(map(str, r)) for r in rows])
    keys, group, counts = row_ngrams(padded_hashes(tokens), tokens.lengths, n)
    got = Counter()
    for key, g, c in zip(keys.tolist(), group.tolist(), counts.tolist(), strict=True):
        got[(g // len(rows), g % len(rows), key)] += c
    # the twin: count the n-gram keys of each caption with a dict
    from sparsecider._kernels.hashing import ngram_keys

    want = Counter()
    for k, (order_keys, indptr) in enumerate(ngram_keys(tokens.hashes, tokens.lengths, n)):
        for r in range(len(rows)):
            for key in order_keys[indptr[r] : indptr[r + 1]].tolist():
                want[(k, r, key)] += 1
    assert got == want
    # entries run order, row, then increasing key
    sort_key = list(zip(group.tolist(), keys.tolist(), strict=True))
    assert sort_key == sorted(sort_key) and len(set(sort_key)) == len(sort_key)


def test_row_ngrams_keeps_a_key_equal_to_the_sentinel():
    rows = np.array([[2**64 - 1, 5, 2**64 - 1], [7, 0, 0]], dtype=np.uint64)
    keys, group, counts = row_ngrams(rows, np.array([3, 1]), 1)
    assert keys.tolist() == [5, 2**64 - 1, 7] and counts.tolist() == [1, 2, 1]
    assert group.tolist() == [0, 0, 1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sets(st.integers(0, 2**64 - 1), max_size=60), min_size=1, max_size=3), st.data())
def test_bucket_positions_over_tables_laid_end_to_end(tables, data):
    tables = [np.array(sorted(t), dtype=np.uint64) for t in tables]
    parts, bases, shifts, offset, base = [], [], [], 0, 0
    for t in tables:
        index = bucket_index(t).astype(np.int64)
        parts.append(index + offset)
        bases.append(base)
        shifts.append(64 - (int(index.shape[0] - 1).bit_length() - 1))
        offset += t.shape[0]
        base += index.shape[0]
    # queries: (table, key), keys from the tables (of any order) or anything
    from_tables = (st.sampled_from(t.tolist()) for t in tables if t.size)
    any_key = st.one_of(st.integers(0, 2**64 - 1), *from_tables)
    queries = data.draw(st.lists(st.tuples(st.integers(0, len(tables) - 1), any_key), max_size=40))
    order = np.array([k for k, _ in queries], dtype=np.int64)
    keys = np.array([key for _, key in queries], dtype=np.uint64)
    bucket = (keys >> np.array(shifts, np.uint64)[order]).astype(np.int64)
    bucket += np.array(bases, dtype=np.int64)[order]
    got = bucket_positions(np.concatenate(tables), np.concatenate(parts), bucket, keys)
    starts = np.cumsum([0] + [t.shape[0] for t in tables])
    want = [
        int(starts[k] + np.flatnonzero(tables[k] == key)[0]) if key in tables[k] else -1
        for k, key in queries
    ]
    assert got.tolist() == want


# ---- the scorer equals cider_d_ids, bit for bit -----------------------------------------

seqs = st.lists(st.integers(0, 12), min_size=0, max_size=9)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(seqs, min_size=1, max_size=4), min_size=1, max_size=7),
    st.data(),
    st.booleans(),
    st.integers(1, 5),
    st.sampled_from(["all", "half", "pruned"]),
)
def test_rewards_equal_cider_d_ids_bit_for_bit(ref_ids, data, include_eos, n, fitted_on):
    refs = [[np.array(s, dtype=np.int64) for s in r] for r in ref_ids]
    text = [[as_text(s, include_eos, PAD) for s in r] for r in ref_ids]
    if not any(t for r in text for t in r):
        return
    fit = refs if fitted_on != "half" else refs[: max(1, len(refs) // 2)]
    try:
        df = DocumentFrequencies.from_id_references(fit, eos=EOS, pad=PAD, include_eos=include_eos)
    except ValueError:
        return  # nothing to count in that half
    if fitted_on == "pruned":
        df = df.pruned()
    n = min(n, df.n)
    scorer = RewardScorer(refs, df=df, eos=EOS, pad=PAD, include_eos=include_eos, n=n)
    images = data.draw(st.lists(st.integers(0, len(refs) - 1), min_size=1, max_size=12))
    width = data.draw(st.integers(1, 11))
    # ids up to 15: some beyond every reference's (unseen unigrams)
    cand = np.array(
        [data.draw(st.lists(st.integers(0, 15), min_size=width, max_size=width)) for _ in images]
    )
    got = scorer(cand, images)
    used = sorted(set(images))
    want = cider_d_ids(
        cand, [refs[i] for i in used], df=df, eos=EOS, pad=PAD, include_eos=include_eos,
        image_index=[used.index(i) for i in images], n=n,
    )  # fmt: skip
    assert np.array_equal(got.scores, want.scores)
    assert np.array_equal(got.per_order, want.per_order)
    assert got.ids == tuple(used) and got.image_index.tolist() == want.image_index.tolist()
    assert got.signature == want.signature and got.n_empty_candidates == want.n_empty_candidates


def scst_corpus(seed=0, n_images=300):
    rng = np.random.default_rng(seed)
    # padded label rows, as SCST data loaders give them: words, then eos (0) padding
    return [
        np.stack([
            np.concatenate((rng.integers(1, 40, m), np.zeros(16 - m, dtype=np.int64)))
            for m in rng.integers(3, 12, 5)
        ])
        for _ in range(n_images)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def scst():
    """A training set, its reference df dict and the scorer, as SCST code sets them up."""
    pytest.importorskip("pycocoevalcap", reason="the reference needs the `ref` extra")
    from benchmarks.reference import scst_document_frequency

    train = scst_corpus()
    text = [[as_text(r, include_eos=True) for r in refs] for refs in train]
    scorer = RewardScorer(train, df="corpus", eos=EOS, include_eos=True)
    return train, text, scst_document_frequency(text), scorer


def reference_rewards(scst, rows, images):
    from benchmarks.reference import scst_rewards

    _, text, ref_df, _ = scst
    cands = [as_text(r, include_eos=True) for r in rows]
    return scst_rewards(cands, [text[i] for i in images], ref_df, len(text))


def test_rewards_equal_the_reference_scst_scorer(scst):
    train, _, _, scorer = scst
    rng = np.random.default_rng(1)
    images = rng.choice(len(train), 8, replace=False)
    samples = rng.integers(0, 45, (8 * 6, 14))  # 5 samples + 1 greedy per image; ids up to 44
    got = scorer(samples, np.repeat(images, 6)).scores
    want = reference_rewards(scst, samples, np.repeat(images, 6))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert scorer.df.n_images == len(train)


def test_self_critical_and_leave_one_out_are_the_scst_baselines(scst):
    train, _, _, scorer = scst
    rng = np.random.default_rng(2)
    images = rng.choice(len(train), 5, replace=False)
    k = 4
    samples = rng.integers(0, 40, (5 * k, 12))
    greedy = rng.integers(0, 40, (5, 10))
    r_samples = reference_rewards(scst, samples, np.repeat(images, k))
    r_greedy = reference_rewards(scst, greedy, images)
    # Rennie et al.: each sample minus its image's greedy caption
    want = (r_samples.reshape(5, k) - r_greedy[:, None]).ravel()
    got = scorer.self_critical(samples, greedy, images)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    # Luo 2020: each sample minus the mean of the other k - 1 samples of its image
    grouped = r_samples.reshape(5, k)
    want = np.array(
        [[grouped[i, j] - (grouped[i].sum() - grouped[i, j]) / (k - 1) for j in range(k)]
         for i in range(5)]
    ).ravel()  # fmt: skip
    np.testing.assert_allclose(scorer.leave_one_out(samples, images), want, rtol=0, atol=1e-12)


def test_texts_scorer_equals_cider_d_and_keys_by_id():
    train = {
        391895: ["a man riding a bike", "a person on a bicycle"],
        522418: ["a woman cutting a cake", "a cake on a table"],
        184613: ["a dog on the grass"],
    }
    scorer = RewardScorer.from_texts(train, df="corpus")
    cands = ["a man on a bike", "a cake", "a dog", "a bicycle on grass"]
    images = [391895, 184613, 184613, 391895]
    got = scorer(cands, images)
    df = DocumentFrequencies.from_references(list(train.values()), tokenizer="whitespace")
    want = sparsecider.cider_d(
        [[cands[0], cands[3]], [cands[1], cands[2]]], [train[391895], train[184613]],
        df=df, tokenizer="whitespace",
    )  # fmt: skip
    assert np.array_equal(got.scores[[0, 3, 1, 2]], want.scores)
    assert got.ids == (391895, 184613)  # the batch's images, by position in the dict
    assert got.to_records()[1]["id"] == 184613
    with pytest.raises(ValueError, match=r"images\[1\] = 7 is not an image of this scorer"):
        scorer(cands[:2], [391895, 7])


def test_ptb_texts_are_tokenized_once_and_per_batch():
    train = [["A dog's toy.", "The dog plays."], ["A red bus!"]]
    scorer = RewardScorer.from_texts(train, df="corpus", tokenizer="ptb")
    got = scorer(["a dog 's toy", "A RED BUS"], [0, 1])
    want = sparsecider.cider_d(["a dog 's toy", "A RED BUS"], train, df=scorer.df)
    assert np.array_equal(got.scores, want.scores)
    assert "|tok:ptb|" in got.signature


# ---- tensors, unseen ids, errors ----------------------------------------------------------


class ArrayOnly:
    """A stand-in for a CPU torch tensor read through ``__array__``."""

    def __init__(self, a):
        self.a = np.asarray(a)

    def __array__(self, dtype=None, copy=None):
        return self.a


class DLPackOnly:
    """A stand-in for a tensor exporting DLPack only (numpy arrays export it too)."""

    def __init__(self, a):
        self.a = np.ascontiguousarray(a)

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


class GPUTensor:
    """A tensor numpy cannot read: its DLPack device is not the CPU."""

    def __dlpack__(self, **kwargs):
        raise BufferError("unsupported device cuda:0")

    def __dlpack_device__(self):
        return (2, 0)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("can't convert cuda:0 device type tensor to numpy")


def small_scorer():
    train = [np.array([[1, 2, 3, 0], [1, 2, 0, 0]]), np.array([[4, 5, 6, 0]]), np.array([[4, 2]])]
    return train, RewardScorer(train, df="corpus", eos=0)


@pytest.mark.parametrize("wrap", [ArrayOnly, DLPackOnly])
def test_tensors_through_array_and_dlpack(wrap):
    train, scorer = small_scorer()
    cand = np.array([[1, 2, 0, 7], [4, 5, 6, 0]])
    want = scorer(cand, [0, 1]).scores
    assert np.array_equal(scorer(wrap(cand), wrap(np.array([0, 1]))).scores, want)
    assert np.array_equal(cider_d_ids(wrap(cand), train[:2], df=scorer.df, eos=0).scores, want)


def test_a_gpu_tensor_is_refused_with_the_fix():
    _, scorer = small_scorer()
    with pytest.raises(TypeError, match=r"candidates could not be read .*cuda.*tensor\.cpu\(\)"):
        scorer(GPUTensor(), [0])


def test_ids_beyond_the_vocabulary_score_as_unseen_ngrams():
    train, scorer = small_scorer()
    # 10**9 and -3 are far outside the id table; 99 just beyond the references' ids
    cand = np.array([[1, 2, 10**9, 0], [99, 4, 5, 0], [-3, 1, 2, 3]])
    got = scorer(cand, [0, 1, 0])
    want = cider_d_ids(cand, train[:2], df=scorer.df, eos=0, image_index=[0, 1, 0])
    assert np.array_equal(got.scores, want.scores)
    assert (got.scores > 0).all()


def test_errors_name_the_item_and_the_fix():
    train, scorer = small_scorer()
    cand = np.array([[1, 2, 0], [4, 5, 0]])
    with pytest.raises(ValueError, match=r"images\[1\] = 3 is not an image of this scorer; it "
                       r"knows 3 images, by position 0\.\.2"):  # fmt: skip
        scorer(cand, [0, 3])
    with pytest.raises(ValueError, match=r"candidates has 2 rows but images names 3"):
        scorer(cand, [0, 1, 2])
    with pytest.raises(TypeError, match=r"candidates holds strings, .* RewardScorer\.from_texts"):
        scorer(["1 2", "4 5"], [0, 1])
    with pytest.raises(TypeError, match=r"candidates must hold integer token ids, got dtype float"):
        scorer(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match=r"candidates is empty"):
        scorer(np.zeros((0, 3), int), [])
    with pytest.raises(ValueError, match=r"samples has 3 rows for 2 images"):
        scorer.leave_one_out(np.ones((3, 2), int), [0, 1])
    with pytest.raises(ValueError, match=r"leave_one_out needs at least 2 samples per image"):
        scorer.leave_one_out(np.ones((2, 2), int), [0, 1])
    with pytest.raises(ValueError, match=r"greedy has 1 rows; give one per image \(2\)"):
        scorer.self_critical(np.ones((4, 2), int), np.ones((1, 2), int), [0, 1])
    with pytest.raises(ValueError, match=r"references\[1\] is empty"):
        RewardScorer([train[0], []], df="corpus", eos=0)
    with pytest.raises(ValueError, match=r"references\['b'\] is empty"):
        RewardScorer({"a": train[0], "b": []}, df="corpus", eos=0)
    with pytest.raises(ValueError, match=r"references is empty"):
        RewardScorer([], df=scorer.df, eos=0)
    with pytest.raises(ValueError, match=r"df='coco' is not supported"):
        RewardScorer(train, df="coco", eos=0)
    with pytest.raises(TypeError, match=r"eos must be an integer id"):
        RewardScorer(train, df="corpus", eos=None)


def test_the_cache_groups_each_images_entries_by_ngram():
    """The layout the batch join relies on: per image, entries by vocabulary index."""
    _, scorer = small_scorer()
    cache = scorer.cache
    for i in range(cache.n_images):
        g = cache.entry_g[cache.entry_offsets[i] : cache.entry_offsets[i + 1]]
        assert (np.diff(g.astype(np.int64)) >= 0).all()
    assert cache.nbytes > 0 and "RewardScorer(n_images=3" in repr(scorer)


# ---- compat.CiderD: the drop-in SCST code calls with strings ------------------------


def scst_compute_score(scorer, train_text, images, samples, greedy, k):
    """As self-critical.pytorch's get_self_critical_reward builds its call."""
    from benchmarks.bench_rl import as_text as to_str

    res = [to_str(r) for r in samples] + [to_str(r) for r in greedy]
    gts = [train_text[i] for i in images]
    res_ = [{"image_id": i, "caption": [c]} for i, c in enumerate(res)]
    gts_ = {i: gts[i // k] for i in range(len(samples))}
    gts_.update({i + len(samples): gts[i] for i in range(len(images))})
    return scorer.compute_score(gts_, res_)[1]


def test_compat_cider_d_remembers_references_with_the_same_numbers(scst):
    from sparsecider.compat import CiderD

    _, text, _, ids_scorer = scst
    df = DocumentFrequencies.from_references(text, tokenizer="whitespace")
    # the same counts as the ids' table, which records that it counts ids
    assert df == ids_scorer.df.renamed("ids", tokenizer="whitespace")
    remembering, plain = CiderD(df=df), CiderD(df=df, cache_references=False)
    remembering._memo.first_build = 6  # build the scorer after a few batches
    rng = np.random.default_rng(3)
    for _ in range(6):
        images = rng.choice(12, 4, replace=False)  # images come back: the memo serves them
        samples = rng.integers(0, 45, (4 * 5, 14))
        greedy = rng.integers(0, 45, (4, 14))
        got = scst_compute_score(remembering, text, images, samples, greedy, 5)
        want = scst_compute_score(plain, text, images, samples, greedy, 5)
        assert np.array_equal(got, want)
        rows = np.vstack((samples, greedy))
        image_of_row = np.concatenate((np.repeat(images, 5), images))
        np.testing.assert_allclose(
            got, reference_rewards(scst, rows, image_of_row), rtol=0, atol=1e-12
        )
    memo = remembering._memo
    assert memo._scorer is not None and memo.n_remembered == 9 and len(memo._known) >= 6


def test_compat_cider_d_remember_serves_the_first_batch_from_the_cache(scst):
    from sparsecider.compat import CiderD

    _, text, _, ids_scorer = scst
    scorer = CiderD(df=ids_scorer.df)
    scorer.remember(text)
    assert scorer._memo.n_remembered == len(text) and len(scorer._memo._known) == len(text)
    rng = np.random.default_rng(4)
    images = rng.choice(len(text), 3, replace=False)
    samples, greedy = rng.integers(0, 45, (15, 12)), rng.integers(0, 45, (3, 12))
    got = scst_compute_score(scorer, text, images, samples, greedy, 5)
    plain = CiderD(df=ids_scorer.df, cache_references=False)
    assert np.array_equal(got, scst_compute_score(plain, text, images, samples, greedy, 5))
    with pytest.raises(ValueError, match=r"remembers nothing: it needs fixed document frequencies"):
        CiderD().remember(text)


def test_the_scorer_refuses_frequencies_of_the_wrong_kind():
    # as cider_d_ids (issue 27): a table of words, or of ids counted with another eos policy
    train = [np.array([[4, 5, 6, 0]]), np.array([[7, 8, 0, 0]])]
    with pytest.raises(ValueError, match=r"counts words \(tokenizer 'ptb'\), but token ids"):
        RewardScorer(train, df="coco-val2014", eos=0)
    with_eos = DocumentFrequencies.from_id_references(train, eos=0, include_eos=True)
    with pytest.raises(ValueError, match=r"ids\(eos=0,with-eos\), but this call reads them as "
                                         r"ids\(eos=0\)"):  # fmt: skip
        RewardScorer(train, df=with_eos, eos=0)
    ids = DocumentFrequencies.from_id_references(train, eos=0)
    # the references are what is checked at build time, and named so (issue 35)
    with pytest.raises(ValueError, match=r"but the references hold words \(e.g. 'a dog'\)"):
        RewardScorer.from_texts([["a dog"], ["a cat"]], df=ids)
