"""The ``sparsecider`` command line (also ``python -m sparsecider``).

::

    sparsecider score -r captions_val2014.json -c results.json [--bootstrap 1000]
    sparsecider score -r refs.jsonl -c sys_a.jsonl -c sys_b.jsonl --paired --format text
    sparsecider df fit -o coco-train.df.npz train_annotations.json
    sparsecider df info coco-train.df.npz
    sparsecider df convert coco-train-idxs.p -o coco-train-idxs.df.npz
    sparsecider --demo

Errors are one line on stderr naming the file and the line or image id, with
exit status 1 (2 for a wrong command line); no output file is left behind.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from ._version import __version__
from .api import cider, cider_d
from .demo import PUBLISHED_CIDER_D, load_demo
from .frequencies import NAMED, DocumentFrequencies
from .io.captions import (
    FORMATS,
    CaptionFileError,
    align,
    atomic_write,
    read_candidates,
    read_references,
)
from .significance import approximate_randomization, bootstrap_ci, paired_bootstrap

__all__ = ["main"]


class UsageError(Exception):
    """A problem with the input: reported on one line, exit status 1."""


def _progress(items: list, desc: str) -> Iterable:
    """A tqdm bar on an interactive stderr when tqdm is installed; else the items."""
    if len(items) < 2 or not sys.stderr.isatty():
        return items
    try:
        from tqdm import tqdm
    except ImportError:
        return items
    return tqdm(items, desc=desc, file=sys.stderr, leave=False)


# ---- sparsecider score -----------------------------------------------------------


def _summary(result) -> dict:
    """The fields every JSON report of a result starts with."""
    return {
        "metric": result.metric,
        "score": result.score,
        "signature": result.signature,
        "n_images": result.n_images,
        "n_candidates": result.n_candidates,
    }


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


def _score_one(args, df, references, cand_path: str) -> dict:
    start = time.perf_counter()
    candidates = read_candidates(cand_path, args.input_format)
    ids, cands, refs, unscored = align(references, candidates)
    read_s = time.perf_counter() - start
    start = time.perf_counter()
    if args.metric == "cider":
        result = cider(cands, refs, n=args.n, df=df, tokenizer=args.tokenizer, n_jobs=args.n_jobs)
    else:
        result = cider_d(
            cands, refs, n=args.n, sigma=args.sigma, df=df, tokenizer=args.tokenizer,
            n_jobs=args.n_jobs,
        )  # fmt: skip
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
    return f"{prefix}{entry['metric']} = {entry['score']:.4f}{ci} | {entry['signature']}"


def _cmd_score(args) -> int:
    if args.paired and len(args.candidates) < 2:
        raise UsageError("--paired compares systems: give two or more -c files")
    df = _load_df(args.df)
    start = time.perf_counter()
    references = read_references(args.references, args.input_format)
    read_refs_s = time.perf_counter() - start
    systems = [
        _score_one(args, df, references, path) for path in _progress(args.candidates, "scoring")
    ]
    paired = _paired(systems, args) if args.paired else []
    if args.per_image:

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as f:
                for system in systems:
                    result, ids = system["result"], system["ids"]
                    for i, image_id in enumerate(ids):
                        row = {"id": image_id, "score": float(result.scores[i]),
                               "per_order": [float(v) for v in result.per_order[i]]}  # fmt: skip
                        if len(systems) > 1:
                            row["system"] = system["entry"]["candidates"]
                        f.write((json.dumps(row) + "\n").encode("utf-8"))

        atomic_write(args.per_image, write)
    entries = [s["entry"] for s in systems]
    if args.format == "text":
        for entry in entries:
            print(_text_line(entry, f"{entry['candidates']}: " if len(entries) > 1 else ""))
        for p in paired:
            print(
                f"{p['system']} vs {p['baseline']}: delta {p['delta']:+.4f}, "
                f"p = {p['p_paired_bootstrap']:.4f} (paired bootstrap), "
                f"p = {p['p_approximate_randomization']:.4f} (approximate randomization)"
            )
    elif args.format == "tsv":
        print("candidates\tmetric\tscore\tci_low\tci_high\tn_images\tsignature")
        for e in entries:
            low, high = (e["ci"]["low"], e["ci"]["high"]) if "ci" in e else ("", "")
            print(
                f"{e['candidates']}\t{e['metric']}\t{e['score']!r}\t{low}\t{high}\t{e['n_images']}\t{e['signature']}"
            )
    else:
        payload: dict = entries[0] if len(entries) == 1 else {"systems": entries}
        payload["references"] = references.source
        payload["read_references_s"] = round(read_refs_s, 4)
        if paired:
            payload["paired"] = paired
        print(json.dumps(payload, indent=2))
    return 0


# ---- sparsecider df --------------------------------------------------------------


def _save_df(df: DocumentFrequencies, path: str) -> None:
    atomic_write(path, df.save)


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
    if args.df_command == "fit":
        refs = read_references(args.references, args.input_format)
        df = DocumentFrequencies.from_references(refs.captions, n=args.n, tokenizer=args.tokenizer)
        if args.prune:
            df = df.pruned()
        if args.name:
            df = df.renamed(args.name)
        _save_df(df, args.output)
        print(json.dumps(_describe_df(df, args.output), indent=2))
    elif args.df_command == "info":
        path = None if args.file in NAMED else args.file
        print(json.dumps(_describe_df(_load_df(args.file), path), indent=2))
    elif args.df_command == "list":
        print(json.dumps([
            {"name": name, "n_images": entry["n_images"], "description": entry["description"],
             "credit": entry["credit"]}
            for name, entry in NAMED.items()
        ], indent=2))  # fmt: skip
    else:
        df = DocumentFrequencies.from_pickle(args.legacy, n_images=args.n_images)
        _save_df(df, args.output)
        print(json.dumps(_describe_df(df, args.output), indent=2))
    return 0


# ---- sparsecider stream ----------------------------------------------------------


def _cmd_stream(args) -> int:
    from . import stream

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
        print(json.dumps(summary, indent=2))
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
    }, indent=2))  # fmt: skip
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
    score.add_argument("--metric", choices=["cider-d", "cider"], default="cider-d")
    score.add_argument("--tokenizer", choices=["ptb", "whitespace"], default="ptb",
                       help="ptb: raw text, as pycocoevalcap; whitespace: already "
                       "tokenized")  # fmt: skip
    score.add_argument("--df", default="corpus", metavar="corpus|NAME|FILE",
                       help="document frequencies: from the references (corpus), shipped in "
                       "the package (coco-val2014; see 'sparsecider df list') or a file "
                       "written by 'sparsecider df fit'")  # fmt: skip
    score.add_argument("--n", type=_positive_int, default=4)
    score.add_argument("--sigma", type=float, default=6.0)
    score.add_argument("--format", choices=["json", "text", "tsv"], default="json")
    score.add_argument("--per-image", metavar="OUT", help="write one JSON line per image to OUT")
    score.add_argument("--bootstrap", type=_positive_int, metavar="N",
                       help="percentile bootstrap confidence interval over N resamples of "
                       "images")  # fmt: skip
    score.add_argument("--seed", type=int, default=12345)
    score.add_argument("--confidence", type=float, default=0.95)
    score.add_argument("--paired", action="store_true",
                       help="paired significance of each system against the first")  # fmt: skip

    score.add_argument(
        "--n-jobs", type=int, default=-1, help="threads (default -1: one per CPU; 1: one)"
    )

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
    st.add_argument("--tokenizer", choices=["ptb", "whitespace"], default="ptb")
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

    df = sub.add_parser("df", help="document frequencies: fit, info, list, convert")
    df_sub = df.add_subparsers(dest="df_command", required=True)
    fit = df_sub.add_parser("fit", help="fit on references and save")
    fit.add_argument("references", nargs="+", metavar="REFS")
    fit.add_argument("-o", "--output", required=True)
    fit.add_argument("--n", type=_positive_int, default=4)
    fit.add_argument("--tokenizer", choices=["ptb", "whitespace"], default="ptb")
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.demo:
            return _demo(args.format)
        if args.command == "score":
            if not 0 < args.confidence < 1:
                raise UsageError(f"--confidence must be between 0 and 1, got {args.confidence}")
            if not args.sigma > 0:
                raise UsageError(f"--sigma must be > 0, got {args.sigma}")
            return _cmd_score(args)
        if args.command == "df":
            return _cmd_df(args)
        if args.command == "stream":
            if not args.sigma > 0:
                raise UsageError(f"--sigma must be > 0, got {args.sigma}")
            return _cmd_stream(args)
    except (UsageError, CaptionFileError, ValueError, TypeError, OSError) as err:
        print(f"sparsecider: error: {err}", file=sys.stderr)
        return 1
    parser.print_help(sys.stderr)
    return 2
