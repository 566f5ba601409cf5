"""Self-critical (SCST) reward batches: the cached scorer, cider_d_ids, strings, the reference.

Document frequencies are fitted once on a training corpus of token-id
sequences (synthetic, reproducible: ``--images`` images x 5 references,
Zipf-distributed ids from a 10,000-word vocabulary, lengths 8-20, padded
with the end-of-sequence id 0).  The reference scorer is built once on the
same corpus: ``sparsecider.RewardScorer`` (ids), ``RewardScorer.from_texts``
(decoded strings) and ``compat.CiderD`` with its references remembered
(``CiderD.remember``); their one-time cost (wall time, memory held, peak
while building) is reported.  Then ``--batches`` batches of 50 training
images x (5 sampled + 1 greedy) candidates are scored, every method on
every batch in turn (side by side, alternating):

- ``cached``: ``RewardScorer(...)(samples, images)`` on the padded arrays;
- ``cached_texts``: decode to id strings, ``RewardScorer.from_texts`` scorer;
- ``compat``: decode, ``compat.CiderD.compute_score`` called as
  self-critical.pytorch calls it (an entry per sample, references as strings);
- ``ids``: ``sparsecider.cider_d_ids`` on the padded arrays (references per call);
- ``strings``: decode, ``sparsecider.cider_d`` with ``tokenizer="whitespace"``
  and each image's six candidates as one list;
- ``reference``: pycocoevalcap's ``CiderScorer`` with ``document_frequency``
  and ``ref_len`` set from the corpus, as SCST code does
  (``benchmarks/reference.py``), strings included;
- ``self_critical`` and ``leave_one_out``: the cached scorer's baselines
  (250 samples and 50 greedy captions; 300 samples, 6 per image).

Rewards are checked first: every method within 1e-12 of the reference, and
the cached scorers bit-identical to ``cider_d_ids``.  Writes
``benchmarks/results/rl_rewards.json`` (the first size) and
``rl_rewards_<images>.json`` (the others).

Usage: ``python -m benchmarks.bench_rl [--images 113287 40504] [--batches 20]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import OrderedDict

import numpy as np

import sparsecider
from benchmarks import common
from benchmarks.reference import scst_document_frequency, scst_rewards
from sparsecider.compat import CiderD

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


def _timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def run(n_images: int, n_batches: int, repeat: int) -> dict:
    corpus = synthetic_corpus(n_images)
    fit_s, df = _timed(
        lambda: sparsecider.DocumentFrequencies.from_id_references(
            corpus, eos=EOS, include_eos=True
        )
    )
    common.log(f"fitted df on {n_images} images x 5 references in {fit_s:.1f} s: {df!r}")
    texts = [[as_text(r) for r in refs] for refs in corpus]

    def build_ids():
        return sparsecider.RewardScorer(corpus, df=df, eos=EOS, include_eos=True)

    build = {}
    build["cached_s"], scorer = _timed(build_ids)
    build["cached_peak_mib"] = common.peak_mib(build_ids)
    build["cached_mib"] = scorer.cache.nbytes / 2**20
    build["cached_texts_s"], text_scorer = _timed(
        lambda: sparsecider.RewardScorer.from_texts(texts, df=df)
    )
    build["cached_texts_mib"] = text_scorer.cache.nbytes / 2**20
    compat = CiderD(df=df)
    build["compat_remember_s"], _ = _timed(lambda: compat.remember(texts))
    common.log(f"built the caches: {build}")
    ref_df = scst_document_frequency(texts)
    common.log("fitted the reference's df dict")

    rng = np.random.default_rng(1)
    image_index = np.repeat(np.arange(BATCH_IMAGES), SAMPLES)
    batches = []
    for _ in range(n_batches):
        images = rng.choice(n_images, BATCH_IMAGES, replace=False)
        samples = np.minimum(rng.zipf(1.3, size=(BATCH_IMAGES * SAMPLES, 21)), 9999)
        cut = rng.integers(6, 21, size=samples.shape[0])
        samples[np.arange(21)[None, :] >= cut[:, None]] = EOS
        batches.append((images, samples))

    def cached(batch):
        images, samples = batch
        return scorer(samples, images[image_index]).scores

    def cached_texts(batch):
        images, samples = batch
        return text_scorer([as_text(r) for r in samples], images[image_index]).scores

    def compat_cider_d(batch):
        # self-critical.pytorch's get_self_critical_reward: an entry per caption
        images, samples = batch
        res = OrderedDict((i, [as_text(r)]) for i, r in enumerate(samples))
        gts = [texts[i] for i in images]
        res_ = [{"image_id": i, "caption": res[i]} for i in range(len(res))]
        gts_ = {i: gts[i // SAMPLES] for i in range(len(res))}
        return compat.compute_score(gts_, res_)[1]

    def ids(batch):
        images, samples = batch
        refs = [corpus[i] for i in images]
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
        return scst_rewards(cands, refs, ref_df, n_images)

    def self_critical(batch):  # 5 samples + 1 greedy caption per image
        images, samples = batch
        keep = np.arange(samples.shape[0]) % SAMPLES < SAMPLES - 1
        return scorer.self_critical(samples[keep], samples[~keep], images)

    def leave_one_out(batch):
        images, samples = batch
        return scorer.leave_one_out(samples, images)

    fast = {"cached": cached, "cached_texts": cached_texts, "compat": compat_cider_d,
            "ids": ids, "strings": strings}  # fmt: skip
    worst = dict.fromkeys(fast, 0.0)
    for batch in batches[:3]:
        want = reference(batch)
        for name, fn in fast.items():
            worst[name] = max(worst[name], float(np.abs(fn(batch) - want).max()))
        bits = np.array_equal(cached(batch), ids(batch)) and np.array_equal(
            cached_texts(batch), ids(batch)
        )
        if not bits:
            raise SystemExit("the cached scorers are not bit-identical to cider_d_ids")
    common.log(f"agreement with the reference, max |diff| per method: {worst}")
    if max(worst.values()) > 1e-12:
        raise SystemExit("disagreement with the reference")

    methods = {**fast, "self_critical": self_critical, "leave_one_out": leave_one_out}
    times: dict[str, list[float]] = {name: [] for name in [*methods, "reference"]}
    names = list(methods)
    for k, batch in enumerate(batches):
        turn = names[k % len(names) :] + names[: k % len(names)]  # rotate the order
        for _ in range(repeat):
            for name in turn:
                times[name].append(_timed(lambda f=methods[name], b=batch: f(b))[0] * 1000)
        times["reference"].append(_timed(lambda b=batch: reference(b))[0] * 1000)

    out = {
        "benchmark": "rl_rewards",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "pycocoevalcap", "numpy", "scipy"),
        "sizes": {
            "df_images": n_images,
            "df_ngrams": len(df),
            "df_mib": df.nbytes / 2**20,
            "batch_images": BATCH_IMAGES,
            "batch_candidates": BATCH_IMAGES * SAMPLES,
            "references_per_image": 5,
            "batches": n_batches,
            "repeat": repeat,
        },
        "fit_df_s": fit_s,
        "build": build,
        "agreement_max_abs_diff": max(worst.values()),
        "agreement_by_method": worst,
        "cached_bit_identical_to_ids": True,
    }
    for name, values in times.items():
        out[name] = {"median_ms": statistics.median(values), "min_ms": min(values)}
    ref = out["reference"]["median_ms"]
    out["ratio_reference_over_ids"] = ref / out["ids"]["median_ms"]
    out["ratio_strings_over_ids"] = out["strings"]["median_ms"] / out["ids"]["median_ms"]
    out["ratio_reference_over_cached"] = ref / out["cached"]["median_ms"]
    out["ratio_reference_over_cached_texts"] = ref / out["cached_texts"]["median_ms"]
    out["ratio_reference_over_compat"] = ref / out["compat"]["median_ms"]
    out["ratio_ids_over_cached"] = out["ids"]["median_ms"] / out["cached"]["median_ms"]
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, nargs="+", default=[113_287, 40_504],
                        help="training corpus sizes")  # fmt: skip
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5, help="calls per batch of the fast methods")
    args = parser.parse_args(argv)
    first = None
    for k, n_images in enumerate(args.images):
        out = run(n_images, args.batches, args.repeat)
        path = common.write("rl_rewards" if k == 0 else f"rl_rewards_{n_images}", out)
        common.log(
            f"{n_images} images, per batch: cached {out['cached']['median_ms']:.2f} ms, "
            f"cached_texts {out['cached_texts']['median_ms']:.2f} ms, compat "
            f"{out['compat']['median_ms']:.2f} ms, ids {out['ids']['median_ms']:.2f} ms, "
            f"strings {out['strings']['median_ms']:.2f} ms, reference "
            f"{out['reference']['median_ms']:.1f} ms ({out['ratio_reference_over_cached']:.0f}x "
            f"the cached scorer, {out['ratio_reference_over_ids']:.0f}x cider_d_ids); "
            f"written to {path}"
        )
        first = first or out
    return first


if __name__ == "__main__":
    main()
