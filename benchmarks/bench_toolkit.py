"""The evaluation toolkits' pattern, the pycocoevalcap replacement vs the real Java path.

What lmms-eval's COCO-caption aggregation does, once per reported column
(Bleu_1..4, METEOR, ROUGE_L, CIDEr): build a pycocotools ``COCO`` and
``loadRes``, ``COCOEvalCap(coco, cocoRes)`` for its ``params`` and
``imgToAnns``, tokenize references and results with ``PTBTokenizer``, then
run that column's scorer (``Bleu(4)``'s score is a list).  Seven columns,
fourteen tokenizer runs.  (The toolkit builds all seven scorers on every
call, a METEOR process each time; here only the scorer used is built, on
both sides.)

Both sides run in this one process: the real package (Java: the Stanford
tokenizer, METEOR 1.5), then the same code after
``sparsecider.compat.hook.install()``, where METEOR is
``sparsecider.compat.Meteor`` (no Java; its data is loaded once per process,
before the timed runs, and that load is reported on its own): the results
give the speed-up with and without its column.

Data: the Karpathy test split of COCO val 2014 (5,000 images x 5
references), the random-submission caption of each image as its result.
Agreement first (each column, every caption: max abs difference <= 1e-12;
METEOR, which still differs from the jar on a few percent of captions, is
reported as the number of captions that differ and the corpus difference,
not asserted), then the medians of repeated runs.  Writes
``benchmarks/results/toolkit.json``.

Usage (needs the ``ref`` extra, Java and pycocotools)::

    python -m benchmarks.bench_toolkit [--images 5000] [--repeat 3] [--ref-repeat 2]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import importlib
import io
import json
import time

import numpy as np

from benchmarks import common, datasets

COLUMNS = ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4", "METEOR", "ROUGE_L", "CIDEr"]


def inputs(n_images: int) -> tuple[dict, list]:
    """The annotation dict and the results list of the first ``n_images`` test images."""
    folder = datasets.coco_dir()
    with open(folder / "karpathy_test_images.txt", encoding="utf-8") as f:
        ids = [int(line.split()[1]) for line in f][:n_images]
    with gzip.open(folder / "captions_val2014_reconstructed.json.gz", "rt") as f:
        annotations = json.load(f)["annotations"]
    with gzip.open(folder / "captions_val2014_random_submission.json.gz", "rt") as f:
        submission = {r["image_id"]: r["caption"] for r in json.load(f)}
    wanted = set(ids)
    dataset = {
        "images": [{"id": i} for i in ids],
        "annotations": [a for a in annotations if a["image_id"] in wanted],
    }
    return dataset, [{"image_id": i, "caption": submission[i]} for i in ids]


def one_column(package, dataset: dict, results: list, column: str):
    """One aggregation call of the toolkit: ``(score, per-image scores)`` of ``column``."""
    from pycocotools.coco import COCO

    coco = COCO()
    coco.dataset = dataset
    coco.createIndex()
    evaluation = package.COCOEvalCap(coco, coco.loadRes(results))
    ids = evaluation.params["image_id"]
    gts = {i: evaluation.coco.imgToAnns[i] for i in ids}
    res = {i: evaluation.cocoRes.imgToAnns[i] for i in ids}
    tokenizer = package.PTBTokenizer()
    gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
    if column == "METEOR":
        scorer = package.Meteor()
    else:
        scorer = {"ROUGE_L": package.Rouge, "CIDEr": package.Cider}.get(
            column, lambda: package.Bleu(4)
        )()
    try:
        score, scores = scorer.compute_score(gts, res)
    finally:
        if hasattr(scorer, "meteor_p"):  # end the jar's process now, as the toolkit's run would
            with scorer.lock:
                scorer.meteor_p.kill()
                scorer.meteor_p.communicate()
    if isinstance(score, list):
        order = int(column[-1]) - 1
        score, scores = score[order], scores[order]
    return float(score), np.asarray(scores, dtype=np.float64)


def run_all(package, dataset: dict, results: list, columns: list) -> tuple[dict, dict]:
    """Every column once: its ``(score, scores)`` and its seconds."""
    values, seconds = {}, {}
    for column in columns:
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            values[column] = one_column(package, dataset, results, column)
        seconds[column] = time.perf_counter() - start
    return values, seconds


def medians(runs: list[dict]) -> dict:
    """Per column and in total (with and without METEOR) the median seconds over runs."""
    totals = [sum(r.values()) for r in runs]
    without = [sum(v for c, v in r.items() if c != "METEOR") for r in runs]
    return {
        "columns_median_s": {c: float(np.median([r[c] for r in runs])) for c in runs[0]},
        "total": common.summary(totals),
        "total_without_meteor": common.summary(without),
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=5000, help="first N test images")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of the replacement")
    parser.add_argument("--ref-repeat", type=int, default=2, help="timed runs of the Java path")
    parser.add_argument(
        "--skip-meteor", action="store_true", help="six columns (METEOR: ~20 s of Java a run)"
    )
    args = parser.parse_args(argv)
    columns = [c for c in COLUMNS if not (args.skip_meteor and c == "METEOR")]

    from sparsecider.compat.hook import install, uninstall

    dataset, results = inputs(args.images)
    sizes = {"images": len(results), "references": len(dataset["annotations"])}
    common.log(f"toolkit pattern on {sizes}")
    real = importlib.import_module("pycocoevalcap.eval")
    if hasattr(real, "__sparsecider__"):
        raise SystemExit("unset SPARSECIDER_REPLACE_PYCOCOEVALCAP: the Java path is measured too")
    install(quiet=True)
    meteor_load_s = None
    try:
        ours = importlib.import_module("pycocoevalcap.eval")
        if "METEOR" in columns:  # once per process, as a user's run pays it
            from sparsecider.metrics.meteor.api import resources

            start = time.perf_counter()
            resources()
            meteor_load_s = time.perf_counter() - start
        # agreement first: every column, every caption
        mine, mine_seconds = run_all(ours, dataset, results, columns)
        theirs, ref_seconds = run_all(real, dataset, results, columns)
        agreement = {}
        for column in columns:
            gaps = np.abs(mine[column][1] - theirs[column][1])
            diff = float(gaps.max())
            agreement[column] = {
                "max_abs_diff": diff,
                "n_captions": len(theirs[column][1]),
                "n_differ": int((gaps > 1e-12).sum()),
                "score_replacement": mine[column][0],
                "score_reference": theirs[column][0],
                "abs_diff_score": abs(mine[column][0] - theirs[column][0]),
            }
            a = agreement[column]
            common.log(
                f"agreement {column}: {a['n_differ']} of {a['n_captions']} captions differ "
                f"(max |diff| {diff:.3g}), corpus |diff| {a['abs_diff_score']:.3g}"
            )
            # METEOR's known differences from the jar are reported, not asserted
            if column != "METEOR" and (diff > 1e-12 or a["abs_diff_score"] > 1e-12):
                raise SystemExit(f"disagreement with the reference on {column}: {diff}")
        # the agreement runs are the first timed runs
        runs_ours = [mine_seconds]
        runs_ours += [run_all(ours, dataset, results, columns)[1] for _ in range(1, args.repeat)]
        runs_ref = [ref_seconds]
        runs_ref += [run_all(real, dataset, results, columns)[1] for _ in range(1, args.ref_repeat)]
    finally:
        uninstall()
    out = {
        "benchmark": "toolkit_pattern",
        "pattern": "per column: COCO + loadRes + COCOEvalCap, PTBTokenizer on both sides, scorer",
        "meteor": "replacement: sparsecider.compat.Meteor (no Java); reference: the jar",
        "meteor_data_load_s": meteor_load_s,
        "machine": common.machine(),
        "versions": common.versions(
            "sparsecider", "pycocoevalcap", "pycocotools", "numpy", "scipy", "scikit-learn"
        ),
        "sizes": sizes,
        "columns": columns,
        "agreement": agreement,
        "replacement": medians(runs_ours),
        "pycocoevalcap_java": medians(runs_ref),
    }
    mine_total, ref_total = out["replacement"], out["pycocoevalcap_java"]
    out["speedup_median"] = ref_total["total"]["median_s"] / mine_total["total"]["median_s"]
    out["speedup_median_without_meteor"] = (
        ref_total["total_without_meteor"]["median_s"]
        / mine_total["total_without_meteor"]["median_s"]
    )
    path = common.write("toolkit", out)
    common.log(
        f"{len(columns)} columns: replacement {mine_total['total']['median_s']:.2f} s vs Java path "
        f"{ref_total['total']['median_s']:.2f} s ({out['speedup_median']:.1f}x); without "
        f"METEOR {mine_total['total_without_meteor']['median_s']:.2f} s vs "
        f"{ref_total['total_without_meteor']['median_s']:.2f} s "
        f"({out['speedup_median_without_meteor']:.1f}x); written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
