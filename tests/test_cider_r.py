"""CIDEr-R against a port of SacreEOS's pure-Python scorer (``tests/cider_r_reference.py``),
and against SacreEOS itself when it is installed (``pip install --no-deps sacreeos nltk``:
its metric modules need no torch)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import DocumentFrequencies, SmallCorpusWarning
from sparsecider.metrics.cider_r import DEFAULTS, word_tokens
from sparsecider.tokenizers import split_whitespace
from tests import cider_r_reference as port


def quiet_port(*args, **kwargs):
    """The port, without the scipy warning of a geometric mean of no numbers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return port.cider_r(*args, **kwargs)


def test_coco_val_5000_images_match_sacreeos(coco_data):
    """5,000 COCO val images: each image's fifth caption against its first four."""
    _, refs = coco_data.coco_val()
    ids = list(refs)[:5000]
    cands, refss = [refs[i][4] for i in ids], [refs[i][:4] for i in ids]
    want_score, want = port.cider_r(cands, refss)
    got = sparsecider.cider_r(cands, refss, tokenizer="whitespace")
    assert np.abs(got.scores - want).max() <= 1e-12
    assert abs(got.score - want_score) <= 1e-12
    assert got.per_order.shape == (5000, 4) and got.n_images == 5000


def test_the_port_is_sacreeos(coco_data):
    cider_r_module = pytest.importorskip(
        "sacreeos.metric.cider_r", reason="SacreEOS is not installed (it is not in any extra)"
    )
    cands, refs = coco_data.coco_val()
    ids = list(refs)[:300]
    tests, refss = [cands[i] for i in ids], [refs[i] for i in ids]
    tests[:3] = ["a a a dog dog", "the man 's hat -lrb- red -rrb-", refss[2][0]]
    corpus = [refs[i] for i in list(refs)[300:900]]
    for kwargs in ({}, {"repeat_coeff": 0.5, "length_coeff": 0.5, "alpha": 2.0}):
        scorer = cider_r_module.CiderR(**kwargs)
        theirs = scorer.compute(tests, refss)
        ours = port.cider_r(tests, refss, **kwargs)
        assert theirs[0] == ours[0] and np.array_equal(theirs[1], ours[1])
        mine = sparsecider.cider_r(tests, refss, tokenizer="whitespace", **kwargs)
        assert np.abs(mine.scores - theirs[1]).max() <= 1e-12
    theirs = cider_r_module.CiderR(corpus_refss=corpus).compute(tests, refss)
    assert np.array_equal(theirs[1], port.cider_r(tests, refss, corpus_refss=corpus)[1])
    default = cider_r_module.CiderR()
    assert {k: getattr(default, "get_" + k)() for k in DEFAULTS} == DEFAULTS


# tokens as the PTB pipeline leaves them, and a few that \w+ splits or drops
tokens = st.sampled_from(
    ["a", "dog", "dog", "red", "the", "on", "grass", "'s", "n't", "-lrb-", "-rrb-", "e.g.",
     "3.5", "black-and-white", "?!", "$", "café", "naïve", "x_y", "2"]
)  # fmt: skip
caption = st.lists(tokens, min_size=0, max_size=9).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    images=st.lists(
        st.tuples(caption, st.lists(caption, min_size=1, max_size=4)), min_size=1, max_size=6
    ),
    rc=st.sampled_from([0.8, 0.5, 0.25]),
    alpha=st.sampled_from([1.0, 0.5, 3.0]),
    n=st.integers(2, 5),
)
def test_random_corpora_match_the_port(images, rc, alpha, n):
    cands = [c for c, _ in images]
    refss = [r for _, r in images]
    if not any(r.split() for rs in refss for r in rs):
        refss[0] = [*refss[0], "a dog"]
    kwargs = {"n": n, "repeat_coeff": rc, "length_coeff": 1 - rc, "alpha": alpha}
    _, want = quiet_port(cands, refss, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallCorpusWarning)
        warnings.filterwarnings("ignore", "scoring a single image", UserWarning)
        got = sparsecider.cider_r(cands, refss, tokenizer="whitespace", **kwargs)
    words = [re.findall(r"\w+", c) for c in cands]
    for i, (g, w) in enumerate(zip(got.scores, want, strict=True)):
        if words[i]:
            assert abs(g - w) <= 1e-12, i
        else:  # SacreEOS: the geometric mean of no numbers, nan; here no penalty
            assert math.isnan(w) and not math.isnan(g)


