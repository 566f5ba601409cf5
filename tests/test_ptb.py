"""The pure-Python PTB tokenizer against the reference Java pipeline's output."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider.compat import COCOEvalCap, PTBTokenizer
from sparsecider.tokenizers.ptb import _exact_tokenize, ptb_tokenize

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def ground_truth(shared_data):
    return shared_data.ptb_ground_truth()


def test_every_shared_real_caption(ground_truth):
    """100% on the reference pipeline's output for every shared caption set."""
    total = 0
    for name, (raw, want) in ground_truth.items():
        got = ptb_tokenize(raw)
        wrong = [(r, g, w) for r, g, w in zip(raw, got, want, strict=True) if g != w]
        assert not wrong, f"{name}: {len(wrong)} of {len(raw)} differ, e.g. {wrong[:3]}"
        total += len(raw)
    assert total == 325_938


def test_adversarial_suite():
    """934 hand-written hard captions, ground truth from the real jar
    (tests/fixtures/make_ptb_adversarial.py): at least 99.5% required."""
    suite = json.loads((FIXTURES / "ptb_adversarial.json").read_text(encoding="utf-8"))
    raw = [row["caption"] for row in suite]
    want = [row["ptb"] for row in suite]
    got = ptb_tokenize(raw)
    agree = sum(g == w for g, w in zip(got, want, strict=True))
    assert len(suite) >= 500
    assert agree / len(suite) >= 0.995
    # currently every one agrees; keep it that way
    assert [(r, g, w) for r, g, w in zip(raw, got, want, strict=True) if g != w] == []


def test_fast_path_equals_the_exact_lexer(ground_truth):
    """The fast path gives what the exact lexer gives, on a large sample of
    real captions (most of which take the fast path) and the whole suite."""
    rng = random.Random(0)
    raw = []
    for captions, _ in ground_truth.values():
        raw += rng.sample(captions, min(len(captions), 3000))
    suite = json.loads((FIXTURES / "ptb_adversarial.json").read_text(encoding="utf-8"))
    raw += [row["caption"] for row in suite]
    assert ptb_tokenize(raw) == _exact_tokenize(raw)


PIECES = [
    "a", "A", "dog", "Dog", "DOGS", "man's", "it's", "they're", "we've", "I'll", "isn't", "can't",
    "don't", "cannot", "gonna", "Gotta", "wanna", "t-shirt", "x-ray", "3-4", "12-25-2014", "10",
    "2", "3.5", "1/2", "1,000", "$5", "10%", "U.S.", "K.", "Mr.", "etc.", "no.", "art.", "St.",
    "e.g.", "p.m.", ".", ",", "!", "?", "?!", "...", ". .", "--", "-", "(", ")", "[", "]", '"',
    "'", "`", "&amp;", "&", "@", "#tag", "a@b.com", "www.x.com", "http://x.org/a", "½", "£3",
    "€", "café", "日本", "🐕", "\u00a0", "\u3000", "\t", "  ", "o'clock", "'s", "n't", "y'all",
    "C++", "<b>", ":)", "555-1234", "(555) 123-4567", "1 1/2",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(PIECES), max_size=8).map(" ".join)
        | st.lists(st.sampled_from(PIECES), max_size=5).map("".join),
        min_size=1,
        max_size=4,
    )
)
def test_fast_path_equals_exact_lexer_on_random_captions(captions):
    assert ptb_tokenize(captions) == _exact_tokenize(captions)


def test_end_of_input():
    # verified on the jar: with nothing after it, a two-letter clitic loses
    # to the quote rule ("they ` re"); with a following caption it does not
    assert ptb_tokenize(["they're"]) == ["they re"]
    assert ptb_tokenize(["they're", "ok"]) == ["they 're", "ok"]
    assert ptb_tokenize(["it's"]) == ["it 's"]


def test_lookahead_across_captions():
    # tests/SPEC.md, section 4: a caption-final "K." depends on how the next caption begins
    assert ptb_tokenize(["A sign that reads K.", "A dog runs."])[0] == "a sign that reads k"
    assert ptb_tokenize(["A sign that reads K.", "a dog runs."])[0] == "a sign that reads k."
    assert ptb_tokenize(["A sign that reads K."]) == ["a sign that reads k."]


