"""The ``sparsecider`` command line (also ``python -m sparsecider``)."""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import __version__
from .demo import PUBLISHED_CIDER_D, load_demo
from .scoring import cider_d

__all__ = ["main"]


def _demo(fmt: str) -> int:
    _, candidates, references = load_demo(tokenized=False)
    start = time.perf_counter()
    result = cider_d(candidates, references, tokenizer="ptb")
    seconds = time.perf_counter() - start
    if fmt == "json":
        print(
            json.dumps(
                {
                    "metric": result.metric,
                    "score": result.score,
                    "signature": result.signature,
                    "n_images": result.n_images,
                    "n_candidates": result.n_candidates,
                    "published": PUBLISHED_CIDER_D,
                    "matches_published": abs(result.score - PUBLISHED_CIDER_D) <= 1e-12,
                    "seconds": round(seconds, 6),
                },
                indent=2,
            )
        )
    else:
        print(f"{result.metric} = {result.score:.16g} | {result.signature}")
        print(
            f"{result.n_images} COCO val 2014 images (coco-caption demo results, raw text, "
            f"PTB tokenization without Java) scored in {seconds * 1000:.1f} ms; "
            f"published: {PUBLISHED_CIDER_D!r}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparsecider",
        description="CIDEr and CIDEr-D on sparse matrices, identical to pycocoevalcap.",
    )
    parser.add_argument("--version", action="version", version=f"sparsecider {__version__}")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="score the bundled 1,000-image COCO val example (coco-caption's demo) and "
        "compare with its published CIDEr",
    )
    parser.add_argument("--format", choices=["text", "json"], default="text", help="output format")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.demo:
        return _demo(args.format)
    parser.print_help(sys.stderr)
    return 2
