"""The engine: a :class:`~sparsecider.core.corpus.Corpus` (and document frequencies)
-> per-order statistics of every candidate-reference pair.

The engine owns its threads: a large corpus is cut into shards of images
(:mod:`sparsecider.core.shards`), counted and scored in a pool of threads
whose document frequencies are summed at each shard's columns, so every
statistic equals the one-pass value bit for bit.

Nothing here makes a score: :mod:`sparsecider.core.reduce` turns the statistics
into scores, per-order values and the mean (as sacrebleu separates sufficient
statistics from the score).  Every face reuses these two steps: the public
functions, the id rewards, streaming chunks, Dask partitions, the
vectorizer's ``similarity`` and every variant.

Data flow (one module per arrow)::

    strings -> token hashes       (tokenizers)
            -> n-gram keys         (_kernels.hashing)
            -> CSC counts/order    (_kernels.counts)
            -> document freq.      (_kernels.docfreq, or a DocumentFrequencies)
            -> tf-idf              (_kernels.weights)
            -> pair statistics     (_kernels.pairs)   <- here
            -> scores              (reduce)
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from .._kernels.lookup import lookup_sorted
from .._kernels.tokens import Tokens
from ..tokenizers import Tokenizer
from .corpus import Corpus
from .frequencies import DocumentFrequencies
from .progress import Progress
from .shards import MIN_SHARD_IMAGES, n_shards, shard_bounds, shard_tokens
from .stages import Prepared, count_order, no_reference_words, order_statistics, prepare

__all__ = [
    "PairStatistics",
    "no_reference_words",
    "statistics",
    "steps",
    "token_statistics",
]


@dataclass(frozen=True, eq=False)
class PairStatistics:
    """Per-order statistics of every (candidate, reference) pair of a corpus.

    Pairs are grouped by candidate (candidates in input order), each
    candidate's references in input order.

    Attributes
    ----------
    dots : ndarray of float64, shape (n, n_pairs)
        Per order, the pair's dot product of tf-idf vectors: ``sum(min(c, r)
        * r)`` over shared n-grams when ``clipped`` (CIDEr-D), else
        ``sum(c * r)``.
    candidate_norms, reference_norms : ndarray of float64, shape (n, n_pairs)
        Per order, the Euclidean norms of the candidate's and the reference's
        tf-idf vectors.
    length_delta : ndarray of int64, shape (n_pairs,)
        Candidate length minus reference length, in pycocoevalcap's unit
        (bigrams: words - 1, or 0 for an empty caption).
    pair_candidate : ndarray of int64, shape (n_pairs,)
        The candidate of each pair.
    candidate_image : ndarray of int64, shape (n_candidates,)
        The image of each candidate.
    reference_offsets : ndarray of int64, shape (n_images + 1,)
        Image i's references are ``reference_offsets[i]:reference_offsets[i + 1]``.
    n_documents : int
        The number of documents (images) behind the idf.
    clipped : bool
        Whether ``dots`` are clipped.
    empty_candidates : int
        How many candidates have no token after tokenization (they score 0).
    """

    dots: np.ndarray
    candidate_norms: np.ndarray
    reference_norms: np.ndarray
    length_delta: np.ndarray
    pair_candidate: np.ndarray
    candidate_image: np.ndarray
    reference_offsets: np.ndarray
    n_documents: int
    clipped: bool
    empty_candidates: int = 0

    @property
    def n(self) -> int:
        return int(self.dots.shape[0])

    @property
    def n_candidates(self) -> int:
        return int(self.candidate_image.shape[0])

    @property
    def n_images(self) -> int:
        return int(self.reference_offsets.shape[0] - 1)


def _allocate(
    n: int, n_pairs: int, candidate_image: np.ndarray, reference_offsets: np.ndarray,
    n_documents: int, clip: bool, empty_candidates: int = 0,
) -> PairStatistics:  # fmt: skip
    """Statistics with room for every pair (filled by the stages in place);
    ``pair_candidate`` and ``length_delta`` are set by the caller."""
    return PairStatistics(
        dots=np.empty((n, n_pairs)),
        candidate_norms=np.empty((n, n_pairs)),
        reference_norms=np.empty((n, n_pairs)),
        length_delta=np.empty(n_pairs, dtype=np.int64),
        pair_candidate=np.empty(n_pairs, dtype=np.int64),
        candidate_image=candidate_image,
        reference_offsets=reference_offsets,
        n_documents=n_documents,
        clipped=clip,
        empty_candidates=empty_candidates,
    )


def _views(stats: PairStatistics, k: int, lo: int, hi: int):
    return stats.dots[k, lo:hi], stats.candidate_norms[k, lo:hi], stats.reference_norms[k, lo:hi]


def token_statistics(
    ref_tokens: Tokens,
    cand_tokens: Tokens,
    candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
    *,
    n: int,
    clip: bool,
    df: DocumentFrequencies | None,
    progress: Progress | None = None,
) -> PairStatistics:
    """Statistics of tokenized, aligned inputs, in the calling thread.

    ``df=None`` counts document frequencies over these references (one
    document per image); otherwise they come from ``df``.  ``progress``
    (started by the caller, see :func:`steps`) is told of each of the
    ``1 + 2 n`` steps after tokenization: hashing, then counting and
    scoring each order.

    Raises
    ------
    ValueError
        ``df=None`` and every reference is empty (:func:`no_reference_words`).
    """
    if df is None and ref_tokens.hashes.shape[0] == 0:
        raise no_reference_words()
    prepared = prepare(ref_tokens, cand_tokens, candidate_image, reference_offsets, n=n)
    if progress is not None:
        progress.step()
    n_documents = prepared.n_images if df is None else df.n_images
    n_pairs = prepared.pair_candidate.shape[0]
    stats = _allocate(
        n, n_pairs, candidate_image, reference_offsets, n_documents, clip,
        prepared.empty_candidates,
    )  # fmt: skip
    stats.pair_candidate[:] = prepared.pair_candidate
    stats.length_delta[:] = prepared.length_delta
    # one order at a time: count, compute its statistics, release its counts
    # (an order's statistics need only its own counts), so one order's
    # count matrix is alive at a time
    for k in range(n):
        count_order(prepared, k, local_df=df is None)
        if progress is not None:
            progress.step()
        order = prepared.orders[k]
        freq = order.local_df if df is None else df.lookup(order.column_keys, k + 1)
        order_statistics(
            prepared, k, freq, n_documents, clip=clip, out=_views(stats, k, 0, n_pairs)
        )
        prepared.orders[k] = None
        if progress is not None:
            progress.step()
    return stats


def _n_shards(corpus: Corpus, n_jobs: int) -> int:
    # read here, not in shards: tests lower MIN_SHARD_IMAGES on this module
    return n_shards(corpus.n_images, n_jobs, MIN_SHARD_IMAGES)


def steps(corpus: Corpus, *, n: int, n_jobs: int = 1) -> int:
    """The number of steps :func:`statistics` reports to its ``progress``.

    Examples
    --------
    >>> from sparsecider.core.corpus import as_corpus
    >>> steps(as_corpus(["a dog"], [["a dog"]]), n=4)  # tokenize, hash, 4 x (count, score)
    10
    """
    return _steps(len(shard_bounds(corpus.reference_offsets, _n_shards(corpus, n_jobs))), n)


def _steps(n_shards: int, n: int) -> int:
    return 2 + 2 * n if n_shards == 1 else n_shards * (1 + 2 * n)


def statistics(
    corpus: Corpus,
    *,
    n: int,
    clip: bool,
    tokenizer: Tokenizer,
    df: DocumentFrequencies | None,
    n_jobs: int = 1,
    progress: Progress | None = None,
) -> PairStatistics:
    """Statistics of a corpus (see :func:`token_statistics`).

    With ``n_jobs > 1`` the images are cut into up to that many contiguous
    shards of at least ``MIN_SHARD_IMAGES`` images, scored by a pool of as
    many threads (:func:`_score_shards`).  Columns follow
    key order in every shard, so every sum adds the same terms in the same
    order: the statistics are bit-identical to ``n_jobs=1``.

    ``progress`` is started with :func:`steps` and told of each step (from
    the worker threads when sharded).
    """
    bounds = shard_bounds(corpus.reference_offsets, _n_shards(corpus, n_jobs))
    if progress is not None:
        progress.start(_steps(len(bounds), n))
    if len(bounds) > 1:
        return _statistics_in_shards(
            corpus, bounds, n=n, clip=clip, tokenizer=tokenizer, df=df, progress=progress
        )
    with corpus.naming("references"):
        ref_tokens = tokenizer.split(corpus.references)
    if df is None and ref_tokens.hashes.shape[0] == 0:
        raise no_reference_words()
    # candidates that are the references themselves (Self-CIDEr, consensus
    # selection, the vectorizer's similarity of a list with itself) are
    # tokenized once: the stages never write to the tokens they are given
    if corpus.candidates is corpus.references:
        cand_tokens = ref_tokens
    else:
        with corpus.naming("candidates"):
            cand_tokens = tokenizer.split(corpus.candidates)
    if progress is not None:
        progress.step()
    return token_statistics(
        ref_tokens, cand_tokens, corpus.candidate_image, corpus.reference_offsets,
        n=n, clip=clip, df=df, progress=progress,
    )  # fmt: skip


# ---- many shards, one thread each --------------------------------------------------------------


def _prepare_shard(
    corpus: Corpus, start: int, stop: int, *, n: int, tokenizer: Tokenizer
) -> tuple[Prepared, int]:
    """Images ``start:stop`` of ``corpus`` tokenized (as inside the whole
    corpus) and hashed; also returns the shard's number of reference tokens."""
    ref_tokens, cand_tokens, cand_image, ref_offsets = shard_tokens(corpus, start, stop, tokenizer)
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