@pytest.mark.parametrize("sep", ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x85", "\u2028", "\u2029"])
def test_line_separators_are_spaces_and_nothing_shifts(sep):
    captions = [f"A dog{sep}runs.", "A cat sleeps.", f"{sep}", "Two birds."]
    assert ptb_tokenize(captions) == ["a dog runs", "a cat sleeps", "", "two birds"]


def test_examples_of_the_rules():
    # each verified on the Java pipeline (see the adversarial suite)
    got = ptb_tokenize(
        [
            "The dog's ball doesn't bounce, can't you see?",
            "It's gonna rain; I cannot go!",
            "A (red) [big] {odd} sign",
            "He said \u201chello\u201d and 'bye' ... -- ok \u2014 fine",
            "It costs $5.50, about 10% of \u00a33 or \u20ac4 & more &amp; more",
            "In the U.S. at 2:30 p.m. e.g. 1,000,000 black-and-white 3-4 x/y",
            "See http://www.example.com/a?b=c or mail john.doe@example.com now",
            "\u00bd cup \U0001f415 dog?! wow!!",
        ]
    )
    assert got == [
        "the dog 's ball does n't bounce ca n't you see",
        "it 's gon na rain i can not go",
        "a -lrb- red -rrb- -lsb- big -rsb- -lcb- odd -rcb- sign",
        "he said hello and bye ok fine",
        "it costs $ 5.50 about 10 % of # 3 or $ 4 & more & more",
        "in the u.s. at 2:30 p.m. e.g. 1,000,000 black-and-white 3-4 x/y",
        "see http://www.example.com/a?b=c or mail john.doe@example.com now",
        "1/2 cup dog ?! wow !!",
    ]


def test_one_output_per_input_and_bad_input():
    assert ptb_tokenize([]) == []
    assert ptb_tokenize(["", " ", "..."]) == ["", "", ""]
    with pytest.raises(TypeError, match=r"captions must be a list of strings, got str"):
        ptb_tokenize("a dog")
    with pytest.raises(TypeError, match=r"captions\[1\] must be a string, got int"):
        ptb_tokenize(["a", 1])


def test_scoring_tokenizes_references_and_candidates_as_two_sequences():
    refs = [["A sign that reads K."], ["A dog runs."]]
    # the reference tokenizes all references as one sequence: "K." loses its
    # period because the next reference starts with "A "
    r = sparsecider.cider_d(["a sign that reads k", "a dog runs"], refs)
    assert r.scores[0] == sparsecider.cider_d(
        ["a sign that reads k", "a dog runs"], [["a sign that reads k"], ["a dog runs"]],
        tokenizer="whitespace",
    ).scores[0]  # fmt: skip
    assert "|tok:ptb|" in r.signature


def test_compat_ptbtokenizer_interface():
    out = PTBTokenizer().tokenize(
        {7: [{"caption": "A dog."}, {"caption": "Two\rcats!"}], 3: [{"caption": "Hi, you."}], 9: []}
    )
    assert out == {7: ["a dog", "two cats"], 3: ["hi you"], 9: []}
    with pytest.raises(
        TypeError, match=r"captions_for_image\[3\]\[0\] must be a dict with a string 'caption'"
    ):
        PTBTokenizer().tokenize({3: [{"text": "a"}]})


def test_cocoevalcap_from_raw_coco_files_without_java(coco_data, tmp_path):
    """End to end from the raw COCO files, with no java on PATH."""
    script = (
        "import shutil, sys\n"
        "assert shutil.which('java') is None, 'java is still on PATH'\n"
        "from sparsecider.compat import COCOEvalCap\n"
        "e = COCOEvalCap(sys.argv[1], sys.argv[2], verbose=False)\n"
        "e.evaluate()\n"
        "print(repr(e.eval['CIDEr']), len(e.imgToEval), len(e.evalImgs),"
        " len(e.params['image_id']))\n"
    )
    coco = coco_data.coco_dir()
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    run = subprocess.run(
        [sys.executable, "-c", script, str(coco / "captions_val2014_reconstructed.json.gz"),
         str(coco / "captions_val2014_fakecap_results.json")],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    score, n_img, n_eval, n_ids = run.stdout.split()
    assert abs(float(score) - 0.5997905185184199) <= 1e-12
    assert int(n_img) == int(n_eval) == int(n_ids) == 1000


def test_cocoevalcap_rejects_results_for_unknown_images():
    coco = {"images": [{"id": 1}, {"id": 2}], "annotations": [{"image_id": 1, "caption": "a dog"}]}
    with pytest.raises(
        ValueError, match=r"1 result image id\(s\) are not in the annotations: \[5\]"
    ):
        COCOEvalCap(coco, [{"image_id": 1, "caption": "a"}, {"image_id": 5, "caption": "b"}])


def test_cocoevalcap_with_pycocotools_objects(coco_data, tmp_path):
    coco_module = pytest.importorskip(
        "pycocotools.coco", reason="pycocotools comes with the `ref` extra"
    )
    cands, _ = coco_data.coco_fakecap()
    wanted = {int(k) for k in cands}
    ann = json.loads(
        __import__("gzip")
        .open(coco_data.coco_dir() / "captions_val2014_reconstructed.json.gz", "rt")
        .read()
    )
    subset = {
        "images": [img for img in ann["images"] if img["id"] in wanted],
        "annotations": [a for a in ann["annotations"] if a["image_id"] in wanted],
    }
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(subset))
    coco = coco_module.COCO(str(path))
    results = coco.loadRes(str(coco_data.coco_dir() / "captions_val2014_fakecap_results.json"))
    e = COCOEvalCap(coco, results, verbose=False)
    e.evaluate()
    assert abs(e.eval["CIDEr"] - 0.5997905185184199) <= 1e-12
    assert e.params["image_id"] == results.getImgIds() and len(e.evalImgs) == 1000
