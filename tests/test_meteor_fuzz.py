"""The METEOR fuzz's mutation generators (``benchmarks/meteor_mutations.py``, their word
lists from ``benchmarks/meteor_words.py``): deterministic, and each class makes what it
claims.  No Java: the jar comparison itself is the benchmark
(``python -m benchmarks.bench_meteor_fuzz``).

The claims are checked here by plain rules written for the test (a caption's letters, its
words' order, the synsets and exceptions files parsed again), not by the generators' code.
"""

from __future__ import annotations

import gzip
import random
import re
from collections import Counter

import pytest

from benchmarks import bench_meteor_fuzz as fuzz
from benchmarks import meteor_mutations as mm
from benchmarks import meteor_words as mw

# A tiny stand-in of the jar's files, in their layout (word line, then ids / forms line).
FUNCTION = "the\n,\n.\na\nof\non\nin\nwith\nis\nare\ntwo\n's\n"
SYNSETS = "dog\n1 2\ncanine\n1\nhound\n2\nsofa\n3\ncouch\n3 4\nman\n5\nrun\n6\nrunning\n7\n"
EXCEPTIONS = "man\nmen\nrun\nran running\nmouse\nmice\n"
CAPTIONS = [
    ["A man is running with two dogs on the beach.", "Two dogs run on a sofa.", "men and mice"],
    ["The mouse sits on the couch, with a dog.", "A dog in mid-air", "a 2 man-made sofa ."],
    ["a couch of the man", "Dogs and a hound.", "The man runs with a dog."],
]
TABLE = {"a dog": ("one dog", "a hound"), "the beach": ("the shore",), "on": ("upon",)}


@pytest.fixture(scope="module")
def words():
    w = mw.Words.from_texts(FUNCTION, SYNSETS, EXCEPTIONS)
    w.paraphrases = dict(TABLE)
    return w


def letters(s: str) -> str:
    return re.sub(r"[\W_]", "", s)


def is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


def regular_inflection(a: str, b: str) -> bool:
    """b is a, or a is b, with one of English's regular suffixes (spelling rules included)."""
    endings = ("s", "es", "ing", "ed", "d")
    for x, y in ((a, b), (b, a)):
        for e in endings:
            if y == x + e or (x.endswith("e") and y == x[:-1] + e):  # ride -> riding
                return True
            if len(x) > 1 and y == x + x[-1] + e:  # run -> running
                return True
        if x.endswith("y") and y in (x[:-1] + "ies", x[:-1] + "ied"):
            return True
    return False


def parse_pairs(text: str) -> dict[str, list[str]]:
    lines = text.split("\n")
    return {k: v.split() for k, v in zip(lines[0::2], lines[1::2], strict=False)}


def check_claim(kind: str, old: str, new: str, detail: dict, files: dict) -> None:
    """Assert that ``new`` is ``old`` mutated as class ``kind`` claims (files: the word lists
    parsed here, independently of the generators)."""
    o, n = old.split(), new.split()
    assert new != old or kind == "control"
    if kind in ("inflection", "synonym"):
        assert len(n) == len(o)
        changed = {c["position"] for c in detail["changes"]}
        assert [t for i, t in enumerate(o) if i not in changed] == [
            t for i, t in enumerate(n) if i not in changed
        ]
        for c in detail["changes"]:
            word, i = c["word"], c["position"]
            other = c["form"] if kind == "inflection" else c["synonym"]
            assert word in o[i].lower() and other in n[i].lower()
            if kind == "synonym":
                assert c["synset"] in files["synsets"][word]
                assert c["synset"] in files["synsets"][other] and other != word
            elif c["how"].startswith("irregular"):
                base, form = (word, other) if c["how"] == "irregular-form" else (other, word)
                assert form in files["exceptions"][base]
            else:
                assert regular_inflection(word, other), c
    elif kind == "paraphrase":
        s, e = detail["start"], detail["end"]
        assert " ".join(letters(t).lower() for t in o[s:e]) == detail["phrase"]
        assert detail["paraphrase"] in files["paraphrases"][detail["phrase"]]
        assert o[:s] == n[:s] and o[e:] == n[len(n) - len(o) + e :]
        assert " ".join(n[s : len(n) - len(o) + e]).lower().startswith(detail["paraphrase"])
    elif kind == "reorder":
        assert Counter(o) == Counter(n) and o != n
    elif kind == "repeat":
        assert len(n) > len(o) and is_subsequence(o, n) and set(n) <= set(o)
    elif kind == "function_words":
        fw = set(files["function"])
        content = [t for t in o if t not in fw and letters(t).lower() not in fw]
        content_new = [t for t in n if t not in fw and letters(t).lower() not in fw]
        assert content == content_new
        if detail["op"] == "insert":
            assert set(detail["words"]) <= fw and len(n) == len(o) + len(detail["words"])
        elif detail["op"] == "remove":
            assert len(n) == len(o) - len(detail["words"])
        else:
            assert detail["by"] in fw
    elif kind == "punctuation":
        assert letters(new) == letters(old)
    elif kind == "hyphens":
        assert re.sub(r"[\s\-\u2013\u2014]", "", new) == re.sub(r"[\s\-\u2013\u2014]", "", old)
    elif kind == "numbers":

        def words_only(ts):
            return [
                t
                for t in ts
                if not re.search(r"\d", t) and letters(t).lower() not in mm.NUMBER_WORDS
            ]

        assert words_only(o) == words_only(n) and re.search(r"\d", new + old)
    elif kind == "case":
        assert new.casefold() == old.casefold()
    elif kind == "pipes":
        assert "||" in new or "| | |" in new
        if detail["op"] != "only":
            assert re.sub(r"[\s|]", "", new) == re.sub(r"[\s|]", "", old)


