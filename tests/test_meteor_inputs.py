"""METEOR's faces on bad input, without the ``meteor`` extra, and on damaged data files.

Bad input is refused by the one validator every metric shares, with the same
messages; what METEOR accepts (empty captions, any text, line separators,
very long captions) gives the jar's numbers, printed by the real pycocoevalcap
1.2 ``Meteor`` on the captions shown.  The missing extra and the damaged files
are simulated: a hidden or other-version snowballstemmer, a pycocoevalcap the
path finder cannot see, a package folder holding a truncated copy of a file.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.machinery
import importlib.metadata
import io
import json
import random
import re
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip(
    "pycocoevalcap", reason="METEOR reads its data from pycocoevalcap (the `meteor` extra)"
)
pytest.importorskip("snowballstemmer", reason="METEOR needs snowballstemmer (the `meteor` extra)")

import sparsecider
from sparsecider import CiderAccumulator
from sparsecider.cli import main
from sparsecider.compat import COCOEvalCap, Meteor
from sparsecider.metrics.meteor.data import MeteorDataError

INSTALL = 'pip install "sparsecider[meteor]"'
COCO = {"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": "A dog runs."}]}
RESULTS = [{"image_id": 1, "caption": "A dog."}]


# ---- bad input: the shared validator's errors --------------------------------------------

BAD = [
    ([], [], ValueError, "there are no images to score"),
    (["a dog"], [[]], ValueError, r"references\[0\] is empty"),
    (["a dog"], ["a dog"], TypeError, r"references\[0\] is a string"),
    ([1], [["a dog"]], TypeError, r"candidates\[0\] must be a string .* got int"),
    (["a dog"], [["a dog", None]], TypeError, r"references\[0\]\[1\] must be a string"),
    ({"x": "a"}, {"y": ["a"]}, ValueError, r"only in candidates: \['x'\].*only in references"),
    (["a", "b"], [["a"]], ValueError, "candidates has 2 images but references has 1"),
    ("a dog", [["a dog"]], TypeError, "wrap a single caption as"),
]


@pytest.mark.parametrize(("cands", "refs", "error", "message"), BAD)
def test_bad_input_is_named_as_for_every_metric(cands, refs, error, message):
    with pytest.raises(error, match=message):
        sparsecider.meteor(cands, refs)
    with pytest.raises(error, match=message):
        sparsecider.bleu(cands, refs)  # the same validator, the same words
    with pytest.raises(error, match=message):
        CiderAccumulator("METEOR").update(cands, refs, ids=list(range(len(refs))) or [0])


def test_an_unknown_tokenizer_is_named():
    with pytest.raises(ValueError, match="tokenizer='char': METEOR takes 'ptb'"):
        sparsecider.meteor(["a dog"], [["a dog"]], tokenizer="char")
    with pytest.raises(ValueError, match="METEOR takes 'ptb'"):
        sparsecider.meteor(["a dog"], [["a dog"]], tokenizer=str.split)


# ---- what METEOR accepts: the jar's numbers -----------------------------------------------


@pytest.mark.parametrize("tokenizer", ["ptb", "whitespace"])
def test_empty_captions_score_as_the_jar(tokenizer):
    # the jar: 0.2465391803986196, [0.0, 0.29170666383042776, 0.0, 0.0]
    refs = [[""], ["a dog runs", ""], [""], ["   "]]
    r = sparsecider.meteor(["a dog", "a dog", "", "a dog"], refs, tokenizer=tokenizer)
    assert r.score == 0.2465391803986196
    assert r.scores.tolist() == [0.0, 0.29170666383042776, 0.0, 0.0]
    assert r.statistics[2].tolist() == [0] * 23


def test_non_ascii_text_scores_as_the_jar():
    # tests/fixtures/meteor_examples.json holds the jar's statistics of this pair
    with open(Path(__file__).parent / "fixtures" / "meteor_examples.json", encoding="utf-8") as f:
        example = next(e for e in json.load(f)["examples"] if "Ελληνικά" in e["hyp"])
    r = sparsecider.meteor([example["hyp"]], [example["refs"]], tokenizer="whitespace")
    assert r.statistics.tolist() == [example["stats"]] and r.scores.tolist() == [example["score"]]


def test_a_lone_surrogate_is_named_not_raised_from_inside_normalisation():
    # pycocoevalcap's Meteor sends each line with str.encode(), which fails on a lone surrogate
    # (text decoded with errors="surrogateescape"); the PTB tokenizer deletes one first, so it
    # reaches METEOR only with tokenizer="whitespace" or through segment_statistics.
    from sparsecider.metrics.meteor import segment_statistics

    with pytest.raises(
        ValueError, match=r"references\[0\]\[1\] .*lone surrogate, U\+DCFF at character 2"
    ):
        sparsecider.meteor(["a dog"], [["a dog", "x \udcff cat"]], tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"candidates\[1\] \('b \\ud800'\) holds a lone surrogate"):
        segment_statistics(["a", "b \ud800"], [["a"], ["b"]])


SEPARATORS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\t", "\xa0"]
# the jar, each separator inside the candidate and the second reference (the jar reads a
# line per segment, and these are not line ends to it)
JAR_SEPARATED = [0.409836505727393, 0.409836505727393, 0.409836505727393, 0.17543859649122806,
                 0.4645695216158345, 0.409836505727393, 0.409836505727393, 0.409836505727393,
                 0.4645695216158345, 0.4645695216158345]  # fmt: skip


def test_line_separators_score_as_the_jar():
    cands = [f"a dog{s}runs on grass" for s in SEPARATORS]
    refs = [["a dog runs on the grass", f"the{s}dog runs"] for s in SEPARATORS]
    r = sparsecider.meteor(cands, refs, tokenizer="whitespace")
    assert r.scores.tolist() == JAR_SEPARATED and r.score == 0.4006857417098194
    # through the PTB tokenizer, a separator is a space (SPEC: sparsecider never splits a
    # caption there, as the Java tokenizer's line reading does): the jar's number for
    # "a dog runs on grass" against "a dog runs on the grass" and "the dog runs"
    raw = sparsecider.meteor(
        [f"A dog{s}runs on grass." for s in [*SEPARATORS, "\r\n", "\n"]],
        [["A dog runs on the grass.", f"The{s}dog runs."] for s in [*SEPARATORS, "\r\n", "\n"]],
    )
    assert set(raw.scores.tolist()) == {0.4645695216158345}


@pytest.mark.parametrize("side", ["candidate", "reference"])
def test_a_one_megabyte_caption_is_scored(side):
    # 2**19 words, two of which ("a dog") match "a dog runs": counted by hand. The time
    # it takes against its length: benchmarks/bench_meteor_long.py
    long = "a dog " + "zq " * (2**19 - 2)
    assert len(long) > 2**20
    short = "a dog runs"
    if side == "candidate":
        r = sparsecider.meteor([long], [[short]], tokenizer="whitespace")
        lengths = [2**19, 3]
    else:
        r = sparsecider.meteor([short], [[long]], tokenizer="whitespace")
        lengths = [3, 2**19]
    s = r.statistics[0].tolist()
    assert s[:2] == lengths and s[20:] == [1, 2, 2]  # one chunk, two words matched each side
    assert 0 < r.score < 0.1


def test_two_long_captions_too_large_to_align_are_refused_by_name():
    # 1,500 copies of "a" on both sides: 1,500 x 1,500 = 2,250,000 word pairs with equal stems
    # (counted by hand), over the 2,000,000 the per-pair search takes; nothing is returned.
    long = " ".join(["a"] * 1500)
    with pytest.raises(
        ValueError,
        match=r"candidates\[1\] \(1,500 words\) and references\[1\]\[1\] \(1,500 words\) "
        r"share 2,250,000 word pairs with equal stems, more than .*2,000,000.* Shorten or split",
    ):
        sparsecider.meteor(
            ["a dog", long], [["a dog runs"], ["a cat", long]], tokenizer="whitespace"
        )


def test_two_long_captions_sharing_few_words_are_scored():
    # 1,500 x 1,500 words, but only "a" and "dog" shared: 2 word pairs (by hand), so scored.
    cand = "a dog " + "zq " * 1498
    ref = "a dog " + "qz " * 1498
    r = sparsecider.meteor([cand], [[ref]], tokenizer="whitespace")
    s = r.statistics[0].tolist()
    assert s[:2] == [1500, 1500] and s[20:] == [1, 2, 2]  # one chunk, two words matched each side


def test_chunks_are_bounded_by_pairs_as_well_as_segments():
    # 2,048 segments a chunk, but at most 20,480 (hypothesis, reference) pairs: with 50
    # references, 20,480 // 50 = 409 segments; a segment over the limit is a chunk alone.
    import numpy as np

    from sparsecider.metrics.meteor.score import _CHUNK, _CHUNK_PAIRS, _chunk_ends

    assert (_CHUNK, _CHUNK_PAIRS) == (2048, 20_480)
    assert _chunk_ends(np.full(5000, 5)) == [2048, 4096, 5000]
    assert _chunk_ends(np.full(1000, 50)) == [409, 818, 1000]
    assert _chunk_ends(np.array([3, 30_000, 1, 1])) == [1, 2, 4]
    assert _chunk_ends(np.zeros(0, dtype=np.int64)) == []


def test_worker_blocks_are_whole_chunks():
    # n_jobs > 1: each worker gets whole chunks, cut where chunks end, pair limit included
    # (1,000 segments of 50 references are three chunks: 409, 409, 182 segments).
    import numpy as np

    from sparsecider.metrics.meteor.score import _blocks, _chunk_ends

    assert _blocks(_chunk_ends(np.full(1000, 50)), 2) == [(0, 818), (818, 1000)]
    assert _blocks([409, 818, 1000], 3) == [(0, 409), (409, 818), (818, 1000)]
    assert _blocks([409, 818, 1000], 8) == [(0, 409), (409, 818), (818, 1000)]
    assert _blocks([2048, 4096, 5000], 2) == [(0, 4096), (4096, 5000)]
    assert _blocks([2048, 4096, 5000], 1) == [(0, 5000)]


def test_a_refused_pair_is_named_by_its_index_in_the_input_across_processes():
    # 2,100 segments in two worker blocks (2,048 + 52); the refused pair is segment 2,060.
    from sparsecider.metrics.meteor.score import _CHUNK, segment_statistics

    assert _CHUNK == 2048  # else the blocks below are not two
    long = " ".join(["a"] * 1500)
    cands = ["a dog"] * 2100
    refs = [["a dog runs"]] * 2100
    cands[2060], refs[2060] = long, [long]
    with pytest.raises(ValueError, match=r"candidates\[2060\] .* references\[2060\]\[0\]"):
        segment_statistics(cands, refs, n_jobs=2)


def test_searches_of_consecutive_chunks_run_together_with_the_same_statistics(monkeypatch):
    # 24 segments in chunks of 4 (monkeypatched): 6 chunks, each with a first-round search
    # (one pair a segment: 4) and maybe a second; grouped by 4 chunks (at most 8,192 pairs) the
    # first rounds are 2 calls (chunks 1-4, then 5-6, each group followed by its second round)
    # instead of 6, and every statistic is as with one chunk a call.
    import numpy as np

    from sparsecider.metrics.meteor import score

    words = "a man dog cat rides riding horse horses on the beach near sea red big".split()
    rng = random.Random(48)
    cands = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(24)]
    refs = [
        [" ".join(rng.choice(words) for _ in range(rng.randint(3, 9))) for _ in range(3)]
        for _ in range(24)
    ]
    calls = []

    def counted(c, n):
        calls.append(n)
        return real(c, n)

    real = score.align_pairs
    monkeypatch.setattr(score, "align_pairs", counted)
    monkeypatch.setattr(score, "_CHUNK", 4)
    assert (score._SEARCH_CHUNKS, score._SEARCH_PAIRS) == (2, 8192)  # the defaults (N85)
    monkeypatch.setattr(score, "_SEARCH_CHUNKS", 4)
    grouped = score.segment_statistics(cands, refs)
    assert calls[0] == 16 and 8 in calls[1:3]  # the first rounds: 4 pairs a chunk
    n_grouped, calls[:] = len(calls), []
    monkeypatch.setattr(score, "_SEARCH_CHUNKS", 1)
    alone = score.segment_statistics(cands, refs)
    assert calls[0] == 4 and len(calls) > n_grouped
    assert np.array_equal(grouped, alone)
    # a pair budget below one chunk's round: each chunk's search alone again
    calls[:] = []
    monkeypatch.setattr(score, "_SEARCH_CHUNKS", 4)
    monkeypatch.setattr(score, "_SEARCH_PAIRS", 3)
    assert np.array_equal(score.segment_statistics(cands, refs), alone)
    assert calls[0] == 4


def test_the_first_refused_pair_is_named_when_chunks_search_together():
    # 2,100 segments: two chunks (2,048 + 52) whose searches run together; refused pairs in
    # both (segments 10 and 2,060): the first chunk's is named, as chunk by chunk.
    from sparsecider.metrics.meteor.score import _CHUNK, segment_statistics

    assert _CHUNK == 2048
    long = " ".join(["a"] * 1500)
    cands = ["a dog"] * 2100
    refs = [["a dog runs"]] * 2100
    for i in (10, 2060):
        cands[i], refs[i] = long, [long]
    with pytest.raises(ValueError, match=r"candidates\[10\] .* references\[10\]\[0\]"):
        segment_statistics(cands, refs)


def test_thousands_of_options_at_one_reference_word_align_as_the_jar():
    # 5,000 words drawn from a 14-word caption (random.seed(1), after the probe's 100- and
    # 1,000-word lines): hundreds of candidate matches start at each reference word, far more
    # than the beam of 40 (the search ranks them without building them).  The jar's
    # statistics for this exact line, through the pycocoevalcap command (METEOR_BEHAVIOUR.md
    # section 7: probe_long.py, long_probe.json).
    rng = random.Random(1)
    words = "a man riding a horse on a beach with dogs and kids near the sea".split()
    hyp = [" ".join(rng.choice(words) for _ in range(n)) for n in (100, 1000, 5000)][-1]
    r = sparsecider.meteor([hyp], [["a man riding a horse on the beach"]], tokenizer="whitespace")
    jar = [5000, 8, 2366, 4, 4, 4, 4, 4] + [0] * 12 + [4, 8, 8]
    assert r.statistics[0].tolist() == jar


# ---- without the meteor extra -------------------------------------------------------------


def _no_stemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "snowballstemmer", None)  # import raises ImportError


def _other_stemmer(monkeypatch):
    import snowballstemmer

    monkeypatch.setattr(snowballstemmer, "__version__", "3.0.1", raising=False)


def _fresh_version_cache(monkeypatch):
    """matchers reads snowballstemmer's metadata once per process: a fresh cache for a test
    that fakes the metadata (restored afterwards)."""
    from sparsecider.metrics.meteor import matchers

    fresh = functools.cache(matchers._installed_version.__wrapped__)
    monkeypatch.setattr(matchers, "_installed_version", fresh)


def _other_stemmer_by_metadata(monkeypatch):
    # 2.2.0 has no __version__: the release then comes from the package metadata
    _stemmer_metadata(monkeypatch, "3.0.1")


def _stemmer_without_metadata(monkeypatch):
    # a snowballstemmer module of unknown origin (say a file of that name on the path)
    _stemmer_metadata(monkeypatch, None)


def _stemmer_metadata(monkeypatch, release):
    import snowballstemmer

    monkeypatch.delattr(snowballstemmer, "__version__", raising=False)
    version = importlib.metadata.version

    def fake(name):
        if name != "snowballstemmer":
            return version(name)
        if release is None:
            raise importlib.metadata.PackageNotFoundError(name)
        return release

    monkeypatch.setattr(importlib.metadata, "version", fake)
    _fresh_version_cache(monkeypatch)


def _no_pycocoevalcap(monkeypatch):
    find = importlib.machinery.PathFinder.find_spec

    def find_spec(name, path=None, target=None):
        return None if name == "pycocoevalcap" else find(name, path, target)

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", find_spec)


MISSING = {
    "no snowballstemmer": (_no_stemmer, "snowballstemmer==2.2.0 .* not installed"),
    "snowballstemmer 3": (_other_stemmer, "snowballstemmer==2.2.0, found 3.0.1"),
    "snowballstemmer 3 by its metadata": (
        _other_stemmer_by_metadata,
        "snowballstemmer==2.2.0, found 3.0.1",
    ),
    "snowballstemmer without metadata": (
        _stemmer_without_metadata,
        "snowballstemmer==2.2.0, found unknown",
    ),
    "no pycocoevalcap": (_no_pycocoevalcap, "from pycocoevalcap 1.2, which is not installed"),
}


@pytest.mark.parametrize("case", list(MISSING))
def test_every_face_names_the_extra(case, monkeypatch, tmp_path, capsys):
    simulate, why = MISSING[case]
    simulate(monkeypatch)
    message = f"{why}.*{re.escape(INSTALL)}"
    with pytest.raises(ImportError, match=message):
        sparsecider.meteor(["a dog"], [["a dog"]])
    with pytest.raises(ImportError, match=message):
        Meteor()
    with pytest.raises(ImportError, match=message):
        CiderAccumulator("METEOR")
    with pytest.raises(ImportError, match=message):
        COCOEvalCap(COCO, RESULTS, metrics=["Bleu", "METEOR"])
    # by default COCOEvalCap leaves METEOR out and says why
    e = COCOEvalCap(COCO, RESULTS, verbose=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # CIDEr's advice on one image
        e.evaluate()
    assert "METEOR" not in e.eval and "CIDEr" in e.eval
    with pytest.raises(KeyError, match=f"METEOR was not computed: .*{message}"):
        e.eval["METEOR"]
    refs, cands = tmp_path / "r.jsonl", tmp_path / "c.jsonl"
    refs.write_text(json.dumps({"id": 1, "references": ["a dog runs"]}) + "\n")
    cands.write_text(json.dumps({"id": 1, "caption": "a dog"}) + "\n")
    assert main(["score", "-r", str(refs), "-c", str(cands), "--metric", "meteor"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sparsecider: error: METEOR") and INSTALL in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("case", [k for k in MISSING if "pycocoevalcap" not in k])
def test_the_data_loader_checks_the_stemmer_the_same_way(case, monkeypatch):
    # one check (matchers.check_stemmer) behind every face and the loader itself
    from sparsecider.metrics.meteor.resources import load

    simulate, why = MISSING[case]
    simulate(monkeypatch)
    with pytest.raises(ImportError, match=f"{why}.*{re.escape(INSTALL)}"):
        load()


def test_the_stemmer_metadata_is_read_once_per_process(monkeypatch):
    # check_stemmer runs behind every face and in the loader; a metadata lookup scans the
    # import path, so its answer is kept
    import snowballstemmer

    from sparsecider.metrics.meteor.matchers import check_stemmer

    monkeypatch.delattr(snowballstemmer, "__version__", raising=False)
    reads = []
    version = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: reads.append(name) or version(name)
    )
    _fresh_version_cache(monkeypatch)
    for _ in range(3):
        assert check_stemmer() is snowballstemmer
    assert reads.count("snowballstemmer") == 1


def test_the_replacements_cocoevalcap_leaves_meteor_out_without_the_extra(monkeypatch):
    from sparsecider.compat.hook import install, uninstall

    _no_stemmer(monkeypatch)
    install(quiet=True)
    try:
        from pycocoevalcap.eval import COCOEvalCap as Replaced

        e = Replaced(COCO, RESULTS)
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            e.evaluate()
        assert any(str(x.message).startswith("METEOR was not computed") for x in w)
        assert "METEOR" not in e.eval and "CIDEr" in e.eval
    finally:
        uninstall()


# ---- damaged data files -------------------------------------------------------------------


def _real_meteor_folder() -> Path:
    spec = importlib.machinery.PathFinder.find_spec("pycocoevalcap")
    return next(
        Path(p) / "meteor"
        for p in spec.submodule_search_locations
        if (Path(p) / "meteor" / "meteor-1.5.jar").is_file()
    )


@pytest.fixture
def damaged(tmp_path, monkeypatch):
    """``damaged(name)``: a pycocoevalcap first on sys.path whose file ``name``
    (``meteor-1.5.jar`` or ``paraphrase-en.gz``) is a truncated copy; the other
    file is the real one.  The cache goes to a temporary folder."""
    real = _real_meteor_folder()
    package = tmp_path / "site" / "pycocoevalcap"
    (package / "meteor" / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))

    def make(name: str) -> Path:
        files = {"meteor-1.5.jar": "meteor-1.5.jar", "paraphrase-en.gz": "data/paraphrase-en.gz"}
        for other, relative in files.items():
            target = package / "meteor" / relative
            if other == name:
                with open(real / relative, "rb") as f:
                    target.write_bytes(f.read(1 << 20))  # the first MB only
            else:
                target.symlink_to(real / relative)
        return package / "meteor" / files[name]

    return make


@pytest.mark.parametrize("name", ["meteor-1.5.jar", "paraphrase-en.gz"])
def test_a_truncated_data_file_is_named_with_what_to_reinstall(name, damaged, capsys, tmp_path):
    path = damaged(name)
    message = f"{path}.*reinstall pycocoevalcap"
    with pytest.raises(MeteorDataError, match=message):
        sparsecider.meteor(["a dog"], [["a dog runs"]])
    with pytest.raises(MeteorDataError, match=message):
        Meteor()
    refs, cands = tmp_path / "r.jsonl", tmp_path / "c.jsonl"
    refs.write_text(json.dumps({"id": 1, "references": ["a dog runs"]}) + "\n")
    cands.write_text(json.dumps({"id": 1, "caption": "a dog"}) + "\n")
    capsys.readouterr()
    assert main(["score", "-r", str(refs), "-c", str(cands), "--metric", "meteor"]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "reinstall pycocoevalcap" in err
    assert err.splitlines()[-1].startswith("sparsecider: error: ")
