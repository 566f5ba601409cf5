"""Named document frequencies shipped in the package (``df="coco-val2014"``).

Expected values come from pycocoevalcap 1.2's ``CiderScorer`` with its
document frequencies preset from all COCO val references and
``ref_len = log(40504)``, the way self-critical training code presets them
(``compute_cider`` sets ``ref_len = log(len(self.crefs))``; a list whose
``len`` is 40,504 makes it do exactly that without touching the reference
code).  The pruning claim is checked on all of COCO val, bit for bit.
"""

from __future__ import annotations

import gzip
import json
import warnings
from collections import defaultdict
from importlib import resources

import numpy as np
import pytest

import sparsecider
from sparsecider import DocumentFrequencies, SmallCorpusWarning
from sparsecider.core.frequencies import _load_named
from sparsecider.io.named import NAMED

N_VAL = 40504


@pytest.fixture(scope="module")
def val_refs(coco_data):
    """COCO val references, Java-tokenized (the shared .ptb file), in image order."""
    coco = coco_data.coco_dir()
    with gzip.open(coco / "captions_val2014_reconstructed.json.gz", "rt") as f:
        ann = json.load(f)
    with gzip.open(coco / "captions_val2014_reconstructed.ptb.json.gz", "rt") as f:
        ptb = json.load(f)
    refs: dict = {img["id"]: [] for img in ann["images"]}
    for a in ann["annotations"]:
        refs[a["image_id"]].append(ptb[str(a["id"])])
    return list(refs.values())


class _Len(list):
    """A list whose len() is the size of the df corpus: pycocoevalcap's
    compute_cider then sets ref_len = log(40504), and iterates the real items."""

    def __len__(self) -> int:
        return N_VAL


@pytest.fixture(scope="module")
def reference_scorer(val_refs):
    """pycocoevalcap's scorer with df preset from all COCO val references."""
    from pycocoevalcap.cider.cider_scorer import CiderScorer

    full = CiderScorer(n=4, sigma=6.0)
    for refs in val_refs:
        full.cook_append(None, refs)
    full.compute_doc_freq()
    document_frequency = dict(full.document_frequency)

    def score(cands: list[str], refs: list[list[str]]) -> np.ndarray:
        scorer = CiderScorer(n=4, sigma=6.0)
        for c, r in zip(cands, refs, strict=True):
            scorer.cook_append(c, r)
        scorer.document_frequency = defaultdict(float, document_frequency)
        scorer.crefs = _Len(scorer.crefs)
        return np.array(scorer.compute_cider())

    return score


def held_out(val_refs, idx):
    """Each image's first reference as its candidate, the others as references."""
    return [val_refs[i][0] for i in idx], [val_refs[i][1:] for i in idx]


def test_one_image_at_a_time_equals_the_reference_with_preset_df(val_refs, reference_scorer):
    rng = np.random.default_rng(19)
    idx = rng.choice(len(val_refs), 120, replace=False)
    cands, refs = held_out(val_refs, idx)
    want = reference_scorer(cands, refs)
    got = [
        sparsecider.cider_d([c], [r], df="coco-val2014", tokenizer="whitespace").score
        for c, r in zip(cands, refs, strict=True)
    ]
    assert np.abs(np.array(got) - want).max() <= 1e-12
    assert (want > 0).mean() > 0.9  # meaningful, unlike corpus df on one image


def test_many_images_at_once_equal_the_reference(val_refs, reference_scorer):
    idx = np.arange(0, len(val_refs), 13)  # 3,116 images across the file
    cands, refs = held_out(val_refs, idx)
    result = sparsecider.cider_d(cands, refs, df="coco-val2014", tokenizer="whitespace")
    assert np.abs(result.scores - reference_scorer(cands, refs)).max() <= 1e-12
    assert result.signature.df == "coco-val2014(n_images=40504)"
    assert "|df:coco-val2014(n_images=40504)|" in result.signature


def test_pruned_and_full_tables_give_bit_identical_scores_on_all_of_coco_val(val_refs):
    full = DocumentFrequencies.from_references(val_refs, tokenizer="whitespace")
    named = DocumentFrequencies.named("coco-val2014")
    assert len(named) < len(full) / 4  # 349,295 of 1,590,410 n-grams kept
    assert named.min_count == 2 and full.min_count == 1
    cands, refs = held_out(val_refs, range(len(val_refs)))
    a = sparsecider.cider_d(cands, refs, df=full, tokenizer="whitespace")
    b = sparsecider.cider_d(cands, refs, df=named, tokenizer="whitespace")
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.per_order, b.per_order)
    # and the shipped file is the pruned table of the Java-tokenized references
    assert named.digest == full.pruned().digest
    for k in range(1, 5):
        assert np.array_equal(named.keys(k), full.pruned().keys(k))


