"""COCO val 2014 from raw text: sparsecider.cider_d (its own PTB tokenizer)
vs pycocoevalcap PTBTokenizer (Java) + Cider, end to end.

40,504 images x 5 raw reference captions, one raw candidate per image (the
random-submission file).  The reference side is what ``COCOEvalCap.evaluate``
does for CIDEr-D: tokenize references and candidates with the Java
``PTBTokenizer`` (JVM start included, as every user pays it), then
``Cider().compute_score``.  sparsecider is one call,
``cider_d(candidates, references)`` with its defaults (``tokenizer="ptb"``,
``n_jobs=-1``); it is also timed with ``n_jobs=1``.  Agreement first: the
per-caption max abs difference must be <= 1e-12.  Writes
``benchmarks/results/coco_val_raw.json``.

Usage (needs Java, ``pip install -e .[ref]`` and ``../shared/data``)::

    python -m benchmarks.bench_raw [--repeat 5] [--ref-repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil

import numpy as np

import sparsecider
from benchmarks import common, datasets


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of sparsecider")
    parser.add_argument("--ref-repeat", type=int, default=3, help="timed runs of the reference")
    parser.add_argument("--images", type=int, default=None, help="first N images only")
    args = parser.parse_args(argv)
    if shutil.which("java") is None:
        raise SystemExit("the reference tokenizer is Java: java must be on PATH")
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    cands, refs = datasets.coco_val_raw()
    ids = list(refs)[: args.images]
    refs = {i: refs[i] for i in ids}
    cands = {i: cands[i] for i in ids}
    sizes = {"images": len(ids), "references": sum(map(len, refs.values())), "candidates": len(ids)}
    common.log(f"COCO val raw text: {sizes}")

    def ours(n_jobs=-1):
        return sparsecider.cider_d(cands, refs, n_jobs=n_jobs)

    def reference():
        gts = {i: [{"caption": c} for c in refs[i]] for i in ids}
        res = {i: [{"caption": cands[i]}] for i in ids}
        with contextlib.redirect_stderr(io.StringIO()):  # the jar's progress line
            gts_tok = PTBTokenizer().tokenize(gts)
            res_tok = PTBTokenizer().tokenize(res)
        return Cider().compute_score(gts_tok, res_tok)

    mine = ours()
    ref_score, ref_scores = reference()
    max_diff = float(np.abs(mine.scores - np.asarray(ref_scores)).max())
    common.log(f"agreement: max |diff| = {max_diff:.3g} over {len(ref_scores)} captions")
    if max_diff > 1e-12:
        raise SystemExit(f"disagreement with the reference: {max_diff}")

    t_ours = common.timed(ours, args.repeat)
    t_single = common.timed(lambda: ours(1), args.repeat)
    t_ref = common.timed(reference, args.ref_repeat)
    out = {
        "benchmark": "coco_val_raw_text",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "pycocoevalcap", "numpy", "scipy"),
        "sizes": sizes,
        "agreement": common.agreement(max_diff, len(ref_scores), mine.score, ref_score),
        "sparsecider": common.summary(t_ours),
        "sparsecider_n_jobs_1": common.summary(t_single),
        "pycocoevalcap": common.summary(t_ref),
    }
    ref_median = common.add_speedups(out, "pycocoevalcap")
    path = common.write("coco_val_raw", out)
    common.log(
        f"sparsecider {out['sparsecider']['median_s']:.2f} s "
        f"(n_jobs=1: {out['sparsecider_n_jobs_1']['median_s']:.2f} s) vs PTBTokenizer + Cider "
        f"{ref_median:.1f} s (medians): {out['speedup_median']:.1f}x "
        f"({out['speedup_median_n_jobs_1']:.1f}x); written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
