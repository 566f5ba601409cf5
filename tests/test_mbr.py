"""Consensus (MBR) selection against a brute-force loop over ``sparsecider.cider_d`` calls."""

from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import DocumentFrequencies, SmallCorpusWarning, mbr_select


def brute_force(sets, references=None, *, df=None, tokenizer="whitespace", **options):
    """Each candidate's score by one ``cider_d`` call, then the first best of each set.

    Consensus: the candidate against the other candidates of its set, with
    document frequencies from the candidate sets (one document per set)
    unless ``df`` is given.  Oracle: the candidate against its references,
    with document frequencies from all references.
    """
    if references is None:
        df = df or DocumentFrequencies.from_references(sets, tokenizer=tokenizer)
    else:
        df = df or DocumentFrequencies.from_references(references, tokenizer=tokenizer)
    scores = []
    for i, cands in enumerate(sets):
        row = []
        for a, cand in enumerate(cands):
            against = [references[i]] if references is not None else [cands[:a] + cands[a + 1 :]]
            if not against[0]:
                row.append(math.nan)  # a set of one: nobody to agree with
                continue
            result = sparsecider.cider_d([cand], against, df=df, tokenizer=tokenizer, **options)
            row.append(result.score)
        scores.append(row)
    index = [max(range(len(row)), key=lambda a, row=row: (row[a], -a)) for row in scores]
    return index, scores