def test_every_class_makes_what_it_claims(words):
    files = {
        "synsets": parse_pairs(SYNSETS),
        "exceptions": parse_pairs(EXCEPTIONS),
        "function": FUNCTION.split(),
        "paraphrases": TABLE,
    }
    rng = random.Random(5)
    made = Counter()
    for kind, mutate in mm.MUTATORS.items():
        for caption in [c for caps in CAPTIONS for c in caps] * 5:
            got = mutate(caption, rng, words)
            if got is not None:
                check_claim(kind, caption, *got, files)
                made[kind] += 1
    assert set(made) == set(mm.MUTATORS)  # every class applies to these captions


def test_pairs_are_deterministic_and_balanced(words):
    pairs = fuzz.make_pairs(240, 7, CAPTIONS, words)
    assert pairs == fuzz.make_pairs(240, 7, CAPTIONS, words)
    assert pairs != fuzz.make_pairs(240, 8, CAPTIONS, words)
    assert Counter(p["kind"] for p in pairs) == dict.fromkeys(mm.CLASSES, 20)


def test_pairs_put_the_mutation_on_the_side_they_say(words):
    for p in fuzz.make_pairs(240, 7, CAPTIONS, words):
        caps = CAPTIONS[p["image"]]
        foreign = [r for r in p["references"] if r not in caps]
        assert p["original"] in caps
        if p["side"] == "none":  # control: another caption of the image, nothing changed
            assert p["kind"] == "control" and p["candidate"] in caps and not foreign
            assert p["candidate"] != p["original"] and p["original"] in p["references"]
        elif p["side"] == "candidate":
            assert p["candidate"] not in caps and not foreign
            assert p["original"] in p["references"]
        else:
            assert p["candidate"] == p["original"] and len(foreign) == 1


@pytest.fixture(scope="module")
def jar_words():
    pytest.importorskip("pycocoevalcap", reason="the word lists are read from pycocoevalcap")
    return mw.load_words()


def test_real_word_lists_and_coco_captions(jar_words):
    """On real captions and the jar's own files: synonyms share a synset of
    ``synonym/english.synsets``, irregular forms come from ``english.exceptions``."""
    from sparsecider.metrics.meteor.data import locate, read_jar_text

    jar = locate().jar
    files = {
        "synsets": parse_pairs(read_jar_text(jar, "synonym/english.synsets")),
        "exceptions": parse_pairs(read_jar_text(jar, "synonym/english.exceptions")),
        "function": read_jar_text(jar, "function/english.words").split("\n")[:-1],
    }
    assert len(files["function"]) == len(jar_words.function_words) == 93
    images = fuzz.coco_images()[:3000]
    pool = fuzz.paraphrase_pool(len(images), 33)
    phrases = sorted(fuzz.needed_phrases(images, pool))[:200]
    words = mw.Words(**{**vars(jar_words), "paraphrases": {p: ("a stand-in",) for p in phrases}})
    files["paraphrases"] = words.paraphrases
    pairs = fuzz.make_pairs(600, 33, images, words)
    assert pairs == fuzz.make_pairs(600, 33, images, words)
    hows = Counter()
    for p in pairs:
        if p["kind"] != "control":
            new = (
                p["candidate"]
                if p["side"] == "candidate"
                else next(r for r in p["references"] if r not in images[p["image"]])
            )
            check_claim(p["kind"], p["original"], new, p["detail"], files)
        for c in p["detail"].get("changes", ()):
            hows[c.get("how", "synonym")] += 1
    assert hows["irregular-form"] + hows["irregular-base"] > 0 and hows["synonym"] > 20


def test_paraphrase_table_reader(tmp_path):
    path = tmp_path / "p.gz"
    lines = ["0.5", "a dog", "one dog", "0.1", "a dog", "a hound", "0.2", "the", "this",
             "0.3", "a dog", "a dog", "0.4", "x", "a dog"]  # fmt: skip
    with gzip.open(path, "wt") as f:
        f.write("\n".join(lines) + "\n")
    got = mw.read_paraphrases(path, {"a dog", "the", "nothing"})
    assert got == {"a dog": ("one dog", "a hound"), "the": ("this",)}


def test_without_java_it_says_so_and_skips(monkeypatch, capsys):
    monkeypatch.setattr(fuzz.shutil, "which", lambda name: None)
    out = fuzz.main(["--n", "12"])
    assert out["status"] == "skipped" and "Java" in out["reason"]
    assert "Skipped" in capsys.readouterr().out


def test_difference_pattern_names_the_stages():
    import numpy as np

    # "with 2" against "with two" (spec 4.1 layout), as measured: the jar aligns with-with
    # (exact) and 2-two (synonym); sparsecider at 90bf5d1 kept the paraphrase "with 2" =
    # "with two", covering both words by stage 3 instead
    jar = np.array([2, 2, 1, 2, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 2, 2])
    ours = np.array([2, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 2, 1, 2, 2])
    assert fuzz.pattern(ours, jar) == "exact- synonym- paraphrase+"
    assert fuzz.pattern(jar, jar) == "same statistics"
    longer = jar.copy()
    longer[[0, 20]] = [3, 2]
    assert fuzz.pattern(longer, jar) == "lengths chunks+"
