"""Self-CIDEr against a port of the authors' code (``tests/self_cider_reference.py``).

Where a set holds two identical captions its kernel is exactly singular:
the authors' ``eigvalsh`` then returns rounding noise (~1e-17) for the zero
eigenvalue, whose square root (~1e-8) moves their diversity by up to ~1e-9.
sparsecider takes that eigenvalue as the 0 it is; on those sets the oracle is
the authors' formula on the authors' own kernel with its known zero
eigenvalues set to 0 (``exact_oracle``), and the raw oracle must stay within
its noise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import DocumentFrequencies
from sparsecider.core.corpus import as_candidate_sets
from sparsecider.core.engine import statistics
from sparsecider.metrics.self_cider import kernel_diversity
from sparsecider.tokenizers import get_tokenizer
from tests import self_cider_reference as ref


def exact_oracle(kernel: np.ndarray) -> float:
    """The authors' ``get_div`` on their kernel, with the eigenvalues that are
    exactly 0 (one per repeated row and per all-zero row) set to 0."""
    k = kernel / 10
    distinct = {tuple(row) for row in k.tolist() if any(row)}
    eig = np.linalg.eigvalsh(k)
    eig[: k.shape[0] - len(distinct)] = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(ref.get_div(eig))


def singular(kernel: np.ndarray) -> bool:
    rows = [tuple(row) for row in kernel.tolist()]
    return len(set(rows)) < len(rows) or not all(any(r) for r in rows)


def check_against_oracle(result, oracle_divs, oracle_kernels, *, tol=1e-10):
    """Kernels to 1e-12; diversities to ``tol`` (exact oracle on singular kernels)."""
    n_singular = 0
    for i, (div, kernel) in enumerate(zip(oracle_divs, oracle_kernels, strict=True)):
        assert np.abs(result.kernels[i] - kernel).max() <= 1e-12, i
        got = result.scores[i]
        if singular(kernel):
            n_singular += 1
            want = exact_oracle(kernel)
            if not math.isnan(div):
                assert abs(got - div) <= 1e-8, (i, got, div)  # the oracle's own noise
        else:
            want = div
        if math.isnan(want):
            assert math.isnan(got), i
        else:
            assert abs(got - want) <= tol, (i, got, want)
    return n_singular


@pytest.fixture(scope="module")
def coco(coco_data):
    _, refs = coco_data.coco_val()
    ref_sets = list(refs.values())[:5000]
    return (
        ref_sets,
        ref.SelfCiderScorer(ref_sets),
        DocumentFrequencies.from_references(ref_sets, tokenizer="whitespace"),
    )


def test_coco_val_1000_images_match_the_authors_code(coco):
    ref_sets, scorer, df = coco
    sets = [s[:5] for s in ref_sets[:1000]]  # each image's 5 captions as its candidate set
    mean, divs, kernels = ref.self_cider(scorer, sets)
    got = sparsecider.self_cider(sets, df=df, tokenizer="whitespace", kernels=True)
    n_singular = check_against_oracle(got, divs, kernels)
    assert 0 < n_singular < 10  # a few images have two identical captions
    exact_mean = np.mean([exact_oracle(k) for k in kernels])
    assert abs(got.score - exact_mean) <= 1e-12
    assert abs(got.score - mean) <= 1e-10
    assert got.sizes.tolist() == [5] * 1000 and got.n_images == 1000


def test_coco_val_sets_of_other_sizes(coco):
    ref_sets, scorer, df = coco
    sets = [s for s in ref_sets if len(s) != 5]  # 6 and 7 captions
    sets += [s[:k] for k, s in zip([2, 3, 4, 8, 9, 10] * 20, ref_sets[:120], strict=True)]
    sets[-1] = ref_sets[0] + ref_sets[1]  # 10 captions from two images
    _, divs, kernels = ref.self_cider(scorer, sets)
    got = sparsecider.self_cider(sets, df=df, tokenizer="whitespace", kernels=True)
    assert {6, 7, 2, 3, 4, 10} <= set(got.sizes.tolist())
    check_against_oracle(got, divs, kernels)


def test_the_shipped_coco_df_is_the_authors_df(coco_data):
    """``df="coco-val2014"``: the references of every COCO val 2014 image,
    PTB-tokenized, one document per image, as ``eval_self_cider`` counts them."""
    _, refs = coco_data.coco_val()
    all_refs = list(refs.values())
    sets = [s[:5] for s in all_refs[1000:1200]]
    own = DocumentFrequencies.from_references(all_refs, tokenizer="whitespace")
    a = sparsecider.self_cider(sets, df="coco-val2014", tokenizer="whitespace")
    b = sparsecider.self_cider(sets, df=own, tokenizer="whitespace")
    assert np.array_equal(a.scores, b.scores)
    assert a.signature == (
        f"Self-CIDEr|n:4|df:coco-val2014(n_images=40504)|tok:whitespace|version:"
        f"{sparsecider.__version__}"
    )


SMALL_REFS = [
    ["a dog runs on the grass", "a brown dog plays in a park"],
    ["a man rides a horse on a beach", "two cats sleep on a red sofa"],
    ["a red bus stops at the station", "people wait for a bus"],
]


def test_edge_cases_against_the_oracle_and_by_hand():
    scorer = ref.SelfCiderScorer(SMALL_REFS)
    df = DocumentFrequencies.from_references(SMALL_REFS, tokenizer="whitespace")
    dog, cats = "a dog runs on the grass", "two cats sleep on a red sofa"
    sets = [
        [dog, dog, dog],  # identical: one direction, 0
        [dog],  # one candidate: log_1, nan in the authors' code
        ["", dog],  # an empty caption: a zero row, as if the set held dog alone
        ["", ""],  # nothing but zero vectors: 0 / 0
        [dog, "people wait for a bus"],  # nothing in common: orthogonal
        [dog, cats, dog, "a brown dog plays in a park"],
    ]
    _, divs, kernels = ref.self_cider(scorer, sets)
    got = sparsecider.self_cider(sets, df=df, tokenizer="whitespace", kernels=True)
    check_against_oracle(got, divs, kernels)
    s = got.scores
    assert s[0] == 0.0 and math.copysign(1, s[0]) == 1  # not -0.0
    assert math.isnan(s[1]) and math.isnan(s[3])
    # the corpus score: the mean over the sets that have one (the authors' sets always
    # have several captions; a set of one has no diversity to average in).  Expected: the
    # oracle's per-set values, exact on the singular kernels (their eigensolver's noise varies
    # with the machine: 1.4e-9 instead of 0 for the three identical captions on one machine)
    wants = [exact_oracle(k) if singular(k) else d for d, k in zip(divs, kernels, strict=True)]
    assert got.score == pytest.approx(float(np.nanmean(wants)), abs=1e-12)
    assert s[2] == 0.0
    # K / 10 = I (both captions have n-grams of every order 1..4): eigenvalues 1, 1
    assert s[4] == pytest.approx(-math.log(1 / 2) / math.log(2), abs=1e-15) == 1.0
    assert got.kernels[4].tolist() == [[10.0, 0.0], [0.0, 10.0]]
    assert got.kernels[1].shape == (1, 1)


def test_two_captions_by_hand():
    """Two captions: K / 10 = [[a, c], [c, b]] (a and b are 1 up to rounding),
    with eigenvalues (a + b) / 2 -+ sqrt(((a - b) / 2)**2 + c**2), so the
    diversity is -log2(sqrt(hi) / (sqrt(hi) + sqrt(lo)))."""
    df = DocumentFrequencies.from_references(SMALL_REFS, tokenizer="whitespace")
    pair = ["a dog runs on the grass", "a brown dog runs on the grass"]
    got = sparsecider.self_cider([pair], df=df, tokenizer="whitespace", kernels=True)
    (a, c), (c2, b) = (got.kernels[0] / 10).tolist()
    assert c == c2 and 0.2 < c < 0.9 and a == pytest.approx(1, abs=1e-15) == b
    half, root = (a + b) / 2, math.hypot((a - b) / 2, c)
    hi, lo = half + root, half - root
    want = -math.log2(math.sqrt(hi) / (math.sqrt(hi) + math.sqrt(lo)))
    assert got.scores[0] == pytest.approx(want, abs=1e-14)


def test_kernel_diversity_merges_repeated_rows_exactly():
    """Rows 0 and 2 repeat: the nonzero eigenvalues are those of
    D^1/2 K_u D^1/2 = [[2, sqrt(2)/2], [sqrt(2)/2, 1]], i.e. (3 +- sqrt(3)) / 2,
    and the third is exactly 0."""
    k = np.array([[1.0, 0.5, 1.0], [0.5, 1.0, 0.5], [1.0, 0.5, 1.0]])
    hi, lo = (3 + math.sqrt(3)) / 2, (3 - math.sqrt(3)) / 2
    want = -math.log(math.sqrt(hi) / (math.sqrt(hi) + math.sqrt(lo))) / math.log(3)
    zero_row = np.array([[1.0, 0.0], [0.0, 0.0]])
    got = kernel_diversity(np.stack([k, k]))
    assert got == pytest.approx([want, want], abs=1e-15)
    assert kernel_diversity(zero_row[None]).tolist() == [0.0]
    assert np.isnan(kernel_diversity(np.zeros((2, 3, 3)))).all()
    assert np.isnan(kernel_diversity(np.ones((4, 1, 1)))).all()
    assert kernel_diversity(np.zeros((0, 3, 3))).shape == (0,)


words = st.sampled_from(["a", "dog", "cat", "runs", "the", "red", "bus", "on"])
caption = st.lists(words, min_size=0, max_size=7).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    sets=st.lists(st.lists(caption, min_size=1, max_size=6), min_size=1, max_size=6),
    refs=st.lists(st.lists(caption, min_size=1, max_size=3), min_size=2, max_size=5),
)
def test_random_sets_match_the_oracle(sets, refs):
    if not any(c.split() for r in refs for c in r):
        refs = [*refs, ["a dog"]]
    scorer = ref.SelfCiderScorer(refs)
    _, divs, kernels = ref.self_cider(scorer, sets)
    df = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    got = sparsecider.self_cider(sets, df=df, tokenizer="whitespace", kernels=True)
    check_against_oracle(got, divs, kernels)


def test_raw_text_and_ids():
    """Raw captions go through the PTB tokenizer as one sequence, like the
    authors' ``PTBTokenizer`` call; a dict keeps its ids and order."""
    raw = {"x": ["A dog runs on the grass.", "A DOG runs on the grass!"], "y": ["Two cats."]}
    tokenized = [sparsecider.ptb_tokenize(v) for v in raw.values()]
    a = sparsecider.self_cider(raw, df=DocumentFrequencies.from_references(SMALL_REFS))
    b = sparsecider.self_cider(
        tokenized,
        df=DocumentFrequencies.from_references(SMALL_REFS),
        tokenizer="whitespace",
    )
    assert a.ids == ("x", "y") and b.ids is None
    assert np.array_equal(a.scores, b.scores, equal_nan=True) and a.scores[0] == 0.0
    assert a.kernels is None and a.sizes.tolist() == [2, 1]
    # "y" has one caption, no score: the mean is over "x" alone
    assert str(a).startswith("Self-CIDEr = 0.0000 | Self-CIDEr|n:4|df:precomputed(n_images=3,")