@contextlib.contextmanager
def quiet():
    """Random corpora are small on purpose: no advice about corpus document frequencies."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallCorpusWarning)
        warnings.filterwarnings("ignore", "scoring a single image", UserWarning)
        yield


words = st.sampled_from(["a", "dog", "cat", "runs", "the", "red", "bus", "on", "grass"])
caption = st.lists(words, min_size=0, max_size=8).map(" ".join)
candidate_sets = st.lists(st.lists(caption, min_size=1, max_size=5), min_size=1, max_size=6)


def check(got, index, scores):
    flat = [s for row in scores for s in row]
    np.testing.assert_allclose(got.candidate_scores, flat, rtol=0, atol=1e-12)
    assert got.index.tolist() == index
    chosen = [row[i] for row, i in zip(scores, index, strict=True)]
    np.testing.assert_allclose(got.scores, chosen, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(sets=candidate_sets)
def test_consensus_equals_a_loop_of_cider_d_calls(sets):
    if not any(c.split() for s in sets for c in s):
        sets = [*sets, ["a dog runs"]]  # corpus df needs a word somewhere
    with quiet():
        got = mbr_select(sets, tokenizer="whitespace")
    index, scores = brute_force(sets)
    check(got, index, scores)
    assert got.captions == [s[i] for s, i in zip(sets, index, strict=True)]


@settings(max_examples=30, deadline=None)
@given(sets=candidate_sets, refs=st.lists(st.lists(caption, min_size=1, max_size=3), min_size=3))
def test_consensus_with_fitted_df_and_oracle_selection(sets, refs):
    refs = [*refs, ["a red bus on the grass"]]
    df = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    got = mbr_select(sets, df=df, tokenizer="whitespace", sigma=3.0, n=3)
    check(got, *brute_force(sets, df=df, sigma=3.0, n=3))
    # the oracle: against the first len(sets) reference lists
    own = refs[: len(sets)] + [["a dog"]] * max(0, len(sets) - len(refs))
    if not any(r.split() for rs in own for r in rs):
        own[0] = [*own[0], "a dog"]
    with quiet():
        oracle = mbr_select(sets, own, against="references", tokenizer="whitespace")
        check(oracle, *brute_force(sets, own))


def test_coco_val_consensus_and_oracle(coco_data):
    """300 COCO val images, each with its 5 captions plus the random-submission
    caption (a human caption of another image) as candidates."""
    cands, refs = coco_data.coco_val()
    ids = list(refs)[:300]
    sets = {i: [*refs[i][:5], cands[i]] for i in ids}
    got = mbr_select(sets, df="coco-val2014", tokenizer="whitespace")
    coco = DocumentFrequencies.named("coco-val2014")
    index, scores = brute_force(list(sets.values()), df=coco)
    check(got, index, scores)
    assert got.ids == tuple(ids)
    # the stray caption rarely agrees with the image's own five
    assert (got.index == 5).mean() < 0.02
    rest = [refs[i][5:] or ["a photo"] for i in ids]
    oracle = mbr_select(sets, dict(zip(ids, rest, strict=True)), against="references",
                        df="coco-val2014", tokenizer="whitespace")  # fmt: skip
    check(oracle, *brute_force(list(sets.values()), rest, df=coco))


def test_ties_sets_of_one_and_signature():
    sets = [["a cat", "a cat sleeps"], ["a dog runs on the grass"], ["x y", "x y", "z"]]
    with pytest.warns(SmallCorpusWarning):
        got = mbr_select(sets, tokenizer="whitespace")
    index, scores = brute_force(sets)
    check(got, index, scores)
    assert got.index.tolist() == [0, 0, 0]  # the first of equal scores
    # a set of one has no consensus score; the mean is over the other sets (brute force)
    best = [row[k] for row, k in zip(scores, index, strict=True)]
    assert math.isnan(got.scores[1]) and got.score == pytest.approx((best[0] + best[2]) / 2)
    assert got.signature == (
        f"MBR-CIDEr-D|n:4|sigma:6|df:corpus(n_images=3)|tok:whitespace|version:"
        f"{sparsecider.__version__}"
    )
    oracle = mbr_select(sets, [["a cat"], ["a dog"], ["z"]], against="references",
                        df="coco-val2014", tokenizer="whitespace")  # fmt: skip
    assert oracle.index.tolist() == [0, 0, 2]
    assert str(oracle).startswith("oracle-CIDEr-D = ")
    assert oracle.n_images == 3 and oracle.image_index.tolist() == [0, 0, 1, 2, 2, 2]


def test_errors():
    with pytest.raises(ValueError, match="against must be 'candidates' or 'references'"):
        mbr_select([["a", "b"]], against="others")
    with pytest.raises(ValueError, match=r"against='references' scores .* pass references"):
        mbr_select([["a", "b"]], against="references")
    with pytest.raises(ValueError, match="references are used only with against='references'"):
        mbr_select([["a", "b"]], [["a"]])
    with pytest.raises(TypeError, match=r"candidate_sets\[0\] is a string"):
        mbr_select(["a dog"], df="coco-val2014")
    with pytest.raises(ValueError, match="candidates has 2 images but references has 1"):
        mbr_select([["a"], ["b"]], [["a"]], against="references")
    with pytest.raises(ValueError, match="same image ids"):
        mbr_select({"x": ["a"]}, {"y": ["a"]}, against="references")
    with pytest.raises(ValueError, match="every candidate is empty after tokenization"):
        mbr_select([["", " "], ["."]], tokenizer="ptb")


def test_command_line(tmp_path, capsys):
    """``sparsecider select``: JSON lines with several captions per image in,
    a COCO results file with the chosen caption of each image out."""
    import json

    from sparsecider.cli import main

    lines = [
        {"id": "a", "candidate": ["a dog runs on the grass", "a dog on the grass", "a red bus"]},
        {"id": "b", "candidate": "a cat sleeps on a sofa"},
        {"id": "b", "candidate": "a cat on a red sofa"},
    ]
    cands = tmp_path / "nbest.jsonl"
    cands.write_text("".join(json.dumps(row) + "\n" for row in lines))
    refs = tmp_path / "refs.jsonl"
    refs.write_text(
        json.dumps({"id": "a", "references": ["a red bus on a road"]})
        + "\n"
        + json.dumps({"id": "b", "references": ["a cat on a red sofa"]})
        + "\n"
    )
    out, per_image = tmp_path / "chosen.json", tmp_path / "scores.jsonl"
    common = ["-c", str(cands), "--tokenizer", "whitespace", "--df", "coco-val2014"]
    assert main(["select", *common, "-o", str(out), "--per-image", str(per_image)]) == 0
    report = json.loads(capsys.readouterr().out)
    sets = [lines[0]["candidate"], [lines[1]["candidate"], lines[2]["candidate"]]]
    want = mbr_select(sets, df="coco-val2014", tokenizer="whitespace")
    assert report["score"] == want.score and report["metric"] == "MBR-CIDEr-D"
    assert json.loads(out.read_text()) == [
        {"image_id": "a", "caption": want.captions[0]},
        {"image_id": "b", "caption": want.captions[1]},
    ]
    rows = [json.loads(line) for line in per_image.read_text().splitlines()]
    assert [r["index"] for r in rows] == want.index.tolist()
    assert (
        main(["select", *common, "-o", str(out), "-r", str(refs), "--against", "references"]) == 0
    )
    capsys.readouterr()
    assert [r["caption"] for r in json.loads(out.read_text())] == [
        "a red bus",
        "a cat on a red sofa",
    ]
    assert main(["select", *common, "-o", str(out), "--against", "references"]) == 1
    assert "--against references needs -r REFS" in capsys.readouterr().err
