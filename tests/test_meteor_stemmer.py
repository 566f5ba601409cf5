"""METEOR's stemmer: PyStemmer's C build of Snowball 2.2.0 and its pure-Python fallback.

The reference stems are those of snowballstemmer 2.2.0's pure-Python ``EnglishStemmer``
(the jar's stems, specification 5.2 and note N16). PyStemmer 2.2.0.x, built from the
same Snowball release, is used when installed (note N31); it must give the same stem for
every word METEOR can meet, and any other PyStemmer must be ignored.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import sys

import numpy as np
import pytest

pytest.importorskip(
    "pycocoevalcap", reason="METEOR reads its data from pycocoevalcap (the `meteor` extra)"
)
pytest.importorskip(
    "snowballstemmer", reason="METEOR needs snowballstemmer==2.2.0 (the `meteor` extra)"
)

import snowballstemmer

from benchmarks.bench_meteor import coco_images
from sparsecider.metrics.meteor import segment_statistics
from sparsecider.metrics.meteor.data import read_jar_text
from sparsecider.metrics.meteor.matchers import Lexicon, english_stemmer
from sparsecider.metrics.meteor.normalize import normalize_many
from sparsecider.metrics.meteor.resources import load

STEM = slice(8, 12)  # the stem module's four match counts in a statistics row (spec. 4.1)


def _pystemmer_release() -> str | None:
    try:
        import Stemmer  # noqa: F401
    except ImportError:
        return None
    return importlib.metadata.version("PyStemmer")


@pytest.fixture(scope="module")
def res():
    return load()


@pytest.fixture(scope="module")
def c_stemmer():
    release = _pystemmer_release()
    if release is None or not release.startswith("2.2.0"):
        pytest.skip(
            f"PyStemmer 2.2.0.x is not installed (found {release}; the `meteor` and `test` "
            "extras install 2.2.0.3 where it has wheels; METEOR then uses snowballstemmer's "
            "pure-Python class, tested below)"
        )
    import Stemmer

    return Stemmer.Stemmer("english", 0)


def _odd_words() -> list[str]:
    return [
        "", "'", "'s", "dog's", "dogs'", "o'clock", "rock'n'roll", "a\x00ed", "123ing", "1990s",
        "y", "yy", "ys", "ied", "ies", "sses", "eed", "ingly", "cafés", "naïve", "résumés",
        "Ελληνικά", "русские", "日本語", "\U0001f600ing", "\U00010400ed", "a-b", "x" * 1000,
        "running" * 200, "added", "generously", "commun", "arsenal", "news",
    ]  # fmt: skip


def test_pystemmer_gives_the_pure_python_stems_on_every_word_type(res, c_stemmer, coco_data):
    # Every word type of COCO val 2014 (202,654 captions: split, lower-cased and as METEOR
    # normalises them), of the paraphrase table, of WordNet's exception list,
    # and odd inputs; the reference stems are the pure-Python class's.
    captions = [c for image in coco_images() for c in image]
    words: set[str] = set()
    for text in normalize_many(captions, res.prefixes):
        words.update(text.split(" "))
    for text in captions:
        words.update(text.split())
        words.update(text.lower().split())
    assert len(words) > 35_000
    words.update(res.paraphrases.stems)  # the table's 43,000 words
    words.update(read_jar_text(res.sources.jar, "synonym/english.exceptions").split())
    words.update(_odd_words())
    words = sorted(words)
    assert len(words) > 75_000
    reference = snowballstemmer.EnglishStemmer()
    expected = [reference.stemWord(w) for w in words]
    got = c_stemmer.stemWords(words)
    differ = [(w, g, e) for w, g, e in zip(words, got, expected, strict=True) if g != e]
    assert differ == [], f"{len(differ)} of {len(words)} words stem otherwise: {differ[:10]}"
    # and through METEOR's wrapper, one at a time and in a batch
    stemmer = english_stemmer()
    assert not isinstance(stemmer, snowballstemmer.EnglishStemmer)
    assert stemmer.stemWords(words[:5000]) == expected[:5000]
    assert [stemmer.stemWord(w) for w in words[-500:]] == expected[-500:]
    assert reference.stemWord("added") == "ad"  # Snowball 2.2.0 (3.x: "add")


def test_a_word_utf8_cannot_encode_is_stemmed_as_the_class_does(c_stemmer):
    # a lone surrogate is a valid str that PyStemmer cannot encode: the class stems it
    words = ["runn\ud800ing", "\udc80added", "added"]
    reference = snowballstemmer.EnglishStemmer()
    with pytest.raises(UnicodeEncodeError):
        c_stemmer.stemWords(words)
    stemmer = english_stemmer()
    assert stemmer.stemWords(words) == ["runn\ud800", "\udc80ad", "ad"]
    assert [stemmer.stemWord(w) for w in words] == [reference.stemWord(w) for w in words]


def _hide_pystemmer(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # import raises ImportError


def _pystemmer_3(monkeypatch):
    pytest.importorskip("Stemmer", reason="needs PyStemmer to make it look like another release")
    version = importlib.metadata.version

    def fake(name):
        return "3.0.0" if name.lower() == "pystemmer" else version(name)

    monkeypatch.setattr(importlib.metadata, "version", fake)


def _no_pystemmer_metadata(monkeypatch):
    pytest.importorskip("Stemmer", reason="needs PyStemmer to hide its metadata")
    version = importlib.metadata.version

    def fake(name):
        if name.lower() == "pystemmer":
            raise importlib.metadata.PackageNotFoundError(name)
        return version(name)

    monkeypatch.setattr(importlib.metadata, "version", fake)


@pytest.mark.parametrize(
    "simulate", [_hide_pystemmer, _pystemmer_3, _no_pystemmer_metadata], ids=lambda f: f.__name__
)
def test_without_pystemmer_2_2_0_the_pure_python_class_gives_the_same_statistics(
    simulate, monkeypatch, res, coco_data
):
    # 600 COCO held-out segments (the last caption of an image against the other four),
    # scored with the loaded resources (PyStemmer's stems when it is installed) and with a
    # lexicon made while PyStemmer is absent, another release or of unknown origin.
    images = coco_images()[:600]
    hyps, refs = [v[-1] for v in images], [v[:-1] for v in images]
    expected = segment_statistics(hyps, refs, resources=res)
    jar = res.sources.jar
    simulate(monkeypatch)
    assert type(english_stemmer()) is snowballstemmer.EnglishStemmer
    lexicon = Lexicon(
        read_jar_text(jar, "synonym/english.synsets"),
        read_jar_text(jar, "synonym/english.exceptions"),
    )
    lexicon.known_stems(res.paraphrases.stems)
    fallback = dataclasses.replace(res, lexicon=lexicon)
    got = segment_statistics(hyps, refs, resources=fallback)
    assert np.array_equal(got, expected)
    assert got[:, STEM].sum() > 100  # the sample has stem matches for the stems to decide
