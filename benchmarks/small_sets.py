"""How far corpus document frequencies put small sets from the full-COCO-val scores.

For random subsets of COCO val 2014 of 1 to 5,000 images, each image's first
reference is its candidate and the other references its references.  Each
subset is scored twice: with ``df="corpus"`` (frequencies counted over the
subset's references, as pycocoevalcap does) and with ``df="coco-val2014"``
(frequencies of all 40,504 images, shipped in the package).  Reported per
size, as medians over the subsets: the relative difference of the corpus
scores, and the mean absolute per-caption difference.  This table chose the
threshold of ``sparsecider.SmallCorpusWarning`` (``SMALL_CORPUS = 100``).

Usage: ``python -m benchmarks.small_sets`` (needs ``../shared/data``);
writes ``benchmarks/results/small_sets.json``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import sparsecider
from benchmarks import common, make_named_df

SIZES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    refs = make_named_df.coco_val2014_references()
    cands_all = [r[0] for r in refs]
    refs_all = [r[1:] for r in refs]
    full = sparsecider.cider_d(cands_all, refs_all, df="coco-val2014", tokenizer="whitespace")
    rng = np.random.default_rng(args.seed)
    rows = []
    for size in SIZES:
        subsets = 200 if size <= 100 else 40 if size <= 1000 else 10
        rel, per_caption = [], []
        for _ in range(subsets):
            idx = rng.choice(len(refs), size, replace=False)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the small-corpus advice itself
                local = sparsecider.cider_d(
                    [cands_all[i] for i in idx], [refs_all[i] for i in idx],
                    tokenizer="whitespace",
                ).scores  # fmt: skip
            want = full.scores[idx]
            rel.append(abs(local.mean() - want.mean()) / want.mean())
            per_caption.append(float(np.abs(local - want).mean()))
        rows.append({
            "images": size, "subsets": subsets,
            "median_relative_difference_of_the_corpus_score": float(np.median(rel)),
            "median_mean_abs_difference_per_caption": float(np.median(per_caption)),
        })  # fmt: skip
        common.log(f"{size:>5} images: corpus score {np.median(rel):.1%} away (median)")
    return common.write("small_sets", {
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "numpy"),
        "mean_full_df_score": full.score,
        "rows": rows,
    })  # fmt: skip


if __name__ == "__main__":
    main()
