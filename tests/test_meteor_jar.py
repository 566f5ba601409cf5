"""METEOR 1.5 without Java against the jar's own numbers (fixtures made by
``tests/fixtures/make_meteor_fixtures.py``), plus input handling.

The first use builds the paraphrase index cache (about a minute, once).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "pycocoevalcap", reason="METEOR reads its data from pycocoevalcap (the `ref` extra)"
)
pytest.importorskip(
    "snowballstemmer", reason="METEOR needs snowballstemmer==2.2.0 (the `meteor` extra)"
)

import sparsecider.metrics.meteor.score as meteor_score
from benchmarks.bench_meteor import heldout
from sparsecider.metrics.meteor import (
    corpus_score,
    meteor_scores,
    segment_scores,
    segment_statistics,
    summed,
)
from sparsecider.metrics.meteor.align import align
from sparsecider.metrics.meteor.matchers import EXACT, PARAPHRASE, STEM, SYNONYM, candidates
from sparsecider.metrics.meteor.normalize import normalize
from sparsecider.metrics.meteor.resources import load
from sparsecider.metrics.meteor.segment import (
    Caption,
    SynonymTypes,
    pair_candidates,
    segment_stats,
)
from sparsecider.metrics.meteor.splitsq import typed_words
from tests.test_bleu_rouge import METEOR_DEMO_GAP

FIXTURES = Path(__file__).parent / "fixtures"
# Segments of the COCO held-out fixture scored here (the whole set is a benchmark).
N_COCO = 3000
# Segments of those that still differ from the jar (alignment ties and contested candidates the
# model does not reproduce yet: sparsecider/metrics/meteor/METEOR_BEHAVIOUR.md, section 6 and
# the appendix).  A regression guard (56 since spec36d: segment 2061, `different`/`a variety`
# taken over the exact `a`, as by the specification's model; N39; spec36e, N41, fixes 842 and
# 2472 and breaks 1014 and 2755; spec37a, N45, fixes 670 and 2664 and breaks 108 and 1926, as
# the model does; spec37b, N46, fixes 524, 599, 747, 860, 872, 1103, 1985, 2343 and breaks
# 1992, 2004; with both, 56 -> 49; spec37d, N48, fixes 109, 367, 1877, 2061, 2560: 44;
# spec38a, N55, breaks 2926 as the model does: `a ball`/`a court` is no longer preferred,
# its exact `a` pair has other readings: 45; spec38b, N53, spec38c, N54, and spec39a, N60,
# change none of the 3,000; the code of stop 45 differs on 44; spec46a, N72, fixes 2755: 43;
# spec46b, N70, fixes 2057: 42; spec47b, N79, fixes 270: 41; spec47a, N80, fixes 245: 40;
# spec48b, N87, fixes 1873, 2748: 38; spec48a, N86, fixes 1299: 37; spec49a, N94, fixes 1644,
# and spec49c, N96, fixes 619: 35; spec50a, N103, fixes 2187, and spec50b, N104, fixes 2916: 33;
# spec51a, N111, fixes 429: 32; spec53a, N127, fixes 1212, 1841, 2480: 29).
KNOWN_COCO_DIFFERENCES = 29


@pytest.fixture(scope="module")
def res():
    return load()


@pytest.fixture(scope="module")
def examples():
    with open(FIXTURES / "meteor_examples.json", encoding="utf-8") as f:
        return json.load(f)


def test_examples_statistics_and_scores(examples, res):
    ex = examples["examples"]
    got = segment_statistics([e["hyp"] for e in ex], [e["refs"] for e in ex], resources=res)
    for e, row in zip(ex, got.tolist(), strict=True):
        assert row == e["stats"], (e["hyp"], e["refs"])
    assert segment_scores(got).tolist() == [e["score"] for e in ex]
    assert corpus_score(summed(got)) == examples["corpus"]


@pytest.fixture(scope="module")
def coco(res):
    jar = np.load(FIXTURES / "meteor_coco_heldout.npz")
    hyps, refs = heldout(N_COCO)
    return jar, segment_statistics(hyps, refs, resources=res)


def test_coco_heldout_differences_do_not_grow(coco):
    jar, got = coco
    differ = int((got != jar["stats"][:N_COCO]).any(axis=1).sum())
    assert differ <= KNOWN_COCO_DIFFERENCES


def test_coco_heldout_scores_follow_statistics(coco):
    # wherever the statistics agree, the segment score is the jar's to the last bit
    jar, got = coco
    same = (got == jar["stats"][:N_COCO]).all(axis=1)
    assert same.mean() > 0.9
    assert np.array_equal(segment_scores(got)[same], jar["scores"][:N_COCO][same])


# The coco-caption demo (1,000 COCO val images) as COCOEvalCap scores it: both sides tokenized
# by the Java PTBTokenizer (coco_fakecap.ptb.json.gz), then METEOR image by image.  The jar's
# statistics and scores are in meteor_fakecap_demo.npz (make_meteor_fixtures.py).  The images
# whose statistics still differ from the jar's (alignment ties of METEOR_BEHAVIOUR.md 6.5,
# measured at stop 45): a regression guard, allowed only to shrink (spec49a, N94, fixes 73830 and
# 335532; spec49c, N96, fixes 236189).  Their effect on the corpus score is
# test_bleu_rouge.METEOR_DEMO_GAP.
KNOWN_DEMO_DIFFERENCES = {150675, 320039, 375840, 481635}


def test_coco_caption_demo_image_by_image(res):
    jar = np.load(FIXTURES / "meteor_fakecap_demo.npz")
    with gzip.open(FIXTURES / "coco_fakecap.ptb.json.gz", "rt", encoding="utf-8") as f:
        tok = json.load(f)
    ids = list(tok["candidates"])
    assert [int(i) for i in ids] == jar["ids"].tolist()
    got = segment_statistics(
        [tok["candidates"][i] for i in ids], [tok["references"][i] for i in ids], resources=res
    )
    differ = (got != jar["stats"]).any(axis=1)
    assert set(jar["ids"][differ].tolist()) <= KNOWN_DEMO_DIFFERENCES
    # every other image: the jar's segment score to the last bit
    assert np.array_equal(segment_scores(got)[~differ], jar["scores"][~differ])
    assert float(jar["corpus"]) == 0.19525467177780284  # the jar's printed corpus score
    assert abs(corpus_score(summed(got)) - float(jar["corpus"])) <= METEOR_DEMO_GAP


def test_fast_candidates_equal_the_plain_twin(res):
    hyps, refs = heldout(300)
    vocab = set()
    caps = {}
    for t in hyps + [r for rs in refs for r in rs]:
        n = normalize(t, res.prefixes)
        caps[t] = (n, Caption(n, res, None))
        vocab.update(caps[t][1].tokens)
    syn = SynonymTypes(vocab, res.lexicon)
    from sparsecider.metrics.meteor.longpairs import captions as _captions

    full = _captions([c[0] for c in caps.values()], res)
    for h, rs in zip(hyps, refs, strict=True):
        for r in rs:
            t, f = caps[h][0], caps[r][0]
            slow = candidates(t.split(), f.split(), res.lexicon, res.paraphrases)
            fast = pair_candidates(full[t], full[f], res.paraphrases.partners, syn)
            assert fast == slow, (t, f)


def _per_pair(hyps, refs, res):
    """The per-pair code (segment.segment_stats), the array path's plain twin."""
    from sparsecider.metrics.meteor.longpairs import captions as _captions
    from sparsecider.metrics.meteor.score import jar_fields

    fields = [jar_fields(h, r) for h, r in zip(hyps, refs, strict=True)]
    hs = [normalize(h, res.prefixes) for h, _ in fields]
    rs = [[normalize(r, res.prefixes) for r in rr] for _, rr in fields]
    caps = _captions(hs + [r for rr in rs for r in rr], res)
    syn = SynonymTypes({t for rr in rs for r in rr for t in caps[r].tokens}, res.lexicon)
    rows = [
        segment_stats(caps[h], [caps[r] for r in rr], res, syn)
        for h, rr in zip(hs, rs, strict=True)
    ]
    return np.asarray(rows, dtype=np.int64)


def test_array_path_equals_the_per_pair_code(res):
    # COCO pairs, then short random captions over words that repeat, stem, are synonyms or
    # paraphrases of each other (the search's hard cases), some over 64 tokens (per-pair path).
    hyps, refs = heldout(400)
    rnd = np.random.default_rng(0)
    vocab = (
        "a a a the the of of dog dogs hound cat cats sofa couch kid child men man two couple "
        "big large giant filled full with on in sitting seated bench x y , ."
    ).split()

    def caption(n):
        return " ".join(rnd.choice(vocab, size=n))

    for _ in range(400):
        hyps.append(caption(int(rnd.integers(1, 12))))
        refs.append([caption(int(rnd.integers(1, 12))) for _ in range(int(rnd.integers(1, 4)))])
    for n in (63, 64, 65, 90):
        hyps.append(caption(n))
        refs.append([caption(20), caption(n)])
    # square twins (specification 6.1): a contested one-word match beside a 2:2 paraphrase
    twins = ["a pair of men", "a slice of pizza", "young boy", "walking towards the ocean"]
    others = ["a couple of men", "a piece of pizza", "little boy", "walk toward the beach"]
    for h, r in zip(twins, others, strict=True):
        hyps.append(f"{h} on a bench")
        refs.append([r, "a " + r, "men on a bench"])
    # the orphan rule (6.3): an exact word inside a non-square paraphrase on one side only
    lone = ["several buses a", "x is y a z", "a couple of", "a different", "is a", "a clearing"]
    beside = ["a few buses", "a traffic w b", "two a", "other x a", "a traffic a", "the field zq"]
    for h, r in zip(lone, beside, strict=True):
        hyps += [h, f"{h} on a bench"]
        refs += [[r], [r, f"{r} {h}", "men on a bench"]]
    edge = ["", " ", ". . .", "Ünïcödé çafé , naïve", "a", "a a a a", "the dog the dog"]
    for h in edge:
        hyps.append(h)
        refs.append([*edge, "a dog"])
    # more than 64 candidates that contest each other: the array path hands the pair over
    hyps.append("dogs " * 30 + "a cat")
    refs.append(["dog " * 30 + "a cats", "the dog"])
    got = segment_statistics(hyps, refs, resources=res)
    assert np.array_equal(got, _per_pair(hyps, refs, res))


# Runs of the jar's stand-alone Matcher on toy pairs, cited by the specification (section 6;
# made by tests/fixtures/meteor_spec/make_align_examples.py): modules, beam size, jar alignment.
TOYS = FIXTURES / "meteor_spec" / "align_examples.json"
# Cited runs of the scorer's alignment type the search reproduces (of 857); the others are the
# open questions of section 6.5.  A regression guard: it may only grow (324 before spec38a-c;
# with their ports 405: S, T and U runs gained, S3 at -x 2 lost as by the model; 463 of 577
# with spec39a-c's V, W and X runs and spec39a's port, N60: V1, V2 at -x 2, -x 3, -x 40, V3,
# K7 at -x 2, -x 40, S13 at -x 3, -x 40 gained; spec39b's rule is not ported, see N59; 468 of
# 645 with spec45a-c's Y, Z and AA runs: AA2 at -x 2, -x 3, -x 40 and AA3 at -x 3, -x 40 as by
# the model, N63; the code of stop 44 reproduces 498 of the 645; with spec45a's port, N64, Y1,
# Y3, Y7 at -x 40 gained; with spec45b's port, N65, Z1, Z2, Z4-Z8 at -x 1, -x 2, -x 40 gained;
# with both, N66, 522: none lost; 531 of 665 with spec46a's AB runs, N67: the code before its
# port reproduces AB2 at every beam, AB3 at -x 1, -x 2, AB1, AB4, AB5 at -x 1; the model with
# the rule adds AB1, AB4, AB5 at -x 3, -x 40; 537 of 677 with spec46c's AD runs: AD3, AD6, AD8
# at -x 2, -x 3, -x 40 (AD5 at -x 3, -x 40) and AD7 at every beam as by the model; spec46c's
# rule, N69, adds AA1, AD1, AD2, AD4 at every beam; spec46b's AC runs, N68: 21 of 32 reproduced
# by the model without its rule, 28 with it; the code before the three ports: 567 of 729; with
# spec46a's port, N72, AB1, AB4, AB5 at -x 3, -x 40 gained; with spec46c's, N71, AA1, AD1, AD2,
# AD4 at every beam gained; with spec46b's, N70, AC1 and AC5 at -x 2, -x 3, -x 40 and AC3 at
# -x 40 gained, none lost; 612 of 761 with spec47c's AG runs, N77: the code before its port
# reproduces AG4, AG5 at every beam, AG7 at -x 2, -x 3, -x 40 and AG1-AG3, AG6, AG8 at -x 1;
# with its port, N78, AG1-AG3, AG6, AG8 at -x 2, -x 3, -x 40 gained, none lost; spec47b's AF
# runs, N76: none reproduced before its port; with the port, N79, all 32 gained, none lost;
# spec47a's AE runs, N75; with spec47a's port, N80, AE1-AE4 at -x 40, AE2 at -x 3, H5, Q1, Q3
# at -x 3, -x 40 and Q6 at -x 40 gained, H5, Q1, Q3, Q6, AE2 at -x 2 and AE1, AE3 at -x 2,
# -x 3, Q6 at -x 3 lost, each as by the model: the rule fits the jar at beam 40, the beam
# pycocoevalcap runs; the three ports together: 675 of 825; stop 48 adds 92 runs (spec48a's AH,
# N82; spec48b's AI, N83; spec48c's AJ, N84): the code before their ports reproduces 17 of the 32 AI
# runs; with spec48b's port, N87, AI1-AI3 at -x 2, -x 3, -x 40 and AI4, AI8 at -x 3, -x 40 gained;
# with spec48c's port, N88, AJ1-AJ5 at -x 3, -x 40, E7 at -x 40 and E11 at -x 2, -x 40 gained;
# the code without spec48a's port reproduces AH1, AH2, AH7 at -x 1 to -x 3, AH3-AH6 at -x 1 to
# -x 3 and AH3, AH4, AH6 at -x 40, as BEST; with its port, N86, AH1, AH2, AH7, U6, X1, X2 at
# -x 40 gained, none lost; the three ports together: 770 of 917); stop 49 adds 83 runs
# (spec49a's 32 AK, N90; spec49b's 32 AL, N91, not adopted; spec49c's 19 AM, N92): the code
# before the ports reproduces 812 of 1,000; with spec49a's port, N94, AK1, AK5 at -x 3, -x 40,
# AK2, AK4, AK7 at -x 40 and AK3 at -x 2, -x 3, -x 40 gained, with spec49c's, N96, AM1, AM4,
# AM5, AM7 at -x 40 gained, none lost: 826 of 1,000; stop 50 adds spec50c's 20 AN runs (N100),
# spec50a's 32 AP runs (N98) and spec50b's 11 AO runs (N99): 1,063 runs.  With spec50c's port
# (N102) AN1 at -x 2, -x 3, -x 40, AN2, AN4, AN6, AN7 at -x 40 gained and AN8 at -x 40 lost (as
# the model); with spec50a's (N103) AB3 at -x 40 and AP1-AP5 at -x 3, -x 40 gained; with
# spec50b's (N104) AO1 at -x 2, -x 3, -x 40, AO2, AO3 at -x 2, -x 40 gained, none lost: 858.
# Stop 51 adds spec51a's 21 AQ runs (N106): 1,084 runs, 898 reproduced before its port (the
# count had grown past 858 with the merges of stop 50); with the port (N111) AH5, AQ1, AQ2, AQ8
# at -x 40 gained, none lost: 902.  The merge of stop 51 adds spec51b's 19 AR runs (N107; its rule
# withdrawn, N113) and spec51c's 25 AS runs (N108, not adopted): 1,128 runs, 927 reproduced.
# Stop 52: spec52a's 25 AT runs (N114), spec52b's 28 AU runs (N115), spec52c's 17 AV runs (N116, not
# adopted): 1,198 runs, 972 reproduced (main's code before the ports: 964 of them; both ports gain
# their toys' runs, impl52b loses AU7 at -x 1 as the model does, N120).
# Stop 53: spec53a's 24 AW runs (N122): 1,222 runs; impl53a (N127) reproduces 999 (main's code: 988
# of them, the port gains AE7, AE8, AW1, AW2, AW6 at -x 3 and -x 40 and AW7 at -x 40, loses none).
# The merge of stop 53 adds spec53b's 25 AX runs (N123, its rule withdrawn, N129), spec53c's 21
# AY runs (N124, not adopted) and spec53d's 11 AZ runs (N125, withdrawn): 1,279 runs, 1,024
# reproduced.
# Stop 54: spec54a's 46 BA runs (N130): 1,325 runs; main's code reproduces 1,054 of them; impl54a
# (N133, spec54a's rule in place of spec53a's) gains BA1, BA3, BA9 at -x 5, -x 40, BA4, BA8 at
# -x 4, -x 40 and BA7 at -x 40, loses none: 1,065 (the same runs as the model with BEST).
# spec54b's 20 BB runs (N131): impl54b (N135) gains BB1, BB3, BB7 at -x 40 and BB4, BB5 at -x 2
# and -x 40, loses BB1 at -x 3 as the model does. The merge of stop 54 adds spec54c's 16 BC runs
# (N132, its rule withdrawn, N136): 1,361 runs, 1,095 reproduced by the merged code.
# Stop 55: spec55b's 18 BE runs (N138): 1,379 runs; main's code reproduces 1,108 of them;
# impl55b (N140) gains BE1, BE2, BE3, BE4 at -x 40, loses none: 1,112 (BE5 at -x 40 missed).
# The merge of stop 55 adds spec55a's 19 BD runs (N137, not adopted): 1,398 runs, 1,118 reproduced;
# and spec55c's 25 BF runs (N139) and spec55d's 9 BG runs (N141), neither adopted: 1,432 runs,
# 1,138 reproduced by the merged code.
KNOWN_TOYS_REPRODUCED = 1138
_STAGE = {"exact": EXACT, "stem": STEM, "synonym": SYNONYM, "paraphrase": PARAPHRASE}


