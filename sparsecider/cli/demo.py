"""``sparsecider demo`` (and ``--demo``): the bundled COCO example, or example files."""

from __future__ import annotations

import json
import time

from ..demo import EXAMPLE_FILES, PUBLISHED_CIDER_D, load_demo, write_examples
from ..metrics.cider import cider_d
from .common import UsageError, summary

__all__ = ["run_demo", "score_demo"]


def score_demo(fmt: str) -> int:
    _, candidates, references = load_demo(tokenized=False)
    start = time.perf_counter()
    result = cider_d(candidates, references, tokenizer="ptb")
    seconds = time.perf_counter() - start
    if fmt == "json":
        print(json.dumps({
            **summary(result),
            "published": PUBLISHED_CIDER_D,
            "matches_published": abs(result.score - PUBLISHED_CIDER_D) <= 1e-12,
            "seconds": round(seconds, 6),
        }, indent=2))  # fmt: skip
    else:
        print(f"{result.metric} = {result.score:.16g} | {result.signature}")
        print(
            f"{result.n_images} COCO val 2014 images (coco-caption demo results, raw text, "
            f"PTB tokenization without Java) scored in {seconds * 1000:.1f} ms; "
            f"published: {PUBLISHED_CIDER_D!r}"
        )
    return 0


def run_demo(args) -> int:
    if args.write is None:
        return score_demo(args.format)
    try:
        paths = write_examples(args.write)
    except (FileExistsError, NotADirectoryError, ValueError) as err:
        raise UsageError(str(err)) from None
    for path in paths:
        print(f"{path}: {EXAMPLE_FILES[path.name]}")
    return 0
