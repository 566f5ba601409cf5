"""The pycocoevalcap replacement gives the real package's numbers, called as toolkits call it.

Expected values: ``tests/fixtures/pycocoevalcap_toolkit.json.gz``, written by
``make_pycocoevalcap_toolkit.py`` with the real pycocoevalcap 1.2 and Java
(its tokenizer and METEOR) on 300 COCO images; plus a live run of the real
package in a subprocess.  The calling patterns are those of evaluation
toolkits (lmms-eval, LAVIS, ...), written here from their description:

- ``COCOEvalCap(coco, cocoRes)`` on pycocotools objects, ``evaluate()``;
- per metric: ``COCOEvalCap`` for ``params`` and ``imgToAnns``, the
  tokenizer run again on both sides, then the one scorer (``Bleu(4)``'s
  score a list, one entry per order);
- ``BleuScorer`` / ``CiderScorer`` filled with ``+=``.

METEOR is the real Java METEOR in the fixture and ``sparsecider.compat.Meteor``
(no Java) in the replacement: it equals the jar on all but the images of
``METEOR_DIFFERENCES`` (the alignment search, being made exact), which the
tests bound; SPICE cannot run here (its Stanford CoreNLP models are not
downloaded), which the replacement's ``COCOEvalCap`` reports.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.fixtures.make_pycocoevalcap_toolkit import COLUMNS, OUT, toolkit_inputs

pytest.importorskip("pycocotools", reason="pycocotools comes with the `ref` extra")
ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-12
# images of the fixture whose METEOR differs from the jar's (measured: 21198, 289781,
# 418106; the corpus METEOR 3.6e-5 lower): bounds that may only shrink, 0 once the search
# is exact
METEOR_DIFFERENCES = 3
METEOR_CORPUS_GAP = 5e-5


@cache
def fixture() -> dict:
    with gzip.open(OUT, "rt", encoding="utf-8") as f:
        return json.load(f)


def java_or_skip() -> None:
    if shutil.which("java") is None:
        if os.environ.get("CI"):
            pytest.fail("CI has Java: METEOR runs there")
        pytest.skip("METEOR (Java) needs java on PATH")


@pytest.fixture
def replaced():
    from sparsecider.compat.hook import install, uninstall

    install(quiet=True)
    yield
    uninstall()


@pytest.fixture
def without_java(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a folder without java


def coco_objects():
    from pycocotools.coco import COCO

    dataset, results = toolkit_inputs()
    with contextlib.redirect_stdout(io.StringIO()):
        coco = COCO()
        coco.dataset = dataset
        coco.createIndex()
        return coco, coco.loadRes(results)


def assert_close(values, expected) -> None:
    assert len(values) == len(expected)
    worst = max(abs(float(v) - e) for v, e in zip(values, expected, strict=True))
    assert worst <= TOLERANCE


def assert_meteor_close(score, values, expected_score, expected) -> None:
    """METEOR against the jar's: equal but on at most METEOR_DIFFERENCES images."""
    assert len(values) == len(expected)
    differ = sum(abs(float(v) - e) > TOLERANCE for v, e in zip(values, expected, strict=True))
    assert differ <= METEOR_DIFFERENCES
    assert abs(score - expected_score) <= (METEOR_CORPUS_GAP if differ else TOLERANCE)