def _statistics_in_shards(
    corpus: Corpus, bounds: list[tuple[int, int]], *, n: int, clip: bool,
    tokenizer: Tokenizer, df: DocumentFrequencies | None, progress: Progress | None,
) -> PairStatistics:  # fmt: skip
    """:func:`statistics` of a corpus cut into shards ``bounds``, one thread each.

    Shard s owns the pairs of its candidates, a contiguous range of the
    statistics: each (shard, order)'s statistics are written straight into
    that range, and each shard's pair layout is shifted into place at the end.
    """
    n_documents = corpus.n_images if df is None else df.n_images
    refs_per_candidate = np.diff(corpus.reference_offsets)[corpus.candidate_image]
    pair_end = np.cumsum(refs_per_candidate)
    n_pairs = int(pair_end[-1]) if pair_end.size else 0
    stats = _allocate(
        n, n_pairs, corpus.candidate_image, corpus.reference_offsets, n_documents, clip
    )
    first = np.searchsorted(corpus.candidate_image, [start for start, _ in bounds])
    pair_start = [*np.concatenate(([0], pair_end))[first].tolist(), n_pairs]
    pair_ranges = list(itertools.pairwise(pair_start))
    shards = _score_shards(
        corpus, bounds, n=n, clip=clip, tokenizer=tokenizer, df=df,
        out=[[_views(stats, k, lo, hi) for k in range(n)] for lo, hi in pair_ranges],
        progress=progress,
    )  # fmt: skip
    for s, (lo, hi) in enumerate(pair_ranges):
        stats.pair_candidate[lo:hi] = shards[s].pair_candidate + int(first[s])
        stats.length_delta[lo:hi] = shards[s].length_delta
    return dataclasses.replace(
        stats, empty_candidates=sum(shard.empty_candidates for shard in shards)
    )


def _score_shards(
    corpus: Corpus, bounds: list[tuple[int, int]], *, n: int, clip: bool,
    tokenizer: Tokenizer, df: DocumentFrequencies | None,
    out: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]],
    progress: Progress | None = None,
) -> list[Prepared]:  # fmt: skip
    """The shards (laid out), each (shard, order)'s statistics written to
    ``out[shard][order]``, computed in a pool of one thread per shard.

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
            tasks = {}
            for k in range(n):
                for s in range(len(shards)):
                    counted[s, k].result()
                pending = _Countdown(len(shards), functools.partial(_release, shards, k))
                for s in range(len(shards)):
                    tasks[s, k] = pool.submit(
                        _shard_order_statistics, shards, s, k, df, n_docs, clip, out[s][k]
                    )
                    tasks[s, k].add_done_callback(pending.done)
                    if step is not None:
                        tasks[s, k].add_done_callback(step)
            for task in tasks.values():
                task.result()
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            for future in sorted(hashed, key=hashed.__getitem__):
                if not future.cancelled() and future.exception() is not None:
                    raise future.exception() from None
            raise
    return shards
