"""``sparsecider diversity`` and ``select``: several captions per image."""

from __future__ import annotations

import json
import time

import numpy as np

from ..core.frequencies import DocumentFrequencies
from ..io.captions import check_output, open_output, read_candidates, read_references
from ..metrics.mbr import mbr_select
from ..metrics.self_cider import self_cider
from .common import UsageError, json_number, load_df, summary_stream, text_line, write_lines

__all__ = ["run_diversity", "run_select"]


def _candidate_sets(args) -> tuple[list, list[list[str]], object]:
    """Each image's captions from ``-c`` (several per image), and the references (or None)."""
    sets = read_candidates(args.candidates, args.input_format, several=True)
    references = read_references(args.references, args.input_format) if args.references else None
    return sets.ids, sets.captions, references


def run_diversity(args) -> int:
    out = summary_stream(args)
    if args.per_image:
        check_output(args.per_image, [args.candidates, *(args.references or [])])
    start = time.perf_counter()
    ids, sets, references = _candidate_sets(args)
    df = load_df(args.df)
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
        "score": json_number(result.score),
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
        write_lines(args.per_image, [
            {"id": i, "self_cider": json_number(s), "n_captions": int(m)}
            for i, s, m in zip(ids, result.scores.tolist(), result.sizes.tolist(), strict=True)
        ])  # fmt: skip
    print(text_line(entry) if args.format == "text" else json.dumps(entry, indent=2), file=out)
    return 0


def run_select(args) -> int:
    out = summary_stream(args)
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
        sets, refs, against=args.against, n=args.n, sigma=args.sigma, df=load_df(args.df),
        tokenizer=args.tokenizer, n_jobs=args.n_jobs,
    )  # fmt: skip
    chosen = [{"image_id": i, "caption": c} for i, c in zip(ids, pick.captions, strict=True)]
    with open_output(args.output, text=True) as f:
        f.write(json.dumps(chosen) + "\n")
    if args.per_image:
        write_lines(args.per_image, [
            {"id": i, "index": k, "score": json_number(s)}  # null: a set of one, no consensus
            for i, k, s in zip(ids, pick.index.tolist(), pick.scores.tolist(), strict=True)
        ])  # fmt: skip
    entry = {
        "candidates": args.candidates,
        "metric": pick.signature.metric,
        "score": json_number(pick.score),
        "signature": pick.signature,
        "n_images": pick.n_images,
        "n_candidates": int(pick.candidate_scores.shape[0]),
        "output": args.output,
    }
    print(text_line(entry) if args.format == "text" else json.dumps(entry, indent=2), file=out)
    return 0
