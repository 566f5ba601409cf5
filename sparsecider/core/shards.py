"""Contiguous shards of images, each tokenized as inside the whole corpus.

A large corpus is cut into shards of images with about equal numbers of
references (:func:`shard_bounds`); each shard is tokenized exactly as inside
the whole sequence (:func:`shard_tokens`, through
:func:`sparsecider.tokenizers.tokenize_slice`), so every per-shard result
equals the one-pass value.  CIDEr's engine scores the shards in threads,
tying their document frequencies together (:mod:`sparsecider.core.engine`);
BLEU's and ROUGE-L's statistics of a candidate depend only on its own image's
references, so :func:`per_candidate` measures each shard in a thread on its
own and concatenates the arrays: the result is bit-identical for every
``n_jobs``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._kernels.tokens import Tokens
from ..tokenizers import Tokenizer, tokenize_slice
from .corpus import Corpus

__all__ = [
    "MIN_SHARD_IMAGES",
    "Measure",
    "n_shards",
    "per_candidate",
    "shard_bounds",
    "shard_tokens",
]

# below this many images per shard, threads cost more than they save
MIN_SHARD_IMAGES = 2000

# (reference tokens, candidate tokens, candidate_image, reference_offsets) of
# a block of images -> arrays whose first axis runs over its candidates
Measure = Callable[[Tokens, Tokens, np.ndarray, np.ndarray], tuple[np.ndarray, ...]]


def n_shards(n_images: int, n_jobs: int, min_images: int = MIN_SHARD_IMAGES) -> int:
    """How many shards ``n_jobs`` threads cut ``n_images`` into: none below
    ``min_images`` images, so a many-core machine does not split a small
    corpus into slivers (CIDEr's df merge grows with the square of the shards)."""
    return max(1, min(n_jobs, n_images // min_images))


def shard_bounds(reference_offsets: np.ndarray, n_shards: int) -> list[tuple[int, int]]:
    """Contiguous image ranges ``[(start, stop), ...]`` with about equal numbers
    of references (the bulk of the work), none empty.

    Examples
    --------
    >>> shard_bounds(np.array([0, 5, 10, 15, 20]), 2)
    [(0, 2), (2, 4)]
    """
    n_images = reference_offsets.shape[0] - 1
    targets = np.linspace(0, reference_offsets[-1], n_shards + 1)[1:-1]
    cuts = np.searchsorted(reference_offsets, targets)
    edges = np.unique(np.concatenate(([0], np.clip(cuts, 1, n_images - 1), [n_images])))
    return list(itertools.pairwise(edges.tolist()))


def shard_tokens(
    corpus: Corpus, start: int, stop: int, tokenizer: Tokenizer
) -> tuple[Tokens, Tokens, np.ndarray, np.ndarray]:
    """Images ``start:stop`` of ``corpus``, tokenized as inside the whole corpus.

    Returns
    -------
    ref_tokens, cand_tokens : Tokens
        The shard's references and candidates (the same object when the
        candidates are the references themselves: tokenized once).
    candidate_image : ndarray of int64
        Each candidate's image, counted from the shard's first image.
    reference_offsets : ndarray of int64, shape (stop - start + 1,)
        The shard's references per image, from 0.
    """
    offsets = corpus.reference_offsets
    r0, r1 = int(offsets[start]), int(offsets[stop])
    c0, c1 = np.searchsorted(corpus.candidate_image, [start, stop]).tolist()
    refs, cands = corpus.references, corpus.candidates
    # a caption the tokenizer cannot read is named from the whole corpus
    with corpus.naming("references", r0):
        ref_tokens = tokenize_slice(refs[r0:r1], tokenizer, (refs[i] for i in range(r1, len(refs))))
    if cands is refs and (c0, c1) == (r0, r1):  # the same captions: tokenized once
        cand_tokens = ref_tokens
    else:
        with corpus.naming("candidates", c0):
            cand_tokens = tokenize_slice(
                cands[c0:c1], tokenizer, (cands[i] for i in range(c1, len(cands)))
            )
    return (
        ref_tokens,
        cand_tokens,
        corpus.candidate_image[c0:c1] - start,
        offsets[start : stop + 1] - r0,
    )


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
    count = n_shards(corpus.n_images, n_jobs)
    bounds = shard_bounds(corpus.reference_offsets, count) if count > 1 else []
    if len(bounds) < 2:
        return measure(*shard_tokens(corpus, 0, corpus.n_images, tokenizer))
    with ThreadPoolExecutor(len(bounds), thread_name_prefix="sparsecider") as pool:
        futures = [
            pool.submit(lambda a, b: measure(*shard_tokens(corpus, a, b, tokenizer)), a, b)
            for a, b in bounds
        ]
        parts = [future.result() for future in futures]
    return tuple(np.concatenate(arrays) for arrays in zip(*parts, strict=True))
