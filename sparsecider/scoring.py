"""The scoring pipeline and the public functions :func:`cider_d` and :func:`cider`.

Data flow (one module per arrow)::

    strings -> token hashes      (tokenize, hashing)
            -> n-gram keys        (hashing.ngram_keys)
            -> CSC counts/order   (entries)
            -> document freq.     (docfreq)
            -> tf-idf             (weights)
            -> pair similarities  (pairs)
            -> per-candidate scores, per order, corpus mean (here)
"""

from __future__ import annotations

import itertools
import numbers
import os
import warnings
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import __version__
from .docfreq import image_document_frequency
from .entries import Layout, count_columns, image_runs, layout, slot_tokens
from .frequencies import DocumentFrequencies, lookup_sorted
from .hashing import ngram_keys
from .inputs import Corpus, as_corpus
from .pairs import (
    candidate_reference_pairs,
    column_pair_dots,
    length_penalty,
    slot_norms,
    sum_by,
)
from .result import CiderResult, make_signature
from .tokenize import (
    TokenizerLike,
    Tokens,
    resolve_tokenizer,
    tokenize,
    tokenize_slice,
    tokenizer_name,
)
from .weights import apply_idf, idf

__all__ = ["cider", "cider_d", "score_corpus"]

Candidates = Sequence[str] | Sequence[Sequence[str]] | Mapping[object, str | Sequence[str]]
References = Sequence[Sequence[str]] | Mapping[object, Sequence[str]]


def _check_number(
    name: str, value: object, *, integer: bool = False, positive: bool = True
) -> None:
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        expected = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} {value!r}")
    if integer and value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if not integer and positive and not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")


def check_options(
    *, n: object, sigma: object, scale: object, df: object, tokenizer: object
) -> tuple[int, float | None, float, DocumentFrequencies | None]:
    """Check the options shared by every scoring entry point, in this order.

    ``sigma=None`` means plain CIDEr.  Returns ``n``, ``sigma`` and ``scale``
    as plain numbers and the frequencies (None for ``df="corpus"``).
    """
    _check_number("n", n, integer=True)
    if sigma is not None:
        _check_number("sigma", sigma)
    _check_number("scale", scale)
    frequencies = check_df(df, int(n))
    resolve_tokenizer(tokenizer)
    return int(n), None if sigma is None else float(sigma), float(scale), frequencies


def check_df(df: object, n: int) -> DocumentFrequencies | None:
    """``None`` for corpus mode, the object for precomputed frequencies; else raise."""
    if isinstance(df, DocumentFrequencies):
        if df.n < n:
            raise ValueError(f"df was fitted for n={df.n}; it cannot score n={n}")
        return df
    if isinstance(df, str) and df == "corpus":
        return None
    raise ValueError(
        f"df={df!r:.60} is not supported; use df='corpus' (document frequencies from the "
        "references being scored) or a sparsecider.DocumentFrequencies (load one with "
        "DocumentFrequencies.load, or import a legacy pickle with DocumentFrequencies.from_pickle)"
    )


@dataclass(eq=False)
class Prepared:
    """One shard of images, tokenized and counted, ready for document frequencies.

    ``orders[k]`` holds order k + 1 once counted (:func:`count_order`):
    ``column_keys`` (uint64, strictly increasing), the raw-count CSC matrix
    ``counts`` (rows: the slots of ``slots``; columns: those keys), and
    ``local_df`` (the shard's own image document frequencies per column, or
    None when they were not asked for).  Until then ``keys[k]`` holds that
    order's n-gram keys and row pointer (:func:`sparsecider.hashing.ngram_keys`).
    """

    n_images: int
    candidate_image: np.ndarray
    reference_offsets: np.ndarray
    slots: Layout
    pair_candidate: np.ndarray
    pair_reference: np.ndarray
    penalty: np.ndarray | None
    keys: list[tuple[np.ndarray, np.ndarray] | None]
    orders: list[OrderCounts | None]


@dataclass(eq=False)
class OrderCounts:
    column_keys: np.ndarray
    counts: sp.csc_matrix
    local_df: np.ndarray | None
    runs: np.ndarray | None = None  # see entries.image_runs
    candidate: np.ndarray | None = None  # entries of candidate slots

    def entry_groups(self, slots: Layout) -> tuple[np.ndarray, np.ndarray]:
        if self.runs is None:
            self.runs = image_runs(self.counts, slots.slot_image)
            self.candidate = slots.slot_is_candidate[self.counts.indices]
        return self.runs, self.candidate


