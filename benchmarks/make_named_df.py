"""Build the named document frequencies shipped in the package (``df="coco-val2014"``).

``coco-val2014``: every reference caption of the 40,504 COCO val 2014 images
(202,654 captions, ``../shared/data/coco/captions_val2014_reconstructed.json.gz``),
tokenized by sparsecider's pure-Python PTB tokenizer exactly as the reference
pipeline tokenizes a COCO annotation file (all captions as one sequence, in
file order; identical to the Java output on all of them, see
``tests/test_named_df.py``), one document per image, n = 1..4.

n-grams seen in a single image are left out: their idf, log(N) - log(1), is
exactly that of an unseen n-gram, log(N) - log(max(1, 0)), so no score
changes (``DocumentFrequencies.pruned``); the file records that it is pruned,
and merging it is refused.

Usage (from the repository root, with ``../shared/data`` beside it)::

    python -m benchmarks.make_named_df            # writes sparsecider/data/coco-val2014.df.npz
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from pathlib import Path

import sparsecider
from benchmarks import common, datasets
from sparsecider.io.named import NAMED

ROOT = Path(__file__).resolve().parents[1]


def coco_val2014_references() -> list[list[str]]:
    """The PTB-tokenized references of every COCO val 2014 image, in the
    annotation file's image order (captions tokenized in file order)."""
    with gzip.open(datasets.coco_dir() / "captions_val2014_reconstructed.json.gz", "rt") as f:
        ann = json.load(f)
    tokens = sparsecider.ptb_tokenize([a["caption"] for a in ann["annotations"]])
    refs: dict = {img["id"]: [] for img in ann["images"]}
    for a, t in zip(ann["annotations"], tokens, strict=True):
        refs[a["image_id"]].append(t)
    return list(refs.values())


def build(output: Path) -> sparsecider.DocumentFrequencies:
    start = time.perf_counter()
    refs = coco_val2014_references()
    full = sparsecider.DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    named = full.pruned().renamed(
        "coco-val2014", tokenizer="ptb", source=NAMED["coco-val2014"]["source"]
    )
    named.save(output)
    common.log(
        f"coco-val2014: {full.n_images} images, {len(full):,} n-grams, "
        f"{len(named):,} kept after pruning ({output.stat().st_size / 2**20:.2f} MiB on disk), "
        f"{time.perf_counter() - start:.1f} s"
    )
    return named


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "-o", "--output", type=Path,
        default=ROOT / "sparsecider" / "data" / NAMED["coco-val2014"]["file"],
    )  # fmt: skip
    args = parser.parse_args(argv)
    build(args.output)


if __name__ == "__main__":
    main()
