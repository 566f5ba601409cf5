"""Scoring a corpus in contiguous shards of images, one thread per shard.

Most of the engine's work runs in numpy without the GIL, so shards scored
in threads overlap.  Each shard is tokenized exactly as inside the whole
sequence (:func:`sparsecider.tokenizers.tokenize_slice`); in corpus mode the
shards' document frequencies are summed at each shard's columns before the
shard is scored, so every statistic equals the one-pass value bit for bit.
"""

from __future__ import annotations

import functools
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np

from .._kernels.lookup import lookup_sorted
from ..tokenizers import Tokenizer, tokenize_slice
from .corpus import Corpus
from .frequencies import DocumentFrequencies
from .progress import Progress
from .stages import Prepared, count_order, no_reference_words, order_statistics, prepare

__all__ = ["MIN_SHARD_IMAGES", "score_shards", "shard_bounds"]

# below this many images per shard, threads cost more than they save
MIN_SHARD_IMAGES = 2000


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


def _prepare_shard(
    corpus: Corpus, start: int, stop: int, *, n: int, tokenizer: Tokenizer
) -> tuple[Prepared, int]:
    """Images ``start:stop`` of ``corpus`` tokenized (as inside the whole
    corpus) and hashed; also returns the shard's number of reference tokens."""
    offsets = corpus.reference_offsets
    r0, r1 = int(offsets[start]), int(offsets[stop])
    c0, c1 = np.searchsorted(corpus.candidate_image, [start, stop]).tolist()
    refs, cands = corpus.references, corpus.candidates
    ref_tokens = tokenize_slice(refs[r0:r1], tokenizer, (refs[i] for i in range(r1, len(refs))))
    if cands is refs and (c0, c1) == (r0, r1):  # the same captions: tokenized once
        cand_tokens = ref_tokens
    else:
        cand_tokens = tokenize_slice(
            cands[c0:c1], tokenizer, (cands[i] for i in range(c1, len(cands)))
        )
    cand_image = corpus.candidate_image[c0:c1] - start
    ref_offsets = offsets[start : stop + 1] - r0
    prepared = prepare(ref_tokens, cand_tokens, cand_image, ref_offsets, n=n)
    return prepared, int(ref_tokens.hashes.shape[0])


def _shard_order_statistics(
    shards: list[Prepared], s: int, k: int, df: DocumentFrequencies | None, n_documents: int,
    clip: bool, out: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:  # fmt: skip
    """Order k + 1's statistics of shard ``s``, written to ``out``.  In corpus
    mode (``df=None``) its document frequencies are the shard's own plus every
    other shard's at its columns (exact integer sums, so equal to one pass)."""
    own = shards[s].orders[k]
    if df is None:
        freq = own.local_df.copy()
        for t, other in enumerate(shards):
            if t != s:
                theirs = other.orders[k]
                lookup_sorted(theirs.column_keys, theirs.local_df, own.column_keys, freq)
    else:
        freq = df.lookup(own.column_keys, k + 1)
    order_statistics(shards[s], k, freq, n_documents, clip=clip, out=out)


class _Countdown:
    """Calls ``action()`` once ``done`` has been called ``count`` times (from any thread)."""

    def __init__(self, count: int, action: Callable[[], None]) -> None:
        self._count = count
        self._action = action
        self._lock = threading.Lock()

    def done(self, _future: object = None) -> None:
        with self._lock:
            self._count -= 1
            last = self._count == 0
        if last:
            self._action()


def _release(shards: list[Prepared], k: int) -> None:
    """Drop every shard's counts of order k + 1 once all its statistics are
    computed (each shard's df merge reads the others' counts until then)."""
    for shard in shards:
        shard.orders[k] = None


def score_shards(
    corpus: Corpus, bounds: list[tuple[int, int]], *, n: int, clip: bool,
    tokenizer: Tokenizer, df: DocumentFrequencies | None,
    out: Callable[[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]],
    progress: Progress | None = None,
) -> list[Prepared]:  # fmt: skip
    """The shards (laid out), each (shard, order)'s statistics written to
    ``out(shard, order)``, computed in a pool of one thread per shard.

    The tasks: tokenize and hash each shard; count each (shard, order); then,
    once every shard has counted order k, compute each (shard, order k)'s
    statistics.  Tasks are queued as soon as their inputs are ready, so no
    thread idles while a task is ready to run.  When shards fail, the error raised
    is that of the first failing shard in shard order, whichever failed first
    in time.  ``progress.step()`` follows each task (``1 + 2 n`` per shard).
    """
    step = (lambda _future: progress.step()) if progress is not None else None
    with ThreadPoolExecutor(len(bounds), thread_name_prefix="sparsecider") as pool:
        hashed = {
            pool.submit(_prepare_shard, corpus, *b, n=n, tokenizer=tokenizer): s
            for s, b in enumerate(bounds)
        }
        shards: list[Prepared] = [None] * len(bounds)  # type: ignore[list-item]
        counted = {}
        words = 0
        try:
            for future in as_completed(hashed):
                s = hashed[future]
                shards[s], shard_words = future.result()
                words += shard_words
                if step is not None:
                    step(future)
                for k in range(n):
                    counted[s, k] = pool.submit(count_order, shards[s], k, local_df=df is None)
                    if step is not None:
                        counted[s, k].add_done_callback(step)
            if df is None and words == 0:
                raise no_reference_words()
            n_docs = corpus.n_images if df is None else df.n_images
            stats = {}
            for k in range(n):
                for s in range(len(shards)):
                    counted[s, k].result()
                pending = _Countdown(len(shards), functools.partial(_release, shards, k))
                for s in range(len(shards)):
                    stats[s, k] = pool.submit(
                        _shard_order_statistics, shards, s, k, df, n_docs, clip, out(s, k)
                    )
                    stats[s, k].add_done_callback(pending.done)
                    if step is not None:
                        stats[s, k].add_done_callback(step)
            for task in stats.values():
                task.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            for future in sorted(hashed, key=hashed.__getitem__):
                if not future.cancelled() and future.exception() is not None:
                    raise future.exception() from None
            raise
    return shards