def prepare(
    ref_tokens: Tokens,
    cand_tokens: Tokens,
    candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
    *,
    n: int,
    sigma: float | None,
) -> Prepared:
    """Lay out tokenized, aligned inputs and hash their n-grams of every order.

    Cost: O(number of n-grams); the keys of all n orders are held until
    :func:`count_order` consumes them.
    """
    pair_c, pair_r = candidate_reference_pairs(candidate_image, reference_offsets)
    penalty = None
    if sigma is not None:
        # pycocoevalcap's "length" is the bigram count: words - 1, or 0 when empty
        cand_len = np.maximum(cand_tokens.lengths - 1, 0)
        ref_len = np.maximum(ref_tokens.lengths - 1, 0)
        penalty = length_penalty(cand_len[pair_c] - ref_len[pair_r], sigma)
    slots = layout(candidate_image, reference_offsets)
    tokens = slot_tokens(ref_tokens, cand_tokens, slots)
    return Prepared(
        n_images=int(reference_offsets.shape[0] - 1),
        candidate_image=candidate_image,
        reference_offsets=reference_offsets,
        slots=slots,
        pair_candidate=pair_c,
        pair_reference=pair_r,
        penalty=penalty,
        keys=list(ngram_keys(tokens.hashes, tokens.lengths, n)),
        orders=[None] * n,
    )


def count_order(prepared: Prepared, k: int, *, local_df: bool) -> None:
    """Count order k + 1 of ``prepared`` (its keys are released), in place.

    Cost: one ``np.sort`` of packed keys and a few passes
    (:func:`sparsecider.entries.count_columns`); ``local_df=True`` adds one
    pass over the stored counts.
    """
    keys, indptr = prepared.keys[k]
    prepared.keys[k] = None
    # the keys have no other owner: hashed here, or (order 1) slot_tokens' new array
    counts, column_keys = count_columns(keys, indptr, overwrite_keys=True)
    order = OrderCounts(column_keys, counts, None)
    if local_df:
        order.local_df = image_document_frequency(counts, *order.entry_groups(prepared.slots))
    prepared.orders[k] = order


def order_values(prepared: Prepared, k: int, freq: np.ndarray, n_documents: int) -> np.ndarray:
    """Order k + 1's sum over each candidate's references, shape (n_candidates,).

    ``freq`` is the document frequency of each column of the order over
    ``n_documents`` images.  Turns the order's counts into tf-idf in place.
    Cost: the join of :func:`column_pair_dots`.
    """
    order = prepared.orders[k]
    slots = prepared.slots
    pair_c = prepared.pair_candidate
    clip = prepared.penalty is not None
    runs, candidate = order.entry_groups(slots)
    weighted = apply_idf(order.counts, idf(freq, n_documents))
    dot = column_pair_dots(
        weighted, runs, candidate, slots.slot_pair_base, pair_c.shape[0], clip=clip
    )
    norms = slot_norms(weighted)
    cand_norm = norms[slots.candidate_slot[pair_c]]
    ref_norm = norms[slots.reference_slot[prepared.pair_reference]]
    np.divide(dot, cand_norm * ref_norm, out=dot, where=(cand_norm != 0) & (ref_norm != 0))
    if clip:
        dot *= prepared.penalty
    return sum_by(pair_c, dot, prepared.candidate_image.shape[0])


def combine(prepared: Prepared, sums: Sequence[np.ndarray], *, scale: float) -> np.ndarray:
    """Per-order values (n_candidates, n) from :func:`order_values` of every order."""
    per_order = np.stack(sums, axis=1)
    # mean over references, then the reference's x10
    per_order /= np.diff(prepared.reference_offsets)[prepared.candidate_image][:, None]
    per_order *= scale
    return per_order


def finish(
    prepared: Prepared, doc_freqs: Sequence[np.ndarray], n_documents: int, *, scale: float
) -> np.ndarray:
    """Per-order values (n_candidates, n) from counts and document frequencies.

    ``doc_freqs[k]`` is the document frequency of each column of order k + 1
    over ``n_documents`` images.  Consumes ``prepared`` (its count matrices
    become tf-idf in place).
    """
    orders = range(len(prepared.orders))
    sums = [
        order_values(prepared, k, freq, n_documents)
        for k, freq in zip(orders, doc_freqs, strict=True)
    ]
    return combine(prepared, sums, scale=scale)