def test_errors():
    df = DocumentFrequencies.from_references(SMALL_REFS, tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"df='coco-val2014' \(the authors' choice"):
        sparsecider.self_cider([["a dog", "a cat"]], df="corpus")
    with pytest.raises(TypeError, match=r"candidate_sets\[1\] is a string; give each image"):
        sparsecider.self_cider([["a dog"], "a cat"], df=df)
    with pytest.raises(ValueError, match=r"candidate_sets\['b'\] is empty"):
        sparsecider.self_cider({"a": ["a dog"], "b": []}, df=df)
    with pytest.raises(ValueError, match="candidate_sets is empty"):
        sparsecider.self_cider([], df=df)
    with pytest.raises(TypeError, match=r"candidate_sets\[0\]\[1\] must be a string, got int"):
        sparsecider.self_cider([["a dog", 3]], df=df)
    with pytest.raises(TypeError, match="must be a list of caption lists"):
        sparsecider.self_cider("a dog", df=df)
    with pytest.raises(TypeError, match="required keyword-only argument: 'df'"):
        sparsecider.self_cider([["a dog"]])  # type: ignore[call-arg]


def test_threads_give_the_same_bits(coco_data):
    _, refs = coco_data.coco_val()
    sets = [s[:3] for s in list(refs.values())[:4200]]  # two shards of 2,100 images
    df = DocumentFrequencies.from_references(list(refs.values())[:4200], tokenizer="whitespace")
    one = sparsecider.self_cider(sets, df=df, tokenizer="whitespace", n_jobs=1, kernels=True)
    two = sparsecider.self_cider(sets, df=df, tokenizer="whitespace", n_jobs=2, kernels=True)
    assert np.array_equal(one.scores, two.scores)
    assert all(np.array_equal(a, b) for a, b in zip(one.kernels, two.kernels, strict=True))