def test_candidates_without_words():
    """SacreEOS returns nan for a candidate with no \\w word (an empty
    caption, or punctuation alone); its repetition penalty is 1 here, so an
    empty candidate scores 0 and a punctuation-only one its cosine part."""
    refs = [["a dog runs on the grass", "?!"], ["a red bus"], ["the cat sleeps"]]
    cands = ["", "?!", "the cat sleeps"]
    _, theirs = quiet_port(cands, refs)
    got = sparsecider.cider_r(cands, refs, tokenizer="whitespace")
    assert math.isnan(theirs[0]) and math.isnan(theirs[1])
    assert got.scores[0] == 0.0 and got.scores[2] == theirs[2]
    # "?!" against refs "a red bus": nothing shared, 0; with repetition 1 the
    # first image's "?!" would match the reference "?!" exactly
    assert got.scores[1] == 0.0
    again = sparsecider.cider_r(["?!", "a red bus", "the cat"], refs, tokenizer="whitespace")
    only_cosine = sparsecider.cider_d(["?!", "a red bus", "the cat"], refs, tokenizer="whitespace")
    # image 0: "?!" shares its unigram with the reference "?!" (cosine of order 1 is 1,
    # lengths equal, so its penalty is 1) and nothing with the other reference
    assert again.scores[0] == pytest.approx(only_cosine.per_order[0, 0] / 4, abs=1e-15)


def test_document_frequencies_from_another_corpus():
    train = [["a dog runs on the grass"], ["a red bus on the road"], ["a cat on a mat"]] * 3
    df = DocumentFrequencies.from_references(train, tokenizer="whitespace")
    cands, refs = ["a dog on the grass", "a bus bus"], [["a dog runs"], ["a red bus"]]
    _, want = port.cider_r(cands, refs, corpus_refss=train)
    got = sparsecider.cider_r(cands, refs, df=df, tokenizer="whitespace")
    assert np.abs(got.scores - want).max() <= 1e-12
    assert got.df is df and "df:precomputed(n_images=9," in got.signature


def test_raw_text_goes_through_the_ptb_tokenizer_first():
    refs = [["A dog's toy (red) on the grass.", "The dog plays."], ["A red bus, e.g. #5."]]
    cands = ["A dog's dog's toy.", "A bus!"]
    flat = sparsecider.ptb_tokenize([r for rs in refs for r in rs])
    ref_tok = [flat[:2], flat[2:]]
    _, want = port.cider_r(sparsecider.ptb_tokenize(cands), ref_tok)
    got = sparsecider.cider_r(cands, refs)
    assert np.abs(got.scores - want).max() <= 1e-12
    assert got.signature.tokenizer == "ptb"
    # a custom tokenizer: its tokens joined by spaces are the text SacreEOS would get
    letters = sparsecider.cider_r(cands, refs, tokenizer=lambda cs: [c.lower().split() for c in cs])
    _, want = port.cider_r([c.lower() for c in cands], [[r.lower() for r in rs] for rs in refs])
    assert np.abs(letters.scores - want).max() <= 1e-12


def test_signature_and_result():
    got = sparsecider.cider_r(
        {"x": "a dog runs", "y": "a red bus"}, {"x": ["a dog runs"], "y": ["a red car"]},
        tokenizer="whitespace", repeat_coeff=0.6, length_coeff=0.4, alpha=2.0, scale=1.0,
    )  # fmt: skip
    assert got.signature == (
        "CIDEr-R|n:4|rc:0.6|lc:0.4|alpha:2|df:corpus(n_images=2)|tok:whitespace|scale:1|"
        f"version:{sparsecider.__version__}"
    )
    assert got.signature.params == (("rc", 0.6), ("lc", 0.4), ("alpha", 2.0))
    assert got.ids == ("x", "y") and got.metric == "CIDEr-R"
    assert np.allclose(got.scores, got.per_order.mean(axis=1))