def score_tokens(
    ref_tokens: Tokens,
    cand_tokens: Tokens,
    candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
    *,
    n: int,
    sigma: float | None,
    df: DocumentFrequencies | None,
    scale: float,
) -> np.ndarray:
    """Per-order values (n_candidates, n) for tokenized, aligned inputs.

    ``sigma=None`` means plain CIDEr (no clip, no length penalty), otherwise
    CIDEr-D.  ``df=None`` counts document frequencies over these references
    (one document per image); otherwise they come from ``df``.
    """
    prepared = prepare(
        ref_tokens, cand_tokens, candidate_image, reference_offsets, n=n, sigma=sigma
    )
    for k in range(n):
        count_order(prepared, k, local_df=df is None)
    if df is None:
        return finish(
            prepared, [o.local_df for o in prepared.orders], prepared.n_images, scale=scale
        )
    return finish(prepared, lookup_all(df, prepared), df.n_images, scale=scale)


def lookup_all(df: DocumentFrequencies, prepared: Prepared) -> list[np.ndarray]:
    """``df``'s frequency of every column of every order of ``prepared``."""
    return [df.lookup(o.column_keys, k + 1) for k, o in enumerate(prepared.orders)]


def make_result(
    per_order: np.ndarray,
    *,
    n: int,
    sigma: float | None,
    df: DocumentFrequencies | None,
    tokenizer: str,
    scale: float,
    n_images: int,
    candidate_image: np.ndarray,
    ids: tuple | None,
) -> CiderResult:
    """Wrap per-order values into a :class:`CiderResult` with its signature."""
    scores = per_order.mean(axis=1)
    metric = "CIDEr-D" if sigma is not None else "CIDEr"
    signature = make_signature(
        metric,
        n=n,
        sigma=sigma,
        df=f"corpus(n_images={n_images})" if df is None else df.describe(),
        tokenizer=tokenizer,
        scale=scale,
        version=__version__,
    )
    return CiderResult(
        score=float(scores.mean()),
        scores=scores,
        per_order=per_order,
        signature=signature,
        n_images=n_images,
        image_index=candidate_image,
        ids=ids,
        metric=metric,
    )


def warn_single_image(n_images: int, df: DocumentFrequencies | None) -> None:
    if n_images == 1 and df is None:
        warnings.warn(
            "scoring a single image with df='corpus' gives 0: every n-gram of its "
            "references occurs in all (1) images, so every idf is log(1) - log(1) = 0. "
            "Use document frequencies from a larger corpus (df=DocumentFrequencies) "
            "to score few images.",
            UserWarning,
            stacklevel=4,
        )


def resolve_n_jobs(n_jobs: object) -> int:
    """``n_jobs`` as a thread count: None -> 1, -1 -> all CPUs, -2 -> all but one."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(
            f"n_jobs must be a non-zero integer or None (-1: all CPUs), got {n_jobs!r}"
        )
    if n_jobs > 0:
        return int(n_jobs)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cpus or 1) + 1 + int(n_jobs))


# below this many images per shard, threads cost more than they save
MIN_SHARD_IMAGES = 2000


def shard_bounds(reference_offsets: np.ndarray, n_shards: int) -> list[tuple[int, int]]:
    """Contiguous image ranges ``[(start, stop), ...]`` with about equal numbers
    of references (the bulk of the work), none empty."""
    n_images = reference_offsets.shape[0] - 1
    targets = np.linspace(0, reference_offsets[-1], n_shards + 1)[1:-1]
    cuts = np.searchsorted(reference_offsets, targets)
    edges = np.unique(np.concatenate(([0], np.clip(cuts, 1, n_images - 1), [n_images])))
    return list(itertools.pairwise(edges.tolist()))


def _prepare_shard(
    corpus: Corpus, start: int, stop: int, *, n: int, sigma: float | None, tokenizer: TokenizerLike
) -> tuple[Prepared, int]:
    """Images ``start:stop`` of ``corpus`` tokenized (as inside the whole
    corpus) and hashed (:func:`prepare`); also returns the shard's number
    of reference tokens."""
    offsets = corpus.reference_offsets
    r0, r1 = int(offsets[start]), int(offsets[stop])
    c0, c1 = np.searchsorted(corpus.candidate_image, [start, stop]).tolist()
    refs, cands = corpus.references, corpus.candidates
    ref_tokens = tokenize_slice(refs[r0:r1], tokenizer, (refs[i] for i in range(r1, len(refs))))
    cand_tokens = tokenize_slice(cands[c0:c1], tokenizer, (cands[i] for i in range(c1, len(cands))))
    cand_image = corpus.candidate_image[c0:c1] - start
    ref_offsets = offsets[start : stop + 1] - r0
    prepared = prepare(ref_tokens, cand_tokens, cand_image, ref_offsets, n=n, sigma=sigma)
    return prepared, int(ref_tokens.hashes.shape[0])


def _shard_order_values(
    shards: list[Prepared], s: int, k: int, df: DocumentFrequencies | None, n_documents: int
) -> np.ndarray:
    """:func:`order_values` of order k + 1 of shard ``s``.  In corpus mode
    (``df=None``) its document frequencies are the shard's own plus every
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
    return order_values(shards[s], k, freq, n_documents)


