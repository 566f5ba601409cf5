"""The ``sparsecider`` command line (also ``python -m sparsecider``).

::

    sparsecider score -r captions_val2014.json -c results.json [--bootstrap 1000]
    sparsecider score -r refs.jsonl -c sys_a.jsonl -c sys_b.jsonl --paired --format text
    sparsecider score -r captions_val2014.json -c results.json --metric bleu,rouge-l,cider-d
    sparsecider df fit -o coco-train.df.npz train_annotations.json
    sparsecider df info coco-train.df.npz
    sparsecider df convert coco-train-idxs.p -o coco-train-idxs.df.npz
    sparsecider diversity -c samples.json -r captions_val2014.json [--per-image OUT]
    sparsecider select -c nbest.json -o chosen.json [--against references -r REFS]
    sparsecider --demo

Errors are one line on stderr naming the file and the line or image id, with
exit status 1 (2 for a wrong command line); no output file is left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterable
from typing import TextIO

import numpy as np

from ._progress import iterate
from ._version import __version__
from .api import cider, cider_d
from .bleu import bleu
from .cider_r import cider_r
from .demo import PUBLISHED_CIDER_D, load_demo
from .diversity import self_cider
from .frequencies import NAMED, DocumentFrequencies
from .io.captions import (
    FORMATS,
    CaptionFileError,
    align,
    check_output,
    open_output,
    read_candidates,
    read_references,
)
from .io.text import writes_to_stdout
from .mbr import mbr_select
from .rouge import rouge_l
from .significance import approximate_randomization, bootstrap_ci, paired_bootstrap
from .tokenizers import registered

__all__ = ["main"]


class UsageError(Exception):
    """A problem with the input: reported on one line, exit status 1."""


# ---- sparsecider score -----------------------------------------------------------


def _summary(result) -> dict:
    """The fields every JSON report of a result starts with."""
    return {
        "metric": result.metric,
        "score": result.score,
        # several candidates per image: each counts once in the mean (as each
        # row does in pycocoevalcap), so images with more candidates weigh more
        "score_is_mean_over": "images" if result.n_candidates == result.n_images else "candidates",
        "signature": result.signature,
        "n_images": result.n_images,
        "n_candidates": result.n_candidates,
        # candidates with no token: they score 0, as in pycocoevalcap (and lower the mean)
        **({} if result.n_empty_candidates is None
           else {"empty_candidates": result.n_empty_candidates}),
    }  # fmt: skip


def _load_df(spec: str):
    """``corpus``, the name of frequencies shipped in the package, or a df file."""
    if spec == "corpus":
        return "corpus"
    if spec in NAMED:
        return DocumentFrequencies.named(spec)
    try:
        return DocumentFrequencies.load(spec)
    except FileNotFoundError:
        raise UsageError(
            f"--df {spec}: no such file, and not a shipped name ("
            + ", ".join(NAMED)
            + "; see 'sparsecider df list'); use 'corpus', a name, or a file written by "
            "'sparsecider df fit'"
        ) from None
    except ValueError as err:
        hint = (
            " (a legacy pickle? convert it with 'sparsecider df convert')"
            if spec.endswith(".p")
            else ""
        )
        raise UsageError(f"{err}{hint}") from None


def _files(args, desc: str) -> Iterable[str]:
    """The candidate files, with a bar when there are several (``--progress``)."""
    shown = args.progress if len(args.candidates) > 1 else False
    return iterate(args.candidates, shown, desc, unit="file")


def _number(x: float) -> float | None:
    """A score as JSON: null where there is none (nan is not JSON)."""
    return x if math.isfinite(x) else None


def _summaries(args) -> TextIO:
    """Where a command prints its summary: standard error when its data
    output is standard output (``-``), so a pipe receives only the data."""
    outputs = (getattr(args, "per_image", None), getattr(args, "output", None))
    return sys.stderr if any(o and writes_to_stdout(o) for o in outputs) else sys.stdout


def _read_aligned(args, references, cand_path: str):
    """One candidates file, aligned with the references; and the seconds it took."""
    start = time.perf_counter()
    candidates = read_candidates(cand_path, args.input_format)
    ids, cands, refs, unscored = align(references, candidates)
    return candidates, ids, cands, refs, unscored, time.perf_counter() - start


def _score_one(args, df, references, cand_path: str) -> dict:
    candidates, ids, cands, refs, unscored, read_s = _read_aligned(args, references, cand_path)
    start = time.perf_counter()
    result = _score_metric(args.metric, cands, refs, args, df)
    entry = {
        "candidates": candidates.source,
        **_summary(result),
        "unscored_reference_images": unscored,
        "timings": {"read_s": round(read_s, 4), "score_s": round(time.perf_counter() - start, 4)},
    }
    if args.bootstrap:
        start = time.perf_counter()
        ci = bootstrap_ci(
            result.scores, n_resamples=args.bootstrap, confidence=args.confidence, seed=args.seed
        )
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
        a, b = base["result"].scores, other["result"].scores
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


def _text_line(entry: dict, prefix: str = "") -> str:
    ci = ""
    if "ci" in entry:
        c = entry["ci"]
        ci = f" ({c['confidence'] * 100:g}% CI {c['low']:.4f}-{c['high']:.4f})"
    notes = "".join(f" [{note}]" for note in _notes(entry))
    score = "none" if entry["score"] is None else f"{entry['score']:.4f}"
    return f"{prefix}{entry['metric']} = {score}{ci}{notes} | {entry['signature']}"


def _notes(entry: dict) -> list[str]:
    """What a one-line report must not hide: empty candidates, the unit of the mean."""
    notes = []
    if entry.get("empty_candidates"):
        k = entry["empty_candidates"]
        notes.append(f"{k} empty candidate{'s' if k > 1 else ''} scored 0")
    if entry.get("score_is_mean_over") == "candidates":
        notes.append(f"mean over {entry['n_candidates']} candidates of {entry['n_images']} images")
    return notes


def _cmd_score(args) -> int:
    out = _summaries(args)
    if len(args.metrics) > 1 or args.metrics == ["bleu"] or args.format == "table":
        return _cmd_table(args)
    if args.paired and len(args.candidates) < 2:
        raise UsageError("--paired compares systems: give two or more -c files")
    if args.per_image:
        check_output(args.per_image, [*args.references, *args.candidates])
    df = _load_df(args.df)
    start = time.perf_counter()
    references = read_references(args.references, args.input_format)
    read_refs_s = time.perf_counter() - start
    systems = [_score_one(args, df, references, path) for path in _files(args, "scoring")]
    paired = _paired(systems, args) if args.paired else []
    if args.per_image:
        with open_output(args.per_image, text=True) as f:
            for system in systems:
                result, ids = system["result"], system["ids"]
                for i, image_id in enumerate(ids):
                    row = {"id": image_id, "score": float(result.scores[i]),
                           "per_order": [float(v) for v in result.per_order[i]]}  # fmt: skip
                    if len(systems) > 1:
                        row["system"] = system["entry"]["candidates"]
                    f.write(json.dumps(row) + "\n")
    entries = [s["entry"] for s in systems]
    if args.format == "text":
        for entry in entries:
            print(
                _text_line(entry, f"{entry['candidates']}: " if len(entries) > 1 else ""), file=out
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
                   "empty_candidates", "signature"]  # fmt: skip
        rows = []
        for e in entries:
            ci = e.get("ci", {"low": "", "high": ""})
            rows.append([e["candidates"], e["metric"], e["score"], ci["low"], ci["high"],
                         e["n_images"], e.get("empty_candidates", ""), e["signature"]])  # fmt: skip
        _print_tsv(columns, rows, out)
    else:
        _print_json(entries, references, read_refs_s, out, paired=paired)
    return 0


def _print_tsv(columns: list[str], rows: list[list], out: TextIO) -> None:
    """A header and tab-separated rows (numbers as ``repr``: every digit kept)."""
    print("\t".join(columns), file=out)
    for row in rows:
        print("\t".join(map(str, row)), file=out)


def _print_json(entries: list[dict], references, read_refs_s: float, out: TextIO,
                **extra: object) -> None:  # fmt: skip
    """The JSON report of one system (or ``{"systems": [...]}``), with the references read."""
    payload: dict = entries[0] if len(entries) == 1 else {"systems": entries}
    payload["references"] = references.source
    payload["read_references_s"] = round(read_refs_s, 4)
    payload.update((k, v) for k, v in extra.items() if v)
    print(json.dumps(payload, indent=2), file=out)


# ---- sparsecider score --metric bleu,rouge-l,cider-d: the paper table -----------------

SCORE_METRICS = ("cider-d", "cider", "cider-r", "bleu", "rouge-l")
_CIDER_FAMILY = ("cider-d", "cider", "cider-r")


def _metric_list(text: str) -> list[str]:
    """``--metric bleu,rouge-l,cider-d`` as a list (repeats dropped), checked."""
    metrics = list(dict.fromkeys(m.strip().lower() for m in text.split(",")))
    unknown = [m for m in metrics if m not in SCORE_METRICS]
    if unknown:
        raise UsageError(
            f"--metric {text}: unknown {', '.join(map(repr, unknown))}; use one or a comma "
            "list of " + ", ".join(SCORE_METRICS)
        )
    return metrics


def _score_metric(metric: str, cands: list[str], refs: list[list[str]], args, df):
    """One metric's result (the options it does not take are not passed)."""
    common = {"tokenizer": args.tokenizer, "n_jobs": args.n_jobs}
    if metric == "bleu":
        return bleu(cands, refs, n=args.n, **common)
    if metric == "rouge-l":
        return rouge_l(cands, refs, **common)
    if metric == "cider":
        return cider(cands, refs, n=args.n, df=df, progress=args.progress, **common)
    if metric == "cider-r":  # SacreEOS's defaults (repeat 0.8, length 0.2, alpha 1)
        return cider_r(cands, refs, n=args.n, df=df, **common)
    return cider_d(cands, refs, n=args.n, sigma=args.sigma, df=df, progress=args.progress, **common)


