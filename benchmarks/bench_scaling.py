"""Scaling: time and peak memory of cider_d from 1k to 1M images, with the reference up to 40k.

Sizes: the first 1,000, 5,000 and all 40,504 images of COCO val 2014
(pre-tokenized, 5 references and one candidate each), then synthetic corpora
of 200,000 and 1,000,000 images (``synthetic_corpus``: Zipf-distributed
words from a 10,000-word vocabulary, 5 references of 8-16 words and one
candidate per image, reproducible from the seed).  pycocoevalcap runs on the
COCO sizes (it needs about a minute for 40k images and would need many
minutes beyond), and so does aac-metrics' CIDEr-D when it is installed
(``benchmarks.peers``).  Agreement is checked wherever both run.  Peak memory is
measured in a fresh process per size (``common.peak_mib``).  Writes
``benchmarks/results/scaling.json`` and ``scaling.png`` (log-log; needs
matplotlib).

Usage: ``python -m benchmarks.bench_scaling [--max-images 1000000]``
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import sparsecider
from benchmarks import common, datasets, peers

COCO_SIZES = (1_000, 5_000, 40_504)
SYNTHETIC_SIZES = (200_000, 1_000_000)


def synthetic_corpus(n_images: int, seed: int = 0) -> tuple[list[str], list[list[str]]]:
    """Candidates and references of ``n_images`` synthetic images."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(10_000)])
    lengths = rng.integers(8, 17, size=(n_images, 6))
    words = vocab[np.minimum(rng.zipf(1.4, size=int(lengths.sum())), 9_999)]
    ends = np.cumsum(lengths.ravel())
    texts = [" ".join(words[a:b]) for a, b in zip(ends - lengths.ravel(), ends, strict=True)]
    return texts[::6], [texts[6 * i + 1 : 6 * i + 6] for i in range(n_images)]


def load(n_images: int) -> tuple[list[str], list[list[str]]]:
    if n_images in COCO_SIZES:
        cands, refs = datasets.coco_val()
        ids = list(refs)[:n_images]
        return [cands[i] for i in ids], [refs[i] for i in ids]
    return synthetic_corpus(n_images)


def _ours(cands, refs):
    return sparsecider.cider_d(cands, refs, tokenizer="whitespace")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-images", type=int, default=1_000_000)
    parser.add_argument("--peak-only", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--no-memory", action="store_true")
    args = parser.parse_args(argv)
    if args.peak_only:
        cands, refs = load(args.peak_only)
        print(common.peak_mib(lambda: _ours(cands, refs)))
        return {}
    from pycocoevalcap.cider.cider import Cider

    aac = peers.aac_cider_d()
    rows = []
    for size in [s for s in COCO_SIZES + SYNTHETIC_SIZES if s <= args.max_images]:
        cands, refs = load(size)
        repeat = 3 if size <= 40_504 else 1
        mine = _ours(cands, refs)
        t_ours = common.timed(lambda c=cands, r=refs: _ours(c, r), repeat)
        row = {
            "images": size,
            "data": "coco_val" if size in COCO_SIZES else "synthetic",
            "references": sum(map(len, refs)),
            "sparsecider_s": common.summary(t_ours)["median_s"],
        }
        if not args.no_memory:
            row["sparsecider_peak_mib"] = common.peak_in_subprocess(
                "benchmarks.bench_scaling", str(size)
            )
        if size in COCO_SIZES:
            gts = {i: r for i, r in enumerate(refs)}
            res = {i: [c] for i, c in enumerate(cands)}
            start = time.perf_counter()
            _, ref_scores = Cider().compute_score(gts, res)
            row["reference_s"] = time.perf_counter() - start
            row["max_abs_diff"] = float(np.abs(mine.scores - ref_scores).max())
            if row["max_abs_diff"] > 1e-12:
                raise SystemExit(f"disagreement with the reference at {size} images")
            if aac is not None:
                row["aac_max_abs_diff"], row["aac_metrics_s"] = peers.aac_agreement(
                    aac, cands, refs, mine.scores, f"at {size} images"
                )
        common.log(json.dumps(row))
        rows.append(row)
    out = {
        "benchmark": "scaling",
        "machine": common.machine(),
        "versions": {
            **common.versions("sparsecider", "pycocoevalcap", "numpy", "scipy"),
            "aac-metrics": peers.aac_version(),
        },
        "rows": rows,
    }
    path = common.write("scaling", out)
    _plot(rows, path.with_suffix(".png"))
    return out


def _plot(rows: list[dict], path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        common.log("matplotlib is not installed: no plot")
        return
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(10, 4))
    n = [r["images"] for r in rows]
    ax_t.loglog(n, [r["sparsecider_s"] for r in rows], "o-", label="sparsecider")
    ref = [(r["images"], r["reference_s"]) for r in rows if "reference_s" in r]
    if ref:
        ax_t.loglog(*zip(*ref, strict=True), "s--", label="pycocoevalcap")
    aac = [(r["images"], r["aac_metrics_s"]) for r in rows if "aac_metrics_s" in r]
    if aac:
        ax_t.loglog(*zip(*aac, strict=True), "^:", label="aac-metrics")
    ax_t.set_xlabel("images (5 references each)")
    ax_t.set_ylabel("seconds")
    ax_t.legend()
    ax_t.set_title("time")
    if all("sparsecider_peak_mib" in r for r in rows):
        ax_m.loglog(n, [r["sparsecider_peak_mib"] for r in rows], "o-", label="sparsecider")
        ax_m.set_xlabel("images")
        ax_m.set_ylabel("peak MiB above the loaded data")
        ax_m.set_title("memory")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
