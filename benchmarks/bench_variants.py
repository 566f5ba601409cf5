"""Self-CIDEr, CIDEr-R and consensus selection against their reference implementations.

- **Self-CIDEr**: the 5,000 Karpathy test images of COCO val, each with a set
  of 10 human captions (its own 5, or more, then those of the next image in
  the split to make 10), PTB-tokenized; ``sparsecider.self_cider(...,
  df="coco-val2014")`` against the port of the authors' code
  (``tests/self_cider_reference.py``) with the document frequencies of every
  COCO val image, as ``eval_self_cider`` counts them (``--df-images`` fewer,
  for a quick run).
- **CIDEr-R**: all 40,504 COCO val images (the random-submission caption of
  each against its references, pre-tokenized), ``sparsecider.cider_r``
  against the port of SacreEOS's pure-Python ``CiderR``
  (``tests/cider_r_reference.py``), and against SacreEOS itself when it is
  installed (``pip install --no-deps sacreeos nltk``; its metric code needs
  no torch).
- **Consensus (MBR) selection** on the Self-CIDEr sets: ``mbr_select``
  against a loop of ``cider_d`` calls (one per candidate), on the first
  ``--mbr-images`` sets.

Agreement first (a disagreement stops the run), then medians of repeated
runs.  Writes ``benchmarks/results/variants.json``.

Usage: ``python -m benchmarks.bench_variants [--images 5000] [--cider-r-images 40504]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import sparsecider
from benchmarks import common, datasets
from tests import cider_r_reference, self_cider_reference

SET_SIZE = 10


def karpathy_sets(refs: dict[int, list[str]], n_images: int) -> tuple[list[int], list[list[str]]]:
    """``n_images`` Karpathy test images and their sets of ``SET_SIZE`` captions."""
    with open(datasets.DATA / "coco" / "karpathy_test_images.txt", encoding="utf-8") as f:
        ids = [int(line.split()[1]) for line in f if line.strip()][:n_images]
    sets = []
    for k, image in enumerate(ids):
        following = refs[ids[(k + 1) % len(ids)]]
        sets.append((refs[image] + following)[: max(SET_SIZE, len(refs[image]))])
    return ids, sets


def self_cider_agreement(got, divs: list[float], kernels: list[np.ndarray]) -> dict:
    """Kernels and diversities against the oracle; on exactly singular kernels
    (two identical captions) against the oracle with its zero eigenvalues set
    to 0 (as ``tests/test_self_cider.py``), and the raw oracle's distance."""
    kernel_diff = max(float(np.abs(a - b).max()) for a, b in zip(got.kernels, kernels, strict=True))
    regular, singular_exact, singular_raw, n_singular = 0.0, 0.0, 0.0, 0
    for score, div, kernel in zip(got.scores.tolist(), divs, kernels, strict=True):
        k = kernel / 10
        rows = [tuple(r) for r in k.tolist()]
        distinct = {r for r in rows if any(r)}
        if len(distinct) == len(rows):
            regular = max(regular, abs(score - float(div)))
            continue
        n_singular += 1
        eig = np.linalg.eigvalsh(k)
        eig[: len(rows) - len(distinct)] = 0.0
        exact = float(self_cider_reference.get_div(eig))
        singular_exact = max(singular_exact, abs(score - exact))
        singular_raw = max(singular_raw, abs(score - float(div)))
    return {
        "kernel_max_abs_diff": kernel_diff,
        "max_abs_diff": regular,
        "n_singular_sets": n_singular,
        "singular_max_abs_diff_exact_oracle": singular_exact,
        "singular_max_abs_diff_raw_oracle": singular_raw,
    }


