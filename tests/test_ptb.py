"""The pure-Python PTB tokenizer against the reference Java pipeline's output.

Every expected value comes from the reference jar (fixtures made by the
scripts in ``tests/fixtures``, or the ``*.ptb.json*`` files of
``../shared/data``), or from the behaviour specification's examples, which
were produced by the jar too.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
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
from sparsecider.tokenizers import _ptb_tables, registry, tokenize, tokenize_slice
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


@pytest.mark.parametrize("path", ["fast", "exact"])
def test_coco_val_random_submission(coco_data, path):
    """The 40,504 candidates of COCO val (one sequence, image order): with the
    202,654 references above, all 243,158 captions of COCO val."""
    raw, _ = coco_data.coco_val_raw()
    want, _ = coco_data.coco_val()
    fn = ptb_tokenize if path == "fast" else _exact_tokenize
    got = fn(list(raw.values()))
    wrong = [(raw[i], g, want[i]) for i, g in zip(raw, got, strict=True) if g != want[i]]
    assert wrong == [] and len(got) == 40_504


def test_exact_path_alone_on_every_shared_real_caption(ground_truth):
    """The exact path by itself (no fast path) also agrees everywhere."""
    for name, (raw, want) in ground_truth.items():
        got = _exact_tokenize(raw)
        wrong = [(r, g, w) for r, g, w in zip(raw, got, want, strict=True) if g != w]
        assert not wrong, f"{name}: {len(wrong)} of {len(raw)} differ, e.g. {wrong[:3]}"


def _jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.parametrize("fn", [ptb_tokenize, _exact_tokenize])
def test_thumb(shared_data, fn):
    """THumB 1.0 (tests/fixtures/make_ptb_thumb_clotho.py ran the jar on it)."""
    truth = json.loads(gzip.open(FIXTURES / "ptb_thumb.json.gz", "rt", encoding="utf-8").read())
    refs = _jsonl(shared_data.DATA / "thumb" / "mscoco_references.json")
    cands = _jsonl(shared_data.DATA / "thumb" / "mscoco_THumB-1.0.jsonl")
    flat = [c for row in refs for c in row["refs"]]
    assert fn(flat) == [c for row in truth["references"] for c in row["ptb"]]
    assert fn([row["hyp"] for row in cands]) == [row["ptb"] for row in truth["candidates"]]
    assert len(flat) + len(cands) == 4_500


@pytest.mark.parametrize("fn", [ptb_tokenize, _exact_tokenize])
def test_clotho(shared_data, fn):
    """Clotho v1: the fixture holds digests of the jar's outputs, not the text."""
    truth = json.loads(gzip.open(FIXTURES / "ptb_clotho.json.gz", "rt", encoding="utf-8").read())
    total = 0
    for entry in truth["files"]:
        with open(shared_data.DATA / "clotho" / entry["csv"], encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
        flat = [row[col] for row in rows for col in entry["columns"]]
        got = [hashlib.blake2b(x.encode("utf-8")).hexdigest()[:16] for x in fn(flat)]
        want = [d for row in entry["rows"] for d in row[1:]]
        wrong = [flat[i] for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
        assert wrong == [], f"{entry['csv']}: {len(wrong)} differ, e.g. {wrong[:3]}"
        total += len(flat)
    assert total == 19_690


@pytest.mark.parametrize("fn", [ptb_tokenize, _exact_tokenize])
def test_behaviour_specification_examples(fn):
    """All 470 examples of PTB_BEHAVIOUR.md (jar outputs), each its own sequence."""
    examples = json.loads((FIXTURES / "ptb_behaviour_examples.json").read_text("utf-8"))
    wrong = [(e["captions"], g, e["ptb"]) for e in examples if (g := fn(e["captions"])) != e["ptb"]]
    assert wrong == [] and len(examples) == 470


@pytest.mark.parametrize("fn", [ptb_tokenize, _exact_tokenize])
def test_known_mismatches_of_the_earlier_tokenizer(fn):
    """Issue 26's list (tests/fixtures/make_ptb_regressions.py ran the jar):
    "Cont'd.", an ASCII space then a wide space before ".com", upper-case
    Greek with a final sigma, a web-address path tail, and "a," * 16000."""
    rows = json.loads((FIXTURES / "ptb_regressions.json").read_text("utf-8"))
    for row in rows:
        assert fn([row["caption"]]) == [row["alone"]], row["caption"][:40]
        assert fn([row["caption"], "x"]) == [row["followed"], "x"], row["caption"][:40]


def test_tables_are_the_specification_lists():
    """The tokenizer's character classes and word lists are the spec's appendices."""
    lists = json.loads((FIXTURES / "ptb_behaviour_lists.json").read_text("utf-8"))
    classes = {c["name"]: c["ranges"] for c in lists["char_classes"]}
    for name, ranges in [
        ("LETTERS", "joins (48,811)"), ("MARKS", "joins (500)"), ("OWN", "own-token (2,871)"),
        ("OWN_RUNS", "own-token (28)"), ("OWN_NUMBER_INNER", "own-token (3)"),
        ("SPACE_LIKE", "space-like (21)"), ("UNICODE_HYPHENS", "joins (3)"),
    ]:  # fmt: skip
        assert getattr(_ptb_tables, name).split() == classes[ranges].split(), name
    assert _ptb_tables.CASED.split() == lists["cased_ranges"].split()
    assert _ptb_tables.UPPERCASE.split() == lists["uppercase_ranges"].split()
    assert ["U+000A", "(line", "end)", *_ptb_tables.LOOKAHEAD_SPACES.split()] == lists[
        "lookahead_spaces"
    ].split()
    for kind, entries in lists["abbreviations"].items():
        assert list(getattr(_ptb_tables, f"ABBR_{kind.upper()}")) == entries, kind
    assert list(_ptb_tables.STARTERS) == lists["starters"]
    assert list(_ptb_tables.STARTER_ABBREVIATIONS) == lists["starter_abbreviations"]


def test_surrogates_and_nul_are_separators():
    # a lone surrogate cannot even be fed to the reference (pycocoevalcap's
    # UTF-8 encoding fails); it is deleted like the jar's untokenizable
    # characters. NUL is a silent separator (spec section 3, jar example).
    assert ptb_tokenize(["a\ud800b c", "a\x00b", "\ud800", "\x00"]) == ["a b c", "a b", "", ""]
    assert _exact_tokenize(["a\ud800b c", "a\x00b"]) == ["a b c", "a b"]


LOOKAHEAD_PIECES = [
    "A sign that reads K.", "The dog runs.", "the cat", "", "  ", "\u200b", "no.", "5 dogs",
    "they're", "a :)", "Mr.", "The", "<a href=\"x", "y\"> b", "etc.", "U.S.", "A", "dog",
]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(LOOKAHEAD_PIECES), min_size=1, max_size=14),
    st.integers(0, 14),
)
def test_a_slice_reads_ahead_as_far_as_the_whole_sequence(captions, cut):
    """tokenize_slice with lookahead_captions gives the tokens of the whole sequence."""
    cut = min(cut, len(captions))
    whole = tokenize(captions, "ptb")
    head = tokenize_slice(captions[:cut], "ptb", iter(captions[cut:]))
    n = int(whole.lengths[:cut].sum())
    assert head.lengths.tolist() == whole.lengths[:cut].tolist()
    assert head.hashes.tolist() == whole.hashes[:n].tolist()


