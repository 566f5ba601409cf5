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
import itertools
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

from .._version import __version__
from ..core.frequencies import DocumentFrequencies
from ..core.progress import iterate
from ..core.validate import SIGMA_RANGE, check_df
from ..demo import EXAMPLE_FILES, PUBLISHED_CIDER_D, load_demo, write_examples
from ..io.captions import (
    FORMATS,
    CaptionFileError,
    align,
    check_output,
    open_output,
    read_candidates,
    read_references,
)
from ..io.named import NAMED
from ..io.text import writes_to_stdout
from ..metrics.bleu import bleu
from ..metrics.cider import cider, cider_d
from ..metrics.cider_r import cider_r
from ..metrics.mbr import mbr_select
from ..metrics.rouge import rouge_l
from ..metrics.self_cider import self_cider
from ..significance import (
    MAX_RESAMPLES,
    approximate_randomization,
    bootstrap_ci,
    paired_bootstrap,
)
from ..tokenizers import registered

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
    """``--df``: what ``df=`` accepts (``corpus``, a shipped name, a df file), by the same rule."""
    try:
        return check_df(spec, 1) or "corpus"
    except ValueError as err:
        raise UsageError(f"--df {spec}: {err}") from None


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
    candidates = read_candidates(cand_path, args.input_format, several=args.several)
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
        # images are resampled, each with all its candidates
        ci = bootstrap_ci(
            result.image_scores(), weights=_candidates_per_image(result),
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


def _text_line(entry: dict, prefix: str = "") -> str:
    ci = ""
    if "ci" in entry:
        c = entry["ci"]
        ci = f" ({c['confidence'] * 100:g}% CI {c['low']:.4f}-{c['high']:.4f})"
    notes = "".join(f" [{note}]" for note in _notes(entry))
    score = "none" if entry["score"] is None else f"{entry['score']:.4f}"
    return f"{prefix}{entry['metric']} = {score}{ci}{notes} | {entry['signature']}"


def _notes(entry: dict) -> list[str]:
    """What a one-line report must not hide: empty candidates, the unit of the
    mean, images without a score."""
    notes = []
    if entry.get("images_without_score"):
        k, n = entry["images_without_score"], entry["n_images"]
        if k == n:
            notes.append(
                "no image has two non-empty captions to compare: Self-CIDEr measures how "
                "different each image's captions are; give several per image"
            )
        else:
            notes.append(
                f"{k} of {n} images have no score (one caption, or empty captions only: "
                f"nothing to compare); the mean is over the other {n - k}"
            )
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
        rows = []
        for system in systems:
            result = system["result"]
            scores, per_order = result.scores.tolist(), result.per_order.tolist()
            for image_id, (lo, hi) in zip(system["ids"], _image_ranges(result), strict=True):
                row = {"id": image_id}
                if len(systems) > 1:
                    row["system"] = system["entry"]["candidates"]
                if hi - lo == 1:
                    row.update(score=scores[lo], per_order=per_order[lo])
                else:  # several candidates: one value each, in file order (as 'stream')
                    row.update(scores=scores[lo:hi], per_order=per_order[lo:hi])
                rows.append(row)
        _write_lines(args.per_image, rows)
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


def _candidates_per_image(result) -> np.ndarray | None:
    """Each image's number of candidates, or None when every image has one."""
    if result.n_candidates == result.n_images:
        return None
    return np.bincount(result.image_index, minlength=result.n_images)


def _image_ranges(result) -> list[tuple[int, int]]:
    """Each image's candidates: ``(lo, hi)``, positions in ``result.scores``
    (candidates come image after image)."""
    bounds = np.searchsorted(result.image_index, np.arange(result.n_images + 1)).tolist()
    return list(itertools.pairwise(bounds))


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
    empty = sum(1 for c in _flat(cands) if not c.strip())
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
    return {"entry": entry, "ids": ids, "per_image": per_image, "ranges": _image_ranges(result)}


def _flat(cands: list[str | list[str]]) -> list[str]:
    return [c for cs in cands for c in ([cs] if isinstance(cs, str) else cs)]


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
        # an image's value, or the list of its candidates' values when it has several
        _write_lines(args.per_image, [
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
    from .. import stream

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
    undefined = int(np.count_nonzero(~np.isfinite(result.scores)))
    entry = {
        "candidates": args.candidates,
        "metric": "Self-CIDEr",
        # null, not NaN (which is not JSON): no image has two captions to compare
        "score": _number(result.score),
        "signature": result.signature,
        "n_images": result.n_images,
        "n_candidates": int(result.sizes.sum()),
        "set_sizes": {str(k): int(v) for k, v in zip(*sizes, strict=True)},
        # sets of one caption (or of empty captions only) have no Self-CIDEr
        "images_without_score": undefined,
        "references": references.source if references is not None else None,
        "timings": {"read_s": round(read_s, 4), "score_s": round(time.perf_counter() - start, 4)},
    }
    if args.per_image:
        _write_lines(args.per_image, [
            {"id": i, "self_cider": _number(s), "n_captions": int(m)}
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


def _cmd_demo(args) -> int:
    if args.write is None:
        return _demo(args.format)
    try:
        paths = write_examples(args.write)
    except FileExistsError as err:
        raise UsageError(str(err)) from None
    for path in paths:
        print(f"{path}: {EXAMPLE_FILES[path.name]}")
    return 0


# ---- the parser --------------------------------------------------------------------------


def _parsed(text: str, convert, what: str):
    """``text`` converted (``int`` or ``float``), or the argparse error saying what it must be."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if convert is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def _positive_int(text: str) -> int:
    value = _parsed(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _resamples(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_RESAMPLES:,}, got {value:,}")
    return value


def _nonnegative_int(text: str) -> int:
    value = _parsed(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _sigma(text: str) -> float:
    """``--sigma``: the range of the API's ``sigma`` (where ``sigma**2`` stays finite)."""
    value = _parsed(text, float, "a number")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    if not SIGMA_RANGE[0] <= value <= SIGMA_RANGE[1]:
        raise argparse.ArgumentTypeError(
            f"must lie in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}] (beyond, sigma**2 under- or "
            f"overflows), got {text}"
        )
    return value


def _probability(text: str) -> float:
    value = _parsed(text, float, "a number")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


_TOKENIZER_HELP = (
    "how captions become tokens: ptb (raw English text, as pycocoevalcap; the default), "
    "whitespace (already tokenized), char (Chinese or Japanese, one token per character), "
    "jieba (Chinese), mecab (Japanese), kiwi (Korean); the last three need "
    "'pip install sparsecider[NAME]'"
)
_DF_HELP = (
    "document frequencies: corpus (from the references scored), a name shipped in the "
    "package ({names}; see 'sparsecider df list') or a file written by 'sparsecider df fit' or "
    "'df convert'"
)
_N_HELP = "highest n-gram order, 1 to 64 (default 4: 1- to 4-grams, as CIDEr)"
_SIGMA_HELP = "width of CIDEr-D's Gaussian length penalty, > 0 (default 6, as pycocoevalcap)"
_N_JOBS_HELP = "threads (default -1: one per CPU; 1: one)"


def _common(parser: argparse.ArgumentParser, *, df: str = _DF_HELP) -> None:
    """The options of every scoring command: tokenizer, df, n, threads."""
    parser.add_argument("--tokenizer", choices=registered(), default="ptb", metavar="NAME",
                        help=_TOKENIZER_HELP)  # fmt: skip
    parser.add_argument("--df", default="corpus", metavar="corpus|NAME|FILE",
                        help=df.format(names=", ".join(NAMED)))  # fmt: skip
    parser.add_argument("--n", type=_positive_int, default=4, metavar="N", help=_N_HELP)
    parser.add_argument("--n-jobs", type=int, default=-1, metavar="J", help=_N_JOBS_HELP)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparsecider",
        description="CIDEr and CIDEr-D on sparse matrices, identical to pycocoevalcap.",
        epilog="'sparsecider COMMAND --help' describes each command; 'sparsecider demo "
        "--write DIR' writes example files to try them on.",
    )
    parser.add_argument("--version", action="version", version=f"sparsecider {__version__}")
    parser.add_argument(
        "--demo", action="store_true",
        help="score the bundled 1,000-image COCO val example (coco-caption's demo) and "
        "compare with its published CIDEr (the same as 'sparsecider demo')",
    )  # fmt: skip
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help=argparse.SUPPRESS
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="score the bundled COCO example; --write DIR saves example files",
        description="Score the 1,000 COCO val 2014 images of the coco-caption demo (bundled, "
        "raw text) and compare with the published CIDEr; with --write DIR, write the "
        "example files the README's commands use instead.",
    )
    demo.add_argument("--write", metavar="DIR",
                      help="write the example files (COCO annotations and results, JSON "
                      "lines, several candidates per image, Chinese captions) to DIR "
                      "(created if needed; existing files are not overwritten)")  # fmt: skip
    demo.add_argument("--format", choices=["text", "json"], default="text",
                      help="text (default) or json")  # fmt: skip

    score = sub.add_parser(
        "score", help="score candidate files against references",
        description="Score one or more candidate files against references and print the "
        "corpus score with its signature (JSON by default).",
    )  # fmt: skip
    score.add_argument("-r", "--references", action="append", required=True, metavar="REFS",
                       help="references: COCO annotations, JSON lines, or text (repeat -r for "
                       "aligned one-reference-per-line files; '-' is stdin)")  # fmt: skip
    score.add_argument("-c", "--candidates", action="append", required=True, metavar="CANDS",
                       help="candidates: COCO results, JSON lines or text; repeat for several "
                       "systems; an image's candidates may be a list (JSON) or tab-separated "
                       "(text)")  # fmt: skip
    score.add_argument("--several", action="store_true",
                       help="repeated image ids in CANDS (COCO results rows, JSON lines) add "
                       "to the image's candidates instead of being an error; each candidate "
                       "is scored and counts once in the mean")  # fmt: skip
    score.add_argument("--input-format", choices=FORMATS, default="auto",
                       help="override the detection of the files' format")  # fmt: skip
    score.add_argument("--metric", default="cider-d", metavar="METRIC[,METRIC...]",
                       help="one or a comma list of " + ", ".join(SCORE_METRICS) + " (bleu: "
                       "BLEU-1..4); several give the paper table (see --format table)")  # fmt: skip
    _common(score)
    score.add_argument("--sigma", type=_sigma, default=6.0, help=_SIGMA_HELP)
    score.add_argument("--format", choices=["json", "text", "tsv", "table"], default="json",
                       help="json (default: every figure, machine-readable), text (one "
                       "line per system), tsv, or table (markdown, several metrics)")  # fmt: skip
    score.add_argument("--per-image", metavar="OUT", help="write one JSON line per image to OUT")
    score.add_argument("--bootstrap", type=_resamples, metavar="N",
                       help="percentile bootstrap confidence interval over N resamples of "
                       f"images (1 to {MAX_RESAMPLES:,})")  # fmt: skip
    score.add_argument("--seed", type=_nonnegative_int, default=12345,
                       help="seed of the bootstrap and paired tests (default 12345)")  # fmt: skip
    score.add_argument("--confidence", type=_probability, default=0.95,
                       help="coverage of the bootstrap interval (default 0.95)")  # fmt: skip
    score.add_argument("--paired", action="store_true",
                       help="paired significance of each system against the first")  # fmt: skip
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
    st.add_argument("records", nargs="+", metavar="RECORDS.jsonl[.gz]",
                    help="JSON-lines files, in order ('-' is stdin)")  # fmt: skip
    st.add_argument("-o", "--output", required=True, metavar="OUT",
                    help="per-image scores (JSON lines); with --fit-only, the df file")  # fmt: skip
    st.add_argument("--metric", choices=["cider-d", "cider"], default="cider-d",
                    help="cider-d (default) or cider (no clip, no length penalty)")  # fmt: skip
    _common(st)
    st.add_argument("--sigma", type=_sigma, default=6.0, help=_SIGMA_HELP)
    st.add_argument("--chunk-size", type=_positive_int, default=20_000, metavar="IMAGES",
                    help="images per chunk (default 20000)")  # fmt: skip
    st.add_argument("--fit-only", action="store_true",
                    help="only fit the document frequencies and save them to OUT")  # fmt: skip
    st.add_argument("--progress", action=argparse.BooleanOptionalAction, default=False,
                    help="progress bars on stderr (needs tqdm; default: off)")  # fmt: skip

    diversity = sub.add_parser(
        "diversity", help="Self-CIDEr: how diverse each image's set of captions is",
        description="Self-CIDEr (Wang and Chan 2019) of each image's set of captions: 0 when "
        "the captions are alike, up to 1 when they share nothing; a set of one has none "
        "(null). Needs document frequencies: -r REFS, or --df.",
    )  # fmt: skip
    select = sub.add_parser(
        "select", help="pick one caption per image from several (consensus or oracle)",
        description="Consensus (MBR) selection: from each image's candidates, pick the one "
        "with the highest mean CIDEr-D against the others (or, with --against references, "
        "against the references: the oracle best-of-n); writes a COCO results file.",
    )  # fmt: skip
    sets_help = ("several captions per image: COCO results (repeated image ids, or a list as "
                 "'caption'), JSON lines (a list or repeated lines per id) or text "
                 "(tab-separated)")  # fmt: skip
    diversity.add_argument("-c", "--candidates", required=True, metavar="CANDS", help=sets_help)
    diversity.add_argument("-r", "--references", action="append", metavar="REFS",
                           help="references whose document frequencies weigh the n-grams "
                           "(every image of the file counts, as the authors count all of "
                           "COCO val)")  # fmt: skip
    select.add_argument("-c", "--candidates", required=True, metavar="CANDS", help=sets_help)
    select.add_argument("-r", "--references", action="append", metavar="REFS",
                        help="the references of --against references")  # fmt: skip
    select.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="the chosen captions, a COCO results file")  # fmt: skip
    select.add_argument("--against", choices=["candidates", "references"],
                        default="candidates",
                        help="candidates: consensus (mean CIDEr-D against the set's other "
                        "captions); references: the oracle best-of-n")  # fmt: skip
    select.add_argument("--sigma", type=_sigma, default=6.0, help=_SIGMA_HELP)
    for sets, df_help in (
        (diversity, "document frequencies instead of -r REFS: a shipped name ({names}) or a "
         "file written by 'sparsecider df fit'"),
        (select, "document frequencies: corpus (from what is scored against), a shipped name "
         "({names}) or a file written by 'sparsecider df fit'"),
    ):  # fmt: skip
        sets.add_argument("--input-format", choices=FORMATS, default="auto",
                          help="override the detection of the files' format")  # fmt: skip
        _common(sets, df=df_help)
        sets.add_argument("--per-image", metavar="OUT", help="write one JSON line per image")
        sets.add_argument("--format", choices=["json", "text"], default="json",
                          help="json (default) or text (one line)")  # fmt: skip

    df = sub.add_parser("df", help="document frequencies: fit, info, list, convert")
    df_sub = df.add_subparsers(dest="df_command", required=True, metavar="COMMAND")
    fit = df_sub.add_parser("fit", help="fit on references and save",
                            description="Count, for every n-gram, the images whose references "
                            "hold it, and save the table (a versioned .npz).")  # fmt: skip
    fit.add_argument("references", nargs="+", metavar="REFS",
                     help="references: COCO annotations, JSON lines, or text (several files: "
                     "aligned, one reference per line)")  # fmt: skip
    fit.add_argument("-o", "--output", required=True, metavar="OUT",
                     help="the file to write (e.g. coco-train.df.npz)")  # fmt: skip
    fit.add_argument("--n", type=_positive_int, default=4, metavar="N", help=_N_HELP)
    fit.add_argument("--tokenizer", choices=registered(), default="ptb", metavar="NAME",
                     help=_TOKENIZER_HELP + "; score with the same one")  # fmt: skip
    fit.add_argument("--input-format", choices=FORMATS, default="auto",
                     help="override the detection of the files' format")  # fmt: skip
    fit.add_argument("--name", help="a name for the frequencies, shown in signatures")
    fit.add_argument("--prune", action="store_true",
                     help="leave out n-grams seen in one image (scores unchanged, file smaller; "
                     "a pruned file cannot be merged)")  # fmt: skip
    info = df_sub.add_parser("info", help="describe a saved file or a shipped name")
    info.add_argument("file", metavar="FILE|NAME", help="a df file or a shipped name")
    df_sub.add_parser("list", help="the document frequencies shipped in the package")
    convert = df_sub.add_parser("convert", help="import a legacy pickle (CIDEr / SCST code)",
                                description="Read a legacy document-frequency pickle of the "
                                "CIDEr or self-critical training code through a restricted "
                                "unpickler and save it as a .npz.")  # fmt: skip
    convert.add_argument("legacy", metavar="LEGACY.p", help="the pickle to convert")
    convert.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the file to write (e.g. coco-train-idxs.df.npz)")  # fmt: skip
    convert.add_argument("--n-images", type=_positive_int, default=None,
                         help="for bare {ngram: df} pickles (default 40504, COCO val)")  # fmt: skip
    return parser


def _terminate(signum, frame) -> None:
    # SIGTERM unwinds like Ctrl-C, so temporary outputs are removed on the way
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if sys.stdout is None and getattr(args, "output", None) is not None:
        # closed standard output (>&-) with results going to -o: only the summary is lost
        sys.stdout = open(os.devnull, "w")  # kept open for the rest of the process
    if sys.stdout is None:  # started with standard output closed (>&-): print() would drop it all
        if sys.stderr is not None:
            print(
                "sparsecider: error: standard output is closed; the results are written "
                "there: redirect it to a file (> scores.txt) or to /dev/null instead",
                file=sys.stderr,
            )
        return 1
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
            args.metrics = _metric_list(args.metric)
            args.metric = args.metrics[0]
            return _cmd_score(args)
        if args.command == "df":
            return _cmd_df(args)
        if args.command == "diversity":
            return _cmd_diversity(args)
        if args.command == "select":
            return _cmd_select(args)
        if args.command == "stream":
            return _cmd_stream(args)
        if args.command == "demo":
            return _cmd_demo(args)
    except BrokenPipeError:
        raise
    except (UsageError, CaptionFileError, ValueError, TypeError, OSError, ImportError) as err:
        print(f"sparsecider: error: {err}", file=sys.stderr)
        return 1
    parser.print_help(sys.stderr)
    return 2