def _score_shards(
    corpus: Corpus, bounds: list[tuple[int, int]], *, n: int, sigma: float | None,
    tokenizer: TokenizerLike, scale: float, df: DocumentFrequencies | None,
) -> np.ndarray:  # fmt: skip
    """Per-order values of ``corpus`` scored shard by shard in a pool of one
    thread per shard.

    The tasks: tokenize and hash each shard; count each (shard, order); then,
    once every shard has counted order k, score each (shard, order k).
    Tasks are queued as soon as their inputs are ready, so no thread idles
    while a task is ready to run (the stages overlap).  When shards fail,
    the error raised is that of the first failing shard in shard order,
    whichever failed first in time.
    """
    with ThreadPoolExecutor(len(bounds), thread_name_prefix="sparsecider") as pool:
        hashed = {
            pool.submit(_prepare_shard, corpus, *b, n=n, sigma=sigma, tokenizer=tokenizer): s
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
                for k in range(n):
                    counted[s, k] = pool.submit(count_order, shards[s], k, local_df=df is None)
            if df is None and words == 0:
                raise _no_reference_words()
            n_docs = corpus.n_images if df is None else df.n_images
            values = {}
            for k in range(n):
                for s in range(len(shards)):
                    counted[s, k].result()
                for s in range(len(shards)):
                    values[s, k] = pool.submit(_shard_order_values, shards, s, k, df, n_docs)
            parts = [
                combine(shards[s], [values[s, k].result() for k in range(n)], scale=scale)
                for s in range(len(shards))
            ]
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            for future in sorted(hashed, key=hashed.__getitem__):
                if not future.cancelled() and future.exception() is not None:
                    raise future.exception() from None
            raise
    return np.concatenate(parts)


def _no_reference_words() -> ValueError:
    return ValueError(
        "every reference is empty after tokenization: with no reference words there "
        "is nothing to score against (pycocoevalcap fails here with "
        "'max() arg is an empty sequence')"
    )


def score_corpus(
    corpus: Corpus,
    *,
    n: int,
    sigma: float | None,
    tokenizer: TokenizerLike,
    scale: float,
    df: DocumentFrequencies | None = None,
    n_jobs: int = 1,
) -> CiderResult:
    """Score a validated corpus (see :func:`score_tokens`).

    With ``n_jobs > 1`` the images are cut into up to that many contiguous
    shards of at least ``MIN_SHARD_IMAGES`` images, scored by a pool of as
    many threads (:func:`_score_shards`): each shard is tokenized (exactly
    as inside the whole sequence, see
    :func:`sparsecider.tokenize.tokenize_slice`) and hashed, each (shard,
    order) counted, and, in corpus mode, the shards' document frequencies
    summed at each shard's columns before each (shard, order) is scored.
    Columns follow key order in every shard, so every row sum adds the same
    terms in the same order: the result is bit-identical to ``n_jobs=1``.
    """
    warn_single_image(corpus.n_images, df)
    # no shard below MIN_SHARD_IMAGES: a many-core machine does not split a
    # small corpus into slivers (the df merge grows with the square of the shards)
    n_shards = max(1, min(n_jobs, corpus.n_images // MIN_SHARD_IMAGES))
    bounds = shard_bounds(corpus.reference_offsets, n_shards)
    if n_shards > 1 and len(bounds) > 1:
        per_order = _score_shards(
            corpus, bounds, n=n, sigma=sigma, tokenizer=tokenizer, scale=scale, df=df
        )
    else:
        ref_tokens = tokenize(corpus.references, tokenizer)
        if ref_tokens.hashes.shape[0] == 0 and df is None:
            raise _no_reference_words()
        cand_tokens = tokenize(corpus.candidates, tokenizer)
        per_order = score_tokens(
            ref_tokens, cand_tokens, corpus.candidate_image, corpus.reference_offsets,
            n=n, sigma=sigma, df=df, scale=scale,
        )  # fmt: skip
    return make_result(
        per_order, n=n, sigma=sigma, df=df, tokenizer=tokenizer_name(tokenizer), scale=scale,
        n_images=corpus.n_images, candidate_image=corpus.candidate_image, ids=corpus.ids,
    )  # fmt: skip


def cider_d(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    n_jobs: int | None = -1,
) -> CiderResult:
    """CIDEr-D, exactly as pycocoevalcap's ``Cider`` class computes it.

    Parameters
    ----------
    candidates : list of str, list of list of str, or dict
        One caption per image; or several per image (n-best lists, sampled
        captions), each scored against that image's references; or a dict
        from image id to a caption or a list of captions.
    references : list of list of str, or dict
        The reference captions of each image, aligned with ``candidates``;
        or a dict from image id to its references (then the ids must match
        those of ``candidates`` exactly; output follows the candidates' order).
    n : int, default 4
        Highest n-gram order; orders 1..n are averaged.
    sigma : float, default 6.0
        Width of the Gaussian length penalty.
    df : "corpus" or DocumentFrequencies, default "corpus"
        ``"corpus"``: document frequencies from the references being scored
        (one document per image).  A :class:`DocumentFrequencies` fitted on
        another corpus (e.g. the training captions for RL rewards, or COCO val
        to score a handful of images): each image then scores exactly as it
        would inside that corpus.
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
        How captions become tokens.  ``"ptb"``: raw text through the
        reference pipeline (pycocoevalcap's ``PTBTokenizer``, in pure Python:
        see :func:`sparsecider.ptb_tokenize`); the references, flattened
        image after image, are tokenized as one sequence and the candidates
        as another, as ``COCOEvalCap`` does.  ``"whitespace"``: captions
        already tokenized (``str.split``), as pycocoevalcap's scorer takes
        them.  A callable maps the list of captions to a list of token lists.
    scale : float, default 10.0
        Final multiplier (pycocoevalcap uses 10).
    n_jobs : int or None, default -1
        Threads for large corpora: -1 (the default) one per CPU, -2 all but
        one, None or 1 a single thread.  The images are split into that many
        contiguous shards, tokenized, counted and scored in parallel (most of
        the work runs in numpy without the GIL); the result is bit-identical
        for every value.  Corpora under 4,000 images (an RL batch, a
        notebook cell) are always scored in the calling thread, and no
        shard gets fewer than 2,000 images.  A callable ``tokenizer`` is then
        called from the worker threads, once per shard: it must be
        thread-safe and tokenize each caption on its own.

    Returns
    -------
    CiderResult
        ``score`` (corpus mean), ``scores`` (one per candidate, input order),
        ``per_order`` (shape (n_candidates, n)), ``signature`` and more.

    Raises
    ------
    TypeError
        A bare string where a list is expected, or a non-string caption.
    ValueError
        Misaligned or mismatched inputs, an image without references, every
        reference empty, or an invalid parameter.

    Notes
    -----
    A corpus of one image scores 0 with ``df="corpus"`` (every idf is
    ``log 1 = 0``); a warning says so.

    Examples
    --------
    >>> import sparsecider
    >>> r = sparsecider.cider_d(
    ...     ["A dog runs on the grass.", "A red bus."],
    ...     [["A dog running on grass.", "The dog runs!"], ["A red bus on the road."]],
    ... )
    >>> round(r.score, 4), r.scores.shape, r.per_order.shape
    (3.3234, (2,), (2, 4))
    >>> r.signature
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    """
    n, sigma, scale, frequencies = check_options(
        n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer
    )
    jobs = resolve_n_jobs(n_jobs)
    corpus = as_corpus(candidates, references)
    return score_corpus(
        corpus, n=n, sigma=sigma, tokenizer=tokenizer, scale=scale, df=frequencies, n_jobs=jobs
    )


def cider(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    n_jobs: int | None = -1,
) -> CiderResult:
    """Plain CIDEr: as :func:`cider_d` without clipping and without the length penalty.

    Each order's value is the plain cosine of the tf-idf vectors, as in the
    CIDEr authors' own ``Cider`` scorer (not pycocoevalcap's ``Cider``, which
    is CIDEr-D).  Parameters, return value and errors as :func:`cider_d`.

    Examples
    --------
    >>> import sparsecider
    >>> r = sparsecider.cider(["a dog runs", "a red bus"], [["a dog runs fast"], ["a bus"]])
    >>> r.signature
    'CIDEr|n:4|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    """
    n, _, scale, frequencies = check_options(
        n=n, sigma=None, scale=scale, df=df, tokenizer=tokenizer
    )
    jobs = resolve_n_jobs(n_jobs)
    corpus = as_corpus(candidates, references)
    return score_corpus(
        corpus, n=n, sigma=None, tokenizer=tokenizer, scale=scale, df=frequencies, n_jobs=jobs
    )
