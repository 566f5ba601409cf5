"""The faces of METEOR 1.5 without Java: ``sparsecider.meteor``, ``compat.Meteor``,
``COCOEvalCap``, the command line and the accumulator, against the jar's numbers.

Expected values come from the jar: the 29 pairs of ``tests/fixtures/meteor_examples.json``
(``make_meteor_fixtures.py``), and numbers written below, each printed by the real
pycocoevalcap 1.2 (its Java ``PTBTokenizer`` where the captions are raw, then its
``Meteor``) on the captions shown.  Bad input, the missing extra and damaged data files:
``test_meteor_inputs.py``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import io
import json
import pickle
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "pycocoevalcap", reason="METEOR reads its data from pycocoevalcap (the `meteor` extra)"
)
pytest.importorskip("snowballstemmer", reason="METEOR needs snowballstemmer (the `meteor` extra)")

import sparsecider
from sparsecider import CiderAccumulator
from sparsecider.cli import main
from sparsecider.compat import COCOEvalCap, Meteor

FIXTURES = Path(__file__).parent / "fixtures"

# pycocoevalcap 1.2 (Java PTBTokenizer, then Meteor) on these raw captions: 0.39952223931381325,
# [0.409431138876279, 0.48704502558483637, 0.29170666383042776]
REFS = [
    ["A dog runs on grass.", "The dog runs!"],
    ["A red bus.", "A bus stops."],
    ["A cat sleeps."],
]
CANDS = ["A dog runs.", "A red bus stops.", "A cat."]
JAR_SCORE = 0.39952223931381325
JAR_SCORES = [0.409431138876279, 0.48704502558483637, 0.29170666383042776]

# pycocoevalcap's Meteor on tokenized captions: 0.43664283756229116 (not the mean of the
# segment scores, 0.6095: the corpus score comes from the summed statistics)
GTS = {"x": ["a man is riding a horse on the beach"], "y": ["two cats sleep on a sofa"]}
RES = {"x": ["a person rides a horse at the beach"], "y": ["two cats sleeping on a couch"]}
JAR_CORPUS = 0.43664283756229116
JAR_SEGMENTS = [0.3690472491619305, 0.85]


@pytest.fixture(scope="module")
def examples():
    with open(FIXTURES / "meteor_examples.json", encoding="utf-8") as f:
        return json.load(f)


def test_meteor_equals_the_jar_on_its_examples(examples):
    ex = examples["examples"]
    r = sparsecider.meteor([e["hyp"] for e in ex], [e["refs"] for e in ex], tokenizer="whitespace")
    assert r.statistics.tolist() == [e["stats"] for e in ex]
    assert r.scores.tolist() == [e["score"] for e in ex]
    assert r.score == examples["corpus"]
    assert r.metric == "METEOR" and r.n_images == r.n_candidates == len(ex)
    assert r.statistics.dtype == np.int64 and not r.statistics.flags.writeable
    assert r.per_order.shape == (len(ex), 1)


def test_raw_text_is_tokenized_as_cocoevalcap_does():
    r = sparsecider.meteor(CANDS, REFS)
    assert r.score == JAR_SCORE and r.scores.tolist() == JAR_SCORES


def test_the_corpus_score_sums_the_statistics():
    r = sparsecider.meteor({k: v[0] for k, v in RES.items()}, GTS, tokenizer="whitespace")
    assert r.score == JAR_CORPUS and r.scores.tolist() == JAR_SEGMENTS
    assert r.ids == ("x", "y")
    assert abs(r.scores.mean() - 0.6095236245809653) < 1e-15  # the mean, another number


def test_every_input_shape_gives_the_same_numbers():
    lists = sparsecider.meteor(CANDS, REFS)
    ids = [10, 20, 30]
    dicts = sparsecider.meteor(dict(zip(ids, CANDS, strict=True)),
                               dict(zip(reversed(ids), reversed(REFS), strict=True)))  # fmt: skip
    assert dicts.ids == (10, 20, 30) and dicts.scores.tolist() == lists.scores.tolist()
    # two candidates for the first image: each scored, each adding to the corpus statistics
    nested = sparsecider.meteor([[CANDS[0], CANDS[1]], CANDS[1], CANDS[2]], REFS)
    assert nested.image_index.tolist() == [0, 0, 1, 2]
    assert nested.scores[[0, 2, 3]].tolist() == JAR_SCORES
    from sparsecider.metrics.meteor import corpus_score, summed

    assert nested.score == corpus_score(summed(nested.statistics))


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_signature_pins_everything_the_number_depends_on():
    r = sparsecider.meteor(CANDS, REFS)
    spec = importlib.machinery.PathFinder.find_spec("pycocoevalcap")
    folder = next(
        Path(p) / "meteor"
        for p in spec.submodule_search_locations
        if (Path(p) / "meteor" / "meteor-1.5.jar").is_file()
    )
    jar, paraphrase = folder / "meteor-1.5.jar", folder / "data" / "paraphrase-en.gz"
    data = f"{_sha256(jar)[:8]}+{_sha256(paraphrase)[:8]}"
    assert r.signature == (
        f"METEOR-1.5|lang:en|norm:yes|data:{data}|snowball:2.2.0|tok:ptb"
        f"|version:{sparsecider.__version__}"
    )
    s = r.signature
    assert (s.metric, s.tokenizer, dict(s.params)["data"]) == ("METEOR-1.5", "ptb", data)
    assert pickle.loads(pickle.dumps(s)) == s
    assert sparsecider.meteor(CANDS, REFS, tokenizer="whitespace").signature.tokenizer == (
        "whitespace"
    )
    assert str(r).startswith("METEOR = 0.3995 | METEOR-1.5|")


def test_compat_meteor_is_pycocoevalcaps(examples):
    ex = examples["examples"]
    # ids in a non-sorted order: the scores follow gts's keys, as the reference's loop
    ids = [100 - i for i in range(len(ex))]
    gts = {i: e["refs"] for i, e in zip(ids, ex, strict=True)}
    res = {i: [e["hyp"]] for i, e in zip(reversed(ids), reversed(ex), strict=True)}
    scorer = Meteor()
    score, scores = scorer.compute_score(gts, res)
    assert type(score) is float and type(scores) is list and type(scores[0]) is float
    assert score == examples["corpus"] and scores == [e["score"] for e in ex]
    assert scorer.method() == "METEOR"
    assert scorer.signature.tokenizer == "whitespace"
    assert Meteor().compute_score(GTS, RES) == (JAR_CORPUS, JAR_SEGMENTS)


def test_compat_meteor_checks_what_the_reference_asserts():
    with pytest.raises(ValueError, match=r"only in gts: \['y'\]; only in res: \['z'\]"):
        Meteor().compute_score(GTS, {"x": RES["x"], "z": RES["y"]})
    with pytest.raises(ValueError, match=r"res\['y'\] must hold exactly one caption, got 2"):
        Meteor().compute_score(GTS, {"x": RES["x"], "y": RES["y"] * 2})
    with pytest.raises(TypeError, match=r"res\['y'\] must be a list holding one caption"):
        Meteor().compute_score(GTS, {"x": RES["x"], "y": RES["y"][0]})


def test_cocoevalcap_fills_meteor_without_java(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no java
    images = [{"id": i} for i in range(3)]
    anns = [{"image_id": i, "caption": c} for i, rs in enumerate(REFS) for c in rs]
    results = [{"image_id": i, "caption": c} for i, c in enumerate(CANDS)]
    e = COCOEvalCap({"images": images, "annotations": anns}, results)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        e.evaluate()
    assert list(e.eval) == ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]
    assert e.eval["METEOR"] == JAR_SCORE
    assert [e.imgToEval[i]["METEOR"] for i in range(3)] == JAR_SCORES
    assert "computing METEOR score...\nMETEOR: 0.400\n" in printed.getvalue()
    assert "SPICE was not computed: sparsecider computes BLEU, METEOR" in printed.getvalue()
    only = COCOEvalCap({"images": images, "annotations": anns}, results, verbose=False,
                       metrics=["METEOR"])  # fmt: skip
    only.evaluate()
    assert dict(only.eval) == {"METEOR": JAR_SCORE}


def test_accumulated_states_merge_to_the_whole_exactly():
    refs = {i: r for i, r in enumerate(REFS)} | {"x": GTS["x"], "y": GTS["y"]}
    refs = {str(k): v for k, v in refs.items()}
    cands = dict(zip(refs, [*CANDS, RES["x"][0], RES["y"][0]], strict=True))
    whole = sparsecider.meteor(cands, refs)
    ranks = [CiderAccumulator("METEOR") for _ in range(3)]
    keys = list(refs)
    for k, rank in zip((keys[:1], keys[1:4], keys[4:]), ranks, strict=True):
        rank.update({i: cands[i] for i in k}, {i: refs[i] for i in k})
    states = [pickle.loads(pickle.dumps(rank.state())) for rank in ranks]
    assert states[1]["statistics"].shape == (3, 23) and states[1]["kind"] == "meteor"
    merged = ranks[0].merge(states[1], states[2]).compute()
    assert merged.score == whole.score and merged.ids == whole.ids
    assert merged.statistics.tolist() == whole.statistics.tolist()
    assert merged.scores.tolist() == whole.scores.tolist()
    assert merged.signature == whole.signature
    restored = CiderAccumulator.from_state(states[2]).compute()
    assert restored.scores.tolist() == whole.scores.tolist()[4:]


def test_accumulator_states_are_checked():
    acc = CiderAccumulator("METEOR", tokenizer="whitespace")
    acc.update({"x": RES["x"][0]}, {"x": GTS["x"]})
    state = acc.state()
    with pytest.raises(ValueError, match=r"tokenizer .'whitespace' here, 'ptb' in the other"):
        acc.merge(CiderAccumulator("METEOR").state())
    other = {**state, "options": {**state["options"], "meteor_data": "00000000+00000000"}}
    with pytest.raises(ValueError, match="meteor_data"):
        CiderAccumulator("METEOR", tokenizer="whitespace").merge(other)
    bad = state["statistics"].astype(np.int64)
    bad[0, 21] = bad[0, 0] + 1  # more matched words than the candidate has
    with pytest.raises(ValueError, match="row 0 matches more words than it has"):
        CiderAccumulator.from_state({**state, "statistics": bad})
    with pytest.raises(ValueError, match="must have shape"):
        CiderAccumulator.from_state({**state, "statistics": bad[:, :22]})
    with pytest.raises(ValueError, match="METEOR takes no n"):
        CiderAccumulator("METEOR", n=4)
    with pytest.raises(ValueError, match="METEOR takes 'ptb'"):
        CiderAccumulator("METEOR", tokenizer="char")


def _files(tmp_path):
    refs, cands = tmp_path / "refs.jsonl", tmp_path / "cands.jsonl"
    refs.write_text("".join(json.dumps({"id": i, "references": r}) + "\n"
                            for i, r in enumerate(REFS)), encoding="utf-8")  # fmt: skip
    cands.write_text("".join(json.dumps({"id": i, "caption": c}) + "\n"
                             for i, c in enumerate(CANDS)), encoding="utf-8")  # fmt: skip
    return str(refs), str(cands)


def test_cli_scores_meteor(tmp_path, capsys):
    refs, cands = _files(tmp_path)
    assert main(["score", "-r", refs, "-c", cands, "--metric", "meteor"]) == 0
    out = json.loads(capsys.readouterr().out)
    entry = out["systems"][0] if "systems" in out else out
    assert entry["scores"] == {"METEOR": JAR_SCORE}
    assert entry["signatures"]["METEOR"].startswith("METEOR-1.5|lang:en|norm:yes|data:")
    per_image = tmp_path / "per_image.jsonl"
    assert main(["score", "-r", refs, "-c", cands, "--metric", "bleu,meteor,rouge-l,cider-d",
                 "--format", "table", "--per-image", str(per_image)]) == 0  # fmt: skip
    table = capsys.readouterr().out
    assert "| BLEU-1 | BLEU-2 | BLEU-3 | BLEU-4 | METEOR | ROUGE-L | CIDEr-D |" in table
    assert "METEOR: METEOR-1.5|lang:en|" in table
    rows = [json.loads(line) for line in per_image.read_text().splitlines()]
    assert [row["METEOR"] for row in rows] == JAR_SCORES


def test_cli_refuses_a_bootstrap_of_the_summed_meteor(tmp_path, capsys):
    refs, cands = _files(tmp_path)
    assert main(["score", "-r", refs, "-c", cands, "--metric", "meteor", "--bootstrap", "10"]) == 1
    assert "corpus BLEU and METEOR are not means over images" in capsys.readouterr().err
    assert main(["score", "-r", refs, "-c", cands, "--metric", "meteor", "--tokenizer",
                 "char"]) == 1  # fmt: skip
    assert "METEOR takes 'ptb'" in capsys.readouterr().err
