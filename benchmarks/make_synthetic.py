"""Write a reproducible synthetic corpus as JSON lines, for the streaming benchmark.

Each line is one image: ``{"id": i, "candidate": str, "references": [5 str]}``,
with Zipf-distributed words from a 10,000-word vocabulary, 8-16 words per
caption (as ``bench_scaling.synthetic_corpus``).  Generated in blocks of
100,000 images, each from its own seed ``(seed, block)``, so the file is the
same on every machine and never needs the whole corpus in memory.

Usage: ``python -m benchmarks.make_synthetic --images 1000000 -o synthetic.jsonl``
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from benchmarks import common

BLOCK = 100_000
VOCAB = np.array([f"w{i}" for i in range(10_000)])


def block_records(first_id: int, n_images: int, seed: tuple[int, int]) -> list[dict]:
    rng = np.random.default_rng(list(seed))
    lengths = rng.integers(8, 17, size=(n_images, 6)).ravel()
    words = VOCAB[np.minimum(rng.zipf(1.4, size=int(lengths.sum())), 9_999)]
    ends = np.cumsum(lengths)
    texts = [" ".join(words[a:b]) for a, b in zip(ends - lengths, ends, strict=True)]
    return [
        {"id": first_id + i, "candidate": texts[6 * i], "references": texts[6 * i + 1 : 6 * i + 6]}
        for i in range(n_images)
    ]


def write(path: Path, n_images: int, seed: int = 0) -> Path:
    """Write the corpus to ``path`` (atomically: a finished file is a complete one)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for block, first in enumerate(range(0, n_images, BLOCK)):
            rows = block_records(first, min(BLOCK, n_images - first), (seed, block))
            f.write("\n".join(json.dumps(r) for r in rows) + "\n")
    tmp.replace(path)
    return path


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    path = write(args.output, args.images, args.seed)
    common.log(f"wrote {args.images:,} images to {path} ({path.stat().st_size / 2**20:.0f} MiB)")
    return path


if __name__ == "__main__":
    main()