def test_cocoevalcap_on_pycocotools_objects(replaced):
    java_or_skip()
    from pycocoevalcap.eval import COCOEvalCap

    coco, coco_result = coco_objects()
    evaluation = COCOEvalCap(coco, coco_result)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        with pytest.warns(UserWarning, match="SPICE was not computed: its Stanford CoreNLP"):
            evaluation.evaluate()
    expected = fixture()
    assert evaluation.params["image_id"] == expected["image_ids"]
    assert list(evaluation.eval) == COLUMNS
    for column in COLUMNS:
        per_image = [evaluation.imgToEval[i][column] for i in expected["image_ids"]]
        if column == "METEOR":
            jar, jar_values = expected["eval"][column], expected["per_image"][column]
            assert_meteor_close(evaluation.eval[column], per_image, jar, jar_values)
            continue
        assert abs(evaluation.eval[column] - expected["eval"][column]) <= TOLERANCE, column
        assert_close(per_image, expected["per_image"][column])
    assert evaluation.evalImgs[0]["image_id"] == expected["image_ids"][0]
    with pytest.raises(KeyError, match="to do that once: python -c"):
        evaluation.eval["SPICE"]
    assert "computing METEOR score...\nMETEOR: 0.237" in printed.getvalue()
    assert evaluation.signatures["CIDEr"] == (
        "CIDEr-D|n:4|sigma:6|pycocoevalcap_replacement:1|df:corpus(n_images=300)|tok:whitespace"
        f"|version:{evaluation.signatures['CIDEr'].version}"
    )
    assert evaluation.signatures["METEOR"].startswith(
        "METEOR-1.5|lang:en|norm:yes|data:1e57b4c7+c147ac7d|snowball:2.2.0|"
        "pycocoevalcap_replacement:1|tok:whitespace|"
    )


def test_cocoevalcap_without_java_computes_everything_else(replaced, without_java):
    from pycocoevalcap.eval import COCOEvalCap, Meteor, Spice

    coco, coco_result = coco_objects()
    evaluation = COCOEvalCap(coco, coco_result)
    with contextlib.redirect_stdout(io.StringIO()):
        with pytest.warns(UserWarning) as caught:
            evaluation.evaluate()
    # METEOR needs no Java any more: only SPICE is left out
    assert [str(w.message).split(":")[0] for w in caught] == ["SPICE was not computed"]
    expected = fixture()
    assert list(evaluation.eval) == COLUMNS
    for column in evaluation.eval:
        if column != "METEOR":
            assert abs(evaluation.eval[column] - expected["eval"][column]) <= TOLERANCE
    per_image = [evaluation.imgToEval[i]["METEOR"] for i in expected["image_ids"]]
    assert_meteor_close(evaluation.eval["METEOR"], per_image, expected["eval"]["METEOR"],
                        expected["per_image"]["METEOR"])  # fmt: skip
    with pytest.raises(KeyError, match=r"SPICE is a Java program .* java is not on PATH"):
        evaluation.eval["SPICE"]
    with pytest.raises(RuntimeError, match="java is not on PATH"):
        Spice()
    assert Meteor().method() == "METEOR"


@pytest.mark.parametrize("metric", COLUMNS)
def test_one_metric_per_call_tokenizing_again(replaced, metric):
    # what lmms-eval's aggregation does for each of the seven columns
    from pycocoevalcap.eval import Bleu, Cider, COCOEvalCap, Meteor, Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    scorer = {"ROUGE_L": Rouge, "CIDEr": Cider, "METEOR": Meteor}.get(metric, lambda: Bleu(4))()
    coco, coco_result = coco_objects()
    evaluation = COCOEvalCap(coco, coco_result)
    ids = evaluation.params["image_id"]
    gts = {i: evaluation.coco.imgToAnns[i] for i in ids}
    res = {i: evaluation.cocoRes.imgToAnns[i] for i in ids}
    tokenizer = PTBTokenizer()
    gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
    with contextlib.redirect_stdout(io.StringIO()):
        score, scores = scorer.compute_score(gts, res)
    if isinstance(score, list):
        order = int(metric[-1]) - 1
        score, scores = score[order], scores[order]
    expected = fixture()
    if metric == "METEOR":
        assert type(score) is float and type(scores) is list  # as the reference's
        assert_meteor_close(score, scores, expected["eval"][metric], expected["per_image"][metric])
        return
    assert abs(score - expected["eval"][metric]) <= TOLERANCE
    assert_close(scores, expected["per_image"][metric])


