"""``sparsecider score --metric bleu,meteor,rouge-l,cider-d``: several metrics, the paper table."""

from __future__ import annotations

import time

from ..io.captions import check_output, read_references
from .common import (
    CIDER_FAMILY,
    SCORE_METRICS,
    SUMMED_METRICS,
    UsageError,
    candidate_files,
    flat,
    image_ranges,
    load_df,
    print_json,
    print_tsv,
    read_aligned,
    report_notes,
    score_metric,
    summary_stream,
    write_lines,
)

__all__ = ["run_table"]


def _table_row(args, df, references, cand_path: str) -> dict:
    """Every metric of ``args.metrics`` for one candidates file."""
    candidates, ids, cands, refs, unscored, read_s = read_aligned(args, references, cand_path)
    start = time.perf_counter()
    scores, signatures, per_image = {}, {}, {}
    # candidates with no token (the CIDEr metrics count them), else the blank ones
    empty = sum(1 for c in flat(cands) if not c.strip())
    for metric in args.metrics:
        result = score_metric(metric, cands, refs, args, df)
        if result.n_empty_candidates is not None:
            empty = result.n_empty_candidates
        if metric == "bleu":  # BLEU-1 .. BLEU-n, one signature
            for k in range(result.per_order.shape[1]):
                scores[f"BLEU-{k + 1}"] = float(result.corpus_per_order[k])
                per_image[f"BLEU-{k + 1}"] = result.per_order[:, k].tolist()
        else:
            scores[result.metric] = result.score
            per_image[result.metric] = result.scores.tolist()
        signatures[result.metric] = result.signature
    entry = {
        "candidates": candidates.source,
        "scores": scores,
        "signatures": signatures,
        "n_images": result.n_images,
        "n_candidates": result.n_candidates,
        "unscored_reference_images": unscored,
        "empty_candidates": empty,
        "timings": {"read_s": round(read_s, 4), "score_s": round(time.perf_counter() - start, 4)},
    }
    return {"entry": entry, "ids": ids, "per_image": per_image, "ranges": image_ranges(result)}


def _signature_of(entry: dict, name: str) -> str:
    """The signature of one column (BLEU-1 .. BLEU-n share BLEU's)."""
    if name in entry["signatures"]:
        return entry["signatures"][name]
    return next(s for m, s in entry["signatures"].items() if m.startswith("BLEU"))


def run_table(args) -> int:
    """``score`` with several metrics (or BLEU, or ``--format table``)."""
    out = summary_stream(args)
    if args.bootstrap or args.paired:
        raise UsageError(
            "--bootstrap and --paired resample one mean score: give one of "
            + ", ".join(m for m in SCORE_METRICS if m not in SUMMED_METRICS)
            + " (corpus BLEU and METEOR are not means over images)"
        )
    if args.df != "corpus" and not set(args.metrics) & set(CIDER_FAMILY):
        raise UsageError(f"--df {args.df}: document frequencies are used by CIDEr only")
    if args.per_image:
        check_output(args.per_image, [*args.references, *args.candidates])
    df = load_df(args.df)
    start = time.perf_counter()
    references = read_references(args.references, args.input_format)
    read_refs_s = time.perf_counter() - start
    rows = [_table_row(args, df, references, p) for p in candidate_files(args, "scoring")]
    if args.per_image:
        # an image's value, or the list of its candidates' values when it has several
        write_lines(args.per_image, [
            {"id": image_id, **({"system": row["entry"]["candidates"]} if len(rows) > 1 else {}),
             **{name: values[lo] if hi - lo == 1 else values[lo:hi]
                for name, values in row["per_image"].items()}}
            for row in rows
            for image_id, (lo, hi) in zip(row["ids"], row["ranges"], strict=True)
        ])  # fmt: skip
    entries = [row["entry"] for row in rows]
    names = list(entries[0]["scores"])
    if args.format == "table":
        print("| candidates | " + " | ".join(names) + " |", file=out)
        print("|---|" + "---:|" * len(names), file=out)
        for e in entries:
            print(f"| {e['candidates']} | " + " | ".join(f"{e['scores'][m]:.4f}" for m in names)
                  + " |", file=out)  # fmt: skip
        print(file=out)
        for metric, signature in entries[0]["signatures"].items():
            print(f"{metric}: {signature}", file=out)
        for e in entries:
            for note in report_notes(e):
                print(f"note: {e['candidates']}: {note}", file=out)
    elif args.format == "text":
        for e in entries:
            prefix = f"{e['candidates']}: " if len(entries) > 1 else ""
            for name, value in e["scores"].items():
                print(f"{prefix}{name} = {value:.4f} | {_signature_of(e, name)}", file=out)
            for note in report_notes(e):
                print(f"{prefix}note: {note}", file=out)
    elif args.format == "tsv":
        rows = [
            [e["candidates"], name, value, e["n_images"], e["unscored_reference_images"],
             e["empty_candidates"], _signature_of(e, name)]
            for e in entries
            for name, value in e["scores"].items()
        ]  # fmt: skip
        columns = ["candidates", "metric", "score", "n_images", "unscored_reference_images",
                   "empty_candidates", "signature"]  # fmt: skip
        print_tsv(columns, rows, out)
    else:
        print_json(entries, references, read_refs_s, out)
    return 0
