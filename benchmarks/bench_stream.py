"""Chunked scoring of 1,000,000 synthetic images in bounded memory, and the n_jobs speed-up.

1. **Agreement first**: the first 40,000 records of the synthetic file,
   streamed (``sparsecider.stream.cider_d``, chunks of 5,000, 2 threads),
   must equal the in-memory ``sparsecider.cider_d`` on the same records bit
   for bit (scores, per-order values, corpus mean).
2. **1M images x 5 references** (``benchmarks.make_synthetic``, generated if
   the file is missing): ``stream.cider_d(path, df="corpus", output=...)``
   (both passes: fitting the document frequencies, then scoring and writing
   one JSON line per image) in a fresh process per ``n_jobs`` in (1, 2);
   wall time, throughput and the process's whole peak RSS (``VmHWM``,
   interpreter and imports included) against the 4 GB target.
3. **COCO val in memory** (40,504 images, pre-tokenized): ``cider_d`` with
   ``n_jobs=1`` and ``n_jobs=2``, medians of repeated runs, identical results.

Writes ``benchmarks/results/stream.json``.

Usage::

    python -m benchmarks.bench_stream [--data PATH] [--images 1000000] [--chunk-size 20000]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import sparsecider
from benchmarks import common, datasets, make_synthetic
from sparsecider import stream


def _run_child(path: str, n_jobs: int, chunk_size: int) -> None:
    """In a fresh process: one streaming run; prints seconds, peak MiB and the score."""
    out = Path(tempfile.mkdtemp()) / "scores.jsonl"
    start = time.perf_counter()
    result = stream.cider_d(
        path, tokenizer="whitespace", chunk_size=chunk_size, n_jobs=n_jobs, output=out
    )
    seconds = time.perf_counter() - start
    peak = common._status_kib("VmHWM") / 1024
    print(json.dumps({
        "seconds": seconds, "peak_mib": peak, "score": result.score,
        "images": result.n_images, "output_mib": out.stat().st_size / 2**20,
    }))  # fmt: skip
    out.unlink()


def _child(path: Path, n_jobs: int, chunk_size: int) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.bench_stream", "--child", str(path),
           "--n-jobs", str(n_jobs), "--chunk-size", str(chunk_size)]  # fmt: skip
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def agreement(path: Path, n_records: int) -> dict:
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in itertools.islice(f, n_records)]
    whole = sparsecider.cider_d(
        {r["id"]: r["candidate"] for r in records},
        {r["id"]: r["references"] for r in records},
        tokenizer="whitespace",
    )
    chunked = stream.cider_d(records, tokenizer="whitespace", chunk_size=5_000, n_jobs=2)
    same = bool(
        np.array_equal(whole.scores, chunked.scores)
        and np.array_equal(whole.per_order, chunked.per_order)
        and whole.score == chunked.score
    )
    if not same:
        raise SystemExit("streamed scores differ from the in-memory ones")
    return {"records": len(records), "bit_identical": same,
            "max_abs_diff": float(np.abs(whole.scores - chunked.scores).max())}  # fmt: skip


def coco_threads(repeat: int) -> dict:
    cands, refs = datasets.coco_val()
    one = sparsecider.cider_d(cands, refs, tokenizer="whitespace", n_jobs=1)
    two = sparsecider.cider_d(cands, refs, tokenizer="whitespace", n_jobs=2)
    if not (np.array_equal(one.scores, two.scores) and one.score == two.score):
        raise SystemExit("n_jobs=2 differs from n_jobs=1 on COCO val")
    times = {}
    for jobs in (1, 2):
        t = common.timed(
            lambda j=jobs: sparsecider.cider_d(cands, refs, tokenizer="whitespace", n_jobs=j),
            repeat,
        )
        times[jobs] = common.summary(t)
        common.log(f"COCO val n_jobs={jobs}: median {times[jobs]['median_s']:.2f} s")
    return {
        "images": len(refs),
        "n_jobs_1": times[1],
        "n_jobs_2": times[2],
        "speedup_median": times[1]["median_s"] / times[2]["median_s"],
        "bit_identical": True,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None,
                        help="synthetic JSON lines (default: in the temp folder)")  # fmt: skip
    parser.add_argument("--images", type=int, default=1_000_000)
    parser.add_argument("--chunk-size", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5, help="COCO val timed runs")
    parser.add_argument("--no-coco", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--n-jobs", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _run_child(args.child, args.n_jobs, args.chunk_size)
        return {}

    path = args.data or Path(tempfile.gettempdir()) / f"sparsecider_synthetic_{args.images}.jsonl"
    if not path.exists():
        common.log(f"generating {args.images:,} synthetic images into {path}")
        make_synthetic.write(path, args.images)
    size_mib = path.stat().st_size / 2**20
    common.log(f"data: {path} ({size_mib:.0f} MiB)")

    agree = agreement(path, min(40_000, args.images))
    common.log(f"agreement: {agree}")
    runs = {}
    for jobs in (1, 2):
        runs[jobs] = _child(path, jobs, args.chunk_size)
        runs[jobs]["images_per_second"] = runs[jobs]["images"] / runs[jobs]["seconds"]
        common.log(f"stream n_jobs={jobs}: {json.dumps(runs[jobs])}")
    if runs[1]["score"] != runs[2]["score"]:
        raise SystemExit("n_jobs=2 gives another corpus score than n_jobs=1")
    out = {
        "benchmark": "stream",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "numpy", "scipy"),
        "sizes": {
            "images": runs[1]["images"],
            "references_per_image": 5,
            "input_mib": round(size_mib, 1),
            "chunk_size": args.chunk_size,
        },
        "agreement": agree,
        "stream_n_jobs_1": runs[1],
        "stream_n_jobs_2": runs[2],
        "stream_speedup": runs[1]["seconds"] / runs[2]["seconds"],
        "memory_target_mib": 4096,
    }
    if not args.no_coco:
        out["coco_val_in_memory"] = coco_threads(args.repeat)
    path_out = common.write("stream", out)
    common.log(f"wrote {path_out}")
    return out


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