def test_a_corpus_whose_candidates_are_its_references_is_tokenized_once():
    """The engine's one extension for candidate sets: the same list serves as
    candidates and references, tokenized once, with the statistics of a copy."""
    calls = []

    def words(captions):
        calls.append(len(captions))
        return [c.split() for c in captions]

    corpus = as_candidate_sets([["a dog runs", "a cat"], ["a red bus", "a bus", "a dog"]])
    df = DocumentFrequencies.from_references(SMALL_REFS, tokenizer="whitespace")
    same = statistics(corpus, n=4, clip=True, tokenizer=get_tokenizer(words), df=df)
    assert calls == [5]
    copy = type(corpus)(
        corpus.candidates, corpus.candidate_image, list(corpus.references),
        corpus.reference_offsets, None,
    )  # fmt: skip
    other = statistics(copy, n=4, clip=True, tokenizer=get_tokenizer(words), df=df)
    assert calls == [5, 5, 5]
    for name in ("dots", "candidate_norms", "reference_norms", "length_delta", "pair_candidate"):
        assert np.array_equal(getattr(same, name), getattr(other, name)), name
    assert same.dots.shape == (4, 2 * 2 + 3 * 3)


def test_command_line(tmp_path, capsys):
    """``sparsecider diversity``: a results file with several captions per image;
    document frequencies from every image of the references file (as the
    authors count them over captions_val2014.json), or a shipped name."""
    import json

    from sparsecider.cli import main

    results = [
        {"image_id": 1, "caption": "A dog runs on the grass."},
        {"image_id": 2, "caption": "A red bus."},
        {"image_id": 1, "caption": "A dog runs on the grass."},
        {"image_id": 2, "caption": "People wait for a bus."},
        {"image_id": 1, "caption": "Two cats sleep on a red sofa."},
    ]
    refs = {
        "images": [{"id": i} for i in (1, 2, 3)],
        "annotations": [
            {"image_id": 1, "id": 1, "caption": "A dog runs on the grass."},
            {"image_id": 2, "id": 2, "caption": "A red bus stops at the station."},
            {"image_id": 3, "id": 3, "caption": "A man rides a horse on a beach."},
        ],
    }
    (tmp_path / "res.json").write_text(json.dumps(results))
    (tmp_path / "refs.json").write_text(json.dumps(refs))
    out = tmp_path / "per_image.jsonl"
    argv = ["diversity", "-c", str(tmp_path / "res.json"), "-r", str(tmp_path / "refs.json")]
    assert main([*argv, "--per-image", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    sets = [[r["caption"] for r in results if r["image_id"] == i] for i in (1, 2)]
    raw_refs = [[a["caption"]] for a in refs["annotations"]]
    want = sparsecider.self_cider(sets, df=DocumentFrequencies.from_references(raw_refs))
    assert report["score"] == want.score and report["set_sizes"] == {"2": 1, "3": 1}
    assert report["signature"].startswith("Self-CIDEr|n:4|df:references(n_images=3,sha=")
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["self_cider"], r["n_captions"]) for r in lines] == [
        (1, want.scores[0], 3),
        (2, want.scores[1], 2),
    ]
    assert main(["diversity", "-c", str(tmp_path / "res.json"), "--df", "coco-val2014"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"].startswith(
        "Self-CIDEr|n:4|df:coco-val2014(n_images=40504)"
    )
    assert main(["diversity", "-c", str(tmp_path / "res.json")]) == 1
    assert "Self-CIDEr needs document frequencies: give -r REFS" in capsys.readouterr().err


def test_benchmark_code_runs(shared_data, tmp_path, monkeypatch):
    """``benchmarks/bench_variants.py`` at a tiny size: agreement only."""
    import json

    from benchmarks import bench_variants

    monkeypatch.setenv("SPARSECIDER_BENCHMARK_RESULTS", str(tmp_path))
    out = bench_variants.main(
        ["--images", "40", "--df-images", "2000", "--cider-r-images", "150", "--mbr-images", "4",
         "--repeat", "1", "--ref-repeat", "1"]
    )  # fmt: skip
    assert out["self_cider"]["agreement"]["max_abs_diff"] <= 1e-10
    assert out["cider_r"]["agreement"]["max_abs_diff_port"] <= 1e-12
    assert out["mbr"]["agreement"]["cider_d_calls"] == 40
    written = json.loads((tmp_path / "variants.json").read_text())
    assert written["self_cider"]["sizes"]["pairs"] == 4000