def _table_row(args, df, references, cand_path: str) -> dict:
    """Every metric of ``args.metrics`` for one candidates file."""
    candidates, ids, cands, refs, unscored, read_s = _read_aligned(args, references, cand_path)
    start = time.perf_counter()
    scores, signatures, per_image = {}, {}, {}
    # candidates with no token (the CIDEr metrics count them), else the blank ones
    empty = sum(1 for c in cands if not c.strip())
    for metric in args.metrics:
        result = _score_metric(metric, cands, refs, args, df)
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
    return {"entry": entry, "ids": ids, "per_image": per_image}


def _signature_of(entry: dict, name: str) -> str:
    """The signature of one column (BLEU-1 .. BLEU-n share BLEU's)."""
    if name in entry["signatures"]:
        return entry["signatures"][name]
    return next(s for m, s in entry["signatures"].items() if m.startswith("BLEU"))


def _cmd_table(args) -> int:
    """``score`` with several metrics (or BLEU, or ``--format table``)."""
    out = _summaries(args)
    if args.bootstrap or args.paired:
        raise UsageError(
            "--bootstrap and --paired resample one mean score: give one of "
            + ", ".join(m for m in SCORE_METRICS if m != "bleu")
            + " (corpus BLEU is not a mean over images)"
        )
    if args.df != "corpus" and not set(args.metrics) & set(_CIDER_FAMILY):
        raise UsageError(f"--df {args.df}: document frequencies are used by CIDEr only")
    if args.per_image:
        check_output(args.per_image, [*args.references, *args.candidates])
    df = _load_df(args.df)
    start = time.perf_counter()
    references = read_references(args.references, args.input_format)
    read_refs_s = time.perf_counter() - start
    rows = [_table_row(args, df, references, p) for p in _files(args, "scoring")]
    if args.per_image:
        _write_lines(args.per_image, [
            {"id": image_id, **({"system": row["entry"]["candidates"]} if len(rows) > 1 else {}),
             **{name: values[i] for name, values in row["per_image"].items()}}
            for row in rows for i, image_id in enumerate(row["ids"])
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
            for note in _notes(e):
                print(f"note: {e['candidates']}: {note}", file=out)
    elif args.format == "text":
        for e in entries:
            prefix = f"{e['candidates']}: " if len(entries) > 1 else ""
            for name, value in e["scores"].items():
                print(f"{prefix}{name} = {value:.4f} | {_signature_of(e, name)}", file=out)
            for note in _notes(e):
                print(f"{prefix}note: {note}", file=out)
    elif args.format == "tsv":
        rows = [
            [e["candidates"], name, value, e["n_images"], e["empty_candidates"],
             _signature_of(e, name)]
            for e in entries
            for name, value in e["scores"].items()
        ]  # fmt: skip
        columns = ["candidates", "metric", "score", "n_images", "empty_candidates", "signature"]
        _print_tsv(columns, rows, out)
    else:
        _print_json(entries, references, read_refs_s, out)
    return 0


# ---- sparsecider df --------------------------------------------------------------


def _save_df(df: DocumentFrequencies, path: str) -> None:
    with open_output(path) as f:
        df.save(f)


def _describe_df(df: DocumentFrequencies, path: str | None = None) -> dict:
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
        **({} if named is None else {k: named[k] for k in ("description", "credit")}),
    }


def _cmd_df(args) -> int:
    out = _summaries(args)
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
        _save_df(df, args.output)
        print(json.dumps(_describe_df(df, args.output), indent=2), file=out)
    elif args.df_command == "info":
        path = None if args.file in NAMED else args.file
        print(json.dumps(_describe_df(_load_df(args.file), path), indent=2), file=out)
    elif args.df_command == "list":
        print(json.dumps([
            {"name": name, "n_images": entry["n_images"], "description": entry["description"],
             "credit": entry["credit"]}
            for name, entry in NAMED.items()
        ], indent=2), file=out)  # fmt: skip
    else:
        df = DocumentFrequencies.from_pickle(args.legacy, n_images=args.n_images)
        _save_df(df, args.output)
        print(json.dumps(_describe_df(df, args.output), indent=2), file=out)
    return 0


# ---- sparsecider stream ----------------------------------------------------------


def _cmd_stream(args) -> int:
    out = _summaries(args)
    from . import stream

    check_output(args.output, args.records)
    df = _load_df(args.df)
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
        _save_df(fitted, args.output)
        summary = _describe_df(fitted, args.output)
        summary["seconds"] = round(time.perf_counter() - start, 3)
        print(json.dumps(summary, indent=2), file=out)
        return 0
    start = time.perf_counter()
    if args.metric == "cider":
        result = stream.cider(args.records, **options)
    else:
        result = stream.cider_d(args.records, sigma=args.sigma, **options)
    seconds = time.perf_counter() - start
    print(json.dumps({
        **_summary(result),
        "output": args.output,
        "seconds": round(seconds, 3),
        "images_per_second": round(result.n_images / seconds, 1) if seconds > 0 else None,
    }, indent=2), file=out)  # fmt: skip
    return 0


# ---- sparsecider diversity / select: several captions per image ----------------------


def _candidate_sets(args) -> tuple[list, list[list[str]], object]:
    """Each image's captions from ``-c`` (several per image), and the references (or None)."""
    sets = read_candidates(args.candidates, args.input_format, several=True)
    references = read_references(args.references, args.input_format) if args.references else None
    return sets.ids, sets.captions, references


def _write_lines(path: str, rows: list[dict]) -> None:
    with open_output(path, text=True) as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


def _cmd_diversity(args) -> int:
    out = _summaries(args)
    if args.per_image:
        check_output(args.per_image, [args.candidates, *(args.references or [])])
    start = time.perf_counter()
    ids, sets, references = _candidate_sets(args)
    df = _load_df(args.df)
    if df == "corpus":
        if references is None:
            raise UsageError(
                "Self-CIDEr needs document frequencies: give -r REFS (those of every image of "
                "the file, as the authors count them over captions_val2014.json), or --df "
                "coco-val2014 or a file written by 'sparsecider df fit'"
            )
        df = DocumentFrequencies.from_references(
            references.captions, n=args.n, tokenizer=args.tokenizer
        ).renamed("references")
    read_s = time.perf_counter() - start
    start = time.perf_counter()
    result = self_cider(sets, df=df, n=args.n, tokenizer=args.tokenizer, n_jobs=args.n_jobs)
    sizes = np.unique(result.sizes, return_counts=True)
    entry = {
        "candidates": args.candidates,
        "metric": "Self-CIDEr",
        "score": result.score,
        "signature": result.signature,
        "n_images": result.n_images,
        "n_candidates": int(result.sizes.sum()),
        "set_sizes": {str(k): int(v) for k, v in zip(*sizes, strict=True)},
        "references": references.source if references is not None else None,
        "timings": {"read_s": round(read_s, 4), "score_s": round(time.perf_counter() - start, 4)},
    }
    if args.per_image:
        _write_lines(args.per_image, [
            {"id": i, "self_cider": s, "n_captions": int(m)}
            for i, s, m in zip(ids, result.scores.tolist(), result.sizes.tolist(), strict=True)
        ])  # fmt: skip
    print(_text_line(entry) if args.format == "text" else json.dumps(entry, indent=2), file=out)
    return 0


def _cmd_select(args) -> int:
    out = _summaries(args)
    check_output(args.output, [args.candidates, *(args.references or [])])
    ids, sets, references = _candidate_sets(args)
    refs = None
    if args.against == "references":
        if references is None:
            raise UsageError("--against references needs -r REFS")
        ref_of = dict(zip(references.ids, references.captions, strict=True))
        missing = [i for i in ids if not ref_of.get(i)]
        if missing:
            raise UsageError(
                f"{args.candidates}: {len(missing)} image(s) without references in "
                f"{references.source}: {', '.join(map(repr, missing[:5]))}"
            )
        refs = [ref_of[i] for i in ids]
    elif references is not None:
        raise UsageError("-r REFS is used only with --against references")
    pick = mbr_select(
        sets, refs, against=args.against, n=args.n, sigma=args.sigma, df=_load_df(args.df),
        tokenizer=args.tokenizer, n_jobs=args.n_jobs,
    )  # fmt: skip
    chosen = [{"image_id": i, "caption": c} for i, c in zip(ids, pick.captions, strict=True)]
    with open_output(args.output, text=True) as f:
        f.write(json.dumps(chosen) + "\n")
    if args.per_image:
        _write_lines(args.per_image, [
            {"id": i, "index": k, "score": _number(s)}  # null: a set of one, no consensus
            for i, k, s in zip(ids, pick.index.tolist(), pick.scores.tolist(), strict=True)
        ])  # fmt: skip
    entry = {
        "candidates": args.candidates,
        "metric": pick.signature.metric,
        "score": _number(pick.score),
        "signature": pick.signature,
        "n_images": pick.n_images,
        "n_candidates": int(pick.candidate_scores.shape[0]),
        "output": args.output,
    }
    print(_text_line(entry) if args.format == "text" else json.dumps(entry, indent=2), file=out)
    return 0


# ---- the demo ------------------------------------------------------------------------


def _demo(fmt: str) -> int:
    _, candidates, references = load_demo(tokenized=False)
    start = time.perf_counter()
    result = cider_d(candidates, references, tokenizer="ptb")
    seconds = time.perf_counter() - start
    if fmt == "json":
        print(json.dumps({
            **_summary(result),
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


# ---- the parser --------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _nonnegative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparsecider",
        description="CIDEr and CIDEr-D on sparse matrices, identical to pycocoevalcap.",
    )
    parser.add_argument("--version", action="version", version=f"sparsecider {__version__}")
    parser.add_argument(
        "--demo", action="store_true",
        help="score the bundled 1,000-image COCO val example (coco-caption's demo) and "
        "compare with its published CIDEr",
    )  # fmt: skip
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help=argparse.SUPPRESS
    )
    sub = parser.add_subparsers(dest="command")

    score = sub.add_parser("score", help="score candidate files against references")
    score.add_argument("-r", "--references", action="append", required=True, metavar="REFS",
                       help="references: COCO annotations, JSON lines, or text (repeat -r for "
                       "aligned one-reference-per-line files; '-' is stdin)")  # fmt: skip
    score.add_argument("-c", "--candidates", action="append", required=True, metavar="CANDS",
                       help="candidates: COCO results, JSON lines or text; repeat for several "
                       "systems")  # fmt: skip
    score.add_argument("--input-format", choices=FORMATS, default="auto", help="override detection")
    score.add_argument("--metric", default="cider-d", metavar="METRIC[,METRIC...]",
                       help="one or a comma list of " + ", ".join(SCORE_METRICS) + " (bleu: "
                       "BLEU-1..4); several give the paper table (see --format table)")  # fmt: skip
    score.add_argument("--tokenizer", choices=registered(), default="ptb",
                       help="ptb: raw text, as pycocoevalcap; whitespace: already "
                       "tokenized; char, jieba (Chinese), mecab (Japanese), kiwi (Korean): "
                       "see the README")  # fmt: skip
    score.add_argument("--df", default="corpus", metavar="corpus|NAME|FILE",
                       help="document frequencies: from the references (corpus), shipped in "
                       "the package (coco-val2014; see 'sparsecider df list') or a file "
                       "written by 'sparsecider df fit'")  # fmt: skip
    score.add_argument("--n", type=_positive_int, default=4)
    score.add_argument("--sigma", type=float, default=6.0)
    score.add_argument("--format", choices=["json", "text", "tsv", "table"], default="json")
    score.add_argument("--per-image", metavar="OUT", help="write one JSON line per image to OUT")
    score.add_argument("--bootstrap", type=_positive_int, metavar="N",
                       help="percentile bootstrap confidence interval over N resamples of "
                       "images")  # fmt: skip
    score.add_argument("--seed", type=_nonnegative_int, default=12345)
    score.add_argument("--confidence", type=float, default=0.95)
    score.add_argument("--paired", action="store_true",
                       help="paired significance of each system against the first")  # fmt: skip

    score.add_argument(
        "--n-jobs", type=int, default=-1, help="threads (default -1: one per CPU; 1: one)"
    )
    score.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress bars on stderr (needs tqdm; default: when stderr is a terminal)",
    )  # fmt: skip

    st = sub.add_parser(
        "stream",
        help="score JSON-lines records too large for memory, a chunk at a time",
        description='Each line: {"id": ..., "candidate": str or [str, ...], '
        '"references": [str, ...]}.  Document frequencies are fitted in a first pass '
        "(unless --df FILE), then chunks are scored and one JSON line per image is written "
        "to OUT.  Results equal 'sparsecider score' on the same data, bit for bit.",
    )
    st.add_argument("records", nargs="+", metavar="RECORDS.jsonl[.gz]")
    st.add_argument("-o", "--output", required=True, metavar="OUT",
                    help="per-image scores (JSON lines); with --fit-only, the df file")  # fmt: skip
    st.add_argument("--metric", choices=["cider-d", "cider"], default="cider-d")
    st.add_argument("--tokenizer", choices=registered(), default="ptb")
    st.add_argument("--df", default="corpus", metavar="corpus|NAME|FILE")
    st.add_argument("--n", type=_positive_int, default=4)
    st.add_argument("--sigma", type=float, default=6.0)
    st.add_argument("--chunk-size", type=_positive_int, default=20_000, help="images per chunk")
    st.add_argument(
        "--n-jobs", type=int, default=-1, help="threads (default -1: one per CPU; 1: one)"
    )
    st.add_argument("--fit-only", action="store_true",
                    help="only fit the document frequencies and save them to OUT")  # fmt: skip
    st.add_argument("--progress", action="store_true", help="progress bars (needs tqdm)")

    for name, helptext in (
        ("diversity", "Self-CIDEr of each image's set of captions (several per image)"),
        ("select", "consensus (MBR) selection of one caption per image; writes a results file"),
    ):
        sets = sub.add_parser(name, help=helptext, description=helptext + ".")
        sets.add_argument("-c", "--candidates", required=True, metavar="CANDS",
                          help="several captions per image: COCO results (repeated image "
                          "ids), JSON lines (a list or repeated lines per id) or text "
                          "(tab-separated)")  # fmt: skip
        sets.add_argument("-r", "--references", action="append", metavar="REFS",
                          help="diversity: references whose document frequencies weigh the "
                          "n-grams (every image of the file); select: the references of "
                          "--against references")  # fmt: skip
        sets.add_argument("--input-format", choices=FORMATS, default="auto")
        sets.add_argument("--tokenizer", choices=registered(), default="ptb")
        sets.add_argument("--df", default="corpus", metavar="corpus|NAME|FILE",
                          help="document frequencies: corpus (diversity: from -r REFS; "
                          "select: from what is scored against), a shipped name (coco-val2014) "
                          "or a file")  # fmt: skip
        sets.add_argument("--n", type=_positive_int, default=4)
        sets.add_argument("--per-image", metavar="OUT", help="write one JSON line per image")
        sets.add_argument("--format", choices=["json", "text"], default="json")
        sets.add_argument("--n-jobs", type=int, default=-1, help="threads (default: one per CPU)")
        if name == "select":
            sets.add_argument("-o", "--output", required=True, metavar="OUT",
                              help="the chosen captions, a COCO results file")  # fmt: skip
            sets.add_argument("--against", choices=["candidates", "references"],
                              default="candidates",
                              help="candidates: consensus (mean CIDEr-D against the set's other "
                              "captions); references: the oracle best-of-n")  # fmt: skip
            sets.add_argument("--sigma", type=float, default=6.0)

    df = sub.add_parser("df", help="document frequencies: fit, info, list, convert")
    df_sub = df.add_subparsers(dest="df_command", required=True)
    fit = df_sub.add_parser("fit", help="fit on references and save")
    fit.add_argument("references", nargs="+", metavar="REFS")
    fit.add_argument("-o", "--output", required=True)
    fit.add_argument("--n", type=_positive_int, default=4)
    fit.add_argument("--tokenizer", choices=registered(), default="ptb")
    fit.add_argument("--input-format", choices=FORMATS, default="auto")
    fit.add_argument("--name", help="a name for the frequencies, shown in signatures")
    fit.add_argument("--prune", action="store_true",
                     help="leave out n-grams seen in one image (scores unchanged, file smaller; "
                     "a pruned file cannot be merged)")  # fmt: skip
    info = df_sub.add_parser("info", help="describe a saved file or a shipped name")
    info.add_argument("file", metavar="FILE|NAME")
    df_sub.add_parser("list", help="the document frequencies shipped in the package")
    convert = df_sub.add_parser("convert", help="import a legacy pickle (CIDEr / SCST code)")
    convert.add_argument("legacy", metavar="LEGACY.p")
    convert.add_argument("-o", "--output", required=True)
    convert.add_argument("--n-images", type=_positive_int, default=None,
                         help="for bare {ngram: df} pickles (default 40504, COCO val)")  # fmt: skip
    return parser


def _terminate(signum, frame) -> None:
    # SIGTERM unwinds like Ctrl-C, so temporary outputs are removed on the way
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with warnings.catch_warnings():
            # one line per warning, as the errors (not the Python source line behind it)
            warnings.showwarning = _show_warning
            return _run(parser, args)
    except KeyboardInterrupt:  # Ctrl-C: outputs already cleaned up on the way out
        print("sparsecider: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly, like other filters
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sparsecider: {category.__name__}: {message}", file=file or sys.stderr)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        if getattr(args, "progress", None) is True and importlib.util.find_spec("tqdm") is None:
            raise UsageError("--progress needs tqdm: pip install 'sparsecider[progress]'")
        if args.demo:
            return _demo(args.format)
        if args.command == "score":
            if not 0 < args.confidence < 1:
                raise UsageError(f"--confidence must be between 0 and 1, got {args.confidence}")
            if not args.sigma > 0:
                raise UsageError(f"--sigma must be > 0, got {args.sigma}")
            args.metrics = _metric_list(args.metric)
            args.metric = args.metrics[0]
            return _cmd_score(args)
        if args.command == "df":
            return _cmd_df(args)
        if args.command == "diversity":
            return _cmd_diversity(args)
        if args.command == "select":
            if not args.sigma > 0:
                raise UsageError(f"--sigma must be > 0, got {args.sigma}")
            return _cmd_select(args)
        if args.command == "stream":
            if not args.sigma > 0:
                raise UsageError(f"--sigma must be > 0, got {args.sigma}")
            return _cmd_stream(args)
    except BrokenPipeError:
        raise
    except (UsageError, CaptionFileError, ValueError, TypeError, OSError, ImportError) as err:
        print(f"sparsecider: error: {err}", file=sys.stderr)
        return 1
    parser.print_help(sys.stderr)
    return 2
