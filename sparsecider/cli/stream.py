"""``sparsecider stream``: JSON-lines records too large for memory, a chunk at a time."""

from __future__ import annotations

import json
import time

from ..io.captions import check_output
from .common import UsageError, load_df, summary, summary_stream
from .df import describe_df, save_df

__all__ = ["run_stream"]


def run_stream(args) -> int:
    out = summary_stream(args)
    from .. import stream

    check_output(args.output, args.records)
    df = load_df(args.df)
    options = dict(
        n=args.n, df=df, tokenizer=args.tokenizer, chunk_size=args.chunk_size,
        n_jobs=args.n_jobs, output=args.output, progress=args.progress,
    )  # fmt: skip
    if args.fit_only:
        if df != "corpus":
            raise UsageError("--fit-only fits document frequencies; it takes no --df FILE")
        start = time.perf_counter()
        fitted = stream.fit_df(
            args.records, n=args.n, tokenizer=args.tokenizer, chunk_size=args.chunk_size,
            n_jobs=args.n_jobs, progress=args.progress,
        )  # fmt: skip
        save_df(fitted, args.output)
        described = describe_df(fitted, args.output)
        described["seconds"] = round(time.perf_counter() - start, 3)
        print(json.dumps(described, indent=2), file=out)
        return 0
    start = time.perf_counter()
    if args.metric == "cider":
        result = stream.cider(args.records, **options)
    else:
        result = stream.cider_d(args.records, sigma=args.sigma, **options)
    seconds = time.perf_counter() - start
    print(json.dumps({
        **summary(result),
        "output": args.output,
        "seconds": round(seconds, 3),
        "images_per_second": round(result.n_images / seconds, 1) if seconds > 0 else None,
    }, indent=2), file=out)  # fmt: skip
    return 0
