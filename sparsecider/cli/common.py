"""What the subcommands share: the one-line usage error, the JSON summary of a
result, where summaries go, reading candidates aligned with references, and
the text, TSV and JSON reports."""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
from collections.abc import Iterable
from typing import TextIO

import numpy as np

from ..io.captions import align, open_output, read_candidates
from ..io.text import writes_to_stdout

__all__ = [
    "CIDER_FAMILY",
    "SCORE_METRICS",
    "SUMMED_METRICS",
    "UsageError",
    "candidate_files",
    "candidates_per_image",
    "flat",
    "image_ranges",
    "json_number",
    "load_df",
    "metric_list",
    "print_json",
    "print_tsv",
    "read_aligned",
    "report_notes",
    "score_metric",
    "summary",
    "summary_stream",
    "text_line",
    "write_lines",
]


class UsageError(Exception):
    """A problem with the input: reported on one line, exit status 1."""


def summary(result) -> dict:
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


def load_df(spec: str):
    """``--df``: what ``df=`` accepts (``corpus``, a shipped name, a df file), by the same rule."""
    from ..core.validate import check_df

    try:
        return check_df(spec, 1) or "corpus"
    except ValueError as err:
        raise UsageError(f"--df {spec}: {err}") from None


def candidate_files(args, desc: str) -> Iterable[str]:
    """The candidate files, with a bar when there are several (``--progress``)."""
    from ..core.progress import iterate  # the core is imported when a command runs

    shown = args.progress if len(args.candidates) > 1 else False
    return iterate(args.candidates, shown, desc, unit="file")


def json_number(x: float) -> float | None:
    """A score as JSON: null where there is none (nan is not JSON)."""
    return x if math.isfinite(x) else None


def summary_stream(args) -> TextIO:
    """Where a command prints its summary: standard error when its data
    output is standard output (``-``), so a pipe receives only the data."""
    outputs = (getattr(args, "per_image", None), getattr(args, "output", None))
    return sys.stderr if any(o and writes_to_stdout(o) for o in outputs) else sys.stdout


def read_aligned(args, references, cand_path: str):
    """One candidates file, aligned with the references; and the seconds it took."""
    start = time.perf_counter()
    candidates = read_candidates(cand_path, args.input_format, several=args.several)
    ids, cands, refs, unscored = align(references, candidates)
    return candidates, ids, cands, refs, unscored, time.perf_counter() - start


def text_line(entry: dict, prefix: str = "") -> str:
    ci = ""
    if "ci" in entry:
        c = entry["ci"]
        ci = f" ({c['confidence'] * 100:g}% CI {c['low']:.4f}-{c['high']:.4f})"
    notes = "".join(f" [{note}]" for note in report_notes(entry))
    score = "none" if entry["score"] is None else f"{entry['score']:.4f}"
    return f"{prefix}{entry['metric']} = {score}{ci}{notes} | {entry['signature']}"


def report_notes(entry: dict) -> list[str]:
    """What a one-line report must not hide: empty candidates, the unit of the
    mean, images without a score, reference images without a candidate."""
    notes = []
    if entry.get("unscored_reference_images"):  # a truncated results file changes the score
        k = entry["unscored_reference_images"]
        notes.append(
            f"{k} reference image{' has' if k == 1 else 's have'} no candidate: the mean is over "
            f"the {entry['n_images']} images of the results"
        )
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


def candidates_per_image(result) -> np.ndarray | None:
    """Each image's number of candidates, or None when every image has one."""
    if result.n_candidates == result.n_images:
        return None
    return np.bincount(result.image_index, minlength=result.n_images)


def image_ranges(result) -> list[tuple[int, int]]:
    """Each image's candidates: ``(lo, hi)``, positions in ``result.scores``
    (candidates come image after image)."""
    bounds = np.searchsorted(result.image_index, np.arange(result.n_images + 1)).tolist()
    return list(itertools.pairwise(bounds))


def print_tsv(columns: list[str], rows: list[list], out: TextIO) -> None:
    """A header and tab-separated rows (numbers as ``repr``: every digit kept)."""
    print("\t".join(columns), file=out)
    for row in rows:
        print("\t".join(map(str, row)), file=out)


def print_json(entries: list[dict], references, read_refs_s: float, out: TextIO,
                **extra: object) -> None:  # fmt: skip
    """The JSON report of one system (or ``{"systems": [...]}``), with the references read."""
    payload: dict = entries[0] if len(entries) == 1 else {"systems": entries}
    payload["references"] = references.source
    payload["read_references_s"] = round(read_refs_s, 4)
    payload.update((k, v) for k, v in extra.items() if v)
    print(json.dumps(payload, indent=2), file=out)


SCORE_METRICS = ("cider-d", "cider", "cider-r", "bleu", "rouge-l", "meteor")
#: the metrics whose corpus score sums statistics (not a mean over images)
SUMMED_METRICS = ("bleu", "meteor")


CIDER_FAMILY = ("cider-d", "cider", "cider-r")


def metric_list(text: str) -> list[str]:
    """``--metric bleu,rouge-l,cider-d`` as a list (repeats dropped), checked."""
    metrics = list(dict.fromkeys(m.strip().lower() for m in text.split(",")))
    unknown = [m for m in metrics if m not in SCORE_METRICS]
    if unknown:
        raise UsageError(
            f"--metric {text}: unknown {', '.join(map(repr, unknown))}; use one or a comma "
            "list of " + ", ".join(SCORE_METRICS)
        )
    return metrics


def score_metric(metric: str, cands: list[str], refs: list[list[str]], args, df):
    """One metric's result (the options it does not take are not passed)."""
    from ..metrics.bleu import bleu
    from ..metrics.cider import cider, cider_d
    from ..metrics.cider_r import cider_r
    from ..metrics.meteor.api import meteor
    from ..metrics.rouge import rouge_l

    common = {"tokenizer": args.tokenizer, "n_jobs": args.n_jobs}
    if metric == "bleu":
        return bleu(cands, refs, n=args.n, **common)
    if metric == "rouge-l":
        return rouge_l(cands, refs, **common)
    if metric == "meteor":  # METEOR 1.5 normalises its text itself: ptb or whitespace first
        from ..metrics.meteor.data import MeteorDataError

        try:
            return meteor(cands, refs, tokenizer=args.tokenizer)
        except MeteorDataError as err:  # damaged data files: one line, as every error
            raise UsageError(str(err)) from None
    if metric == "cider":
        return cider(cands, refs, n=args.n, df=df, progress=args.progress, **common)
    if metric == "cider-r":  # SacreEOS's defaults (repeat 0.8, length 0.2, alpha 1)
        return cider_r(cands, refs, n=args.n, df=df, **common)
    return cider_d(cands, refs, n=args.n, sigma=args.sigma, df=df, progress=args.progress, **common)


def flat(cands: list[str | list[str]]) -> list[str]:
    return [c for cs in cands for c in ([cs] if isinstance(cs, str) else cs)]


def write_lines(path: str, rows: list[dict]) -> None:
    with open_output(path, text=True) as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
