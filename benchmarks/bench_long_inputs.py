"""Very long captions: the cost of one caption of 1, 5 and 10 MB, per tokenizer.

Each run scores two images, ``[long, "x"]`` against ``[[long], ["x"]]``,
with ``n_jobs=1``, where ``long`` is one of:

- ``token``: one whitespace-free token of that many bytes (``"a" * size``);
- ``words``: ``"a "`` repeated (size / 2 one-letter words);
- ``han``: Han characters (3 UTF-8 bytes each) without any space.

The whitespace and CJK tokenizers must take time linear in the size (the
pure-Python PTB tokenizer is left to its own benchmark).  pycocoevalcap's
scorer (``Cider().compute_score`` on the whitespace split) is timed on the
``token`` and ``words`` inputs when it is installed.  Each time is the
median of ``--repeat`` runs in this process.  Writes
``benchmarks/results/long_inputs.json``.

Usage::

    python -m benchmarks.bench_long_inputs [--sizes 1 5 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import sparsecider
from benchmarks import common

_INPUTS = {
    "token": lambda size: "a" * size,
    "words": lambda size: "a " * (size // 2),
    "han": lambda size: "狗跑草地上" * (size // 15),
}
_CASES = [
    ("whitespace", "token"), ("whitespace", "words"), ("char", "han"), ("char", "token"),
    ("jieba", "han"), ("mecab", "words"), ("mecab", "han"), ("kiwi", "words"),
]  # fmt: skip


def _median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 10], help="MB")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case")
    parser.add_argument("--cases", nargs="*", help="tokenizer:input pairs (default: all)")
    args = parser.parse_args(argv)
    cases = [tuple(c.split(":")) for c in args.cases] if args.cases else _CASES
    warnings.simplefilter("ignore")
    rows = []
    for tokenizer, kind in cases:
        for mb in args.sizes:
            size = int(mb * 1_000_000)
            text = _INPUTS[kind](size)

            def ours(text=text, tokenizer=tokenizer):
                return sparsecider.cider_d(
                    [text, "x"], [[text], ["x"]], tokenizer=tokenizer, n_jobs=1
                )

            try:
                seconds = _median_time(ours, args.repeat)
            except ImportError as error:
                common.log(f"{tokenizer}: skipped ({error})")
                break
            row = {"tokenizer": tokenizer, "input": kind, "mb": mb, "seconds": seconds}
            if tokenizer == "whitespace":
                row["pycocoevalcap_seconds"] = _reference_time(text, args.repeat)
            rows.append(row)
            common.log(
                f"{tokenizer:10} {kind:6} {mb:5g} MB  {seconds:8.3f} s"
                + (
                    f"  (pycocoevalcap {row['pycocoevalcap_seconds']:.3f} s)"
                    if row.get("pycocoevalcap_seconds") is not None
                    else ""
                )
            )
    result = {"machine": common.machine(), "rows": rows}
    common.write("long_inputs", result)
    return result


def _reference_time(text: str, repeat: int) -> float | None:
    try:
        from pycocoevalcap.cider.cider import Cider
    except ImportError:
        return None
    gts, res = {0: [text], 1: ["x"]}, {0: [text], 1: ["x"]}
    return _median_time(lambda: Cider().compute_score(gts, res), repeat)


if __name__ == "__main__":
    main()
