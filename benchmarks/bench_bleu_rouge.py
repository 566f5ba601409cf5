"""BLEU-1..4 and ROUGE-L: sparsecider.bleu / rouge_l vs pycocoevalcap's Bleu(4) and Rouge.

Agreement first, on every caption of every set (max abs difference per
caption and of the corpus scores, which must be <= 1e-12): COCO val 2014
(40,504 images x 5 references) with the random-submission candidates of the
other benchmarks (one human caption per image, from another image) and with
each image's first reference held out as its candidate (against the other
four), Flickr8K-Expert (16,992 rows) and PASCAL-50S (8,000 rows x 50
references).  Then the medians of repeated runs of both on COCO val,
pre-tokenized (``tokenizer="whitespace"``, the reference's input), with the
defaults (``n_jobs=-1``: one thread per CPU) and with ``n_jobs=1``, for both
kinds of candidates.  Writes ``benchmarks/results/bleu_rouge.json``.

Usage (needs ``pip install -e .[ref]`` and ``../shared/data``)::

    python -m benchmarks.bench_bleu_rouge [--repeat 7] [--ref-repeat 3] [--images N]
        [--coco-only]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

import sparsecider
from benchmarks import common, datasets

TOL = 1e-12


def _reference(cands: list[str], refs: list[list[str]]):
    """pycocoevalcap's Bleu(4) and Rouge on aligned lists (keys 0..n-1)."""
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.rouge.rouge import Rouge

    gts = {i: list(r) for i, r in enumerate(refs)}
    res = {i: [c] for i, c in enumerate(cands)}
    return (
        lambda: Bleu(4).compute_score(gts, res, verbose=0),
        lambda: Rouge().compute_score(gts, res),
    )


def _agreement(name: str, cands: list[str], refs: list[list[str]]) -> dict:
    """Max abs differences of every caption and of the corpus scores; stops on a miss."""
    ref_bleu, ref_rouge = _reference(cands, refs)
    bleu_score, bleu_scores = ref_bleu()
    rouge_score, rouge_scores = ref_rouge()
    b = sparsecider.bleu(cands, refs, tokenizer="whitespace")
    r = sparsecider.rouge_l(cands, refs, tokenizer="whitespace")
    out = {
        "captions": len(cands),
        "references": sum(map(len, refs)),
        "bleu_max_abs_diff": float(np.abs(b.per_order - np.array(bleu_scores).T).max()),
        "bleu_corpus_max_abs_diff": float(np.abs(b.corpus_per_order - bleu_score).max()),
        "rouge_max_abs_diff": float(np.abs(r.scores - rouge_scores).max()),
        "rouge_corpus_abs_diff": abs(r.score - float(rouge_score)),
        "bleu_reference": [float(v) for v in bleu_score],
        "rouge_reference": float(rouge_score),
    }
    common.log(f"agreement on {name}: {out}")
    worst = max(v for k, v in out.items() if "diff" in k)
    if worst > TOL:
        raise SystemExit(f"disagreement with the reference on {name}: {worst}")
    return out


def _timings(cands: list[str], refs: list[list[str]], repeat: int, ref_repeat: int) -> dict:
    ref_bleu, ref_rouge = _reference(cands, refs)
    out = {}
    for metric, ours, reference in (
        ("bleu", sparsecider.bleu, ref_bleu),
        ("rouge_l", sparsecider.rouge_l, ref_rouge),
    ):
        t_ours = common.timed(lambda f=ours: f(cands, refs, tokenizer="whitespace"), repeat)
        t_single = common.timed(
            lambda f=ours: f(cands, refs, tokenizer="whitespace", n_jobs=1), repeat
        )
        t_ref = common.timed(reference, ref_repeat)
        entry = {
            "sparsecider": {**common.summary(t_ours), "n_jobs": -1},
            "sparsecider_n_jobs_1": common.summary(t_single),
            "pycocoevalcap": common.summary(t_ref),
        }
        common.add_speedups(entry, "pycocoevalcap")
        common.log(
            f"{metric}: sparsecider {entry['sparsecider']['median_s']:.3f} s (n_jobs=1: "
            f"{entry['sparsecider_n_jobs_1']['median_s']:.3f} s) vs pycocoevalcap "
            f"{entry['pycocoevalcap']['median_s']:.2f} s: {entry['speedup_median']:.1f}x "
            f"({entry['speedup_median_n_jobs_1']:.1f}x)"
        )
        out[metric] = entry
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed runs of sparsecider")
    parser.add_argument("--ref-repeat", type=int, default=3, help="timed runs of pycocoevalcap")
    parser.add_argument("--images", type=int, default=None, help="first N COCO images only")
    parser.add_argument("--coco-only", action="store_true", help="skip Flickr8K and PASCAL-50S")
    args = parser.parse_args(argv)

    load_before = os.getloadavg()
    cand_map, ref_map = datasets.coco_val()
    ids = list(ref_map)[: args.images]
    cands = [cand_map[i] for i in ids]
    refs = [ref_map[i] for i in ids]
    held_cands = [r[0] for r in refs]
    held_refs = [r[1:] for r in refs]
    sizes = {"images": len(ids), "references": sum(map(len, refs)), "candidates": len(ids)}
    common.log(f"COCO val: {sizes}")

    agreement = {
        "coco_val": _agreement("COCO val", cands, refs),
        "coco_val_held_out": _agreement("COCO val, held-out reference", held_cands, held_refs),
    }
    if not args.coco_only:
        f_cands, f_refs, _ = datasets.flickr8k("expert")
        agreement["flickr8k_expert"] = _agreement("Flickr8K-Expert", f_cands, f_refs)
        p_cands, p_refs, _ = datasets.fifty_s("pascal")
        agreement["pascal50s"] = _agreement("PASCAL-50S", p_cands, p_refs)

    out = {
        "benchmark": "bleu_rouge_coco_val_pretokenized",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "pycocoevalcap", "numpy", "scipy"),
        "sizes": sizes,
        "agreement": agreement,
        "coco_val": _timings(cands, refs, args.repeat, args.ref_repeat),
        "coco_val_held_out": {
            **_timings(held_cands, held_refs, args.repeat, args.ref_repeat),
            "sizes": {**sizes, "references": sum(map(len, held_refs))},
        },
        # other work on the machine slows both sides and takes the second thread
        "load_average_1min": {"before": load_before[0], "after": os.getloadavg()[0]},
    }
    path = common.write("bleu_rouge", out)
    common.log(f"written to {path}")
    return out


if __name__ == "__main__":
    main()
