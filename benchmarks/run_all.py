"""Run every benchmark in turn, then rewrite the tables of benchmarks/README.md.

Usage: ``python -m benchmarks.run_all [--skip NAME ...]`` (names: coco, bleu_rouge, raw,
tokenize, ptb_fuzz, meteor_fuzz, ptb_long, meteor_long, long_inputs, rl, scaling, stream, cjk,
variants, toolkit).  About an hour on a 2-core machine, mostly the reference implementation and the
long captions.
Each benchmark checks agreement before timing and stops the run on a disagreement; the two
fuzzes (ptb_fuzz, meteor_fuzz) report their mismatch rates instead; meteor_fuzz says so and
skips without Java.
"""

from __future__ import annotations

import argparse
import importlib

from benchmarks import common, report

BENCHMARKS = {
    "coco": "benchmarks.bench_coco",
    "bleu_rouge": "benchmarks.bench_bleu_rouge",
    "raw": "benchmarks.bench_raw",
    "tokenize": "benchmarks.bench_tokenize",
    "ptb_fuzz": "benchmarks.bench_ptb_fuzz",
    "meteor_fuzz": "benchmarks.bench_meteor_fuzz",
    "ptb_long": "benchmarks.bench_ptb_long",
    "long_inputs": "benchmarks.bench_long_inputs",
    "meteor_long": "benchmarks.bench_meteor_long",
    "rl": "benchmarks.bench_rl",
    "scaling": "benchmarks.bench_scaling",
    "stream": "benchmarks.bench_stream",
    "cjk": "benchmarks.bench_cjk",
    "variants": "benchmarks.bench_variants",
    "toolkit": "benchmarks.bench_toolkit",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", nargs="*", default=[], choices=sorted(BENCHMARKS))
    args = parser.parse_args(argv)
    for name, module in BENCHMARKS.items():
        if name in args.skip:
            continue
        common.log(f"=== {module}")
        importlib.import_module(module).main([])
    report.main()


if __name__ == "__main__":
    main()
