"""Long captions through ``sparsecider.meteor``: time against length.

One caption of 0.25 and 1 MB (characters) of each shape below, as the
candidate against two short references and as a reference of a short
candidate (``tokenizer="whitespace"``, the data loaded before timing).  Time
linear in the length gives a ratio of 4 between the two sizes; the ratio is
printed for each shape and side.  Shapes: words that all match a reference
(``a man riding a horse ...``, many alignment candidates), words that match
nothing (``zq``), one enormous word, and two matching words followed by
unmatched ones.  Writes ``benchmarks/results/meteor_long.json``.

Usage (no Java)::

    python -m benchmarks.bench_meteor_long [--sizes 0.25 1]
"""

from __future__ import annotations

import argparse
import time

import sparsecider
from benchmarks import common
from sparsecider.metrics.meteor.api import resources

SHAPES = {
    "matching words": "a man riding a horse on the beach next to the ocean with a dog ",
    "unmatched words": "zq ",
    "one word": "x",
    "two matches, then unmatched": None,  # "a dog " + "zq " * ...
}
REFERENCES = ["a man is riding a horse on the beach", "a dog runs on the sand"]
SHORT = "a man riding a horse on the beach"


def caption(shape: str, mb: float) -> str:
    n = int(mb * 2**20)
    unit = SHAPES[shape]
    if unit is None:
        return ("a dog " + "zq " * (n // 3))[:n]
    return (unit * (n // len(unit) + 1))[:n]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[0.25, 1.0], help="MB")
    args = parser.parse_args(argv)
    resources()  # the data, loaded (and its index built) before any timing
    rows = []
    for shape in SHAPES:
        for side in ("candidate", "reference"):
            seconds = {}
            for mb in args.sizes:
                long = caption(shape, mb)
                cands, refs = ([long], [REFERENCES]) if side == "candidate" else ([SHORT], [[long]])
                start = time.perf_counter()
                sparsecider.meteor(cands, refs, tokenizer="whitespace")
                seconds[f"{mb:g} MB"] = time.perf_counter() - start
            times = list(seconds.values())
            ratio = times[-1] / times[0] if times[0] > 0 else None
            size_ratio = args.sizes[-1] / args.sizes[0]
            rows.append({"shape": shape, "side": side, "seconds": seconds,
                         "time_ratio": ratio, "size_ratio": size_ratio})  # fmt: skip
            common.log(
                f"{shape!r:>30} as {side:<9}: "
                + ", ".join(f"{k} {v:.2f} s" for k, v in seconds.items())
                + (f" (x{ratio:.1f} for x{size_ratio:g} the length)" if ratio else "")
            )
    out = {
        "benchmark": "meteor_long",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "snowballstemmer"),
        "sizes_MB": args.sizes,
        "rows": rows,
    }
    path = common.write("meteor_long", out)
    common.log(f"written to {path}")
    return out


if __name__ == "__main__":
    main()