def run_self_cider(args, refs) -> dict:
    _, sets = karpathy_sets(refs, args.images)
    n_captions = sum(map(len, sets))
    df_refs = list(refs.values())[: args.df_images]
    start = time.perf_counter()
    scorer = self_cider_reference.SelfCiderScorer(df_refs)
    oracle_df_s = time.perf_counter() - start
    common.log(f"Self-CIDEr: oracle df over {len(df_refs):,} images in {oracle_df_s:.1f} s")
    if len(df_refs) == len(refs):  # the authors' df: every COCO val image
        df = sparsecider.DocumentFrequencies.named("coco-val2014")
    else:
        df = sparsecider.DocumentFrequencies.from_references(df_refs, tokenizer="whitespace")

    def ours():
        return sparsecider.self_cider(sets, df=df, tokenizer="whitespace", kernels=True)

    got = ours()
    start = time.perf_counter()
    mean, divs, kernels = self_cider_reference.self_cider(scorer, sets)
    oracle_s = [time.perf_counter() - start]
    agreement = self_cider_agreement(got, divs, kernels)
    agreement["mean_abs_diff"] = abs(got.score - mean)
    common.log(f"Self-CIDEr agreement: {agreement}")
    if agreement["kernel_max_abs_diff"] > 1e-12 or agreement["max_abs_diff"] > 1e-10:
        raise SystemExit("Self-CIDEr disagrees with the authors' code")
    if agreement["singular_max_abs_diff_exact_oracle"] > 1e-10:
        raise SystemExit("Self-CIDEr disagrees with the authors' code on singular kernels")
    oracle_s += common.timed(
        lambda: self_cider_reference.self_cider(scorer, sets), args.ref_repeat - 1
    )
    mine = common.summary(common.timed(ours, args.repeat))
    without = common.summary(
        common.timed(
            lambda: sparsecider.self_cider(sets, df=df, tokenizer="whitespace"), args.repeat
        )
    )
    reference = common.summary(oracle_s)
    return {
        "sizes": {
            "images": len(sets),
            "candidates_per_image": SET_SIZE,
            "captions": n_captions,
            "pairs": int(sum(len(s) ** 2 for s in sets)),
            "df_images": len(df_refs),
        },
        "score": got.score,
        "oracle_score": mean,
        "agreement": agreement,
        "sparsecider": mine,
        "sparsecider_without_kernels": without,
        "reference": reference,
        "reference_df_s": oracle_df_s,
        "speedup_median": reference["median_s"] / mine["median_s"],
    }


def run_cider_r(args, cands, refs) -> dict:
    ids = list(refs)[: args.cider_r_images]
    tests, refss = [cands[i] for i in ids], [refs[i] for i in ids]

    def ours():
        return sparsecider.cider_r(tests, refss, tokenizer="whitespace")

    got = ours()
    start = time.perf_counter()
    want_score, want = cider_r_reference.cider_r(tests, refss)
    port_s = [time.perf_counter() - start]
    diff = float(np.abs(got.scores - want).max())
    common.log(f"CIDEr-R agreement with the port: max |diff| {diff:.3g} over {len(ids):,}")
    if diff > 1e-12:
        raise SystemExit("CIDEr-R disagrees with the port of SacreEOS")
    out: dict = {
        "sizes": {"images": len(ids), "references": sum(map(len, refss))},
        "score": got.score,
        "agreement": {"max_abs_diff_port": diff, "n_captions": len(ids)},
    }
    try:
        from sacreeos.metric.cider_r import CiderR
    except ImportError:
        CiderR = None
        common.log("SacreEOS is not installed: compared with the port only")
    if CiderR is not None:
        start = time.perf_counter()
        theirs_score, theirs = CiderR().compute(tests, refss)
        sacre_s = time.perf_counter() - start
        sdiff = float(np.abs(got.scores - theirs).max())
        identical = bool(np.array_equal(theirs, want) and theirs_score == want_score)
        common.log(f"SacreEOS: {sacre_s:.1f} s, max |diff| {sdiff:.3g}, port identical {identical}")
        if sdiff > 1e-12:
            raise SystemExit("CIDEr-R disagrees with SacreEOS")
        out["agreement"]["max_abs_diff_sacreeos"] = sdiff
        out["agreement"]["port_bit_identical_to_sacreeos"] = identical
        out["sacreeos"] = common.summary([sacre_s])
    port_s += common.timed(
        lambda: cider_r_reference.cider_r(tests, refss), max(args.ref_repeat - 1, 0)
    )
    out["sparsecider"] = common.summary(common.timed(ours, args.repeat))
    out["sparsecider_n_jobs_1"] = common.summary(
        common.timed(
            lambda: sparsecider.cider_r(tests, refss, tokenizer="whitespace", n_jobs=1),
            args.repeat,
        )
    )
    out["port"] = common.summary(port_s)
    out["speedup_over_port"] = out["port"]["median_s"] / out["sparsecider"]["median_s"]
    if "sacreeos" in out:
        out["speedup_over_sacreeos"] = out["sacreeos"]["median_s"] / out["sparsecider"]["median_s"]
    return out