def test_lookahead_skips_any_number_of_blank_captions():
    # spec section 15: the sentence-starter look-ahead crosses blank captions
    blanks = [""] * 300 + ["   "] * 50
    got = ptb_tokenize(["A sign that reads K.", *blanks, "The dog runs.", "x"])
    assert got[0] == "a sign that reads k"
    # a slice ending with "K." reads past every blank caption to the starter
    following = [*blanks, "The dog runs.", "x", "y"]
    taken = registry.lookahead_captions(iter(following))
    assert taken[: len(blanks) + 2] == following[: len(blanks) + 2]
    head = tokenize_slice(["A sign that reads K."], "ptb", iter(following))
    assert head.lengths.tolist() == [5]  # a sign that reads k


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


# the characters the fast path takes, and its shapes at the edges of what it takes
NEAR_PLAIN = st.lists(
    st.sampled_from(
        [*"aAbKksStTnN019 ,.;:?!'\"-/", "'s", "n't", "'S", "N'T", "..", "...", " . ", "Mr",
         "etc", "no", "gonna", "Cannot", "1/2", "5 6", "u.s", "  "]
    ),
    max_size=12,
).map("".join)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(NEAR_PLAIN, min_size=1, max_size=5))
def test_fast_path_equals_exact_lexer_near_the_edge_of_plain(captions):
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


@pytest.mark.parametrize("fn", [ptb_tokenize, _exact_tokenize])
def test_rules_learned_from_the_fuzz(fn):
    """Section 20's rules (tests/fixtures/make_ptb_fuzz_rules.py ran the jar on
    each probe alone and followed by "x")."""
    rows = json.loads((FIXTURES / "ptb_fuzz_rules.json").read_text("utf-8"))
    wrong = [
        (r["rule"], r["caption"])
        for r in rows
        if fn([r["caption"]]) != [r["alone"]] or fn([r["caption"], "x"]) != [r["followed"], "x"]
    ]
    assert wrong == []


def test_word_rules_skipped_for_a_first_character_cannot_start_there():
    """The exact path tries, at an ASCII letter or digit (or the "&" of an
    entity letter: the characters that start a word), only the word rules
    listed for it; every rule left out must fail on any text starting with it."""
    from sparsecider.tokenizers import _ptb_rules

    tails = ["", "a", "A", "1", "ab'cd", "Ab&Cd", "1-1/2", "a/b/c", "1.txt", "'s", "-x", "#",
             "ttp://x.com/ab", "ailto:a@b.com", "++", "$", "'all", "nti- x", "&eacute;", "1 1/2",
             "55 123 4567", ".5", "ww.a.uk/xy", "acute;b", "'l", "i'l", "'mon"]  # fmt: skip
    wrong = [
        (ch, name, tail)
        for ch, kept in _ptb_rules.WORD_RULES_AT.items()
        if ch.isalnum() or ch == "&"
        for rule, name in _ptb_rules.WORD_RULES
        if (rule, name) not in kept
        for tail in tails
        if rule.match(ch + tail)
    ]
    assert wrong == []
