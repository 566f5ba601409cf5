"""Self-critical (SCST) reward batches: cider_d_ids vs the string path vs the reference.

Document frequencies are fitted once on a training corpus of token-id
sequences (synthetic, reproducible: ``--images`` images x 5 references,
Zipf-distributed ids from a 10,000-word vocabulary, lengths 8-20, padded
with the end-of-sequence id 0).  Then ``--batches`` batches of 50 training
images x (5 sampled + 1 greedy) candidates are scored three ways:

- ``ids``: ``sparsecider.cider_d_ids`` on the padded arrays;
- ``strings``: decode to space-joined id strings, ``sparsecider.cider_d``
  with ``tokenizer="whitespace"`` and each image's six candidates as one list
  (decoding included);
- ``reference``: pycocoevalcap's ``CiderScorer`` with ``document_frequency``
  and ``ref_len`` set from the corpus, as SCST code does
  (``benchmarks/reference.py``), strings included.

Rewards are checked identical first.  Writes ``benchmarks/results/rl_rewards.json``.

Usage: ``python -m benchmarks.bench_rl [--images 113287] [--batches 20]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import sparsecider
from benchmarks import common
from benchmarks.reference import scst_document_frequency, scst_rewards

EOS = 0
BATCH_IMAGES, SAMPLES = 50, 6


def synthetic_corpus(n_images: int, seed: int = 0) -> list[np.ndarray]:
    """``n_images`` arrays of shape (5, 21): Zipf ids in 1..9999, then eos padding."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(8, 21, size=(n_images, 5))
    ids = np.minimum(rng.zipf(1.3, size=(n_images, 5, 21)), 9999)
    ids[np.arange(21)[None, None, :] >= lengths[..., None]] = EOS
    return list(ids)


def as_text(row: np.ndarray) -> str:
    """SCST's array_to_str: the ids up to and including the first eos."""
    out = []
    for t in row.tolist():
        out.append(str(t))
        if t == EOS:
            break
    return " ".join(out)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=113_287, help="training corpus size")
    parser.add_argument("--batches", type=int, default=20)
    args = parser.parse_args(argv)

    corpus = synthetic_corpus(args.images)
    start = time.perf_counter()
    df = sparsecider.DocumentFrequencies.from_id_references(corpus, eos=EOS, include_eos=True)
    fit_s = time.perf_counter() - start
    common.log(f"fitted df on {args.images} images x 5 references in {fit_s:.1f} s: {df!r}")
    texts = [[as_text(r) for r in refs] for refs in corpus]
    ref_df = scst_document_frequency(texts)
    common.log("fitted the reference's df dict")

    rng = np.random.default_rng(1)
    image_index = np.repeat(np.arange(BATCH_IMAGES), SAMPLES)
    batches = []
    for _ in range(args.batches):
        images = rng.choice(args.images, BATCH_IMAGES, replace=False)
        samples = np.minimum(rng.zipf(1.3, size=(BATCH_IMAGES * SAMPLES, 21)), 9999)
        cut = rng.integers(6, 21, size=samples.shape[0])
        samples[np.arange(21)[None, :] >= cut[:, None]] = EOS
        batches.append((images, samples))

    def ids(batch):
        images, samples = batch
        refs = [corpus[i] for i in images]
        return cider_ids(samples, refs)

    def cider_ids(samples, refs):
        return sparsecider.cider_d_ids(
            samples, refs, df=df, eos=EOS, include_eos=True, image_index=image_index
        ).scores

    def strings(batch):
        # each image's six candidates as one list: its references are counted once
        images, samples = batch
        decoded = [as_text(r) for r in samples]
        cands = [decoded[i : i + SAMPLES] for i in range(0, len(decoded), SAMPLES)]
        refs = [texts[i] for i in images]
        return sparsecider.cider_d(cands, refs, df=df, tokenizer="whitespace").scores

    def reference(batch):
        images, samples = batch
        cands = [as_text(r) for r in samples]
        refs = [texts[images[i]] for i in image_index]
        return scst_rewards(cands, refs, ref_df, args.images)

    worst = 0.0
    for batch in batches[:3]:
        a, b, c = ids(batch), strings(batch), reference(batch)
        worst = max(worst, float(np.abs(a - c).max()), float(np.abs(b - c).max()))
    common.log(f"agreement: max |diff| = {worst:.3g} over {3 * len(image_index)} rewards")
    if worst > 1e-12:
        raise SystemExit("disagreement with the reference")

    def per_batch_ms(fn):
        times = []
        for batch in batches:
            t = time.perf_counter()
            fn(batch)
            times.append((time.perf_counter() - t) * 1000)
        return {"median_ms": statistics.median(times), "min_ms": min(times)}

    out = {
        "benchmark": "rl_rewards",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "pycocoevalcap", "numpy", "scipy"),
        "sizes": {
            "df_images": args.images,
            "df_ngrams": len(df),
            "df_mib": df.nbytes / 2**20,
            "batch_images": BATCH_IMAGES,
            "batch_candidates": BATCH_IMAGES * SAMPLES,
            "references_per_image": 5,
            "batches": args.batches,
        },
        "fit_df_s": fit_s,
        "agreement_max_abs_diff": worst,
        "ids": per_batch_ms(ids),
        "strings": per_batch_ms(strings),
        "reference": per_batch_ms(reference),
    }
    out["ratio_reference_over_ids"] = out["reference"]["median_ms"] / out["ids"]["median_ms"]
    out["ratio_strings_over_ids"] = out["strings"]["median_ms"] / out["ids"]["median_ms"]
    path = common.write("rl_rewards", out)
    common.log(
        f"per batch: ids {out['ids']['median_ms']:.1f} ms, strings "
        f"{out['strings']['median_ms']:.1f} ms, reference {out['reference']['median_ms']:.1f} ms "
        f"({out['ratio_reference_over_ids']:.1f}x); written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