def test_bleu_returns_lists_as_the_reference(replaced):
    from pycocoevalcap.bleu.bleu import Bleu

    gts = {1: ["a dog runs on the grass", "the dog is running"], 2: ["a red bus"]}
    res = {1: ["a dog running"], 2: ["a bus"]}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        score, scores = Bleu(4).compute_score(gts, res)
    assert type(score) is list and len(score) == 4 and all(type(s) is float for s in score)
    assert type(scores) is list and [len(order) for order in scores] == [2, 2, 2, 2]
    # pycocoevalcap 1.2's values (its Bleu(4) on these captions)
    assert score == [0.6703200457675116, 0.3870094588412746, 4.647739610115417e-06,
                     2.8641904563087653e-06]  # fmt: skip
    assert printed.getvalue().startswith("{'testlen': 5, 'reflen': 7,")


def test_the_scorers_built_with_iadd(replaced):
    from pycocoevalcap.bleu.bleu_scorer import BleuScorer
    from pycocoevalcap.cider.cider_scorer import CiderScorer
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    coco, coco_result = coco_objects()
    expected = fixture()
    ids = expected["image_ids"]
    tokenizer = PTBTokenizer()
    gts = tokenizer.tokenize({i: coco.imgToAnns[i] for i in ids})
    res = tokenizer.tokenize({i: coco_result.imgToAnns[i] for i in ids})
    shortest = BleuScorer(n=4)
    for i in ids:
        shortest += (res[i][0], gts[i])
    score, scores = shortest.compute_score(option="shortest")
    assert_close(score, expected["bleu_scorer_shortest"]["score"])
    for order, values in zip(scores, expected["bleu_scorer_shortest"]["scores"], strict=True):
        assert_close(order, values)
    for i, values in zip(ids, expected["bleu_scorer_single_average"], strict=False):
        alone = BleuScorer(n=4)
        alone += (res[i][0], gts[i])
        assert_close(alone.compute_score()[0], values)  # "average": one entry's default
    cider = CiderScorer(n=4, sigma=6.0)
    for i in ids:
        cider += (res[i][0], gts[i])
    for i, j in itertools.pairwise(ids[:21]):
        cider += (res[j][0], gts[i])
    score, scores = cider.compute_score()
    assert abs(score - expected["cider_scorer"]["score"]) <= TOLERANCE
    assert_close(scores, expected["cider_scorer"]["scores"])
    assert cider.signature.df == "corpus(n_images=320)"


LIVE = """
import contextlib, io, json, sys
sys.path.insert(0, {root!r})
from pycocoevalcap.eval import Bleu, Cider, PTBTokenizer, Rouge
from tests.fixtures.make_pycocoevalcap_toolkit import toolkit_inputs
assert not hasattr(sys.modules["pycocoevalcap.eval"], "__sparsecider__")
dataset, results = toolkit_inputs()
ids = [r["image_id"] for r in results][:40]
gts = {{i: [a for a in dataset["annotations"] if a["image_id"] == i] for i in ids}}
res = {{r["image_id"]: [r] for r in results if r["image_id"] in gts}}
tokenizer = PTBTokenizer()
gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
with contextlib.redirect_stdout(io.StringIO()):
    bleu = Bleu(4).compute_score(gts, res)
out = {{"ids": ids, "bleu": bleu, "rouge": Rouge().compute_score(gts, res)[1].tolist(),
        "cider": Cider().compute_score(gts, res)[1].tolist()}}
print(json.dumps(out))
"""


