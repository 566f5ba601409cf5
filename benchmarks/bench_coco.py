"""COCO val 2014, pre-tokenized: sparsecider.cider_d vs pycocoevalcap Cider.compute_score.

40,504 images x 5 reference captions (reference-tokenized), one candidate per
image (the random-submission file).  Agreement is checked first (per-caption
max abs difference, which must be <= 1e-12); both are then timed over
repeated runs and the medians compared; peak memory of one run of each is
measured in a fresh process (``common.peak_mib``).  Writes ``benchmarks/results/coco_val.json``.

Usage (needs ``pip install -e .[ref]`` and ``../shared/data``)::

    python -m benchmarks.bench_coco [--repeat 7] [--ref-repeat 3] [--images N]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import sparsecider
from benchmarks import common, datasets


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

    t_ours = common.timed(ours, args.repeat)
    t_ref = common.timed(reference, args.ref_repeat)
    extra = [] if args.images is None else ["--images", str(args.images)]
    mine_mib = ref_mib = None
    if not args.no_memory:
        mine_mib = common.peak_in_subprocess("benchmarks.bench_coco", "sparsecider", *extra)
        ref_mib = common.peak_in_subprocess("benchmarks.bench_coco", "pycocoevalcap", *extra)
    out = {
        "benchmark": "coco_val_pretokenized",
        "machine": common.machine(),
        "versions": common.versions(
            "sparsecider", "pycocoevalcap", "numpy", "scipy", "scikit-learn"
        ),
        "sizes": sizes,
        "agreement": {
            "max_abs_diff": max_diff,
            "n_captions": len(ref_scores),
            "score_sparsecider": mine.score,
            "score_reference": float(ref_score),
        },
        "sparsecider": {**common.summary(t_ours), "peak_mib": mine_mib},
        "pycocoevalcap": {**common.summary(t_ref), "peak_mib": ref_mib},
    }
    out["speedup_median"] = out["pycocoevalcap"]["median_s"] / out["sparsecider"]["median_s"]
    path = common.write("coco_val", out)
    print(json.dumps(out, indent=2))
    common.log(
        f"sparsecider {out['sparsecider']['median_s']:.3f} s vs pycocoevalcap "
        f"{out['pycocoevalcap']['median_s']:.2f} s (medians): {out['speedup_median']:.1f}x; "
        f"peak {mine_mib} MiB vs {ref_mib} MiB; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
