"""Long captions through sparsecider's PTB tokenizer: time against length.

One caption of 1, 5 and 10 MB (characters) of each shape below, tokenized
alone (``ptb_tokenize([caption])``); the time should grow in proportion to
the length (seconds per MB about constant).  Shapes: the run without spaces
that was quadratic before (``"a," * n``), plain words, one enormous word, a
number with commas, punctuation and quote runs, brackets, clitics, a dotted
word, emoji (deleted characters), spaces only, mixed real-caption text with
symbols.  Writes ``benchmarks/results/ptb_long.json``.

Usage (no Java needed; ``--java`` also times the reference jar, JVM start
included, on a caption of ``--java-mb`` MB of each shape: the jar is quadratic
on some shapes, 60 s for 0.2 MB of ``"a,"`` here)::

    python -m benchmarks.bench_ptb_long [--sizes 1 5 10] [--java [--java-mb 0.1]]
"""

from __future__ import annotations

import argparse
import time

import sparsecider
from benchmarks import common

SHAPES = {
    "a,": "a,",
    "words": "A dog runs on the beach. ",
    "one word": "a",
    "number 1,": "1,",
    "!?": "!?",
    "quotes": "'\"",
    "brackets": "(a) ",
    "clitics": "dog's isn't ",
    "dotted": "a.",
    "emoji": "\U0001f415",
    "spaces": " ",
    "open tags": '<a b="c" d=e ',
    "e-mail-like": "a.b@c",
    "apostrophes": "o'a'",
    "mixed": "Mr. O'Neil's café (5 km) at 2:30pm, e.g. http://x.com/a?b=c \u2014 \"ok\" ",
}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 10], help="MB")
    parser.add_argument("--java", action="store_true", help="also time the jar")
    parser.add_argument("--java-mb", type=float, default=0.1, help="caption size for the jar")
    args = parser.parse_args(argv)
    rows = []
    for shape, unit in SHAPES.items():
        row: dict[str, object] = {"shape": shape, "unit": unit, "seconds": {}}
        for mb in args.sizes:
            n = int(mb * 1_000_000)
            caption = (unit * (n // len(unit) + 1))[:n]
            t = time.perf_counter()
            sparsecider.ptb_tokenize([caption])
            seconds = time.perf_counter() - t
            row["seconds"][f"{mb:g} MB"] = seconds
        if args.java:
            from benchmarks.ptb_jar import run_jar

            n = int(args.java_mb * 1_000_000)
            caption = (unit * (n // len(unit) + 1))[:n]
            row["java_seconds"] = {f"{args.java_mb:g} MB": run_jar([caption]).seconds}
        per_mb = [s / mb for mb, s in zip(args.sizes, row["seconds"].values(), strict=True)]
        row["seconds_per_MB"] = per_mb
        rows.append(row)
        java = ""
        if args.java:
            java = f"; Java {args.java_mb:g} MB {next(iter(row['java_seconds'].values())):.2f} s"
        common.log(
            f"{shape!r:>12}: "
            + ", ".join(f"{k} {v:.2f} s" for k, v in row["seconds"].items())
            + f" ({min(per_mb):.2f}-{max(per_mb):.2f} s/MB){java}"
        )
    out = {
        "benchmark": "ptb_long",
        "machine": common.machine(),
        "versions": common.versions("sparsecider"),
        "sizes_MB": args.sizes,
        "shapes": rows,
    }
    path = common.write("ptb_long", out)
    common.log(f"written to {path}")
    return out


if __name__ == "__main__":
    main()
