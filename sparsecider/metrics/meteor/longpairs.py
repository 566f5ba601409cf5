"""The statistics of pairs with a caption over 64 tokens (:data:`~.batch.MAX_FAST`), one pair
at a time: the per-pair code (:mod:`.segment` candidates, :mod:`.align` search, linear in the
captions' length) that :mod:`.score` sends those pairs to, with the size check that bounds its
memory and time (:data:`MAX_PAIR_CANDIDATES`).  Moved out of :mod:`.score` unchanged.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .align import align
from .resources import Resources
from .segment import Caption, SynonymTypes, alignment_stats, pair_candidates, stats_array
from .splitsq import typed_words

__all__ = ["MAX_PAIR_CANDIDATES", "captions", "slow_pairs"]

_BATCH_TOKENS = 1 << 18  # tokens per vectorised phrase lookup (bounds its memory)
# One-word candidates (word pairs with equal stems) one pair of captions may make.  The
# per-pair search holds each as a Python object, so this bounds its memory (~0.5 GB) and time
# (~1 min); normal captions make a few dozen, two 4,000-word copies of one sentence ~1.6 million.
# The jar itself runs out of memory far earlier (a 20,000-word hypothesis against 8 words).
MAX_PAIR_CANDIDATES = 2_000_000


def captions(texts: list[str], res: Resources) -> dict[str, Caption]:
    """Caption objects for distinct normalised texts, phrases found in batches."""
    index = res.paraphrases
    out: dict[str, Caption] = {}
    batch: list[Caption] = []
    n_tokens = 0

    def flush() -> None:
        ids = [index.word_ids(c.tokens) for c in batch]
        lens = np.fromiter((len(c.tokens) for c in batch), dtype=np.int64, count=len(batch))
        flat = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        firsts = np.cumsum(lens) - lens
        ends = np.repeat(firsts + lens, lens)
        starts, lengths, pids = index.find(flat, ends)
        owner = np.repeat(np.arange(len(batch)), lens)[starts] if starts.size else starts
        local = starts - firsts[owner] if starts.size else starts
        for o, s, n, p in zip(
            owner.tolist(), local.tolist(), lengths.tolist(), pids.tolist(), strict=True
        ):
            batch[o].phrases.setdefault(p, []).append((s, n))
        batch.clear()

    for t in texts:
        if t in out:
            continue
        c = out[t] = Caption(t, res, {})
        batch.append(c)
        n_tokens += len(c.tokens)
        if n_tokens >= _BATCH_TOKENS:
            flush()
            n_tokens = 0
    if batch:
        flush()
    return out


def slow_pairs(
    texts: list[str], hyp: np.ndarray, ref: np.ndarray, res: Resources, where: list
) -> np.ndarray:
    """Statistics of pairs with long captions, one pair at a time (linear in their length).

    ``where`` names each pair as (segment, reference number) for errors.
    """
    used = sorted(set(hyp.tolist()) | set(ref.tolist()))
    caps = captions([texts[k] for k in used], res)
    for (h, r), (i, k) in zip(zip(hyp.tolist(), ref.tolist(), strict=True), where, strict=True):
        _check_size(caps[texts[h]], caps[texts[r]], i, k)
    vocab = {t for r in set(ref.tolist()) for t in caps[texts[r]].tokens}
    syn = SynonymTypes(vocab, res.lexicon)
    rows = []
    for h, r in zip(hyp.tolist(), ref.tolist(), strict=True):
        test, other = caps[texts[h]], caps[texts[r]]
        props = pair_candidates(test, other, res.paraphrases.partners, syn)
        words = typed_words(test.tokens, res.function_words)
        rows.append(alignment_stats(test, other, align(props, len(test.tokens), words=words)))
    return stats_array(rows)


def _check_size(test: Caption, ref: Caption, segment: int, k: int) -> None:
    """Refuse a pair whose one-word candidates alone exceed :data:`MAX_PAIR_CANDIDATES`."""
    if len(test.tokens) * len(ref.tokens) <= MAX_PAIR_CANDIDATES:
        return
    counts = Counter(ref.stems)
    n = sum(counts.get(st, 0) for st in test.stems)
    if n > MAX_PAIR_CANDIDATES:
        raise ValueError(
            f"candidates[{segment}] ({len(test.tokens):,} words) and references[{segment}][{k}] "
            f"({len(ref.tokens):,} words) share {n:,} word pairs with equal stems, more than "
            f"METEOR's alignment is scored for here ({MAX_PAIR_CANDIDATES:,}: memory and time grow "
            "with them; the jar runs out of memory long before). Shorten or split these captions."
        )
