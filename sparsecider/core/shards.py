"""Per-candidate statistics of metrics that score each image on its own, in shards.

BLEU's and ROUGE-L's statistics of a candidate depend only on its own
image's references (CIDEr's document frequencies tie all images together:
that is :mod:`sparsecider.core.threads`).  So a corpus is cut into contiguous
shards of images (:func:`sparsecider.core.threads.shard_bounds`), each shard
tokenized exactly as inside the whole sequence
(:func:`sparsecider.tokenizers.tokenize_slice`) and measured in its own
thread, and the per-candidate arrays are concatenated in input order: the
result is bit-identical for every ``n_jobs``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._kernels.tokens import Tokens
from ..tokenizers import Tokenizer, tokenize_slice
from .corpus import Corpus
from .threads import MIN_SHARD_IMAGES, shard_bounds

__all__ = ["Measure", "per_candidate"]

# (reference tokens, candidate tokens, candidate_image, reference_offsets) of
# a block of images -> arrays whose first axis runs over its candidates
Measure = Callable[[Tokens, Tokens, np.ndarray, np.ndarray], tuple[np.ndarray, ...]]


def _shard(corpus: Corpus, start: int, stop: int, tokenizer: Tokenizer, measure: Measure):
    """``measure`` of images ``start:stop``, tokenized as inside the whole corpus."""
    offsets = corpus.reference_offsets
    r0, r1 = int(offsets[start]), int(offsets[stop])
    c0, c1 = np.searchsorted(corpus.candidate_image, [start, stop]).tolist()
    refs, cands = corpus.references, corpus.candidates
    ref_tokens = tokenize_slice(refs[r0:r1], tokenizer, (refs[i] for i in range(r1, len(refs))))
    cand_tokens = tokenize_slice(cands[c0:c1], tokenizer, (cands[i] for i in range(c1, len(cands))))
    return measure(
        ref_tokens, cand_tokens, corpus.candidate_image[c0:c1] - start,
        offsets[start : stop + 1] - r0,
    )  # fmt: skip


def per_candidate(
    corpus: Corpus, tokenizer: Tokenizer, measure: Measure, *, n_jobs: int = 1
) -> tuple[np.ndarray, ...]:
    """``measure`` of the whole corpus, in up to ``n_jobs`` threads.

    With ``n_jobs > 1`` and at least ``2 * MIN_SHARD_IMAGES`` images, the
    images are cut into up to ``n_jobs`` shards of at least
    ``MIN_SHARD_IMAGES`` images with about equal numbers of references, each
    measured in a thread (most of the work runs in numpy without the GIL),
    and the shards' arrays are concatenated.  Otherwise one call in the
    calling thread.  When shards fail, the error of the first failing shard
    (in shard order) is raised.

    Returns
    -------
    tuple of ndarray
        ``measure``'s arrays, the first axis over all candidates in input order.
    """
    n_shards = max(1, min(n_jobs, corpus.n_images // MIN_SHARD_IMAGES))
    bounds = shard_bounds(corpus.reference_offsets, n_shards) if n_shards > 1 else []
    if len(bounds) < 2:
        return _shard(corpus, 0, corpus.n_images, tokenizer, measure)
    with ThreadPoolExecutor(len(bounds), thread_name_prefix="sparsecider") as pool:
        futures = [pool.submit(_shard, corpus, a, b, tokenizer, measure) for a, b in bounds]
        parts = [future.result() for future in futures]
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))