def _toy_alignment(res, e):
    """Our per-pair search on a cited Matcher run ``e``: its modules only, its beam size."""
    t, r = e["test"].split(), e["ref"].split()
    fw = res.function_words
    mods = [_STAGE[m] for m in e["modules"].split()]
    props = {}
    for k, stages in candidates(t, r, res.lexicon, res.paraphrases).items():
        if kept := [s for s in stages if s in mods]:
            props[k] = kept
    # the Matcher labels a match with the index of its earliest stage in the -m list
    return sorted(
        (ts, tl, rs, rl, mods.index(min(props[ts, tl, rs, rl])))
        for ts, tl, rs, rl, _ in align(props, len(t), e["beam"], words=typed_words(t, fw))
    )


def test_cited_jar_toy_alignments(res):
    with open(TOYS, encoding="utf-8") as f:
        runs = [e for e in json.load(f) if e["type"] != "maxacc"]  # maxacc: not the scorer's
    reproduced = set()
    for e in runs:
        if _toy_alignment(res, e) == sorted(tuple(m) for m in e["align"]):
            reproduced.add((e["id"], e["beam"]))
    assert len(runs) == 1432 and len(reproduced) >= KNOWN_TOYS_REPRODUCED
    # 6.1 (spec33c): the 2:2 paraphrase at every beam (`slice of`/`piece of`, `pair of`/
    # `couple of`, `towards the`/`toward the`), the shorter-test-span order kept (G1-G3)
    for toy in ("G1", "G2", "G3", "G9", "G11", "G12", "G13"):
        beams = [e["beam"] for e in runs if e["id"] == toy]
        assert beams and all((toy, x) in reproduced for x in beams), toy
    # 6.3 (spec34a, the orphan rule): an exact word inside a non-square paraphrase on one side
    # only, nothing else on its words, wins over the paraphrase once both are kept (`several`/
    # `a few`, `is`/`a traffic`; not when the word has another candidate: G19, G22, G24; never
    # against a square one: G25-G27); G3's `a couple`/`two` still wins at -x 1 and -x 2
    for toy in ("G18", "G19", "G22", "G23", "G24", "G25", "G26", "G27"):
        beams = [e["beam"] for e in runs if e["id"] == toy]
        assert beams and all((toy, x) in reproduced for x in beams), toy
    assert all(("G21", x) in reproduced for x in (2, 3, 40))


def test_lone_exact_word_beats_a_non_square_paraphrase(res):
    # The jar's SCORE lines for these pairs (pycocoevalcap's way: `-stdio -l en -norm`, run
    # 2026-11-26): exact `a` and `buses` in two chunks, not the paraphrase `several`/`a few`
    # + `buses` in one (the search before spec34a's orphan rule, specification 6.3); the last
    # three are longer than 64 tokens (the per-pair path), `is`/`a traffic` losing to `a`.
    pairs = [
        ("several buses a", "a few buses"),
        ("several buses a on a bench", "a few buses"),
        (" ".join(["x is y a z"] * 15), "a traffic w b"),
        (" ".join(["several buses a"] * 25), "a few buses"),
        ("a few buses", " ".join(["several buses a"] * 25)),
    ]
    jar = [
        "3 3 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
        "6 3 3 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
        "75 4 30 1 0 0 1 1 0 0 0 0 0 0 0 0 0 1 1 0 2 2 2",
        "75 3 25 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
        "3 75 1 25 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
    ]
    got = segment_statistics([h for h, _ in pairs], [[r] for _, r in pairs], resources=res)
    assert got.tolist() == [[int(x) for x in line.split()] for line in jar]
    scores = [0.22857142857142856, 0.2064516129032258, 0.021616405307599517]
    scores += [0.049689440993788817, 0.010680907877169559]
    assert segment_scores(got).tolist() == scores


def test_exposed_non_square_paraphrase_is_not_certain(res):
    # Specification 6.3, "Which non-square paraphrases are certain" (spec35b).  Cited jar run
    # G28 (align_examples.json, Matcher `-m "exact paraphrase"`): `next to a`/`beside a`, the
    # 3:2 paraphrase holds the exact `a`/`a` on both sides, so it stays certain and is taken at
    # every beam (per-pair search).
    t, r = "next to a".split(), "beside a".split()
    props = {}
    for k, stages in candidates(t, r, res.lexicon, res.paraphrases).items():
        if kept := [s for s in stages if s in (EXACT, PARAPHRASE)]:
            props[k] = kept
    for beam in (1, 2, 40):
        assert align(props, 3, beam) == [(0, 3, 0, 2, PARAPHRASE)], beam
    # COCO val2014 pairs 1125, 1477, 2425 of the all-modules probe (first reference only): the
    # jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way).  A
    # paraphrase exposed by an exact `a` inside it on one side only (`a red`/`is`, `a couple
    # of`/`a`, `several`/`a`...) is no longer certain, so the exact words win (array path).
    pairs = [
        (
            "A red fire hydrant sitting in the middle of a sidewalk.",
            "A fire hydrant is standing by a city street.",
        ),
        ("A airplane that is sitting on a runway.", "a large plane has a couple of letters on it"),
        (
            "a man assisting a woman shearing a sheep with several children watching",
            "A child sheering a sheep while others watch.",
        ),
    ]
    jar = [
        "12 10 6 5 2 2 3 3 0 0 0 0 0 0 0 0 0 0 0 0 4 5 5",
        "9 10 6 6 0 0 3 3 0 0 0 0 0 0 0 0 0 0 0 0 3 3 3",
        "12 9 4 3 1 1 2 2 0 0 0 0 0 0 0 0 0 0 0 0 2 3 3",
    ]
    got = segment_statistics([h for h, _ in pairs], [[r] for _, r in pairs], resources=res)
    assert got.tolist() == [[int(x) for x in line.split()] for line in jar]


# Cited jar runs of specification 6.3 (align_examples.json; spec36a "Square paraphrases on and
# off the diagonal", spec36b "check 1s"): (toy, beams the search reproduces).  G40 at -x 3, G41
# at -x 3, G39 at -x 1, G42 and G43 at -x 2 are open (6.5).
_DIAGONAL_TOYS = {
    "G38": (1, 2, 3, 40),
    "G39": (2, 3, 40),
    "G40": (1, 2, 40),
    "G41": (1, 2, 40),
    "G42": (1, 3, 40),
    "G43": (1, 3, 40),
    "G44": (1, 2, 3, 40),
    "H2": (1, 2, 3, 40),
    "H3": (1, 2, 3, 40),
    "H4": (1, 2, 40),
}


def _check_toy_runs(res, beams_of):
    """Our per-pair search equals the jar on the cited runs ``{toy: beams}``."""
    with open(TOYS, encoding="utf-8") as f:
        runs = [e for e in json.load(f) if e["type"] != "maxacc"]
    checked = 0
    for e in runs:
        if e["beam"] in beams_of.get(e["id"], ()):
            assert _toy_alignment(res, e) == sorted(tuple(m) for m in e["align"]), (
                e["id"],
                e["beam"],
            )
            checked += 1
    assert checked == sum(map(len, beams_of.values()))  # every named run is in the fixture


def _check_jar_lines(res, monkeypatch, pairs, jar):
    """Statistics of ``(hypothesis, reference)`` pairs equal the jar's lines, on both paths."""
    want = [[int(x) for x in line.split()] for line in jar]
    hyps, refs = [h for h, _ in pairs], [[r] for _, r in pairs]
    assert segment_statistics(hyps, refs, resources=res).tolist() == want
    monkeypatch.setattr(meteor_score, "MAX_FAST", -1)  # every pair through the per-pair search
    assert segment_statistics(hyps, refs, resources=res).tolist() == want