def test_every_face_takes_the_name():
    cands = ["a man riding a wave on top of a surfboard", "a red bus"]
    refs = [["a surfer riding a wave on a surfboard", "a man surfing"], ["a red bus on a road"]]
    want = sparsecider.cider_d(cands, refs, df="coco-val2014", tokenizer="whitespace")
    assert want.signature.df == "coco-val2014(n_images=40504)"
    named = DocumentFrequencies.named("coco-val2014")
    assert want.df is named  # loaded once per process
    same = sparsecider.cider_d(cands, refs, df=named, tokenizer="whitespace")
    assert np.array_equal(want.scores, same.scores)
    plain = sparsecider.cider(cands, refs, df="coco-val2014", tokenizer="whitespace")
    assert plain.signature.startswith("CIDEr|") and plain.signature.df == want.signature.df

    from sparsecider import CiderVectorizer, stream
    from sparsecider.compat import Cider, CiderD

    vec = CiderVectorizer(df="coco-val2014", tokenizer="whitespace").fit(None)
    assert np.array_equal(vec.evaluate(cands, refs).scores, want.scores)
    records = [{"id": i, "candidate": c, "references": r} for i, (c, r) in
               enumerate(zip(cands, refs, strict=True))]  # fmt: skip
    streamed = stream.cider_d(records, df="coco-val2014", tokenizer="whitespace")
    assert np.array_equal(streamed.scores, want.scores)
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [c] for i, c in enumerate(cands)}
    for cls in (Cider, CiderD):
        score, scores = cls(df="coco-val2014").compute_score(gts, res)
        assert np.array_equal(scores, want.scores) and score == want.score


def test_dask_and_ids_take_the_name():
    import dask.bag as db

    import sparsecider.dask as sdask

    records = [{"id": i, "candidate": f"a dog {i}", "references": [f"a dog {i % 3}", "a cat"]}
               for i in range(6)]  # fmt: skip
    want = sparsecider.cider_d({r["id"]: r["candidate"] for r in records},
                               {r["id"]: r["references"] for r in records},
                               df="coco-val2014", tokenizer="whitespace")  # fmt: skip
    bag = db.from_sequence(records, npartitions=2)
    got = sdask.cider_d(bag, df="coco-val2014", tokenizer="whitespace")
    assert np.array_equal(got.scores, want.scores) and got.signature == want.signature
    # a table of words cannot score token ids (it gave numbers before: issue 27)
    words = r"df=coco-val2014\(n_images=40504\) counts words \(tokenizer 'ptb'\), but token ids"
    with pytest.raises(ValueError, match=words):
        sparsecider.cider_d_ids(np.array([[4, 5, 0]]), [np.array([[4, 5, 0]])], eos=0,
                                df="coco-val2014")  # fmt: skip


def test_bad_names_say_what_exists():
    with pytest.raises(ValueError, match=r"df='coco-val' is not supported; .*'coco-val2014'"):
        sparsecider.cider_d(["a"], [["a"]], df="coco-val")
    with pytest.raises(ValueError, match=r"no document frequencies named 'x'; known names: "
                                         r"'coco-val2014'"):  # fmt: skip
        DocumentFrequencies.named("x")
    with pytest.raises(
        ValueError, match=r"df='nope' is not supported; use df='corpus' .*'coco-val2014'"
    ):
        from sparsecider.compat import CiderD

        CiderD(df="nope")
    with pytest.raises(ValueError, match=r"df was fitted for n=4; it cannot score n=5"):
        sparsecider.cider_d(["a"], [["a"]], df="coco-val2014", n=5)


def test_a_damaged_shipped_file_is_refused(monkeypatch):
    _load_named.cache_clear()
    monkeypatch.setitem(NAMED, "coco-val2014", {**NAMED["coco-val2014"], "sha": "00000000"})
    try:
        with pytest.raises(ValueError, match=r"does not hold 'coco-val2014' .*reinstall"):
            DocumentFrequencies.named("coco-val2014")
    finally:
        _load_named.cache_clear()


def test_the_file_is_package_data_within_budget():
    entry = resources.files("sparsecider") / "data" / NAMED["coco-val2014"]["file"]
    assert entry.is_file()
    assert entry.stat().st_size < 8 * 2**20  # the budget for the wheel


def test_a_pruned_table_refuses_to_merge():
    fit = lambda r: DocumentFrequencies.from_references(r, tokenizer="whitespace")  # noqa: E731
    a, b = fit([["a dog"], ["a dog runs"]]), fit([["a cat"]])
    assert (a + b).n_images == 3  # full tables merge
    with pytest.raises(ValueError, match=r"cannot merge precomputed\(.*\): it is pruned"):
        a.pruned() + b
    with pytest.raises(ValueError, match=r"cannot merge coco-val2014\(n_images=40504\): it is "
                                         r"pruned"):  # fmt: skip
        DocumentFrequencies.from_references([["a cat"]]) + DocumentFrequencies.named("coco-val2014")


def test_pruned_survives_save_and_load(tmp_path):
    refs = [["a dog"], ["a dog runs"], ["a cat"]]
    df = DocumentFrequencies.from_references(refs, tokenizer="whitespace").pruned().renamed("mine")
    path = df.save(tmp_path / "mine.df.npz")
    back = DocumentFrequencies.load(path)
    assert back == df and back.min_count == 2 and back.name == "mine"
    assert back.describe() == f"mine(n_images=3,sha={df.digest})"


def test_small_corpora_warn_with_the_fix_and_large_or_fixed_ones_do_not():
    refs = [[f"a dog number {i}", "a dog"] for i in range(120)]
    cands = [f"a dog {i}" for i in range(120)]
    with pytest.warns(SmallCorpusWarning, match=r"scoring 5 images with df='corpus'.*"
                                                r"df='coco-val2014'"):  # fmt: skip
        sparsecider.cider_d(cands[:5], refs[:5], tokenizer="whitespace")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sparsecider.cider_d(cands[:100], refs[:100], tokenizer="whitespace")  # at the threshold
        sparsecider.cider_d(cands[:5], refs[:5], tokenizer="whitespace", df="coco-val2014")
    with pytest.warns(UserWarning, match=r"single image .* gives 0.*df='coco-val2014'"):
        one = sparsecider.cider_d(cands[:1], refs[:1], tokenizer="whitespace")
    assert one.score == 0.0  # the documented behaviour of one image stays
