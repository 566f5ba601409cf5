"""``sparsecider df fit | info | list | convert``: document-frequency files."""

from __future__ import annotations

import json

from ..core.frequencies import DocumentFrequencies
from ..io.captions import check_output, open_output, read_references
from ..io.named import NAMED
from .common import load_df, summary_stream

__all__ = ["describe_df", "run_df", "save_df"]


def save_df(df: DocumentFrequencies, path: str) -> None:
    with open_output(path) as f:
        df.save(f)


def describe_df(df: DocumentFrequencies, path: str | None = None) -> dict:
    named = NAMED.get(df.name or "")
    return {
        "file": path,
        "name": df.name,
        "n": df.n,
        "n_images": df.n_images,
        "ngrams": len(df),
        "ngrams_per_order": [int(df.keys(k).shape[0]) for k in range(1, df.n + 1)],
        "tokenizer": df.tokenizer,
        "source": df.source,
        "sha": df.digest,
        "megabytes": round(df.nbytes / 2**20, 2),
        "pruned": df.min_count > 1,
        "signature_field": f"df:{df.describe()}",
        **({} if named is None else {k: named[k] for k in ("description", "credit", "made")}),
    }


def run_df(args) -> int:
    out = summary_stream(args)
    if args.df_command == "fit":
        check_output(args.output, args.references)
    elif args.df_command == "convert":
        check_output(args.output, [args.legacy])
    if args.df_command == "fit":
        refs = read_references(args.references, args.input_format)
        df = DocumentFrequencies.from_references(refs.captions, n=args.n, tokenizer=args.tokenizer)
        if args.prune:
            df = df.pruned()
        if args.name:
            df = df.renamed(args.name)
        save_df(df, args.output)
        print(json.dumps(describe_df(df, args.output), indent=2), file=out)
    elif args.df_command == "info":
        path = None if args.file in NAMED else args.file
        print(json.dumps(describe_df(load_df(args.file), path), indent=2), file=out)
    elif args.df_command == "list":
        print(json.dumps([
            {"name": name, "n_images": entry["n_images"], "description": entry["description"],
             "credit": entry["credit"]}
            for name, entry in NAMED.items()
        ], indent=2), file=out)  # fmt: skip
    else:
        df = DocumentFrequencies.from_pickle(args.legacy, n_images=args.n_images)
        save_df(df, args.output)
        print(json.dumps(describe_df(df, args.output), indent=2), file=out)
    return 0