def test_against_the_real_package_live(replaced):
    """The real package, Java tokenizer included, in a process without the replacement."""
    java_or_skip()
    env = {k: v for k, v in os.environ.items() if k != "SPARSECIDER_REPLACE_PYCOCOEVALCAP"}
    out = subprocess.run(
        [sys.executable, "-c", LIVE.format(root=str(ROOT))], env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    real = json.loads(out.stdout)
    from pycocoevalcap.eval import Bleu, Cider, PTBTokenizer, Rouge

    dataset, results = toolkit_inputs()
    ids = real["ids"]
    gts = {i: [a for a in dataset["annotations"] if a["image_id"] == i] for i in ids}
    res = {r["image_id"]: [r] for r in results if r["image_id"] in gts}
    tokenizer = PTBTokenizer()
    gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
    score, scores = Bleu(4).compute_score(gts, res, verbose=0)
    assert_close(score, real["bleu"][0])
    for order, values in zip(scores, real["bleu"][1], strict=True):
        assert_close(order, values)
    assert_close(Rouge().compute_score(gts, res)[1], real["rouge"])
    assert_close(Cider().compute_score(gts, res)[1], real["cider"])


def test_signatures_say_the_replacement_computed_them(replaced):
    from pycocoevalcap.eval import Bleu, Cider, Rouge

    import sparsecider

    gts = {1: ["a dog runs on the grass"], 2: ["a red bus"]}
    res = {1: ["a dog running"], 2: ["a bus"]}
    for scorer, function in ((Bleu(4), sparsecider.bleu), (Rouge(), sparsecider.rouge_l),
                             (Cider(), sparsecider.cider_d)):  # fmt: skip
        with contextlib.redirect_stdout(io.StringIO()):
            scorer.compute_score(gts, res)
        plain = function([res[1][0], res[2][0]], [gts[1], gts[2]], tokenizer="whitespace")
        assert scorer.signature == plain.signature.replace(
            params=(("pycocoevalcap_replacement", 1),)
        )


def test_install_is_idempotent_and_uninstall_gives_the_real_package_back():
    import pycocoevalcap.eval as real_eval

    from sparsecider.compat.hook import ENV, install, uninstall

    assert not hasattr(real_eval, "__sparsecider__")
    before = [f for f in sys.meta_path]
    install(quiet=True)
    install()
    try:
        assert len(sys.meta_path) == len(before) + 1
        assert os.environ[ENV] == "quiet"
        import pycocoevalcap.eval as replaced_eval

        assert replaced_eval.__sparsecider__.startswith("sparsecider ")
    finally:
        uninstall()
    uninstall()
    assert sys.meta_path == before and ENV not in os.environ
    import pycocoevalcap.eval as again

    assert again is real_eval


def test_a_java_free_meteor_in_compat_is_used_the_day_it_exists(monkeypatch, without_java):
    from sparsecider import compat
    from sparsecider.compat.hook import install, uninstall

    class Meteor:  # stands for sparsecider.compat.Meteor (METEOR 1.5 without Java)
        def compute_score(self, gts, res):
            return 0.5, [0.5] * len(gts)

        def method(self):
            return "METEOR"

    monkeypatch.setattr(compat, "Meteor", Meteor, raising=False)
    install(quiet=True)
    try:
        import pycocoevalcap.eval
        import pycocoevalcap.meteor.meteor

        assert pycocoevalcap.meteor.meteor.Meteor is Meteor is pycocoevalcap.eval.Meteor
        coco, coco_result = coco_objects()
        evaluation = pycocoevalcap.eval.COCOEvalCap(coco, coco_result)
        with contextlib.redirect_stdout(io.StringIO()):
            with pytest.warns(UserWarning, match="SPICE was not computed: SPICE is a Java"):
                evaluation.evaluate()
        assert evaluation.eval["METEOR"] == 0.5 and list(evaluation.eval) == COLUMNS
    finally:
        uninstall()


def test_meteor_is_sparseciders_and_needs_no_java(replaced, without_java):
    import pycocoevalcap.eval
    import pycocoevalcap.meteor.meteor

    from sparsecider import compat

    assert pycocoevalcap.meteor.meteor.Meteor is compat.Meteor is pycocoevalcap.eval.Meteor
    gts = {"x": ["a man is riding a horse on the beach"], "y": ["two cats sleep on a sofa"]}
    res = {"x": ["a person rides a horse at the beach"], "y": ["two cats sleeping on a couch"]}
    score, scores = pycocoevalcap.meteor.meteor.Meteor().compute_score(gts, res)
    # the real Meteor's (the jar's) numbers; the corpus score is not the mean
    assert (score, scores) == (0.43664283756229116, [0.3690472491619305, 0.85])
