"""``sparsecider score`` with one metric: scores, bootstrap intervals, paired tests."""

from __future__ import annotations

import time

from ..io.captions import check_output, read_references
from ..significance import approximate_randomization, bootstrap_ci, paired_bootstrap
from .common import (
    SUMMED_METRICS,
    UsageError,
    candidate_files,
    candidates_per_image,
    image_ranges,
    load_df,
    print_json,
    print_tsv,
    read_aligned,
    score_metric,
    summary,
    summary_stream,
    text_line,
    write_lines,
)
from .table import run_table

__all__ = ["run_score"]


def _score_one(args, df, references, cand_path: str) -> dict:
    candidates, ids, cands, refs, unscored, read_s = read_aligned(args, references, cand_path)
    start = time.perf_counter()
    result = score_metric(args.metric, cands, refs, args, df)
    entry = {
        "candidates": candidates.source,
        **summary(result),
        "unscored_reference_images": unscored,
        "timings": {"read_s": round(read_s, 4), "score_s": round(time.perf_counter() - start, 4)},
    }
    if args.bootstrap:
        start = time.perf_counter()
        # images are resampled, each with all its candidates
        ci = bootstrap_ci(
            result.image_scores(), weights=candidates_per_image(result),
            n_resamples=args.bootstrap, confidence=args.confidence, seed=args.seed,
        )  # fmt: skip
        entry["ci"] = {
            "low": ci.low, "high": ci.high, "confidence": ci.confidence,
            "n_resamples": ci.n_resamples, "seed": ci.seed,
        }  # fmt: skip
        entry["signature"] = result.signature.replace(
            bootstrap=args.bootstrap, seed=args.seed, ci=args.confidence
        )
        entry["timings"]["bootstrap_s"] = round(time.perf_counter() - start, 4)
    return {"entry": entry, "ids": ids, "result": result}


def _paired(systems: list[dict], args) -> list[dict]:
    base = systems[0]
    out = []
    for other in systems[1:]:
        if other["ids"] != base["ids"]:
            raise UsageError(
                f"--paired needs every system scored on the same images: "
                f"{other['entry']['candidates']} and {base['entry']['candidates']} differ"
            )
        # per image (the mean of its candidates, when it has several)
        a, b = base["result"].image_scores(), other["result"].image_scores()
        boot = paired_bootstrap(a, b, n_resamples=args.bootstrap or 1000, seed=args.seed)
        rand = approximate_randomization(a, b, n_trials=10_000, seed=args.seed)
        out.append({
            "baseline": base["entry"]["candidates"],
            "system": other["entry"]["candidates"],
            "delta": boot.delta,
            "p_paired_bootstrap": boot.p_value,
            "p_approximate_randomization": rand.p_value,
            "n_resamples": boot.n_trials,
            "n_randomizations": rand.n_trials,
            "seed": args.seed,
        })  # fmt: skip
    return out


def run_score(args) -> int:
    out = summary_stream(args)
    if len(args.metrics) > 1 or args.metrics[0] in SUMMED_METRICS or args.format == "table":
        return run_table(args)
    if args.paired and len(args.candidates) < 2:
        raise UsageError("--paired compares systems: give two or more -c files")
    if args.per_image:
        check_output(args.per_image, [*args.references, *args.candidates])
    df = load_df(args.df)
    start = time.perf_counter()
    references = read_references(args.references, args.input_format)
    read_refs_s = time.perf_counter() - start
    systems = [_score_one(args, df, references, path) for path in candidate_files(args, "scoring")]
    paired = _paired(systems, args) if args.paired else []
    if args.per_image:
        rows = []
        for system in systems:
            result = system["result"]
            scores, per_order = result.scores.tolist(), result.per_order.tolist()
            for image_id, (lo, hi) in zip(system["ids"], image_ranges(result), strict=True):
                row = {"id": image_id}
                if len(systems) > 1:
                    row["system"] = system["entry"]["candidates"]
                if hi - lo == 1:
                    row.update(score=scores[lo], per_order=per_order[lo])
                else:  # several candidates: one value each, in file order (as 'stream')
                    row.update(scores=scores[lo:hi], per_order=per_order[lo:hi])
                rows.append(row)
        write_lines(args.per_image, rows)
    entries = [s["entry"] for s in systems]
    if args.format == "text":
        for entry in entries:
            print(
                text_line(entry, f"{entry['candidates']}: " if len(entries) > 1 else ""), file=out
            )
        for p in paired:
            print(
                f"{p['system']} vs {p['baseline']}: delta {p['delta']:+.4f}, "
                f"p = {p['p_paired_bootstrap']:.4f} (paired bootstrap), "
                f"p = {p['p_approximate_randomization']:.4f} (approximate randomization)",
                file=out,
            )
    elif args.format == "tsv":
        columns = ["candidates", "metric", "score", "ci_low", "ci_high", "n_images",
                   "unscored_reference_images", "empty_candidates", "signature"]  # fmt: skip
        rows = []
        for e in entries:
            ci = e.get("ci", {"low": "", "high": ""})
            rows.append([e["candidates"], e["metric"], e["score"], ci["low"], ci["high"],
                         e["n_images"], e["unscored_reference_images"],
                         e.get("empty_candidates", ""), e["signature"]])  # fmt: skip
        print_tsv(columns, rows, out)
    else:
        print_json(entries, references, read_refs_s, out, paired=paired)
    return 0