def run_mbr(args, refs) -> dict:
    _, sets = karpathy_sets(refs, args.images)
    df = sparsecider.DocumentFrequencies.named("coco-val2014")

    def ours():
        return sparsecider.mbr_select(sets, df=df, tokenizer="whitespace")

    got = ours()
    small = sets[: args.mbr_images]
    start = time.perf_counter()
    worst, calls = 0.0, 0
    for s, cands in enumerate(small):
        for a, cand in enumerate(cands):
            others = [cands[:a] + cands[a + 1 :]]
            want = sparsecider.cider_d([cand], others, df=df, tokenizer="whitespace").score
            worst = max(worst, abs(want - got.candidate_scores[s * SET_SIZE + a]))
            calls += 1
    loop_s = time.perf_counter() - start
    common.log(f"MBR agreement with {calls:,} cider_d calls: max |diff| {worst:.3g}")
    if worst > 1e-12 or not all(len(s) == SET_SIZE for s in small):
        raise SystemExit("MBR selection disagrees with the cider_d loop")
    mine = common.summary(common.timed(ours, args.repeat))
    per_call = loop_s / calls
    return {
        "sizes": {"images": len(sets), "candidates_per_image": SET_SIZE},
        "agreement": {"max_abs_diff": worst, "cider_d_calls": calls},
        "sparsecider": mine,
        "cider_d_loop_s_per_candidate": per_call,
        "cider_d_loop_extrapolated_s": per_call * sum(map(len, sets)),
        "speedup_over_cider_d_loop": per_call * sum(map(len, sets)) / mine["median_s"],
        "chosen_own_caption_fraction": float(np.mean(got.index < 5)),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=5000, help="Self-CIDEr / MBR sets")
    parser.add_argument("--cider-r-images", type=int, default=40_504)
    parser.add_argument("--mbr-images", type=int, default=200, help="sets checked by the loop")
    parser.add_argument(
        "--df-images", type=int, default=40_504, help="Self-CIDEr's df: the first N COCO val images"
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ref-repeat", type=int, default=2)
    args = parser.parse_args(argv)
    cands, refs = datasets.coco_val()
    out = {
        "benchmark": "variants",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "numpy", "scipy", "sacreeos", "nltk"),
        "self_cider": run_self_cider(args, refs),
        "cider_r": run_cider_r(args, cands, refs),
        "mbr": run_mbr(args, refs),
    }
    path = common.write("variants", out)
    sc, cr, mb = out["self_cider"], out["cider_r"], out["mbr"]
    common.log(
        f"Self-CIDEr {sc['sparsecider']['median_s']:.2f} s vs {sc['reference']['median_s']:.1f} s "
        f"({sc['speedup_median']:.0f}x); CIDEr-R {cr['sparsecider']['median_s']:.2f} s vs port "
        f"{cr['port']['median_s']:.1f} s ({cr['speedup_over_port']:.0f}x)"
        + (
            f", SacreEOS {cr['sacreeos']['median_s']:.1f} s ({cr['speedup_over_sacreeos']:.0f}x)"
            if "sacreeos" in cr
            else ""
        )
        + f"; MBR {mb['sparsecider']['median_s']:.2f} s; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