def test_square_paraphrases_on_the_diagonal_and_check_1s(res, monkeypatch):
    # The jar's alignments of the cited runs, per-pair search (G40 at -x 40: `towards the`/
    # `toward the` off the diagonal is not preferred to stem + exact; H2 at -x 2, -x 3:
    # `street`/`road` contested by check 1s).
    _check_toy_runs(res, _DIAGONAL_TOYS)
    # COCO val2014 pairs 905, 308, 3477, 8378 of the all-modules probe (first reference only):
    # the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way),
    # fixed by the square twin on the diagonal only (`walking towards`/`walk toward`), the fifth
    # key (`through a`/`through the` on the diagonal), the certain count of square matches
    # (`taking photo`/`takes a picture`) and check 1s (`two`/`a couple`...), on both paths.
    pairs = [
        (
            "Two men are walking towards the ocean with their surfboards. ",
            "Two men with surfboards walk toward the beach",
        ),
        (
            "A bear walking through a field next to a forest.",
            "A bear walks through the grass near a tree line.",
        ),
        (
            "A man is taking photo of a baby.",
            "A woman holding a baby while a man takes a picture of them",
        ),
        (
            "Two men are standing in front of a television playing Wii.",
            "a couple of men with wii remotes stand in front of a television ",
        ),
    ]
    jar = [
        "11 8 6 3 2 2 3 3 2 2 0 0 0 0 0 0 0 0 0 0 4 7 7",
        "11 11 5 4 1 1 3 3 1 1 0 0 0 0 0 0 3 3 2 1 3 10 9",
        "9 13 5 5 2 2 2 2 0 0 0 0 0 0 0 0 1 2 2 2 3 7 8",
        "12 13 6 6 4 4 3 3 1 1 0 0 0 0 0 0 0 1 1 2 3 9 11",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3's last subsection (spec36d, the reference length of
# one-word-to-multi-word paraphrases): (toy, beams the search reproduces).  K9 at -x 1 and K10
# are open (6.5) for the specification; K9 at -x 1 is reproduced here, as by its model.
_SHORT_TOYS = {"G33": (1, 2, 40), "K9": (1, 2, 3, 40)}


def test_reference_length_of_one_word_paraphrases(res, monkeypatch):
    # `zq two`/`a couple of`: `a couple` (r0:2) at every beam; `the two dogs`/`a couple of
    # dogs`: `couple of` (inside `a couple of`, same end) is not certain, so r0:3 from -x 2.
    _check_toy_runs(res, _SHORT_TOYS)
    # COCO val2014 pairs 606, 3563, 4719, 19751 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's
    # way), on both paths (`men`/`a man`, `before`/`in front of`, `two`/`a couple of`).
    pairs = [
        (
            "A group of men riding skateboards on top of cement.",
            "A man in white shirt doing a trick on a skateboard.",
        ),
        (
            "A crowd of people standing on a green field before a capital building.",
            "A view of the capitol building, in front of a park.",
        ),
        ("The two dogs are laying on the bed.", "a couple of dogs are laying on a bed together"),
        ("A hotel room with two full sized beds.", "A couple of beds and a desk in a room."),
    ]
    jar = [
        "11 12 5 6 0 0 3 3 0 0 0 0 0 0 0 0 1 1 0 1 4 4 5",
        "14 13 7 8 1 1 4 4 0 0 0 0 1 1 0 0 1 1 0 1 6 7 8",
        "9 10 6 5 3 3 2 2 0 0 0 0 0 0 0 0 0 1 1 2 2 6 8",
        "9 11 4 7 2 2 2 2 0 0 0 0 0 0 0 0 0 1 1 1 5 5 6",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec36e, appendix N40: the fourth count before the
# certain count): (toy, beams); every run of L1-L5 is reproduced.
_FOURTH_TOYS = {"L1": (1, 2, 40), "L2": (1, 2, 40), "L3": (40,), "L4": (40,), "L5": (40,)}


def test_fourth_count_before_the_certain_count(res, monkeypatch):
    # `a dish`/`a plate a x fork` at -x 40: `a`/`a` + the contested `dish`/`plate` (two
    # matches, one chunk) beat the lone `a`/`a` at r2, which ties on the first two keys and
    # is "certain" (nothing covers the test position numbered like its reference end).
    _check_toy_runs(res, _FOURTH_TOYS)
    # COCO val2014 pairs 6523, 17227, 31779, 36175 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's
    # way), on both paths.  A contested one-word match whose span pair two stages propose
    # (`stand`/`standing`, `fenced`/`fence`, `kid`/`child`: stem or synonym + paraphrase) no
    # longer counts there, so `stand`/`are`, `enclosure`/`fence`, `kid`/`small` win; in 31779
    # `a`/`a` + `man`/`person` (r0, r1) beat the certain `a`/`a` at r5, as in L1.
    pairs = [
        (
            "A group of zebras stand in a rocky field.",
            "A herd of zebras are standing in an open field.",
        ),
        (
            "Two baby elephants are in a fenced enclosure.",
            "A pair of elephants touch noses by a fence.",
        ),
        (
            "A man with an earring is drinking from a cup.",
            "A person who is taking a sip from a coffee cup.",
        ),
        ("A kid sitting on a bed with a book.", "A small child sitting on a bed reading a book."),
    ]
    jar = [
        "10 11 5 6 2 2 4 4 0 0 0 0 0 0 0 0 1 0 0 1 4 7 7",
        "9 10 5 5 1 1 2 2 0 0 0 0 0 0 0 0 1 1 0 0 3 4 4",
        "11 12 7 7 1 1 5 5 0 0 0 0 0 0 0 0 1 1 0 0 4 7 7",
        "10 11 6 5 3 3 5 5 0 0 0 0 0 0 0 0 1 1 0 0 3 9 9",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec37a, appendix N42: a square paraphrase with an
# exact match at its two starts is not certain): (toy, beams); M5-M7 are open (6.5).
_SQUARE_START_TOYS = {"M1": (1, 2, 40), "M2": (40,), "M3": (40,), "M4": (40,)}


def test_square_paraphrase_with_an_exact_match_at_its_starts_is_not_certain(res, monkeypatch):
    # `a woman holding a`/`a woman is holding an`: the jar takes the exact `holding`, not the
    # 2:2 `holding a`/`holding an` (certain before, by the count at its reference end, while
    # the exact `holding`'s count reads a busy test word); M3 `a of a mother`/`a woman a`: the
    # exact `a` at the 2:2 `a mother`/`a woman`'s two starts, off the diagonal.
    _check_toy_runs(res, _SQUARE_START_TOYS)
    # COCO val2014 pairs 4670, 12833, 5407, 22858 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's
    # way), on both paths (M1, M2, M3 are reductions of the first three; 22858's `a woman`/`a
    # mother` is on the diagonal).
    pairs = [
        (
            "A woman holding a pink umbrella over her left shoulder.",
            "A woman is holding an open red umbrella over her head.",
        ),
        (
            "A child holding a flowered umbrella and petting a yak.",
            "A young man holding an umbrella next to a herd of cattle.",
        ),
        (
            "A view of a mother attempting to make her son smile for a Christmas photo. ",
            "A woman and a young child sitting on a chair, with a teddy bear.",
        ),
        (
            "A woman is playing tennis with her children.",
            "A mother and her children play on a grass tennis court",
        ),
    ]
    jar = [
        "11 12 5 6 3 3 4 4 0 0 0 0 0 0 0 0 0 0 0 0 4 7 7",
        "11 13 5 6 2 2 3 3 0 0 0 0 0 0 0 0 0 0 0 0 5 5 5",
        "16 16 8 9 0 0 4 4 0 0 0 0 0 0 0 0 1 1 0 0 5 5 5",
        "9 11 5 5 2 2 2 2 0 0 0 0 0 0 0 0 1 1 1 0 4 6 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec46c, appendix N69: a non-square paraphrase at an exact
# pair whose reference word has a second test reading): AA1, AD1, AD2, AD4 at every beam are
# gained by the port; AA2, AD3, AD5, AD6, AD8 (no second reading of the reference word: the
# paraphrase kept from -x 2 or -x 3) and AD7 are the controls, reproduced before and after.
_READ_TWICE_TOYS = {
    **{toy: (1, 2, 3, 40) for toy in ("AA1", "AD1", "AD2", "AD4", "AD7")},
    **{toy: (2, 3, 40) for toy in ("AA2", "AD3", "AD6", "AD8")},
    "AD5": (3, 40),
}


def test_non_square_paraphrase_at_an_exact_pair_read_twice_is_not_certain(res, monkeypatch):
    # `a little boy on a computer`/`a baby is on the computer`: the 3:2 `a little boy`/`a baby`
    # (t0-r0) has the exact `a`/`a` at its two starts, and the test `a` at t4 reads the
    # reference `a` r0 too: the paraphrase is not certain, ties with the exact `a` and loses
    # it on spec39a's path order; the jar answers `a`/`a` at every beam (AA1; AD1 `a little boy
    # z a`/`a baby`, AD2 3:2 and AD4 2:3 alike).  Without the second reading (AA2 `a little boy
    # z`/`a baby`, AD3, AD5, AD8) or with X's TEST word read again instead (AD6 `a little boy
    # z`/`a baby z a`), the jar keeps the paraphrase from -x 2.  (METEOR_BEHAVIOUR.md 6.3,
    # spec46c; certain.py.)
    _check_toy_runs(res, _READ_TWICE_TOYS)
    # COCO val2014 pairs of the all-modules probes (ground_truth/coco_single_probe.json.gz,
    # first references: 18033, 34583; coco_other_probe.json.gz, other references: 68847, 1976):
    # the jar's statistics lines (pycocoevalcap's way), on both paths.  68847's `a piece of`/`a
    # little` (t4-r0) lies off the diagonal, the second reading `a`/`a` t0-r0 on it.
    pairs = [
        (
            "A little boy leaning over a lap top computer on a foot rest.",
            "A baby is trying to type on the computer.",
        ),
        (
            "A little boy talking on the phone and playing with a computer.",
            "A baby has one hand on a computer and holds a cellphone in the other hand.",
        ),
        (
            "A young girl with a piece of pizza on a white plate",
            "A little girl is sitting in a restaurant eating pizza.",
        ),
        (
            "A young girl eating a piece of cake off of a plate.",
            "a little girl in a pink shirt is eating some cake",
        ),
    ]
    jar = [
        "14 10 6 6 1 1 3 3 0 0 0 0 0 0 0 0 1 0 0 1 5 5 5",
        "13 17 7 11 1 1 6 6 0 0 0 0 0 0 0 0 1 1 0 0 7 8 8",
        "12 11 6 5 2 2 2 2 0 0 0 0 0 0 0 0 0 0 0 0 4 4 4",
        "13 11 6 5 3 3 2 2 0 0 0 0 0 0 0 0 0 0 0 0 5 5 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec37b, appendix N43: exact matches exposed by a
# paraphrase's reference span): (toy, beams), every cited run of P1-P5.  P6 at -x 1 is open
# (6.5): the rule, as its model, misses it.
_EXPOSED_TOYS = {
    "P1": (1, 2, 3, 40),
    "P2": (1, 2, 40),
    "P3": (1, 2, 3, 40),
    "P4": (2, 3, 40),
    "P5": (1, 40),
}


def test_exact_matches_exposed_by_a_paraphrase_reference_start(res, monkeypatch):
    # `a x the street`/`a y a street`: `the street`/`a street` starts on the second reference
    # `a`, so both exact `a`/`a` objects lose their certain count and the tie goes to `a`/`a`
    # at r0 + the 2:2 (not `a`/`a` at r2 + `street`) from -x 2; `two x a`/`a couple of y a`:
    # `two`/`couple of` + `a`/`a` at r0 (not `two`/`a couple of` + the later `a`) from -x 3.
    _check_toy_runs(res, _EXPOSED_TOYS)
    # COCO val2014 pairs 45, 860, 15013, 24711 of the all-modules probe (first reference only):
    # the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way),
    # on both paths: `the street`/`a street`, `two`/`couple of` + `a`/`a` at the reference
    # start, `his cell`/`a cell` with the exact `a` words at the earlier reference positions.
    pairs = [
        ("A bus that is sitting in the street.", "A long white bus driving down a street."),
        (
            "Two horses are grazing in the grass near a fence.",
            "A couple of horses grazing in a grass field.",
        ),
        (
            "A fire hydrant is on the corner of the street.",
            "A white fire hydrant sits on a street corner.",
        ),
        (
            "A man sits in front of a laptop with his cell phone.",
            "A woman using a cell phone next to a laptop.",
        ),
    ]
    jar = [
        "9 9 6 3 1 1 2 2 0 0 0 0 0 0 0 0 1 1 1 1 3 5 5",
        "11 10 6 5 3 3 3 3 0 0 0 0 0 0 0 0 0 1 1 1 5 7 8",
        "11 10 7 4 3 3 3 3 0 0 0 0 0 0 0 0 1 2 2 1 5 9 9",
        "13 11 7 5 2 2 3 3 0 0 0 0 0 0 0 0 1 1 1 1 4 7 7",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec37d, appendix N47: the orphan rule's second case):
# (toy, beams); R2 is the control (the outside reference `a` has two other test `a`s); R1 at
# -x 2, -x 3, R4 at -x 2, R5 at -x 1, R6 at -x 3 are open (beam thresholds, 6.5).
_SEVERAL_TOYS = {"R1": (40,), "R2": (1, 2, 3, 40), "R3": (40,), "R4": (40,), "R5": (3, 40)}
_SEVERAL_TOYS["R6"] = (40,)


def test_exposed_word_with_several_exact_readings_contests_the_paraphrase(res, monkeypatch):
    # `preparing a meal in a kitchen`/`a woman in a kitchen preparing food`: the test `a` of
    # the 2:1 `a meal`/`food` has exact readings at two reference `a`s outside `food`, and the
    # reference `food` no other candidate: the jar takes the exact `a`, `meal` unmatched.
    _check_toy_runs(res, _SEVERAL_TOYS)
    # COCO val2014 pairs 11114, 2640, 9364, 1845 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's
    # way), on both paths (R6, R4, R5, R3 are reductions of them).
    pairs = [
        (
            "Two people preparing a meal in a kitchen.",
            "A man and a woman standing in a kitchen preparing food.",
        ),
        (
            "a number of people at a bar with drinks ",
            "Various people eating in a restaurant at a table.",
        ),
        (
            "A zebra and boar running through a field.",
            "A zebra is running around in a grassy area. ",
        ),
        (
            "A boy holding a red frisbee with bushes in the background.",
            "a close up of a young child holding a frisbee",
        ),
    ]
    jar = [
        "9 12 6 6 2 2 4 4 0 0 0 0 0 0 0 0 0 1 1 0 5 7 7",
        "9 10 6 6 0 0 4 4 0 0 0 0 0 0 0 0 0 0 0 0 3 4 4",
        "9 10 4 5 2 2 3 3 0 0 0 0 1 1 0 0 0 0 0 0 4 6 6",
        "12 10 6 5 2 2 2 2 0 0 0 0 0 0 0 0 1 1 0 0 3 5 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec38a, appendix N49): (toy, beams) that the search
# reproduces only with the rules (S3 at -x 2 is lost with them, as by the model).
_SOLE_TOYS = {"S2": (1, 2, 3, 40), "S3": (1,), "S5": (1, 2), "S6": (1, 2, 3, 40)}
_SOLE_TOYS |= {"S10": (1, 2, 3, 40), "S12": (40,)}


def test_diagonal_square_needs_a_sole_exact_pair_and_a_longer_sibling_is_not_certain(
    res, monkeypatch
):
    # `a mother a`/`a woman`, `men and women`/`men that`, `is in is`/`is at`: the exact pair
    # inside the diagonal 2:2 has another one-word reading (a later test word for its reference
    # word, another reference word for its test word), so the 2:2 is not preferred and the jar
    # takes the exact word; `two young bears are`/`a couple of bear cubs`: `two`/`a couple`
    # is not certain beside `two`/`a couple of` (the jar takes the longer one at -x 40).
    _check_toy_runs(res, _SOLE_TOYS)
    # COCO val2014 pairs 4507, 4956, 8569 (the sole exact pair), 6624, 26310 (the longer
    # sibling) of the all-modules probe (first reference only): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A man has a crow sitting on his hand.",
            "A guy holds a bird up on his gloved hand in front of a crowd.",
        ),
        (
            "A group of men and women standing around a TV.",
            "a couple of men that are playing a wii game",
        ),
        (
            "A mother standing behind two baby boys sitting at a table.",
            "A woman with two young children at a table",
        ),
        (
            "Two messy toilet stalls with toilets where one lid is raised. ",
            "A couple of toilets sitting in bathroom stalls.",
        ),
        (
            "two young bears are play fighting in the open",
            "A couple of bear cubs rolling around a field.",
        ),
    ]
    jar = [
        "10 16 6 9 1 1 5 5 0 0 0 0 0 0 0 0 0 0 0 0 5 6 6",
        "11 10 5 5 1 1 3 3 0 0 0 0 0 0 0 0 0 0 0 0 3 4 4",
        "12 9 5 5 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 3 5 5",
        "12 9 5 4 2 2 1 1 0 0 0 0 1 1 0 0 0 1 1 2 4 5 7",
        "9 10 4 4 0 0 0 0 0 0 0 0 0 0 0 0 0 1 1 2 1 1 3",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


def test_processes_give_the_same_statistics(coco, res):
    _, got = coco  # N_COCO segments: more than one chunk, so the pool is used
    hyps, refs = heldout(N_COCO)
    assert np.array_equal(segment_statistics(hyps, refs, resources=res, n_jobs=2), got)


@pytest.mark.parametrize("n_jobs", [0, -1, 1.5, True, "2"])
def test_bad_n_jobs(n_jobs, res):
    with pytest.raises(ValueError, match="n_jobs must be a positive int"):
        segment_statistics(["a dog"], [["a dog"]], resources=res, n_jobs=n_jobs)


# -- input handling ----------------------------------------------------------------------------


def test_meteor_scores_returns_corpus_from_sums(res):
    corpus, scores, st = meteor_scores(["a dog runs", "x y"], [["a dog runs"], ["y x"]])
    assert scores.tolist() == [1.0, 0.4] and st.dtype == np.int64 and st.shape == (2, 23)
    assert corpus == corpus_score(summed(st))


@pytest.mark.parametrize(
    ("cands", "refs", "error", "match"),
    [
        ("a dog", [["a dog"]], TypeError, "not a single str"),
        (["a dog"], [["a dog"], ["x"]], ValueError, "1 candidates but 2 reference lists"),
        ([3], [["a dog"]], TypeError, r"candidates\[0\] is int"),
        (["a dog"], [[]], ValueError, r"references\[0\] is empty"),
        (["a dog"], ["a dog"], TypeError, r"references\[0\] is a str"),
        (["a dog"], [["a", None]], TypeError, r"references\[0\]\[1\] is NoneType"),
    ],
)
def test_bad_input(cands, refs, error, match, res):
    with pytest.raises(error, match=match):
        segment_statistics(cands, refs, resources=res)


def test_line_breaks_read_as_spaces(res):
    a = segment_statistics(["a dog\nruns"], [["a dog runs\r\n"]], resources=res)
    b = segment_statistics(["a dog runs"], [["a dog runs"]], resources=res)
    assert np.array_equal(a, b)


# Cited jar runs of specification 6.3 (spec38b, appendix N50): (toy, beams) the search
# reproduces; T4 at -x 1, T6 at -x 3, T7 at -x 1 are open (6.5).  T4-T6 are controls.
_ENCLOSED_TOYS = {"T1": (1, 2, 3, 40), "T2": (1, 2, 3, 40), "T3": (1, 2, 3, 40), "T4": (2, 40)}
_ENCLOSED_TOYS |= {"T5": (1, 2, 40), "T6": (1, 2, 40), "T7": (2, 40), "T8": (40,)}


def test_enclosed_one_word_match_and_square_exposed_off_the_diagonal(res, monkeypatch):
    # `a person`/`of a man`: `person`/`man` lies inside `person`/`a man` (longer on the
    # reference side), whose other reference word has no other candidate: it is contested from
    # the start, counts in neither spec36e's term nor the fourth key, is never certain, and
    # the jar takes the exact `a` with it (T1-T3 from -x 2).  `is holding a baby`/`a baby is
    # being held`: the 2:2 `is holding`/`being held` off the diagonal holds the exact `is` on
    # the test side only; it wins the tie over exact `is` + `holding`/`held` (T7, T8).
    _check_toy_runs(res, _ENCLOSED_TOYS)
    # COCO val2014 pairs 3809, 38319, 16755 (enclosed) and 18371, 20216, 30856 (exposed
    # squares) of the all-modules probe (first reference only): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "a person riding a surf board on a wave",
            "an image of a man riding the waves on the ocean",
        ),
        (
            "a woman leaning over as she waits for the tennis ball to come back ",
            "The woman is waiting for the tennis serve",
        ),
        (
            "a person wearing a gorilla costume and a suit and tie",
            "an image of a man dressed up like an ape",
        ),
        (
            "Two men look into an enormous roaster at a pig inside.",
            "Two men are looking inside of a giant barbecue.",
        ),
        (
            "A young man is holding a baby on his lap.",
            "A young baby is being held by a man with a goatee. ",
        ),
        (
            "A couch on the side of the street with a television on it.",
            "A TV sitting on top of a brown couch next to a pool.",
        ),
    ]
    jar = [
        "9 11 4 6 1 1 1 1 0 0 0 0 0 0 0 0 1 1 1 2 2 4 5",
        "14 8 7 4 2 2 1 1 0 0 0 0 0 0 0 0 1 1 1 2 2 5 6",
        "11 10 5 5 0 0 0 0 0 0 0 0 0 0 0 0 2 2 1 2 1 3 4",
        "12 10 6 5 2 2 2 2 0 0 0 0 0 0 0 0 2 2 1 2 4 7 8",
        "11 13 6 7 3 3 3 3 0 0 0 0 0 0 0 0 1 2 1 0 6 8 8",
        "14 14 10 7 1 1 4 4 0 0 0 0 1 1 0 0 1 1 1 1 6 8 8",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


_END_TWIN_TOYS = {"U1": (1, 3, 40), "U2": (1, 3, 40), "U3": (1, 3, 40), "U4": (1, 3, 40)}


def test_one_word_paraphrase_at_the_end_of_a_square_one_is_contested(res, monkeypatch):
    # `x a small`/`a a narrow road`: the one-word `small`/`narrow` ends the square `a small`/
    # `a narrow`, whose test `a` has an exact reading at the earlier reference `a`: once both
    # are kept `small`/`narrow` is contested, and at -x 40 the jar keeps only `a`/`a` (U1-U3;
    # METEOR_BEHAVIOUR.md 6.3, spec38c).  U4 (`road` matched too) keeps it at every beam.
    _check_toy_runs(res, _END_TWIN_TOYS)
    # COCO val2014 pairs 15380, 18847, 35168, 35590 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's
    # way), on both paths.
    pairs = [
        (
            "A large teddy bear with a heart is in the garbage.",
            "A teddy bear with a giant heart sits inside a green bin. ",
        ),
        (
            "This is a picture of a boy with his skateboard.",
            "A young man standing in front of a fence holding a skateboard.",
        ),
        (
            "A man is bending down by the water with a frisbee.",
            "A boy bending to look at something on the edge of a pond.",
        ),
        (
            "A woman in a scarf cooks using a huge ladel",
            "A woman cooks in a large black skillet.",
        ),
    ]
    jar = [
        "12 13 7 5 3 3 4 4 0 0 0 0 0 0 0 0 0 1 1 0 4 8 8",
        "11 13 8 6 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 3 5 5",
        "12 14 7 8 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 5 5 5",
        "10 9 4 4 2 2 3 3 0 0 0 0 0 0 0 0 0 0 0 0 3 5 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec39a, appendix N56): (toy, beams) the search
# reproduces since the port (V1-V3, K7, S13), and V4, the diagonal exception, at every beam.
_PATH_TOYS = {"V1": (2, 3, 40), "V2": (2, 3, 40), "V3": (40,), "K7": (2, 40), "S13": (3, 40)}
_PATH_TOYS |= {"V4": (1, 2, 3, 40)}


def test_final_ties_follow_the_path_through_the_reference(res, monkeypatch):
    # `a bathroom z a`/`y y a y the bathroom`: the state taking the first test `a` at the
    # reference `a` (the earlier option) and the one taking the later `a` and then the 2:2
    # `a bathroom`/`the bathroom` tie on every key at the end; the jar answers with the first
    # state along the reference walk (V1-V3), not with the one the last stable sort left first,
    # unless the choice where they part is a one-word match on the diagonal (V4: the 2:2 stays).
    # (METEOR_BEHAVIOUR.md 6.3, spec39a; the sort of the tied states: paths.py.)
    _check_toy_runs(res, _PATH_TOYS)
    # COCO val2014 pairs 12270, 24323, 2117, 26529, 33139 (the path order) and 2309, 7586 (the
    # diagonal exception) of the all-modules probe (first reference only): the jar's statistics
    # lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A bathroom that has a sink and a small mirror above it.",
            "Someone is taking a basic shot of the bathroom. ",
        ),
        (
            "A road lined with rock-face shows a man and a woman, both wearing hats, astride a "
            "red, white and blue decorated bike. ",
            "Two people sitting on a motorcycle that parked on the road.",
        ),
        (
            "Two horses with red feathers on top of their heads.",
            "A couple of white horses standing in front of a building.",
        ),
        (
            "A long train traveling along side of a mountain.",
            "there is a very long train coming up the tracks",
        ),
        (
            "A man riding a skateboard down a street in front of a red car.",
            "A man with a helmet on riding a skateboard in the street. ",
        ),
        (
            "A man sitting on top of a toilet with a toy on his lap.",
            "a man seated on the toilet lying on it",
        ),
        (
            "A bathroom with a large mirror above a white sink.",
            "A birdcage is near the sink in the bathroom.",
        ),
    ]
    jar = [
        "13 10 8 5 1 1 2 2 0 0 0 0 0 0 0 0 0 0 2 1 4 5 4",
        "27 12 11 8 1 1 2 2 0 0 0 0 1 1 0 0 1 0 0 1 5 5 5",
        "11 12 6 6 1 1 2 2 0 0 0 0 0 0 0 0 0 1 1 2 4 4 6",
        "10 10 4 5 2 2 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 3 3",
        "15 13 7 8 4 4 5 5 0 0 0 0 0 0 0 0 0 0 0 0 6 9 9",
        "15 9 9 5 2 2 2 2 0 0 0 0 0 0 0 0 1 1 1 1 3 6 6",
        "11 10 5 6 1 1 2 2 0 0 0 0 0 0 0 0 1 1 1 1 4 5 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec45a, appendix N61): Y1, Y3, Y7 at -x 40 are gained
# by the port; Y4, Y5, Y8 (the exact reading no farther from the diagonal than the paraphrase,
# or the paraphrase on it) are the controls; every beam the search reproduces.
_FAR_TOYS = {toy: (1, 2, 3, 40) for toy in ("Y1", "Y3", "Y7", "Y4", "Y5", "Y8")}


def test_end_twin_off_the_diagonal_loses_its_count_to_a_farther_exact_reading(res, monkeypatch):
    # `x x a small`/`a a narrow road`: `small`/`narrow` (proposed once) ends the square `a small`/
    # `a narrow` (t2-r1, one off the diagonal), whose test `a` has an exact reading at the
    # reference `a` r0, two off it: once contested, `small`/`narrow` no longer counts in the
    # fourth key (nor in spec36e's term), as beside a square twin, and at -x 40 the jar keeps
    # only `a`/`a` t2-r0 (Y1; Y3 and Y7 alike).  With the reading no farther than the square's
    # starts (Y4: t2-r0 against t2-r4), or the square on the diagonal, nothing changes.
    # (METEOR_BEHAVIOUR.md 6.3, spec45a.)
    _check_toy_runs(res, _FAR_TOYS)
    # COCO val2014 pairs 1828, 2682, 10463, 35052, 37356 of the all-modules probe (first
    # reference only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz,
    # pycocoevalcap's way), on both paths.
    pairs = [
        ("An old fashioned doll is on a narrow bed.", "A bed and window in a small room."),
        (
            "Two goats on grass crossing a small country road.",
            "there is a animal walking down a narrow road",
        ),
        (
            "a close up of a motorcycle parked on a street",
            "A motorcycle parked on the side of a road next to a man.",
        ),
        (
            "three different motorcycle couples riding down a road",
            "FOUR BIKES AND A CAR GOING ON A HIGHWAY. ",
        ),
        (
            "Man on a skateboard coming down a brick wall.",
            "A young man riding a skateboard over a stone bench",
        ),
    ]
    jar = [
        "10 9 5 5 1 1 2 2 0 0 0 0 0 0 0 0 0 0 0 0 3 3 3",
        "10 9 4 4 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
        "10 14 6 8 2 2 5 5 0 0 0 0 0 0 0 0 0 0 0 0 4 7 7",
        "8 10 1 5 0 0 1 1 0 0 0 0 1 1 0 0 0 0 0 0 2 2 2",
        "10 10 4 4 2 2 2 2 0 0 0 0 0 0 0 0 0 0 0 0 3 4 4",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec45b, appendix N62: siblings ranked by the parity of
# their reference length): (toy, beams); every run of Z1-Z8 is reproduced.
_PARITY_TOYS = {f"Z{k}": (1, 2, 40) for k in range(1, 9)}


def test_off_diagonal_siblings_keep_the_even_reference_length(res, monkeypatch):
    # Off the diagonal, of two non-exact siblings (one test span and reference start, other
    # reference lengths) the jar keeps the one whose reference length is EVEN: `x alongside`/
    # `at the side of` 1:4 over 1:3 (Z1), `x a response`/`an answer to` 2:2 over 2:3 (Z6), at
    # every beam; of two even ones the first option, the longer (Z8, `a process that is` 1:4
    # over 1:2).  The odd one is not certain; the even one is, unless the count fails, and then
    # weighs -1 in the fifth key (METEOR_BEHAVIOUR.md 6.3, spec45b; certain.py).  Before the
    # rule the longer reference span was never certain (spec35b) and the shorter one weighed -1
    # (spec36d): right for 1:2 over 1:3 (G33, G35, still reproduced), wrong for Z1-Z8.
    _check_toy_runs(res, _PARITY_TOYS)
    _check_toy_runs(res, {"G33": (1, 2, 40), "G35": (1, 2, 40)})
    # COCO val2014 pairs 14081, 23593, 26430 of the all-modules probe (first reference only):
    # the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way),
    # on both paths: `alongside`/`at the side of` 1:4 (not `at the side` 1:3), `alongside`/`on
    # the side of` 1:4, `before`/`in front of them` 1:4 (not `in front of` 1:3).
    pairs = [
        (
            "A white bus stopped alongside a sidewalk in the street.",
            "Bus stopped at the side of the road.",
        ),
        (
            "A train pulls up alongside a paved waiting area.",
            "Small bus parked on the side of a train station area.",
        ),
        (
            "An apple and a paper weight on top of wooden blocks before a mirrors.",
            "a coupe of mirrors with a couple of objects in front of them",
        ),
    ]
    jar = [
        "11 9 5 5 2 2 2 2 0 0 0 0 0 0 0 0 2 2 0 3 2 6 9",
        "10 12 4 5 2 2 2 2 0 0 0 0 0 0 0 0 1 1 0 3 3 5 8",
        "15 13 7 7 1 1 3 3 0 0 0 0 0 0 0 0 1 2 0 2 5 5 8",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


def test_one_word_object_at_odd_and_even_siblings_stays_certain(res, monkeypatch):
    # spec45b takes the certain count from an off-diagonal MULTI-WORD non-exact object with an
    # odd reference span and an even sibling (same test span and reference start), never from a
    # one-word object that shares their key: `outside`/`out` (t4-r10, 1:1) beside `outside`/`out
    # of` (1:2) and `outside`/`out of it` (1:3) stays certain (at most one object covers test
    # word 10), so `outside`/`out` + `of`/`of` (two certain matches, one chunk) beats `outside
    # of`/`out of` (2:2, one certain match).  The per-pair search took it from the 1:1 object
    # too (the array search did not): 2 exact matches instead of the jar's 3.  COCO val2014
    # other-references probe record 80576 (segment 26829, its reference 1;
    # ground_truth/coco_other_probe.json.gz): the jar's statistics line, on both paths.
    from sparsecider.metrics.meteor.certain import certain

    # The three paraphrases alone (no object covers test words 10-12: the count passes): the
    # 1:3 is the odd sibling of the 1:2; the 1:1 is no sibling.
    objs = [(4, 1, 10, 1, 3), (4, 1, 10, 2, 3), (4, 1, 10, 3, 3)]
    covering = [0] * 4 + [3] + [0] * 9  # objects over each of the 14 test words
    assert certain(objs, 14, covering) == [True, True, False]
    pairs = [
        (
            "An elephant is standing outside of the water while the others are inside. ",
            "there are two elephants in the water and one elephant out of it",
        )
    ]
    jar = ["14 13 7 10 2 2 3 3 0 0 0 0 0 0 0 0 1 0 0 1 4 6 6"]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec46a, appendix N67: a duplicated one-word pair
# against a one-word paraphrase at its reference word): (toy, beams) the search reproduces.
_DUP_TOYS = {
    "AB1": (1, 3, 40),
    "AB2": (1, 2, 3, 40),
    "AB3": (1, 2),
    "AB4": (1, 3, 40),
    "AB5": (1, 3, 40),
}


def test_duplicated_pair_keeps_its_count_against_a_paraphrase_at_its_reference_word(
    res, monkeypatch
):
    # `cat is laying next`/`a sad cat lays next`: `laying`/`lays` (t2-r3) is proposed twice (stem
    # and synonym), `is`/`lays` (t1-r3) once (paraphrase).  Before the rule, once contested the
    # duplicated pair left spec36e's term, so at -x 3 and -x 40 `is`/`lays` won that key; with
    # the paraphrase proposed once at the same reference word the duplicated pair keeps its
    # count, the two final states tie on every key, and the path order (spec39a) keeps the stem
    # match, as the jar does (AB1; AB4 and AB5 alike, from COCO pairs 5158 and 12138).  With the
    # stem match on the diagonal (AB2) the last sort's order still keeps the paraphrase; AB3 at
    # -x 3, -x 40 (the paraphrase on the diagonal) stays open (METEOR_BEHAVIOUR.md 6.3, 6.5).
    _check_toy_runs(res, _DUP_TOYS)
    # COCO val2014 pairs 1298, 5158, 11756, 12138, 21708 of the all-modules probe (first
    # reference only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz,
    # pycocoevalcap's way), on both paths.
    pairs = [
        ("a child is brushing her hair in the mirror ", "A kid standing in a room with a brush."),
        (
            "The cat is laying next to the computer keyboard.",
            "A sad looking cat lays next to a keyboard.",
        ),
        (
            "Two cows stand in a field near one young cow laying down.",
            "Some cows are standing in a grassy field",
        ),
        ("a pair of cows are standing in a field", "The cows stand in the field among the hills."),
        (
            "There is a man holding a frisbee indoors.",
            "A guy in a brown sweater holds a white frisbee. ",
        ),
    ]
    jar = [
        "9 10 5 6 0 0 2 2 0 0 0 0 1 1 0 0 0 0 0 0 2 3 3",
        "10 10 5 4 3 3 2 2 1 1 0 0 0 0 0 0 0 0 0 0 3 6 6",
        "13 8 5 4 2 2 2 2 1 1 0 0 0 0 0 0 0 0 0 0 3 5 5",
        "9 10 5 5 2 2 1 1 1 1 0 0 0 0 0 0 0 0 0 0 3 4 4",
        "9 11 5 5 1 1 3 3 1 1 0 0 0 0 0 0 0 0 0 0 4 5 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec46b, appendix N68: a diagonal exact match against a
# crossing square paraphrase in the final tie): (toy, beams) the search reproduces.  AC1, AC5 at
# -x 2, -x 3, -x 40 and AC3 at -x 40 are gained by the rule; AC2, AC4, AC6-AC8 are its controls.
_CROSS_TOYS = {"AC1": (2, 3, 40), "AC3": (1, 2, 40), "AC5": (2, 3, 40), "AC6": (2, 3, 40)}
_CROSS_TOYS |= {toy: (1, 2, 3, 40) for toy in ("AC2", "AC4", "AC7", "AC8")}


def test_diagonal_exact_match_loses_the_final_tie_to_a_crossing_square(res, monkeypatch):
    # `the back of a man`/`the man and the` (AC1): the states {`the` t0-r0, `man` t4-r1} and
    # {`a man`/`the man` t3:2-r0:2, `the` t0-r3} tie on every key; they part at reference 0, where
    # one holds an exact one-word match on the diagonal (spec39a: "equal", the last sort's order,
    # the exact state first), but the other a square paraphrase whose state reads test 0 `the`
    # elsewhere (the readings cross): the jar keeps the paraphrase, unless the diagonal word
    # occurs again later in the test (AC4, AC8: `a` ... `a`), the exact match is off the diagonal
    # (AC2: spec39a's path order, the exact option first), the paraphrase is on it (AC7) or is
    # not square (AC6, `two`/`a couple of`).  (METEOR_BEHAVIOUR.md 6.3, spec46b; paths.py.)
    _check_toy_runs(res, _CROSS_TOYS)
    # COCO val2014 pairs 1577, 15430, 22565, 34671, 38459 (the rule) and 524, 25097 (controls:
    # `a` again later in the test; `two`/`a couple of` 1:3) of the all-modules probe (first
    # reference only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz,
    # pycocoevalcap's way), on both paths.
    pairs = [
        (
            "The front of a house is next to some trees.",
            "The house in the black and white photo is between trees.",
        ),
        (
            "A copper and orange train on the train tracks. ",
            "A train traveling through a dry countryside next to buildings.",
        ),
        (
            "A street sign on the street near a building.",
            "A street sign is shown across from a street with has cars and a traffic light. ",
        ),
        (
            "A railroad train pulling in to the train station.",
            "A train sits on its tracks at a station.",
        ),
        (
            "A little boy with red hair laying on the ground next to surfboards.",
            "A boy plays in the sand among a group of surf boards.",
        ),
        (
            "A little boy that is standing on a skateboard.",
            "A boy riding a skateboard down a sidewalk.",
        ),
        (
            "a plate of food with two sandwiches ",
            "A couple of sandwiches sitting on top of a white plate.",
        ),
    ]
    jar = [
        "11 12 7 6 1 1 3 3 0 0 0 0 0 0 0 0 1 1 1 1 4 6 6",
        "10 11 5 4 0 0 2 2 0 0 0 0 0 0 0 0 1 1 1 1 3 4 4",
        "10 17 5 9 2 2 3 3 0 0 0 0 0 0 0 0 1 1 1 1 4 7 7",
        "10 10 5 6 1 1 2 2 0 0 0 0 0 0 0 0 1 1 1 1 3 5 5",
        "14 13 6 6 0 0 3 3 0 0 0 0 1 1 0 0 2 1 0 1 5 6 6",
        "10 9 6 4 2 2 3 3 0 0 0 0 1 1 0 0 0 0 0 0 5 6 6",
        "7 12 4 6 2 2 2 2 0 0 0 0 0 0 0 0 0 1 1 1 4 5 6",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec47c, appendix N77: spec38b's exposed square gives way
# when the exact word it exposes is its LAST test word, off the diagonal): (toy, beams) the
# search reproduces.  AG1-AG3, AG6, AG8 at -x 2, -x 3, -x 40 are gained by the rule; AG4, AG5
# (the exposing `of` on the diagonal) and AG7 (at the square's FIRST test word) are its controls.
_LAST_TOYS = {toy: (1, 2, 3, 40) for toy in ("AG1", "AG2", "AG3", "AG4", "AG5", "AG6", "AG8")}
_LAST_TOYS["AG7"] = (2, 3, 40)


def test_exposed_square_gives_way_to_an_exact_reading_of_its_last_test_word(res, monkeypatch):
    # `the side of the ocean`/`of signs next to an ocean` (AG1): the square paraphrase `side of`/
    # `next to` (t1:2-r2:2, off the diagonal) holds no exact pair and exposes the exact `of`/`of`
    # (t2-r0) on its test side.  That `of` reads the square's LAST test word, off the diagonal, so
    # spec38b's fifth-key weight (-1) does not apply: the final states {`of`, `ocean`} and
    # {`side of`/`next to`, `ocean`} tie on every key and the path order (spec39a) keeps the
    # exact `of`, as the jar does at every beam.  With that `of` on the diagonal (AG5, t3-r3)
    # or the exposed word the square's first (AG7, `is`/`is`) the weight stays and the square
    # wins from -x 2 (METEOR_BEHAVIOUR.md 6.3, spec47c; enclosed.py).
    _check_toy_runs(res, _LAST_TOYS)
    # COCO val2014 pair 30015 of the all-modules probe (first reference) and segments 6617, 12639,
    # 19719, 36683 against their second, third, third and second references (the other-references
    # probe, pairs 19870, 37961, 59226, 110170): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, coco_other_probe.json.gz, pycocoevalcap's way),
    # on both paths.
    pairs = [
        (
            "a large food truck is parked on the side of the street",
            "A truck with a picture of food on it driving on a street next to a house.",
        ),
        (
            "A parking lot is on the side of the ocean.",
            "An assortment of street lights and signs next to an ocean.",
        ),
        (
            "this lady is standing next to her brown horse",
            "A woman holding on to the side of a brown horse.",
        ),
        (
            "Some old buildings have street signs next to them.",
            "A one way street sing mounted to the side of a pole.",
        ),
        (
            "A prohibitory sign is posted next to a building.",
            "A sign is posted to a pipe on the side of a shack.",
        ),
    ]
    jar = [
        "12 18 6 11 2 2 3 3 0 0 0 0 0 0 0 0 1 1 1 1 6 7 7",
        "11 12 7 6 1 1 2 2 0 0 0 0 0 0 0 0 0 0 0 0 2 3 3",
        "9 12 4 7 2 2 1 1 0 0 0 0 0 0 0 0 1 1 0 0 3 4 4",
        "10 13 4 7 1 1 2 2 0 0 0 0 0 0 0 0 0 0 0 0 3 3 3",
        "10 14 5 9 2 2 5 5 0 0 0 0 0 0 0 0 0 0 0 0 4 7 7",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.5 (spec47b, appendix N76: non-exact siblings with one test
# start and one reference span, test spans of both parities): every run of AF1-AF8 is
# reproduced; before the rule none was (the squarer, shorter odd test span came first).
_TEST_PARITY_TOYS = {f"AF{k}": (1, 2, 3, 40) for k in range(1, 9)}


def test_siblings_try_the_longest_even_test_span_first(res, monkeypatch):
    # `a large number of`/`numerous` (AF1): the paraphrases 3:1 `a large number` and 4:1 `a large
    # number of` share their test start and reference span; the option order put the squarer,
    # shorter 3:1 first and the beam kept it (at -x 1 greedily, later by the path order), the jar
    # takes the 4:1 at every beam.  Among such siblings it tries the EVEN test lengths first, the
    # longest even one first (AF4 `the middle of a`/`full`: 4:1 over 2:1 and 3:1), then the odd
    # ones; a one-word test span beside them stays in front (METEOR_BEHAVIOUR.md 6.5, N76, N79;
    # order.py).
    _check_toy_runs(res, _TEST_PARITY_TOYS)
    # COCO val2014 pairs of the all-modules probe against OTHER references
    # (ground_truth/coco_other_probe.json.gz, pairs 813, 95160, 104130, 108941, 120021: the jar's
    # statistics lines, pycocoevalcap's way), on both paths: `a number`/`there are several` 2:3
    # (not the square 3:3 `a number of`), `the middle of a`/`full` 4:1, `by a couple of`/`several`
    # 4:1, `a large number of`/`numerous` 4:1, `on the side of`/`alongside` 4:1 (3:1 before the
    # rule); and pair 2127, the control: `has`/`is` 1:1 stays in front of `has a`/`is` 2:1.
    pairs = [
        (
            "a number of cars driving on a highway under signs",
            "There are several street signs in the highway",
        ),
        (
            "A herd of elephants standing around in the middle of a pen.",
            "Two full grown elephants and one baby elephant outside.",
        ),
        (
            "Some giraffes are standing by a couple of trees",
            "Several giraffes standing around in the dirt near trees. ",
        ),
        (
            "A harbor that has a large number of boats docked.",
            "Numerous sail boats are docked in water near a city.",
        ),
        (
            "Two old fashioned buses parked on the side of the road.",
            "A small older bus parked alongside a roadway and another behind it.",
        ),
        (
            "a room that has a really big window on it",
            "It is very dark in the room and there are pillows on the floor.",
        ),
    ]
    jar = [
        "10 8 4 4 2 2 0 0 0 0 0 0 0 0 0 0 1 1 1 2 3 4 5",
        "13 10 7 4 1 1 1 1 0 0 0 0 0 0 0 0 1 1 3 0 3 6 3",
        "9 10 5 3 3 3 0 0 0 0 0 0 0 1 1 0 1 1 3 0 5 8 5",
        "11 11 6 4 2 2 2 2 0 0 0 0 0 0 0 0 2 1 2 0 5 8 5",
        "12 13 6 5 1 1 1 1 0 0 0 0 1 1 0 0 1 1 3 0 2 7 4",
        "10 15 6 10 1 1 2 2 0 0 0 0 0 0 0 0 1 1 2 1 4 6 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.5 (spec47a, appendix N75: a contested one-word match near the
# diagonal against an exact word read from an earlier test word, the final test-order order):
# (toy, beams) the search reproduces.  AE1-AE4 at -x 40, AE2 at -x 3 and H5, Q1, Q3 at -x 3,
# -x 40, Q6 at -x 40 are gained by the rule (its losses, at -x 2 and -x 3, are the search's: N75,
# N80); AE5 and AE6 (X kept) are its controls.
_LEX_TOYS = {"AE1": (40,), "AE2": (3, 40), "AE3": (40,), "AE4": (3, 40), "Q6": (40,)}
_LEX_TOYS |= {toy: (3, 40) for toy in ("H5", "Q1", "Q3")}
_LEX_TOYS |= {toy: (2, 3, 40) for toy in ("AE5", "AE6")}


def test_contested_match_near_the_diagonal_loses_to_an_earlier_exact_reading(res, monkeypatch):
    # `a b cutting a`/`x y cut a` (AE1) at -x 40: the final states {`cutting`/`cut` t2-r2 (stem,
    # contested: its span pair is proposed three times), `a` t3-r3} and {`a` t0-r3} are equal on
    # the key's first four terms (uncontested matches 1, one chunk each, spec36e's count 1, the
    # same certain count) and differ later (the fourth key counts the contested stem match); neither
    # holds a multi-word match, X = `cutting`/`cut` lies on the diagonal and the other state reads
    # nothing at its test word: the matches in test order, [(0, 3)] < [(2, 2), (3, 3)], put
    # {`a` t0-r3} first, as the jar does.  When the X state is the other plus X (AE5 `a b hit a
    # z`/`x y hits a z`: its list starts (2, 2) against (3, 3)) X is kept; off the diagonal by
    # two (AE6 `a b c d hit a`/`x y hits a`, X at t4-r2) the rule does not act.
    # (METEOR_BEHAVIOUR.md 6.5, spec47a; paths.lex_order.)
    _check_toy_runs(res, _LEX_TOYS)
    # COCO val2014 pairs 41, 685, 3592, 8014, 15990 of the all-modules probe (first reference
    # only; `giant`/`large`, `cutting`/`cut`, `guiding`/`leading`, `riding`/`rides`, `hit`/`hits`
    # dropped for an exact `a` read from an earlier test word): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A woman on a bench is hugging a giant teddy bear.",
            "A woman has her face close to a large stuffed bear.",
        ),
        (
            "a number of people wearing suits cutting a ribbon",
            "there are many men preparing to cut a red ribbon",
        ),
        (
            "A  man guiding a pony with a boy riding on it.",
            "a may leading a a boy on a pony with a rope",
        ),
        (
            "A man riding a horse while other men look on. ",
            "A cowboy rides a bucking horse at a rodeo.",
        ),
        ("A small boy gets ready to hit a ball.", "A boy on a baseball field hits a baseball "),
    ]
    jar = [
        "12 12 6 6 2 2 3 3 0 0 0 0 0 0 0 0 0 0 0 0 3 5 5",
        "9 10 4 4 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
        "12 12 7 7 2 2 5 5 0 0 0 0 0 0 0 0 1 1 0 0 5 8 8",
        "11 10 5 5 1 1 3 3 0 0 0 0 0 0 0 0 0 0 0 0 4 4 4",
        "10 9 4 4 1 1 2 2 0 0 0 0 0 0 0 0 0 0 0 0 3 3 3",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 / 6.5 (spec48b, appendix N83: non-exact siblings in the
# final tie): (toy, beams) the search reproduces.  AI1-AI3 at -x 2, -x 3, -x 40 and AI4, AI8 at
# -x 3, -x 40 are gained by the rule (at -x 1 the greedy keeps the first option, the shorter
# sibling, before any final sort, as the jar does; AI4, AI8 at -x 2: duplicated 2:1 proposals
# fill the beam, missed by the model too); AI5 (the extra word's exact candidate on the
# diagonal), AI6 and AI7 (the shorter's state reads that reference word from the extra word
# itself) are its controls.
_SIBLING_TOYS = {toy: (1, 2, 3, 40) for toy in ("AI1", "AI2", "AI3", "AI5", "AI6", "AI7")}
_SIBLING_TOYS |= {"AI4": (1, 3, 40), "AI8": (1, 3, 40)}


def test_longer_sibling_wins_the_final_tie_for_an_exact_word_read_elsewhere(res, monkeypatch):
    # `a couple of brown horses standing on top of a hill`/`two horses perched on top of a hill`
    # (AI1): the paraphrases `a couple`/`two` (t0:2-r0) and `a couple of`/`two` (t0:3-r0) are
    # siblings (same test start and reference span); the final states holding each, both with
    # `of` t8-r5 and the rest of `on top of a hill`, tie on every key (`brown` t3 unmatched: one
    # chunk break after the paraphrase either way), and spec39a's path order put the 2:1 first
    # (the earlier option).  The extra test word `of` (t2) of the 3:1 has an exact candidate off
    # the diagonal (t2-r5) whose reference word the 2:1's state reads from another test word
    # (t8): the jar keeps the 3:1 from -x 2.  (METEOR_BEHAVIOUR.md 6.3, spec48b; siblings.py.)
    _check_toy_runs(res, _SIBLING_TOYS)
    # COCO val2014 pairs 22638, 31965 of the all-modules probe (first reference only,
    # ground_truth/coco_single_probe.json.gz) and 5625, 8253, 22728 against OTHER references
    # (coco_other_probe.json.gz): `a couple of`/`two` 3:1 kept over `a couple`/`two` 2:1 for an
    # exact `of` read elsewhere; the jar's statistics lines (pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A couple of young men playing a game of frisbee.",
            "Two teenage boys are playing a game of frisbee together.",
        ),
        (
            "A couple of little girls standing in front of a metal fence.",
            "Two young girls holding hands in front of giraffes",
        ),
        (
            "A couple of brown horses standing on top of a dirt hill.",
            "Two horses perched on top of a barren hill with mountains in the background. ",
        ),
        (
            "A couple of donuts sitting on top of a tray next to a cup of coffee.",
            "two decorated doughnuts sitting on wrappers next to a cup of coffee",
        ),
        (
            "A couple of brown horses standing in front of a building.",
            'Two horses hitched in front of a shop named "The White Horse".',
        ),
    ]
    jar = [
        "11 11 5 5 3 3 3 3 0 0 0 0 0 0 0 0 3 1 2 1 4 11 8",
        "13 9 6 3 2 2 2 2 0 0 0 0 0 0 0 0 1 0 2 1 3 7 5",
        "13 15 6 8 3 3 4 4 0 0 0 0 0 0 0 0 1 0 2 1 5 10 8",
        "17 12 9 5 4 4 4 4 0 0 0 0 1 1 0 0 1 0 2 1 3 12 10",
        "12 15 6 8 2 2 4 4 0 0 0 0 0 0 0 0 1 0 2 1 4 9 7",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec48c, appendix N84: spec39a's diagonal exception does not
# hold against a crossing reading of the same word): (toy, beams) the search reproduces.  AJ1-AJ5
# at -x 3, -x 40, E7 at -x 40 and E11 at -x 2, -x 40 are gained by the rule; AJ6-AJ8 (the other
# reading of the word later in the test, or none) are its controls.
_TWICE_TOYS = {toy: (1, 2, 3, 40) for toy in (f"AJ{i}" for i in range(1, 9))}
_TWICE_TOYS |= {"E7": (40,), "E11": (2, 40)}


def test_diagonal_exact_match_against_a_crossing_reading_of_the_same_word(res, monkeypatch):
    # `a boy z a y z a`/`a little boy q a y` (AJ3): the final states A {`a` t0-r0, `boy` t1-r2,
    # `a` t3-r4, `y` t4-r5} and B {`a boy`/`little boy` t0:2-r1:2, `a` t3-r4, `y` t4-r5, `a`
    # t6-r0} tie on every key (4 matches, 3 chunks); B is ahead after the last sort.  They part at
    # reference 0: A's diagonal exact `a` t0-r0 (spec39a: "equal", the last sort's order) against
    # B's `a` t6-r0, while B also reads `a` from the EARLIER test word t3 at the LATER reference
    # position r4 (its two readings of `a` cross): the jar then takes the option order at r0,
    # t0 before t6, so A.  In AJ6 `a boy z a z a`/`a little boy y a` B's other `a` (t5-r4) is
    # later in the test than its t3-r0: no crossing, B (the 2:2) stands.  (METEOR_BEHAVIOUR.md
    # 6.3, spec48c; twice.py, paths.py.)
    _check_toy_runs(res, _TWICE_TOYS)
    # COCO val2014 pairs 32153, 35101, 35619 of the all-modules probe (first reference only; in
    # 32153 the diagonal `a` t0-r0 against `a` t8-r0 of a state reading `a` t5-r6): the jar's
    # statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both
    # paths.
    pairs = [
        ("A long hot dog on a plate on a table.", "a very long hot dog on a plastic plate"),
        (
            "A man on a bike and a man walking on the street.",
            "A man riding a bike down a street next to a giant panting.",
        ),
        (
            "A young man is sitting across from a seat with a backpack on it.",
            "A man sits in a train with many pieces of luggage on the seat across from him.",
        ),
    ]
    jar = [
        "11 9 6 3 4 4 3 3 0 0 0 0 0 0 0 0 0 0 0 0 3 7 7",
        "13 14 8 6 2 2 4 4 0 0 0 0 0 0 0 0 1 1 1 1 5 8 8",
        "15 18 9 9 3 3 6 6 0 0 0 0 0 0 0 0 1 1 1 0 8 11 10",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec48a, appendix N82: a duplicated diagonal 1:1
# paraphrase right after a diagonal exact word): (toy, beams) the search reproduces.  AH1, AH2,
# AH7 at -x 40 are gained by the rule; AH3, AH4, AH6 are its controls; AH5 (`boy`/`young`
# proposed once) at -x 40 stays open (6.5).
_DIAG_DUP_TOYS = {toy: (1, 2, 3, 40) for toy in ("AH1", "AH2", "AH3", "AH4", "AH6", "AH7")}
_DIAG_DUP_TOYS["AH5"] = (1, 2, 3)


def test_duplicated_diagonal_paraphrase_after_a_diagonal_exact_word_keeps_its_count(
    res, monkeypatch
):
    # `a female`/`a woman a` (AH1): `female`/`woman` (t1-r1, on the diagonal) is proposed twice
    # (paraphrase entry and reverse) and contested; the final states {`a` t0-r0, `female`/`woman`}
    # and {`a` t0-r2} tie on uncontested matches (1) and chunks (1).  Before the rule spec36e's
    # count skipped the duplicated pair (1 / 1) and the certain count chose `t0-r2` at -x 40; a
    # 2:1 candidate `a female`/`woman` reads both test words against `woman`, so the pair keeps
    # its count (2 / 1) and the jar's X + P wins.  AH7 (COCO pair 4743): no 2:1, but a LATER test
    # `a` (t8) reads r0 and no earlier one does.  Without either (AH3 `a male`/`a man a`, AH4) the
    # jar answers `t0-r2` at -x 40 as before (METEOR_BEHAVIOUR.md 6.3, spec48a; diagonal.py).
    _check_toy_runs(res, _DIAG_DUP_TOYS)
    # COCO val2014 pairs 4743, 1811, 7665, 8285 of the all-modules probe (first reference) and
    # segments 521, 987 against their third references (the other-references probe, pairs 1565,
    # 2963): the jar's statistics lines (ground_truth/coco_single_probe.json.gz,
    # coco_other_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A male skater jumps in the air at a skate park.",
            "a man on a skateboard in the air coming on to a ramp",
        ),
        (
            "A female tennis player about to hit the ball",
            "A woman that is on a tennis court with a racquet.",
        ),
        (
            "A bathroom sink sitting next to a white toilet.",
            "a bath room with a toilet and a shower ",
        ),
        (
            "a male paddle boarder water and a swimmer",
            "A man riding a paddle board on top of a wave.",
        ),
        (
            "a little in a pink shirt and khaki skirt playing tennis ",
            "A small girl in action on a court with a racket.",
        ),
        ("A man sits at a full dining table.", "a male in a gray shirt a table and a cake"),
    ]
    jar = [
        "12 13 6 8 1 1 4 4 0 0 0 0 0 0 0 0 1 1 0 0 3 6 6",
        "9 12 4 8 1 1 1 1 0 0 0 0 0 0 0 0 1 1 0 0 2 3 3",
        "10 9 4 5 1 1 2 2 0 0 0 0 1 1 0 0 0 0 0 0 3 4 4",
        "8 12 3 6 1 1 2 2 0 0 0 0 1 1 0 0 1 1 0 0 3 5 5",
        "11 12 4 7 0 0 3 3 0 0 0 0 1 1 0 0 1 1 0 0 4 5 5",
        "9 11 4 6 1 1 2 2 0 0 0 0 0 0 0 0 1 1 0 0 3 4 4",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec49a, appendix N90: a multi-word candidate contests
# the one-word non-exact matches at its INNER words in check 2): (toy, beams) the search
# reproduces.  AK1 at -x 3, -x 40, AK2 at -x 40, AK3 at -x 2, -x 3, -x 40, AK4 at -x 40, AK5 at
# -x 3, -x 40 and AK7 at -x 40 are gained by the rule; AK6 and AK8 are its controls.
_INNER_TOYS = {
    "AK1": (1, 3, 40),
    "AK2": (1, 2, 40),
    "AK3": (2, 3, 40),
    "AK4": (1, 40),
    "AK5": (2, 3, 40),
    "AK6": (1, 2, 3, 40),
    "AK7": (40,),
    "AK8": (1, 2, 3, 40),
}


def test_multi_word_candidate_contests_one_word_matches_at_its_inner_words(res, monkeypatch):
    # `a tree high`/`a tall tree` (AK5): M = `a tree`/`a tall tree` (t0:2-r0:3) and o =
    # `high`/`tall` (t2-r1).  After the cut at r1 the kept list holds M (carried) and o; r1 is
    # an inner reference word of M, so o is contested (before the rule only a shared start
    # counted).  At r2 {`a` t0-r0, o, `tree` t1-r2} has 2 uncontested matches and 3 chunks,
    # {`a`, `tree`} 2 and 2: the jar's `t0-r0 t1-r2` from -x 3.  AK1 `the bus stop`/`in order to
    # board a bus` is the test-side case (o = `stop`/`order` t2-r1 under M = `the bus stop`/
    # `a bus` t0:3-r4:2, M taken after o).  Controls: AK6 (no multi-word candidate over `stop`),
    # AK8 (o contested but adjacent to a match: it costs no chunk, kept) (METEOR_BEHAVIOUR.md 6.3,
    # spec49a; orphans.inner_rivals, orphans.inner_pairs).
    _check_toy_runs(res, _INNER_TOYS)
    # COCO val2014 pairs 357, 613, 5389 of the all-modules probe (first reference only; in 357
    # `stop`/`order` under `the bus stop`/`a bus`, as AK1): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A group of people gather to get on a bus at the bus stop.",
            "People wait in line in order to board a bus.",
        ),
        (
            "The people walk along the path near to the stores. ",
            "People walking on a city sidewalk where there are shops.",
        ),
        (
            "two people riding horses on a sand road ",
            "Two men ride animals on the way to a desert town.",
        ),
    ]
    jar = [
        "15 11 9 6 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 4 5 5",
        "11 11 6 6 0 0 2 2 0 0 0 0 0 0 0 0 2 2 1 1 2 5 5",
        "8 12 4 6 0 0 2 2 1 1 0 0 0 0 0 0 1 2 2 1 4 6 6",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec49c, appendix N92: the orphan rule's third case):
# (toy, beams) the search reproduces.  AM1, AM4, AM5, AM7 at -x 40 are gained by the rule; AM2,
# AM3, AM6 are its controls.
_UNREAD_TOYS = {"AM1": (1, 2, 3, 40), "AM2": (1, 2, 3, 40), "AM3": (3, 40), "AM4": (1, 40)}
_UNREAD_TOYS.update({"AM5": (1, 2, 3, 40), "AM6": (2, 40), "AM7": (40,)})


def test_exact_word_left_unread_in_the_paraphrase_state_contests_it(res, monkeypatch):
    # `a man a dog a street .`/`a man a dog on a dirt road .` (AM1): the 2:1 `a street`/`road`
    # M = t4:2-r7 holds the test `a` t4, whose exact readings r0, r2, r5 lie outside M; X = t4-r5.
    # The kept state {t0-r0, t1-r1, t2-r2, t3-r3, M} leaves r5 unread and its other readers t0-r5,
    # t2-r5 are blocked there by the exact t0-r0 and t2-r2: once X is kept, M is contested (from
    # reference 5 on) and the jar's `a` t4-r5 + `street`/`road` t5-r7 wins at every beam.  In AM2
    # `a man a street . a`/`a man on a dirt road .` the reader t5-r3 of X's word is not blocked
    # in M's state: the 2:1 stands from -x 2 (METEOR_BEHAVIOUR.md 6.3, spec49c; unread.py).
    _check_toy_runs(res, _UNREAD_TOYS)
    # COCO val2014 pairs 7919, 13916, 26725, 37017 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz, pycocoevalcap's
    # way), on both paths.
    pairs = [
        (
            "A woman sitting on top of a red bench next to a man on a bike.",
            "A kid is riding a bicycle near a mannequin on a bench. ",
        ),
        ("a person riding a motorcycle on a road ", "A person on a motorbike has a helmet on."),
        (
            "cats laying on a desk near a couple monitors and a keyboard",
            "Four cats lay on a desk near two computer monitors and a keyboard while near them a "
            "bowl holds medicine bottles.",
        ),
        (
            "A boy sipping a milk bottle while lying on a bed.",
            "A small child laying on a bed drinking from a bottle.",
        ),
    ]
    jar = [
        "17 13 9 7 1 1 6 6 0 0 0 0 2 2 0 0 1 1 1 0 8 11 10",
        "8 10 4 7 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 3 5 5",
        "12 22 5 7 5 5 5 5 1 1 0 0 0 0 0 0 0 0 0 0 3 11 11",
        "12 12 5 6 2 2 5 5 0 0 0 0 0 0 0 0 0 0 0 0 5 7 7",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec50c, appendix N100: spec49c's case mirrored): (toy,
# beams) the search reproduces.  AN1 at -x 2, -x 3, -x 40, AN2, AN4, AN6, AN7 at -x 40 are gained
# by the rule; AN3, AN5 are its controls.
_MIRROR_TOYS = {"AN1": (1, 2, 3, 40), "AN2": (3, 40), "AN3": (1, 2, 40), "AN4": (1, 2, 3, 40)}
_MIRROR_TOYS.update({"AN5": (3, 40), "AN6": (3, 40), "AN7": (40,)})


def test_exact_test_word_left_unread_in_the_mirrored_paraphrase_state_contests_it(res, monkeypatch):
    # `a helicopter is flying upwards in the sky`/`the helicopter has a red stream coming from its
    # bottom half` (AN1): the 1:2 `is`/`has a` M = t2-r2:2 holds the reference `a` r3, whose exact
    # reading X = t0-r3 has its test word outside M.  The kept state {`helicopter` t1-r1, `the`
    # t6-r0, M} leaves t0 unread and its only other reader, the 2:2 `a helicopter`/`the
    # helicopter` t0:2-r0:2, is blocked there by the exact t1-r1: once X is kept, M is contested
    # and the jar's `t0-r3 t1-r1 t2-r2/p t6-r0` wins from -x 2 (no count of X's readings, unlike
    # spec49c).  In AN3 (`... . a` at r7) the test `a` has the free reader t0-r7 in M's state: M
    # stands (METEOR_BEHAVIOUR.md 6.3, spec50c; unread.Unread with ``mirror``).
    _check_toy_runs(res, _MIRROR_TOYS)
    # COCO val2014 pairs 8896, 11466, 26781 of the all-modules probe (first reference only; 26781
    # is AN7's, `suitcases`/`a suitcase`): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A bathroom with a white toilet next to a shower.",
            "A person on a mirror and a sink in the bathroom",
        ),
        (
            "A desktop and laptop computer on a desk. ",
            "A desk with a computer monitor, a mouse, a keyboard and a laptop computer.",
        ),
        (
            "A couple of suitcases at a station with a train.",
            "A shopping bat sits on top of a suitcase on the platform of a train station",
        ),
    ]
    jar = [
        "11 11 6 7 1 1 3 3 0 0 0 0 0 0 0 0 0 0 0 0 4 4 4",
        "9 17 5 10 3 3 4 4 0 0 0 0 0 0 0 0 0 0 0 0 6 7 7",
        "11 16 7 8 2 2 4 4 0 0 0 0 0 0 0 0 0 0 0 0 5 6 6",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec50a, appendix N98: a diagonal one-word paraphrase loses
# the final tie to an earlier-stage reading of its reference word): (toy, beams) the search
# reproduces.  AP1-AP5 at -x 3, -x 40 and AB3 at -x 40 are gained by the rule; AP6 at -x 40 and
# AP7 (a free later reading of the diagonal test word) and AP8 (the same stage) are its controls.
# At -x 2 the jar already takes the stem in AP1-AP5, a beam threshold the search misses (6.5).
_EARLIER_TOYS = {toy: (1, 3, 40) for toy in ("AP1", "AP2", "AP3", "AP4", "AP5")}
_EARLIER_TOYS |= {"AP6": (40,), "AP7": (1, 2, 3, 40), "AP8": (1, 2, 3, 40), "AB3": (40,)}


def test_diagonal_paraphrase_loses_the_final_tie_to_an_earlier_stage_reading(res, monkeypatch):
    # `a snow boarder is standing on a mountain`/`a snow boarder stands on a mountain` (AP1): the
    # final states holding the diagonal paraphrase `is`/`stands` (t3-r3) or the stem
    # `standing`/`stands` (t4-r3), the rest the same, tie on every key (7 matches, 2 chunks);
    # spec39a's diagonal exception kept the last sort's order (the paraphrase).  The stem's stage
    # is earlier and `is` has no other reading at a later reference word: the jar takes the stem
    # from -x 2.  In AP6 (`are`/`pose` against `posing`/`pose`) `are`/`be` t3-r8 is free in both
    # states: the paraphrase stays.  (METEOR_BEHAVIOUR.md 6.3, spec50a; earlier.py, paths.py.)
    _check_toy_runs(res, _EARLIER_TOYS)
    # COCO val2014 pairs 12089, 25946, 30919, 40058 of the all-modules probe (first reference
    # only, ground_truth/coco_single_probe.json.gz) and 4977, 6570 against OTHER references
    # (coco_other_probe.json.gz): the stem (`standing`/`stands`, `laying`/`lays`, `lying`/
    # `lies`, `looking`/`looks`) over the diagonal `is`/... paraphrase; the jar's statistics
    # lines (pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A snow boarder is standing on a snow covered mountain.",
            "A snow boarder stands on the top of a mountain.",
        ),
        ("A brown teddy bear is laying on a bed.", "A brown teddy bear lays on a bed spread."),
        (
            "A dog is lying on the carpet of the living room.",
            "A dog lies on a floral rug near a living room window. ",
        ),
        ("A zebra is standing near a bare tree alone.", "A zebra stands next to a tree on gravel."),
        (
            "A man is standing on top of two horses and holding the reigns.",
            "A man stands on the backs of two running horses.",
        ),
        (
            "A dog is looking out the door to the outside",
            "A dog looks out a glass door overlooking a porch.",
        ),
    ]
    jar = [
        "11 11 5 6 3 3 4 4 1 1 0 0 1 1 0 0 0 0 0 0 5 9 9",
        "10 10 5 4 4 4 4 4 1 1 0 0 0 0 0 0 0 0 0 0 3 9 9",
        "12 13 7 5 3 3 3 3 1 1 0 0 0 0 0 0 0 0 0 0 4 7 7",
        "10 10 4 5 2 2 3 3 1 1 0 0 0 0 0 0 1 1 0 1 4 7 8",
        "14 11 8 6 2 2 6 6 1 1 0 0 0 0 0 0 0 0 0 0 6 9 9",
        "10 11 6 5 2 2 2 2 1 1 0 0 0 0 0 0 0 0 0 0 3 5 5",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.5 (spec50b, appendix N99, adopted at stop 50): (toy, beams)
# the search reproduces.  AO1 at -x 2, -x 3, -x 40, AO2 and AO3 at -x 2, -x 40 are gained by the
# rule; AO1, AO2 at -x 1 (the greedy keeps the first option), AO4, AO5 are its controls.
_EXCUSED_TOYS = {"AO1": (1, 2, 3, 40), "AO2": (1, 2, 40), "AO3": (2, 40), "AO4": (40,)}
_EXCUSED_TOYS.update({"AO5": (40,)})


def test_diagonal_square_keeps_its_preference_in_a_state_using_the_earlier_reading(
    res, monkeypatch
):
    # `a bicycle beside a black door`/`a bicycle against a white window` (AO1): the 2:2 M = `a
    # black`/`a white` (t3:2-r3:2) holds the exact pair p = `a` t3-r3, whose test word is also
    # read from the EARLIER reference `a` (t3-r0), so spec38a's sole-reading test fails and M
    # does not count in the fifth key.  The final states `t0-r0 t1-r1 t3-r3` and `t0-r0 t1-r1
    # M` tie on every other key; the second already uses r0 (and t0, the earlier test reader of
    # r3), so there the earlier reading is excused, M counts -1 and comes first: the jar's 2:2
    # from -x 2.  In AO4 the earlier test reader of p's reference word is free in M's state, in
    # AO5 r0 is read by none of its matches: no change (METEOR_BEHAVIOUR.md 6.5, spec50b;
    # excused.py).
    _check_toy_runs(res, _EXCUSED_TOYS)
    # COCO val2014 pairs 4326, 8758, 86655 of the other-references probe (a hypothesis against
    # one of its other references: ground_truth/coco_other_probe.json.gz): the jar's statistics
    # lines, on both paths.
    pairs = [
        (
            "A bicycle sitting beside a black door and steps.",
            "A bicycle leaning against a white window with two cats in it.",
        ),
        (
            "A woman holding a white and purple umbrella.",
            "A woman in a black dress and umbrella in front of structure.",
        ),
        ("A person racing down a hill on skis.", "A person skis down a slope of snow"),
    ]
    jar = [
        "10 13 4 7 1 1 2 2 0 0 0 0 0 0 0 0 1 1 1 1 3 5 5",
        "9 13 4 7 2 2 3 3 0 0 0 0 0 0 0 0 1 1 1 1 5 7 7",
        "9 8 4 3 3 3 1 1 0 0 0 0 0 0 0 0 1 1 1 1 3 6 6",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec51a, appendix N106, adopted at stop 51): (toy, beams)
# the search reproduces.  AQ1, AQ2, AQ8 and AH5 at -x 40 are gained by the rule (the greedy
# beams keep X + P); AQ3 (`xt`), AQ4 (`r21`), AQ5 (M off the diagonal), AQ6 (an earlier
# test `a`), AQ7 (`fr`) are its controls.
_LATE_TWIN_TOYS = {"AQ1": (1, 2, 3, 40), "AQ2": (1, 2, 3, 40), "AQ8": (1, 40), "AH5": (1, 40)}
_LATE_TWIN_TOYS.update({"AQ3": (1, 40), "AQ4": (1, 40), "AQ5": (1, 40), "AQ6": (1, 2, 40)})
_LATE_TWIN_TOYS.update({"AQ7": (1, 40)})


def test_end_twin_with_a_later_exact_reading_contests_a_paraphrase_proposed_once(res, monkeypatch):
    # `a boy is`/`a young man is a` (AQ1): P = `boy`/`young` (t1-r1, proposed once) ends the
    # diagonal 2:2 M = `a boy`/`a young`, with the exact X = `a` t0-r0 at M's starts and a
    # LATER exact reading Y = `a` t0-r4 of M's test start.  M is an end twin of P (as spec38c's
    # with an earlier reading): P is contested once P and M are kept and, M being diagonal, not
    # counted by spec36e's term; {X, P, `is`} and {Y, `is`} then tie up to the certain count,
    # where Y (certain) wins: the jar's -x 40 answer.  Not so when a later test word reads X's
    # reference word (AQ3), a 2:1 `a boy`/`child` exists (AQ4), or `boy` has another non-exact
    # reading (AQ7) (METEOR_BEHAVIOUR.md 6.3, spec51a; latetwin.py).  Hand keys of AQ1 in N106.
    _check_toy_runs(res, _LATE_TWIN_TOYS)
    # COCO val2014 pairs 5717, 24536 of the all-modules probe (first reference only) and 1289
    # (= AQ8), 54459 of the other-references probe: the jar's statistics lines, on both paths.
    pairs = [
        (
            "A male holding video game accessories in front of his face.",
            "A boy holds two video game controllers while sitting on a chair.",
        ),
        (
            "A boy swings the bat, just hitting the ball, as the catcher and umpire are in the "
            "background in this city league baseball game. ",
            "a young baseball player swinging a baseball bat",
        ),
        (
            "A boy that is standing next to an animal.",
            "A young man is standing next to a goat.",
        ),
        (
            "a few zebras that are walking on some grass",
            "a number of zebras in a field near bushes",
        ),
    ]
    jar = [
        "12 13 5 5 2 2 2 2 0 0 0 0 0 0 0 0 0 0 0 0 3 4 4",
        "27 8 14 2 2 2 1 1 0 0 0 0 0 0 0 0 0 0 0 0 3 3 3",
        "10 10 6 5 2 2 4 4 0 0 0 0 0 0 0 0 0 0 0 0 3 6 6",
        "9 9 5 4 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 2 2 2",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.3 (spec52a, appendix N114, adopted at stop 52): (toy, beams)
# the search reproduces.  AT1 and AT7 at -x 40 and AT3 at -x 2, -x 3 are gained by the rule;
# AT4 (P on the diagonal, no chunk lost) and AT6 (no multi-word rival) are its controls.  AT1,
# AT2, AT5 at -x 2, -x 3 (the rival in no list at all) are not reproduced (6.5).
_REF_START_TOYS = {"AT1": (1, 40), "AT2": (1, 40), "AT3": (1, 2, 3, 40), "AT4": (1, 2, 3, 40)}
_REF_START_TOYS.update({"AT5": (1, 40), "AT6": (1, 2, 40), "AT7": (2, 40)})


def test_multi_word_candidate_contests_one_word_matches_at_its_reference_start(res, monkeypatch):
    # `a red shirt`/`zq red top is` (AT3): exact `red` t1-r1, the 2:1 M = `a red`/`is` (t0:2-r3)
    # and P = `shirt`/`is` (t2-r3) start at the same reference word.  At beam 2 the new list of
    # r3 holds {red, P}, {red}, {M}, {P}, {}: M and P both taken there, so check 1 contests P
    # before the sort (as it would a rival at P's test start), and {red, P} (one uncontested
    # match, two chunks) ranks behind {red} (one match, one chunk): the jar's `red` alone at -x 2,
    # -x 3, -x 40.  At -x 1 {} is cut after r1, M is never taken and P counts: `red` + P, as the
    # jar (METEOR_BEHAVIOUR.md 6.3, spec52a, N114; check 1s in align.py and beam.py).
    _check_toy_runs(res, _REF_START_TOYS)
    # COCO val2014 pairs 1999 (= AT1), 7885 (= AT7) of the all-modules probe (first reference
    # only) and 40233, 44913, 55464, 66699 of the other-references probe: the jar's statistics
    # lines, on both paths.
    pairs = [
        (
            "A man in a red shirt rides a yellow surfboard on light blue water.",
            "a surfer in a red top is surfing on a white and green board",
        ),
        (
            "A fluffy cat sitting on a laptop keyboard. ",
            "A cat sleeping on top of a computer on a table.",
        ),
        (
            "2 motorcycles stand next to each other on the street.",
            "Two motorcycles parked on the side of the road next to a grassy area.",
        ),
        (
            "A pay phone sits on a wet sidewalk on a gloomy day. ",
            "A payphone with a blue sign on top is in a parking lot.",
        ),
        (
            "A male skate boarder rides his skate board on a ramp",
            "a person riding a skate board at a skate park",
        ),
        (
            "A woman holding a umbrella next to a man holding a baby and several other people "
            "waiting to cross a street. ",
            "A group of people wait along a busy road in the city. ",
        ),
    ]
    jar = [
        "15 14 6 7 1 1 5 5 0 0 0 0 1 1 0 0 0 0 0 0 4 7 7",
        "9 12 4 7 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 4 5 5",
        "11 15 5 8 2 2 4 4 0 0 0 0 1 0 0 1 0 0 0 0 4 7 7",
        "13 14 6 8 0 0 5 5 0 0 0 0 1 1 0 0 0 0 0 0 5 6 6",
        "11 10 4 4 2 2 2 2 0 0 0 0 0 0 0 0 1 1 1 1 3 6 6",
        "22 13 11 7 0 0 4 4 1 1 0 0 0 0 0 0 1 1 1 0 5 7 6",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


_FAR_RIVAL_TOYS = {"AU1": (3, 40), "AU7": (2, 3, 40), "AU3": (1, 40), "AU4": (2, 40)}
_FAR_RIVAL_TOYS.update({"AU5": (3, 40), "AU6": (2, 40), "AU8": (1, 40)})


def test_end_pair_against_a_farther_earlier_rival_of_its_reference_word(res, monkeypatch):
    # `plane in the sky flying`/`airplane is flying in the air` (AU1): P = `sky`/`air` (t3-r5,
    # proposed once) ends the off-diagonal 2:2 M = `the sky`/`the air` (t2-r4) with the exact X =
    # `the` t2-r4 at M's starts, and Q = `plane`/`air` (t0-r5, proposed once, another word)
    # reads P's reference word from a test word before M and farther from the diagonal (|0 - 5|
    # > |2 - 4|).  With `plane` unread, the contested P counts neither in spec36e's term nor the
    # fourth key, P and X are not certain, and M gets the fifth key: M wins, the jar's answer
    # from -x 3 (hand keys in N115).  Not so when Q comes after M (AU4), reads the same word
    # (AU6), lies as near (AU3) or nearer (AU8) (METEOR_BEHAVIOUR.md 6.3, spec52b; farrival.py).
    _check_toy_runs(res, _FAR_RIVAL_TOYS)
    # COCO val2014 pairs 9085, 18221, 27937, 30245 (= AU7) of the all-modules probe (first
    # reference only): the jar's statistics lines, on both paths.
    pairs = [
        (
            "A group of airplanes in the sky in formation. ",
            "The jets are flying through the air in unison.",
        ),
        (
            "Plane in the sky flying sideways all by itself.",
            "A small airplane is flying high in the air.",
        ),
        ("A airplane that is flying in the sky.", "a large air plane in the air "),
        (
            "She is well balanced on her new surfboard.",
            "A surfer standing on their board in relatively calm water.",
        ),
    ]
    jar = [
        "10 10 6 5 0 0 2 2 0 0 0 0 0 0 0 0 1 1 1 1 2 4 4",
        "10 10 5 5 1 1 2 2 0 0 0 0 0 0 0 0 2 1 1 2 4 6 6",
        "9 7 6 3 0 0 2 2 0 0 0 0 0 0 0 0 1 1 1 1 2 4 4",
        "9 11 6 5 0 0 1 1 0 0 0 0 1 1 0 0 0 0 2 2 3 4 4",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


# Cited jar runs of specification 6.5 (spec53a, appendix N122, N127; the rule since spec54a's,
# 6.3, N130, N133: decided on the whole final list before the sort): (toy, beams) the search
# reproduces.  AW1, AW2 and AW6 at -x 3, -x 40 are gained by the rule (at -x 2 the beam holds no
# more than X's two proposals and the jar keeps X, as the search does before any final sort);
# AW3, AW5 (the X state farther from the diagonal) and AW4 (equal sums) keep X; AW7 = COCO pair
# 2480 at -x 40 (gained) and AW8 (X on the diagonal: spec47a's order already) are as the jar.
_FARTHER_TOYS = {toy: (2, 3, 40) for toy in ("AW1", "AW2", "AW3", "AW4", "AW5", "AW6", "AW7")}
_FARTHER_TOYS["AW8"] = (3, 40)


# Cited jar runs of specification 6.3 (spec54a, appendix N130, N133): (toy, beams) the search
# reproduces.  The X state (X: a contested non-exact one-word match of p proposals, W: its exact
# reading of a reference word another final state reads from an earlier test word, alt) is
# dropped before the final sort exactly when (p - 1)|X.t - X.r| + |W.t - W.r| < |alt.t - alt.r|:
# BA1, BA3, BA9 at -x 5, -x 40, BA4, BA8 at -x 4, -x 40 (X kept by the weight where spec53a's
# plain sum dropped it) and BA7 at -x 40 (spec53a's cycle) gained by the port; BA2, BA5, BA6,
# BA12, BA13 at -x 40 (X dropped) and the small beams as before.
# Open: BA10, BA11 at -x 40 (first 22659's 1:2 rival), BA2 at -x 3, BA5 at -x 4, BA7 at -x 2.
_FAR54_TOYS = {
    "BA1": (2, 3, 4, 5, 40),
    "BA2": (2, 40),
    "BA3": (2, 3, 4, 5, 40),
    "BA4": (2, 3, 4, 40),
    "BA5": (2, 3, 40),
    "BA6": (2, 3, 4, 40),
    "BA7": (3, 40),
    "BA8": (2, 3, 4, 40),
    "BA9": (2, 3, 4, 5, 40),
    "BA10": (2, 3),
    "BA11": (3,),
    "BA12": (3, 40),
    "BA13": (3, 40),
}


def test_contested_match_dropped_for_a_farther_state_before_the_final_sort(res):
    # `a b a dog`/`x y z a dogs` (BA1): X = `dog`/`dogs` t3-r4 (contested, non-exact) + W = `a`
    # t2-r3 against alt = `a` t0-r3, |0 - 3| = 3; the jar keeps X at every beam, where spec53a's
    # plain sum (1 + 1 = 2 < 3) dropped it at -x 5 and -x 40: X's |t - r| weighs its span pair's
    # proposals - 1, the weighted distance is not smaller than alt's and the X state stays (BA3,
    # BA4, BA8, BA9 alike).  BA7 `a hit a b c b d e f`/`x b hits a`: spec53a's cycle, two X states
    # dropped, the jar's state first whatever the sort's comparison order.
    # (METEOR_BEHAVIOUR.md 6.3, spec54a; farther.py.)
    _check_toy_runs(res, _FAR54_TOYS)


def test_contested_match_against_an_earlier_exact_reading_the_farther_state_first(res, monkeypatch):
    # `a b hit a`/`x y z w hits a` (AW1) at -x 3: the final states {`hit`/`hits` t2-r4 (stem +
    # synonym, contested), `a` t3-r5} and {`a` t0-r5} are equal on the key's first three terms
    # (uncontested matches 1, one chunk, spec36e's count 1) and the certain count prefers the
    # first; the second reads the X state's `a` (r5) exactly from an earlier test word (t0 < t3),
    # neither holds a multi-word match nor does the second read `hit`, the beam (3) is larger
    # than X's two proposals: the sums of |t - r| decide, |2 - 4| + |3 - 5| = 4 < |0 - 5| = 5,
    # {`a` t0-r5} first, as the jar answers.  AW4 `a hit a`/`x y z hits a`: 2 + 2 = 4 against 4,
    # the keys decide (X kept); AW3 `a b c d e hit a`/`x y hits a`: 3 + 3 = 6 against 3, X kept.
    # (METEOR_BEHAVIOUR.md 6.5, spec53a; farther.py.)
    _check_toy_runs(res, _FARTHER_TOYS)
    # COCO val2014 pairs 2480 (= AW7), 17438 (= AW6), 38546 of the all-modules probe (first
    # reference only; `gold`/`golden`, `rides`/`riding`, `showing`/`show` dropped for an exact `a`
    # read from an earlier test word): the jar's statistics lines
    # (ground_truth/coco_single_probe.json.gz, pycocoevalcap's way), on both paths.
    pairs = [
        (
            "A floral arrangement in a vase on a gold tablecloth.",
            "A vase filled with flowers on top of a golden table.",
        ),
        (
            "A man rides a surfboard on a wave in the ocean.",
            "Surfer in wet suit riding a breaking wave.",
        ),
        (
            "A series of photos showing a person laying on a bed.",
            "Many photos are arranged to show a couple holding hands in bed.",
        ),
    ]
    jar = [
        "11 12 6 6 1 1 4 4 0 0 0 0 0 0 0 0 0 0 0 0 4 5 5",
        "12 9 7 3 1 1 3 3 0 0 0 0 1 1 0 0 0 0 0 0 5 5 5",
        "12 13 6 5 2 2 2 2 0 0 0 0 0 0 0 0 0 0 0 0 3 4 4",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


_COVER_TOYS = {"BB1": (40,), "BB3": (40,), "BB4": (2, 40), "BB5": (2, 40), "BB7": (40,)}
_COVER_TOYS.update({"BB2": (40,), "BB6": (2, 40)})


def test_square_paraphrase_and_a_second_reading_the_state_covering_more_first(res, monkeypatch):
    # `a couple of people`/`a few people on a patio` (BB1) at -x 40: the final states {`a`/`a`
    # t0-r0, `couple of`/`few` t1:2-r1, `people`} (two chunks) and {`couple of`/`a few` t1:2-r0:2
    # (square paraphrase), `a`/`a` t0-r4, `people`} (three chunks) hold as many uncontested
    # matches and differ by one non-exact multi-word match and one exact one-word match each, the
    # multi-word matches overlapping on both sides: the second covers more words (4 + 2 against
    # 3 + 2) with a square paraphrase and comes first, as the jar answers.  BB2 (no second `a`)
    # and BB6 (the first state holds one match more): the keys decide.  (METEOR_BEHAVIOUR.md
    # 6.3, spec54b; cover.py.)
    _check_toy_runs(res, _COVER_TOYS)
    # COCO val2014 pairs 35293, 14190 (= BB5), 5472 of the all-modules probe (first reference
    # only): the jar's statistics lines (ground_truth/coco_single_probe.json.gz), on both paths.
    pairs = [
        (
            "a couple of people that are sitting on the porch",
            "A few people sitting on a patio having a conversation. ",
        ),
        (
            "A couple of performers are checking a mobile device.",
            "people that have their face painted holding a cell phone",
        ),
        (
            "Surfers on surfboards ride in a row on the ocean waves.",
            "Three surf boards with two people on two of the boards and one on the last one.",
        ),
    ]
    jar = [
        "10 11 7 6 1 1 3 3 0 0 0 0 0 0 0 0 1 1 1 1 3 6 6",
        "10 10 5 5 0 0 1 1 0 0 0 0 1 1 0 0 1 2 2 2 4 5 6",
        "12 18 6 14 0 0 4 4 0 0 0 0 1 1 0 0 1 0 1 2 6 7 7",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


def test_cov_order_of_a_square_paraphrase_against_its_shifted_sibling():
    from sparsecider.metrics.meteor.cover import cov_order

    people = {(3, 1, 2, 1): EXACT}
    x_n = {(0, 1, 0, 1): EXACT, (1, 2, 1, 1): PARAPHRASE, **people}
    m_y = {(1, 2, 0, 2): PARAPHRASE, (0, 1, 4, 1): EXACT, **people}
    assert cov_order(m_y, x_n) == -1 and cov_order(x_n, m_y) == 1
    # the covering multi-word match not square: no order; exact multi-word matches: none either
    m_y3 = {(1, 2, 0, 3): PARAPHRASE, (0, 1, 4, 1): EXACT, **people}
    assert cov_order(m_y3, x_n) == 0
    assert cov_order({**m_y, (1, 2, 0, 2): EXACT}, x_n) == 0
    # three matches apart: no order
    assert cov_order({**m_y, (5, 1, 6, 1): EXACT}, x_n) == 0


_SPLIT_TOYS = {"BE1": (1, 2, 40), "BE2": (1, 2, 40), "BE3": (2, 40), "BE4": (2, 40)}
_SPLIT_TOYS.update({"BE6": (2, 40), "BE7": (2, 40), "BE8": (40,), "BE9": (40,)})


def test_off_diagonal_square_paraphrase_kept_against_its_split(res, monkeypatch):
    # `zq zq zq elderly man`/`old man` (BE1) at -x 40: M = `elderly man`/`old man` t3:2-r0:2
    # (paraphrase, off the diagonal) splits into P = `elderly`/`old` t3-r0 (proposed once, not
    # exact) + X = `man`/`man` t4-r1 (exact), with Q = `elderly`/`old man` t3-r0:2 sharing M's
    # start; the final state holding P + X ranks first by the keys (two matches against one),
    # but the state with M in their place is final too and X's test word is a content word: the
    # P + X state is dropped and M kept, as the jar answers (BE2-BE4 alike, at every beam).
    # Controls: BE6-BE8 `group of`/`team of` (`of` a function word: P + X kept at -x 40), BE9
    # on the diagonal.  (METEOR_BEHAVIOUR.md 6.3, spec55b; splitsq.py.)
    _check_toy_runs(res, _SPLIT_TOYS)
    # without the test words the rule does not act: P + X, as before the rule
    t, r = "zq zq zq elderly man".split(), "old man".split()
    props = dict(candidates(t, r, res.lexicon, res.paraphrases))
    assert [m[:4] for m in align(props, 5)] == [(3, 1, 0, 1), (4, 1, 1, 1)]
    words = typed_words(t, res.function_words)
    assert [m[:4] for m in align(props, 5, words=words)] == [(3, 2, 0, 2)]
    # COCO val2014 segment 6515 against its first reference (the first-reference probe) and its
    # fourth, and segment 23323 against its third (the other-references probe, 19565, 70049):
    # the jar's statistics lines, on both paths.
    pairs = [
        (
            "A shot of an elderly man inside a kitchen.",
            "An old man is wearing an odd hat",
        ),
        (
            "A shot of an elderly man inside a kitchen.",
            "An old man standing in a kitchen posing for a picture.",
        ),
        (
            "A large white dog is sitting on a bench beside an elderly man.",
            "A dog sitting on a bench next to an old man.",
        ),
    ]
    jar = [
        "10 8 5 3 0 0 1 1 0 0 0 0 0 0 0 0 2 2 0 0 1 3 3",
        "10 12 5 6 1 1 4 4 0 0 0 0 0 0 0 0 2 2 0 0 4 7 7",
        "14 12 6 6 3 3 5 5 0 0 0 0 0 0 0 0 2 2 0 0 4 10 10",
    ]
    _check_jar_lines(res, monkeypatch, pairs, jar)


def test_split_triples_by_word_id():
    from sparsecider.metrics.meteor.splitsq import split_triples

    m, p, x, q = (3, 2, 0, 2), (3, 1, 0, 1), (4, 1, 1, 1), (3, 1, 0, 2)
    props = {m: [PARAPHRASE], p: [PARAPHRASE], x: [EXACT], q: [PARAPHRASE]}
    objs = [(*k, s) for k, v in props.items() for s in v]
    words = {3: 7, 4: 8}  # type ids; a function word's negated (~id)
    assert split_triples(objs, props, words) == [(m, p, x)]
    assert split_triples(objs, props, {3: 7, 4: ~8}) == []
    assert split_triples(objs, props, None) == []
    # P proposed twice or exact, X not exact, no Q, on the diagonal: no triple
    assert split_triples(objs, {**props, p: [SYNONYM, PARAPHRASE]}, words) == []
    assert split_triples(objs, {**props, p: [EXACT]}, words) == []
    assert split_triples(objs, {**props, x: [STEM]}, words) == []
    assert split_triples(objs, {k: v for k, v in props.items() if k != q}, words) == []
    diag = [(3, 2, 3, 2, PARAPHRASE)]
    assert (
        split_triples(diag, {(3, 2, 3, 2): [PARAPHRASE], (3, 1, 3, 1): [PARAPHRASE]}, words) == []
    )
