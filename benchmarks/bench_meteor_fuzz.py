"""Differential fuzz of sparsecider's METEOR against meteor-1.5.jar, by mutation class.

Makes (one seeded run) candidate/reference pairs from real captions of COCO val 2014:
a caption of an image, mutated (``benchmarks/meteor_mutations.py``), against that caption
and zero to four other captions of the image in random order (or the caption against its
mutated copy and the others: the mutation on the reference side).  One class per pair, the
same number of pairs per class: ``control`` (another caption of the same image, unmutated),
``inflection`` (plurals, verb forms, WordNet's irregular forms), ``synonym`` (a word of a
synset of the jar's ``synonym/english.synsets``), ``paraphrase`` (a phrase of the
paraphrase table by one of its partners), ``reorder``, ``repeat``, ``function_words``
(the jar's 93), ``punctuation``, ``hyphens``, ``numbers``, ``case`` and ``pipes``
(``|||`` inside a caption: pycocoevalcap removes it from the hypothesis only).

Every pair is scored by the jar exactly as pycocoevalcap 1.2 drives it (its ``Meteor``:
``java -jar -Xmx2G meteor-1.5.jar - - -stdio -l en -norm``, one SCORE line per pair, then
one EVAL line; ``bench_meteor.jar``) and by ours (``segment_statistics`` then
``segment_scores``).  A pair differs when one of its 23 statistics differs or its segment
score differs by more than 1e-12; the corpus scores are compared too.  Writes
``benchmarks/results/meteor_fuzz.json`` (sizes, versions, seed, counts and rate per class,
examples) and prints a table.  Needs Java and the ``ref`` and ``meteor`` extras; without
them it says so and stops (status ``skipped``).

Usage::

    python -m benchmarks.bench_meteor_fuzz [--n 60000] [--seed 33] [--examples 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shutil
import subprocess
import time
from collections import Counter

import numpy as np

from benchmarks import common
from benchmarks.bench_meteor import coco_images
from benchmarks.meteor_mutations import CLASSES, MUTATORS, ngrams
from benchmarks.meteor_words import Words, load_words

#: Images whose captions the paraphrase class draws from (their phrases are looked up in
#: the 5.27-million-entry table, which is read once, keeping only those).
PARAPHRASE_IMAGES = 4000
#: How many other captions of the image join the reference list (one drawn per pair).
EXTRA_REFERENCES = (0, 0, 1, 2, 4)
TOLERANCE = 1e-12
STAT_NAMES = ["test_len", "ref_len", "test_func", "ref_func"] + [
    f"{stage}_{side}"
    for stage in ("exact", "stem", "synonym", "paraphrase")
    for side in ("test_content", "ref_content", "test_func", "ref_func")
] + ["chunks", "test_matched", "ref_matched"]  # fmt: skip


def paraphrase_pool(n_images: int, seed: int) -> list[int]:
    """The images the paraphrase class draws from (sorted indices)."""
    rng = random.Random(f"paraphrase-pool-{seed}")
    return sorted(rng.sample(range(n_images), min(n_images, PARAPHRASE_IMAGES)))


def needed_phrases(images: list[list[str]], pool: list[int]) -> set[str]:
    """Every phrase the paraphrase class may look up in the table."""
    out: set[str] = set()
    for i in pool:
        for c in images[i]:
            out |= ngrams(c)
    return out


def make_pairs(n: int, seed: int, images: list[list[str]], words: Words) -> list[dict]:
    """``n`` labelled pairs, the classes in turn (deterministic for a seed).

    Each pair: ``kind``, ``candidate``, ``references``, ``side`` (which side the mutation
    is on: ``candidate``, ``reference`` or ``none``), ``original`` (the caption mutated),
    ``image`` (its index in ``images``) and ``detail`` (what the mutator changed).
    """
    rng = random.Random(seed)
    pool = paraphrase_pool(len(images), seed)
    pairs = []
    for i in range(n):
        kind = CLASSES[i % len(CLASSES)]
        for _ in range(1000):
            img = rng.choice(pool) if kind == "paraphrase" else rng.randrange(len(images))
            caps = images[img]
            j = rng.randrange(len(caps))
            original, others = caps[j], caps[:j] + caps[j + 1 :]
            if kind == "control":
                if not others:
                    continue
                k = rng.randrange(len(others))
                cand, others = others[k], others[:k] + others[k + 1 :]
                mutated, side, detail = original, "none", {}
            else:
                got = MUTATORS[kind](original, rng, words)
                if got is None:
                    continue
                mutated, detail = got
                to_reference = 0.5 if kind == "pipes" else 0.2
                side = "reference" if rng.random() < to_reference else "candidate"
                cand = mutated if side == "candidate" else original
            extra = min(len(others), rng.choice(EXTRA_REFERENCES))
            refs = [mutated if side == "reference" else original, *rng.sample(others, extra)]
            rng.shuffle(refs)
            pairs.append(
                {
                    "kind": kind,
                    "candidate": cand,
                    "references": refs,
                    "side": side,
                    "original": original,
                    "image": img,
                    "detail": detail,
                }
            )
            break
        else:
            raise RuntimeError(f"no caption of COCO val offers a {kind!r} mutation")
    return pairs


def ours(hyps: list[str], refs: list[list[str]]) -> dict:
    """Our statistics, scores and corpus score; a pair our code fails on gets a row of -1
    (a mismatch) and its error."""
    from sparsecider.metrics.meteor import corpus_score, segment_scores, segment_statistics
    from sparsecider.metrics.meteor import summed as summed_stats
    from sparsecider.metrics.meteor.resources import load

    t0 = time.perf_counter()
    res = load()
    t1 = time.perf_counter()
    stats = np.full((len(hyps), 23), -1, dtype=np.int64)
    errors: dict[int, str] = {}
    step = 2048
    for lo in range(0, len(hyps), step):
        hi = min(lo + step, len(hyps))
        try:
            stats[lo:hi] = segment_statistics(hyps[lo:hi], refs[lo:hi], resources=res)
        except Exception:  # find the pairs that fail, one by one
            for i in range(lo, hi):
                try:
                    stats[i] = segment_statistics([hyps[i]], [refs[i]], resources=res)[0]
                except Exception as e:
                    errors[i] = f"{type(e).__name__}: {e}"
    ok = np.ones(len(hyps), dtype=bool)
    ok[list(errors)] = False
    scores = np.full(len(hyps), np.nan)
    scores[ok] = segment_scores(stats[ok])
    corpus = corpus_score(summed_stats(stats[ok])) if ok.all() else float("nan")
    t2 = time.perf_counter()
    return {
        "load_s": t1 - t0,
        "score_s": t2 - t1,
        "stats": stats,
        "scores": scores,
        "corpus": corpus,
        "errors": errors,
    }


def pattern(ours_row: np.ndarray, jar_row: np.ndarray) -> str:
    """What differs, in words: ``lengths`` (test/reference length or function-word counts:
    normalisation, the fields, or another reference chosen), then per stage ``+``/``-`` when
    ours covers more/fewer test tokens by it than the jar, then ``chunks+``/``chunks-``."""
    o, j = ours_row.astype(np.int64), np.asarray(jar_row).astype(np.int64)
    parts = ["lengths"] if (o[:4] != j[:4]).any() else []
    for k, stage in enumerate(("exact", "stem", "synonym", "paraphrase")):
        d = (o[4 + 4 * k] + o[6 + 4 * k]) - (j[4 + 4 * k] + j[6 + 4 * k])
        if d:
            parts.append(stage + ("+" if d > 0 else "-"))
    if o[20] != j[20]:
        parts.append("chunks" + ("+" if o[20] > j[20] else "-"))
    if (o < 0).any():
        return "error"
    return " ".join(parts) or ("same statistics" if (o == j).all() else "other counts")


def example(p: dict, got: dict, want: dict, i: int) -> dict:
    diff = np.flatnonzero(got["stats"][i] != want["stats"][i])
    return {
        "candidate": p["candidate"],
        "references": p["references"],
        "side": p["side"],
        "detail": p["detail"],
        "score_ours": float(got["scores"][i]),
        "score_jar": float(want["scores"][i]),
        "pattern": pattern(got["stats"][i], want["stats"][i]),
        "differing_statistics": {
            STAT_NAMES[k]: [int(got["stats"][i][k]), int(want["stats"][i][k])] for k in diff
        },
        "error": got["errors"].get(i),
    }


def summary(pairs, idx, differ, stats_differ, score_differ, patterns) -> dict:
    """The counts of one class (``idx``: its pairs)."""
    bad = idx[differ[idx]]
    one_ref = [i for i in bad if len(pairs[i]["references"]) == 1]
    return {
        "pairs": int(idx.size),
        "mismatches": int(bad.size),
        "rate": bad.size / idx.size if idx.size else 0.0,
        "statistics_differ": int(stats_differ[idx].sum()),
        "score_differs_statistics_equal": int((score_differ & ~stats_differ)[idx].sum()),
        "mutation_on_reference_side": int(sum(pairs[i]["side"] == "reference" for i in idx)),
        "mismatches_mutation_on_reference_side": int(
            sum(pairs[i]["side"] == "reference" for i in bad)
        ),
        # lengths differ although one reference field is scored: -norm or the line protocol
        "lengths_differ": sum("lengths" in patterns[i] for i in bad.tolist()),
        "lengths_differ_one_reference": sum(
            "lengths" in patterns[i] and "|||" not in pairs[i]["references"][0] for i in one_ref
        ),
        "patterns": dict(Counter(patterns[i] for i in bad.tolist()).most_common()),
    }


def java_version() -> str:
    out = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    return out.splitlines()[0] if out else "unknown"


def skip_reason() -> str | None:
    if shutil.which("java") is None:
        return "Java is not installed; the jar comparison needs it"
    for module, extra in (("pycocoevalcap", "ref"), ("snowballstemmer", "meteor")):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install -e '.[{extra}]')"
    return None


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60_000, help="pairs to generate")
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--examples", type=int, default=5, help="differing pairs kept per class")
    args = parser.parse_args(argv)
    reason = skip_reason()
    if reason:
        print(f"bench_meteor_fuzz: {reason}. Skipped.")
        return {"benchmark": "meteor_fuzz", "status": "skipped", "reason": reason}
    from benchmarks.bench_meteor import jar
    from sparsecider.metrics.meteor.data import locate

    t = time.perf_counter()
    images = coco_images()
    words = load_words(needed_phrases(images, paraphrase_pool(len(images), args.seed)))
    pairs = make_pairs(args.n, args.seed, images, words)
    t_gen = time.perf_counter() - t
    common.log(f"{len(pairs)} pairs generated in {t_gen:.1f} s (seed {args.seed}); the jar")
    hyps = [p["candidate"] for p in pairs]
    refs = [p["references"] for p in pairs]
    want = jar(hyps, refs)
    common.log(
        f"jar: Meteor() {want['startup_s']:.1f} s, compute_score (JVM start, data load, "
        f"scoring) {want['score_s']:.1f} s; ours"
    )
    got = ours(hyps, refs)
    common.log(f"ours: load {got['load_s']:.1f} s, scoring {got['score_s']:.1f} s")

    jar_scores = np.asarray(want["scores"])
    stats_differ = (got["stats"] != want["stats"]).any(axis=1)
    score_differ = ~(np.abs(got["scores"] - jar_scores) <= TOLERANCE)  # NaN (error) differs
    differ = stats_differ | score_differ
    patterns = {int(i): pattern(got["stats"][i], want["stats"][i]) for i in np.flatnonzero(differ)}
    per_class = {}
    for kind in CLASSES:
        idx = np.array([i for i, p in enumerate(pairs) if p["kind"] == kind], dtype=np.int64)
        per_class[kind] = summary(pairs, idx, differ, stats_differ, score_differ, patterns)
        bad = idx[differ[idx]]
        per_class[kind]["examples"] = [
            example(pairs[i], got, want, i) for i in bad[: args.examples]
        ]
    corpus_diff = abs(got["corpus"] - want["corpus"])
    out = {
        "benchmark": "meteor_fuzz",
        "status": "ran",
        "machine": common.machine(),
        "versions": {
            **common.versions("sparsecider", "pycocoevalcap", "snowballstemmer", "numpy"),
            "java": java_version(),
        },
        "data_sha256": locate().checksums(),
        "seed": args.seed,
        "sizes": {
            "pairs": len(pairs),
            "classes": len(CLASSES),
            "reference_captions": sum(len(r) for r in refs),
            "coco_images": len(images),
            "paraphrase_pool_images": len(paraphrase_pool(len(images), args.seed)),
            "paraphrase_phrases_found": len(words.paraphrases),
        },
        "tolerance": TOLERANCE,
        "mismatches": int(differ.sum()),
        "mismatch_rate": float(differ.mean()),
        "statistics_differ": int(stats_differ.sum()),
        "errors_ours": len(got["errors"]),
        "corpus": {"jar": want["corpus"], "ours": got["corpus"], "abs_diff": corpus_diff},
        "seconds": {
            "generate": t_gen,
            # Meteor() only starts the process: the JVM start-up and the data load fall
            # within compute_score, which then scores every pair (as a user waits for it)
            "jar_meteor_constructor": want["startup_s"],
            "jar_compute_score": want["score_s"],
            "ours_load": got["load_s"],
            "ours_score": got["score_s"],
        },
        "patterns": dict(Counter(patterns.values()).most_common()),
        "per_class": per_class,
    }
    path = common.write("meteor_fuzz", out)
    common.log(f"{'class':15} {'pairs':>7} {'differ':>7} {'rate':>8}  most common difference")
    for kind, v in per_class.items():
        top = next(iter(v["patterns"].items()), ("", 0))
        common.log(
            f"{kind:15} {v['pairs']:7} {v['mismatches']:7} {v['rate']:8.2%}  "
            + (f"{top[0]} ({top[1]})" if top[1] else "")
        )
    common.log(f"{'all':15} {len(pairs):7} {out['mismatches']:7} {out['mismatch_rate']:8.2%}")
    common.log(
        f"corpus: jar {want['corpus']!r}, ours {got['corpus']!r} (diff {corpus_diff:.2e}); "
        f"jar {want['startup_s'] + want['score_s']:.1f} s, "
        f"ours {got['load_s'] + got['score_s']:.1f} s; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