def test_word_tokens_are_nltk_regexp_words():
    every_ascii = "".join(map(chr, range(1, 128)))
    wide = "café naïve “quoted” x_y 3.5 ½ ٣ 犬が走る \ud800 e\u0301"
    for texts in (
        ["a dog 's toy -lrb- e.g. -rrb-", "", "?! ...", every_ascii],  # ASCII only
        ["a dog 's toy", wide, "", every_ascii + wide],  # wider characters
        ["a\x00b c", "d"],  # a NUL inside a text
        [],
    ):
        got = word_tokens(texts)
        want = split_whitespace([" ".join(re.findall(r"\w+", t)) for t in texts])
        assert got.lengths.tolist() == want.lengths.tolist()
        assert np.array_equal(got.hashes, want.hashes)
    assert word_tokens(["a dog 's toy -lrb- e.g. -rrb-"]).lengths.tolist() == [8]


def test_errors():
    cands, refs = ["a dog"], [["a dog"]]
    with pytest.raises(ValueError, match="n must be at least 2 for CIDEr-R, got 1"):
        sparsecider.cider_r(cands, refs, n=1)
    with pytest.raises(ValueError, match=r"must add up to 1 .* got 0.8 and 0.3"):
        sparsecider.cider_r(cands, refs, repeat_coeff=0.8, length_coeff=0.3)
    with pytest.raises(ValueError, match=r"length_coeff must be a finite number > 0, got 0\.0"):
        sparsecider.cider_r(cands, refs, repeat_coeff=1.0, length_coeff=0.0)
    with pytest.raises(ValueError, match=r"alpha must be a finite number > 0, got -1\.0"):
        sparsecider.cider_r(cands, refs, alpha=-1.0)
    with pytest.raises(TypeError, match="alpha"):
        sparsecider.cider_r(cands, refs, alpha="1")
    with pytest.raises(ValueError, match=r"needs the tokens' text .* tokenizer='char"):
        sparsecider.cider_r(cands, refs, tokenizer="char")
    with pytest.raises(ValueError, match=r"the tokenizer's output \[0\]"):
        sparsecider.cider_r(cands, refs, tokenizer=lambda cs: [["a b"] for _ in cs])
    with pytest.raises(TypeError, match=r"references\[0\] is a string"):
        sparsecider.cider_r(cands, ["a dog"])
    # 0.7 + 0.3 is 0.9999999999999999 in floating point: accepted (SacreEOS refuses it)
    sparsecider.cider_r(["a dog", "a cat"], [["a dog"], ["a cat"]], repeat_coeff=0.7,
                        length_coeff=0.3)  # fmt: skip


def test_command_line(tmp_path, capsys):
    """``sparsecider score --metric cider-r`` on COCO-format files."""
    import json

    from sparsecider.cli import main

    refs = {
        "images": [{"id": 1}, {"id": 2}],
        "annotations": [
            {"image_id": 1, "id": 1, "caption": "A dog runs on the grass."},
            {"image_id": 2, "id": 2, "caption": "A red bus on the road."},
        ],
    }
    results = [
        {"image_id": 1, "caption": "A dog runs on the grass."},
        {"image_id": 2, "caption": "A red red red bus."},
    ]
    (tmp_path / "refs.json").write_text(json.dumps(refs))
    (tmp_path / "res.json").write_text(json.dumps(results))
    argv = ["score", "-r", str(tmp_path / "refs.json"), "-c", str(tmp_path / "res.json")]
    assert main([*argv, "--metric", "cider-r"]) == 0
    report = json.loads(capsys.readouterr().out)
    want = sparsecider.cider_r(
        [r["caption"] for r in results], [[a["caption"]] for a in refs["annotations"]]
    )
    assert report["metric"] == "CIDEr-R" and report["score"] == want.score
    assert report["signature"] == want.signature
