"""COCO val 2014, pre-tokenized: sparsecider.cider_d vs pycocoevalcap Cider.compute_score.

40,504 images x 5 reference captions (reference-tokenized), one candidate per
image (the random-submission file).  sparsecider runs with its defaults
(``n_jobs=-1``: one thread per CPU) and with ``n_jobs=1``; aac-metrics'
CIDEr-D runs too when it is installed (``benchmarks.peers``).  Agreement is
checked first (per-caption max abs difference, which must be <= 1e-12); both are then timed over
repeated runs and the medians compared; peak memory of one run of each is
measured in a fresh process (``common.peak_mib``).  Writes ``benchmarks/results/coco_val.json``.

Usage (needs ``pip install -e .[ref]`` and ``../shared/data``)::

    python -m benchmarks.bench_coco [--repeat 7] [--ref-repeat 3] [--images N]
"""

from __future__ import annotations

import argparse

import numpy as np

import sparsecider
from benchmarks import common, datasets, peers


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of sparsecider")
    parser.add_argument("--ref-repeat", type=int, default=3, help="timed runs of pycocoevalcap")
    parser.add_argument("--images", type=int, default=None, help="first N images only")
    parser.add_argument("--no-memory", action="store_true", help="skip the memory runs")
    parser.add_argument(
        "--peak-only", choices=["sparsecider", "pycocoevalcap"], help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)

    from pycocoevalcap.cider.cider import Cider

    cands, refs = datasets.coco_val()
    ids = list(refs)[: args.images]
    gts = {i: refs[i] for i in ids}
    res = {i: [cands[i]] for i in ids}
    cand_map = {i: cands[i] for i in ids}
    sizes = {"images": len(ids), "references": sum(map(len, gts.values())), "candidates": len(ids)}
    common.log(f"COCO val: {sizes}")

    def ours():
        return sparsecider.cider_d(cand_map, gts, tokenizer="whitespace")

    def ours_single():
        return sparsecider.cider_d(cand_map, gts, tokenizer="whitespace", n_jobs=1)

    aac = peers.aac_cider_d()
    aac_cands = [cand_map[i] for i in ids]
    aac_refs = [gts[i] for i in ids]

    def reference():
        return Cider().compute_score(gts, res)

    if args.peak_only:
        print(common.peak_mib(ours if args.peak_only == "sparsecider" else reference))
        return {}

    # agreement first
    mine = ours()
    ref_score, ref_scores = reference()
    max_diff = float(np.abs(mine.scores - ref_scores).max())
    common.log(f"agreement: max |diff| = {max_diff:.3g} over {len(ref_scores)} captions")
    if max_diff > 1e-12:
        raise SystemExit(f"disagreement with the reference: {max_diff}")

    aac_diff = None
    if aac is not None:
        aac_diff, _ = peers.aac_agreement(aac, aac_cands, aac_refs, mine.scores, "on COCO val")
        common.log(f"agreement with aac-metrics: max |diff| = {aac_diff:.3g}")

    t_ours = common.timed(ours, args.repeat)
    t_single = common.timed(ours_single, args.repeat)
    t_ref = common.timed(reference, args.ref_repeat)
    t_aac = None if aac is None else common.timed(lambda: aac(aac_cands, aac_refs), args.ref_repeat)
    extra = [] if args.images is None else ["--images", str(args.images)]
    mine_mib = ref_mib = None
    if not args.no_memory:
        mine_mib = common.peak_in_subprocess("benchmarks.bench_coco", "sparsecider", *extra)
        ref_mib = common.peak_in_subprocess("benchmarks.bench_coco", "pycocoevalcap", *extra)
    out = {
        "benchmark": "coco_val_pretokenized",
        "machine": common.machine(),
        "versions": {
            **common.versions("sparsecider", "pycocoevalcap", "numpy", "scipy", "scikit-learn"),
            "aac-metrics": peers.aac_version(),
        },
        "sizes": sizes,
        "agreement": {
            **common.agreement(max_diff, len(ref_scores), mine.score, ref_score),
            "max_abs_diff_aac_metrics": aac_diff,
        },
        "sparsecider": {**common.summary(t_ours), "peak_mib": mine_mib, "n_jobs": -1},
        "sparsecider_n_jobs_1": common.summary(t_single),
        "pycocoevalcap": {**common.summary(t_ref), "peak_mib": ref_mib},
        "aac_metrics": None if t_aac is None else common.summary(t_aac),
    }
    common.add_speedups(out, "pycocoevalcap")
    if t_aac is not None:
        out["speedup_over_aac_metrics"] = (
            out["aac_metrics"]["median_s"] / out["sparsecider"]["median_s"]
        )
    path = common.write("coco_val", out)
    common.log(
        f"sparsecider {out['sparsecider']['median_s']:.3f} s "
        f"(n_jobs=1: {out['sparsecider_n_jobs_1']['median_s']:.3f} s) vs pycocoevalcap "
        f"{out['pycocoevalcap']['median_s']:.2f} s (medians): {out['speedup_median']:.1f}x; "
        f"peak {mine_mib} MiB vs {ref_mib} MiB; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
