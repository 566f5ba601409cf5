"""METEOR 1.5 without Java: unit tests of each layer (hand-computed or jar-printed values).

The jar-derived fixtures are exercised in ``test_meteor_jar.py``.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "pycocoevalcap", reason="METEOR reads its data from pycocoevalcap (the `ref` extra)"
)
pytest.importorskip(
    "snowballstemmer", reason="METEOR needs snowballstemmer==2.2.0 (the `meteor` extra)"
)

from sparsecider.metrics.meteor import cache, data, stats
from sparsecider.metrics.meteor.normalize import Prefixes, normalize, normalize_many
from sparsecider.metrics.meteor.paraphrase import ParaphraseIndex

JAR = data.locate().jar
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def prefixes():
    return Prefixes(data.read_jar_text(JAR, "nonbreaking/english.prefixes"))


# -- normalisation: examples of the behaviour specification, section 2.2 (jar outputs) -------

NORM = [
    ("A man riding a horse.", "a man riding a horse ."),
    ("mid-air", "mid air"),
    ("a-b-c", "a b-c"),
    ("a-b-c-d-e", "a b-c d-e"),
    ("'s", "' s"),
    ("it's", "it 's"),
    ("John's dog", "john 's dog"),
    ("dogs' toys", "dogs ' toys"),
    ("can't", "can 't"),
    ("u.s.", "us"),
    ("U.S.A.", "usa"),
    ("e.g. this", "eg this"),
    ("Mr. Smith", "mr. smith"),
    ("mr. Smith", "mr . smith"),
    ("No. 5", "no. 5"),
    ("no. 5", "no . 5"),
    ("Inc. and Co.", "inc. and co ."),
    ("a man. A dog", "a man . a dog"),
    ("&amp;", "& amp ;"),
    ("AT&T", "at & t"),
    ("$5.00", "$ 5.00"),
    ("10:30", "10 : 30"),
    ("1,000,000 people", "1,000,000 people"),
    ("a,b", "a , b"),
    ("3.14", "3.14"),
    ("5.", "5 ."),
    ("well...", "well ..."),
    ("wait!!!", "wait ! ! !"),
    ("double--dash", "double dash"),
    ("café naïve", "café naïve"),
    ("日本語", "日 本 語"),
    ("-LRB- -RRB-", "-lrb- -rrb-"),
    ("a_b", "a _ b"),
    ("|||", "| | |"),
    ("   ", ""),
]


@pytest.mark.parametrize(("text", "expected"), NORM)
def test_normalize_specification_examples(text, expected, prefixes):
    assert normalize(text, prefixes) == expected


# Captions with digits (the batched route of normalize_many takes digits since perf39): the
# jar's -norm outputs.  First every `norm` example with a digit of
# tests/fixtures/meteor_spec/examples.json (recorded from the jar by make_examples.py:
# `10-year-old`, `90's`, `5'a`, `No. 5`, `3.14`, `5.`, `1.2.`, `a.1.` ...), then these, from the
# jar's -writeAlignments output (tests/fixtures/meteor_spec/jar.py probe, run 2026-11-27).
DIGITS_JAR = [
    ("a1.", "a1 ."),
    ("1,000", "1,000"),
    ("ab1 x.", "ab1 x ."),
    ("a 4x.", "a 4x ."),
    ("4x.", "4x ."),
    ("4x. dog", "4x. dog"),
    ("A 4x. Dog", "a 4x . dog"),
    ("a 10-year-old boy.", "a 10 year old boy ."),
    ("The 1990's car, 2 dogs.", "the 1990 's car , 2 dogs ."),
    ("abc1def2.", "abc1def2 ."),
    ("2 men and 3 dogs", "2 men and 3 dogs"),
    ("x9 y8, z7.", "x9 y8 , z7 ."),
    ("b2b-c3d", "b2b c3d"),
    ("A1 dog's", "a1 dog 's"),
    ("the 3 dogs.", "the 3 dogs ."),
    ("pp. 12", "pp. 12"),
    ("5 4x.", "5 4x ."),
]


def test_normalize_many_on_captions_with_digits(prefixes):
    with open(FIXTURES / "meteor_spec" / "examples.json", encoding="utf-8") as f:
        jar = [(e["input"], e["norm"]) for e in json.load(f) if e["kind"] == "norm"]
    cases = [(t, n) for t, n in jar if any(ch.isdigit() for ch in t)] + DIGITS_JAR
    assert {"10-year-old", "90's", "5.", "No. 5", "3.14", "1,000", "a1."} <= {t for t, _ in cases}
    texts, expected = zip(*cases, strict=True)
    # in one call (one batch, with plain captions around), and one caption a call
    plain = ["A man riding a horse.", "a dog , a cat"]
    assert normalize_many([*plain, *texts], prefixes)[2:] == list(expected)
    assert [normalize_many([t], prefixes)[0] for t in texts] == list(expected)
    # The jar's prefixes and `4x` (a digit: none of the jar's has one, and its list cannot be
    # swapped): step 10.2 of the specification keeps `4x.` when `4x` is a prefix, so the jar
    # outputs above with `4x .` joined again (a hand step; no other step reads the list).
    four = Prefixes(data.read_jar_text(JAR, "nonbreaking/english.prefixes") + "\n4x\n")
    mine = [n.replace("4x .", "4x.") for n in expected]
    assert normalize_many([*plain, *texts], four)[2:] == mine
    assert [normalize(t, four) for t in texts] == mine


def test_prefixes_file_kinds(prefixes):
    assert {"Mr", "A", "e.g"} <= prefixes.plain
    assert prefixes.numeric == {"No", "Art", "pp"}


# -- statistics -> scores (hand computations) ------------------------------------------------


def _row(**cols):
    s = [0] * 23
    for k, v in cols.items():
        s[int(k[1:])] = v
    return s


# "a dog" against itself: 2 tokens a side, 1 function word ("a"), both exact, one chunk.
IDENTICAL = _row(c0=2, c1=2, c2=1, c3=1, c4=1, c5=1, c6=1, c7=1, c20=1, c21=2, c22=2)
# "x y" against "y x": two content words, exact, crossed: two chunks.
CROSSED = _row(c0=2, c1=2, c4=2, c5=2, c20=2, c21=2, c22=2)


def test_identical_scores_one():
    # P = R = (1*0.75*1 + 1*0.25*1) / (0.75*1 + 0.25*1) = 1; fragmentation 0 (one chunk)
    assert stats.score_one(IDENTICAL) == 1.0


def test_crossed_pays_the_full_penalty():
    # P = R = 1; frag = 2 chunks / ((2 + 2) / 2) = 1; pen = 0.6 * 1 ** 0.2 = 0.6; score = 0.4
    assert stats.score_one(CROSSED) == 0.4


def test_nothing_matched_scores_zero():
    assert stats.score_one(_row(c0=3, c1=4)) == 0.0
    assert stats.score_one(_row(c1=4)) == 0.0  # empty hypothesis: P would be 0/0


def test_jar_printed_example():
    # specification 4.1 example P1: the jar printed score 0.31077234999023545
    s = [12, 6, 6, 3, 0, 0, 3, 3, 1, 1, 0, 0, 2, 2, 0, 0, 0, 0, 0, 0, 4, 6, 6]
    assert stats.score_one(s) == 0.31077234999023545


def test_corpus_sums_skip_chunks_of_whole_single_chunk_segments():
    rows = np.array([IDENTICAL, CROSSED])
    total = stats.summed(rows)
    assert total[20] == 2  # IDENTICAL adds no chunk
    assert total.tolist()[:4] == [4, 4, 1, 1]
    # P = R = 1, frag = 2 / ((4 + 4) / 2) = 0.5, pen = 0.6 * 0.5 ** 0.2
    assert stats.corpus_score(total) == (1 - 0.6 * 0.5**0.2) * 1.0


def test_segment_scores_vectorised_equals_rows():
    rows = np.array([IDENTICAL, CROSSED, _row(c0=1, c1=1)])
    assert stats.segment_scores(rows).tolist() == [1.0, 0.4, 0.0]


# -- data and cache ----------------------------------------------------------------------------


def test_locate_finds_the_installed_files():
    src = data.locate()
    assert src.jar.name == "meteor-1.5.jar" and src.paraphrase.name == "paraphrase-en.gz"


def test_jar_words(prefixes):
    words = data.read_jar_text(JAR, "function/english.words").split("\n")
    assert len([w for w in words if w]) == 93


def test_missing_member_and_damaged_jar(tmp_path):
    with pytest.raises(data.MeteorDataError, match="has no nothing/here"):
        data.read_jar_text(JAR, "nothing/here")
    bad = tmp_path / "meteor-1.5.jar"
    bad.write_bytes(JAR.read_bytes()[:1000])
    with pytest.raises(data.MeteorDataError, match=r"damaged or truncated.*pip install"):
        data.read_jar_text(bad, "function/english.words")


TABLE = [("0.5", "big", "large"), ("0.25", "a man", "a guy"), ("0.125", "large", "big")]


def _small_sources(tmp_path, records=TABLE):
    folder = tmp_path / "meteor"
    (folder / "data").mkdir(parents=True)
    shutil.copy(JAR, folder / "meteor-1.5.jar")
    text = "".join(f"{p}\n{a}\n{b}\n" for p, a, b in records)
    with gzip.open(folder / "data" / "paraphrase-en.gz", "wt") as f:
        f.write(text)
    return data.Sources(folder / "meteor-1.5.jar", folder / "data" / "paraphrase-en.gz")


def test_cache_build_load_and_rebuild(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    sums = src.checksums()
    built = cache.load_or_build(src, sums)
    path = cache.cache_path(sums)
    assert path.parent == tmp_path / "cache" and (path / "meta.json").is_file()
    warm = cache.load_or_build(src, sums)
    assert all(np.array_equal(built[k], warm[k]) for k in built)
    del warm  # its arrays map the files damaged below
    capsys.readouterr()
    rows = path / "phrase_rows.npy"
    rows.write_bytes(rows.read_bytes()[: rows.stat().st_size // 2])  # truncated
    again = cache.load_or_build(src, sums)
    assert "unusable" in capsys.readouterr().err
    assert np.array_equal(again["phrase_hash"], built["phrase_hash"])
    assert cache.load_or_build(src, sums)["phrase_rows"].shape == built["phrase_rows"].shape
    (path / "meta.json").unlink()  # an unfinished folder: rebuilt in its place
    cache.load_or_build(src, sums)
    assert (path / "meta.json").is_file() and len(list(path.parent.iterdir())) == 1


def test_cache_two_processes_building_at_once_keep_one_whole_entry(tmp_path, monkeypatch, capsys):
    """Workers of one job (torchrun, CI's parallel parts) may build the same entry together:
    the one that moves its folder in second finds the first one's whole folder there and
    keeps it, instead of reporting a failed write."""
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    sums = src.checksums()
    path = cache.cache_path(sums)
    real_rename = os.rename

    def other_process_first(a, b):
        if Path(b) == path and not path.exists():  # the other worker moves in just before us
            path.mkdir(parents=True)
            (path / "meta.json").write_text("theirs")
        return real_rename(a, b)

    monkeypatch.setattr(cache.os, "rename", other_process_first)
    built = cache.load_or_build(src, sums)
    err = capsys.readouterr().err
    assert "could not write" not in err and "cached in" in err
    assert (path / "meta.json").read_text() == "theirs"  # theirs kept, not mixed with ours
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no .tmp left
    assert built["phrase_hash"].size > 0


def test_cache_build_removes_older_formats_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "cache"
    folder.mkdir()
    npz = folder / "meteor-1.5-en-0123456789abcdef.npz"  # formats 1-4: one file
    npz.write_bytes(b"PK old")
    five = folder / "meteor-1.5-en-fedcba9876543210"  # format 5: a folder
    five.mkdir()
    (five / "meta.json").write_text('{"format": 5, "key": "x"}')
    other = folder / "meteor-1.5-en-00000000000000aa"  # this format, other sources: kept
    other.mkdir()
    (other / "meta.json").write_text(json.dumps({"format": cache.FORMAT, "key": "y"}))
    unfinished = folder / "meteor-1.5-en-00000000000000bb"  # no meta.json: kept
    unfinished.mkdir()
    keep = [folder / n for n in ("meteor-1.5-en-notes.npz", "mine.npz", "meteor-1.5-en-0123.npz")]
    for f in keep:
        f.write_bytes(b"user file")
    src = _small_sources(tmp_path)
    cache.load_or_build(src, src.checksums())
    left = sorted(p.name for p in folder.iterdir())
    want = [cache.cache_path(src.checksums()).name, other.name, unfinished.name]
    assert left == sorted(want + [f.name for f in keep])
    err = capsys.readouterr().err
    assert "removed 2 METEOR cache entries of an older format" in err
    assert npz.name in err and five.name in err


def test_cache_rejects_tampered_arrays(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    sums = src.checksums()
    partner = np.array(cache.load_or_build(src, sums)["fwd_partner"])
    # same shape and type, other contents (still consistent: only the checksum can tell)
    np.save(cache.cache_path(sums) / "fwd_partner.npy", partner[::-1].copy())
    capsys.readouterr()
    cache.load_or_build(src, sums)
    assert "checksum does not match" in capsys.readouterr().err


def test_cache_rejects_other_sources(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    sums = src.checksums()
    cache.load_or_build(src, sums)
    meta = cache.cache_path(sums) / "meta.json"
    meta.write_text(meta.read_text().replace('"key": "', '"key": "0'))
    capsys.readouterr()
    cache.load_or_build(src, sums)
    assert "built from other source files" in capsys.readouterr().err


def test_cache_location_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv("SPARSECIDER_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "sparsecider"


def test_truncated_paraphrase_table_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path, TABLE * 2000)
    src.paraphrase.write_bytes(src.paraphrase.read_bytes()[:200])
    with pytest.raises(
        data.MeteorDataError,
        match=r"paraphrase-en\.gz is damaged or truncated.*reinstall pycocoevalcap: pip install",
    ):
        cache.load_or_build(src, src.checksums())


def test_paraphrase_index_finds_phrases(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    index = ParaphraseIndex(cache.load_or_build(src, src.checksums()))
    tokens = "a man is big and a guy".split()
    ids = index.word_ids(tokens)
    starts, lengths, pids = index.find(ids, np.full(ids.size, ids.size))
    found = {" ".join(tokens[s : s + n]) for s, n in zip(starts, lengths, strict=True)}
    assert found == {"a man", "big", "a guy"}  # "man" alone and "a" alone are not phrases
    big = pids[
        [" ".join(tokens[s : s + n]) == "big" for s, n in zip(starts, lengths, strict=True)]
    ][0]
    assert len(index.partners(int(big))) == 1


def test_a_paraphrase_table_too_large_for_the_packed_phrase_ids_is_refused(tmp_path, monkeypatch):
    # ParaphraseIndex.find packs a phrase id in _PID_BITS bits: a table with more phrases
    # than that (never METEOR 1.5's, which has ~2.6 million) is refused at load.  One bit
    # here: the small table's phrases are more than 2.
    from sparsecider.metrics.meteor import paraphrase

    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    arrays = cache.load_or_build(src, src.checksums())
    monkeypatch.setattr(paraphrase, "_PID_BITS", 1)
    with pytest.raises(
        data.MeteorDataError, match=r"phrases, more than 2; it is not METEOR 1\.5's"
    ):
        ParaphraseIndex(arrays)


def test_cache_files_are_plain_npy(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARSECIDER_CACHE_DIR", str(tmp_path / "cache"))
    src = _small_sources(tmp_path)
    sums = src.checksums()
    arrays = cache.load_or_build(src, sums)
    folder = cache.cache_path(sums)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [f"{name}.npy" for name in arrays] + ["meta.json"]
    )
    loaded = np.load(folder / "phrase_rows.npy", allow_pickle=False)
    assert np.array_equal(loaded, arrays["phrase_rows"])
