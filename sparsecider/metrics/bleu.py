"""BLEU-1..n exactly as pycocoevalcap 1.2's ``Bleu``: statistics, then a pure score.

As sacrebleu does, each candidate's sufficient statistics come first (its
length, the "closest" reference length, and per order the n-gram count
``guess`` and the clipped count ``correct``), then pure functions turn them
into per-caption and corpus scores.  The statistics reuse the engine's
kernels: tokens from the tokenizer registry, the slot layout of each
image's references and candidates (:mod:`sparsecider._kernels.counts`),
n-gram keys (:mod:`sparsecider._kernels.hashing`), one count matrix per
order (:func:`sparsecider._kernels.counts.count_columns`), and the clipped
counts, a segmented maximum over each image's reference entries of every
column (:mod:`sparsecider._kernels.clipped`).  Only reference tokens that
may occur in a candidate of their image are counted (the others cut the
reference into segments): n-grams holding any other token bound no
clipped count, and leaving them out spares most of the counting.

The reference's rules, quirks included (``pycocoevalcap/bleu/bleu_scorer.py``):

- a caption is ``str.split()`` into words (the ``"whitespace"`` tokenizer on
  already tokenized text); n-grams are counted with multiplicity;
- ``correct_k = sum_g min(c_g, max over the image's references of r_g)``,
  ``guess_k = max(0, len - k + 1)``;
- the reference length of a candidate is its image's reference length
  closest to the candidate's, the shorter on a tie ("closest"); the corpus
  reference length is the sum of those (not the closest to the corpus
  length);
- per caption: ``b_k = prod_{j <= k} (correct_j + 1e-15) / (guess_j + 1e-9)``,
  ``BLEU-k = b_k ** (1 / k)``, times ``exp(1 - 1 / ratio)`` when
  ``ratio = (len + 1e-15) / (reflen + 1e-9) < 1``: the constants smooth
  zero counts (an order without a match gives about 1e-6, not 0, to the
  product) and avoid division by zero (an empty candidate scores 0);
- corpus: the same formula on the statistics summed over all candidates.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import MAX_N, check_int
from .._kernels.arrays import exclusive_cumsum
from .._kernels.clipped import clipped_counts, matchable_tokens
from .._kernels.counts import Layout, count_columns, image_runs, layout, slot_tokens
from .._kernels.hashing import ngram_keys
from .._kernels.pairs import candidate_reference_pairs
from .._kernels.tokens import Tokens
from ..core.advice import advise
from ..core.corpus import Corpus, as_corpus
from ..core.result import CiderResult, Signature
from ..core.shards import per_candidate
from ..core.validate import check_n_jobs
from ..tokenizers import Tokenizer, TokenizerLike, get_tokenizer

__all__ = ["SMALL", "TINY", "BleuStatistics", "bleu", "bleu_result", "bleu_statistics",
           "corpus_bleu", "corpus_statistics", "sentence_bleu"]  # fmt: skip

# pycocoevalcap's smoothing constants: "so that if guess is 0 still return 0"
TINY = 1e-15
SMALL = 1e-9


@dataclass(frozen=True, eq=False)
class BleuStatistics:
    """BLEU's sufficient statistics of every candidate (pycocoevalcap's ``cook_test``).

    Attributes
    ----------
    testlen : ndarray of int64, shape (n_candidates,)
        Words in the candidate.
    reflen : ndarray of int64, shape (n_candidates,)
        The length of its image's reference closest to ``testlen`` (the
        shorter one on a tie).
    guess : ndarray of int64, shape (n_candidates, n)
        Per order k: the candidate's number of k-grams, ``max(0, testlen - k + 1)``.
    correct : ndarray of int64, shape (n_candidates, n)
        Per order k: its clipped count of k-grams.
    """

    testlen: np.ndarray
    reflen: np.ndarray
    guess: np.ndarray
    correct: np.ndarray

    @property
    def n(self) -> int:
        return int(self.guess.shape[1])


def _closest_reference_length(
    testlen: np.ndarray, ref_len: np.ndarray, pair_candidate: np.ndarray,
    pair_reference: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """Per candidate, the reference length minimising ``(|l - testlen|, l)``
    over its image's references (pycocoevalcap's "closest" rule)."""
    lr = ref_len[pair_reference]
    base = int(lr.max()) + 1 if lr.shape[0] else 1
    # the lexicographic key (distance, length) as one integer
    key = np.abs(lr - testlen[pair_candidate]) * base + lr
    first_pair = exclusive_cumsum(np.bincount(pair_candidate, minlength=testlen.shape[0]))[:-1]
    return np.minimum.reduceat(key, first_pair) % base


def _segments(keep: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of kept tokens, cut at caption ends too: their lengths, and
    each caption's first run (shape (n_captions + 1,))."""
    caption_start = exclusive_cumsum(lengths)
    first = caption_start[:-1][lengths > 0]
    last = caption_start[1:][lengths > 0] - 1
    step = keep.view(np.int8)
    start = np.empty(keep.shape[0], dtype=bool)
    end = np.empty(keep.shape[0], dtype=bool)
    if keep.shape[0]:
        start[0], end[-1] = keep[0], keep[-1]
        np.greater(step[1:], step[:-1], out=start[1:])  # kept after one left out
        np.greater(step[:-1], step[1:], out=end[:-1])  # kept before one left out
    start[first] = keep[first]
    end[last] = keep[last]
    starts, ends = np.flatnonzero(start), np.flatnonzero(end)
    return ends - starts + 1, np.searchsorted(starts, caption_start)


def _matchable_segments(
    ref_tokens: Tokens, cand_tokens: Tokens, candidate_image: np.ndarray,
    reference_offsets: np.ndarray, slots: Layout,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The tokens that can take part in a clipped match, in slot order, cut
    into segments: every candidate token, and the reference tokens that
    may occur in a candidate of their image
    (:func:`sparsecider._kernels.clipped.matchable_tokens`), cut where
    others were left out.

    Returns the kept token hashes and the segments' lengths, both in slot
    order, and each slot's first segment (shape (n_slots + 1,)): the
    n-grams of the segments are exactly the n-grams of the captions that
    may be shared.
    """
    n_images = reference_offsets.shape[0] - 1
    ref_image = np.repeat(np.arange(n_images), np.diff(reference_offsets))
    keep = matchable_tokens(
        ref_tokens.hashes, np.repeat(ref_image, ref_tokens.lengths),
        cand_tokens.hashes, np.repeat(candidate_image, cand_tokens.lengths),
    )  # fmt: skip
    segment_length, ref_segment = _segments(keep, ref_tokens.lengths)
    kept = Tokens(ref_tokens.hashes[keep], np.diff(exclusive_cumsum(segment_length)[ref_segment]))
    hashes = slot_tokens(kept, cand_tokens, slots)
    # each candidate is one segment (when not empty); the same merge puts the
    # segments' lengths in slot order
    cand_len = cand_tokens.lengths
    segments = slot_tokens(
        Tokens(segment_length.astype(np.uint64), np.diff(ref_segment)),
        Tokens(cand_len[cand_len > 0].astype(np.uint64), (cand_len > 0).astype(np.int64)),
        slots,
    )
    return hashes.hashes, segments.hashes.astype(np.int64), exclusive_cumsum(segments.lengths)


def _measure(
    ref_tokens: Tokens, cand_tokens: Tokens, candidate_image: np.ndarray,
    reference_offsets: np.ndarray, n: int,
) -> tuple[np.ndarray, ...]:  # fmt: skip
    """(testlen, reflen, guess, correct) of a block of images."""
    slots = layout(candidate_image, reference_offsets)
    hashes, segment_length, slot_segment = _matchable_segments(
        ref_tokens, cand_tokens, candidate_image, reference_offsets, slots
    )
    testlen = cand_tokens.lengths
    correct = np.empty((testlen.shape[0], n), dtype=np.int64)
    # every order's keys first: order k + 1 is hashed from order k's
    orders = list(ngram_keys(hashes, segment_length, n))
    del hashes
    for k in range(n):
        keys, segment_indptr = orders[k]
        orders[k] = None
        # the keys have no other owner now (order 1's are the kept hashes)
        counts, _ = count_columns(keys, segment_indptr[slot_segment], overwrite_keys=True)
        del keys
        runs = image_runs(counts, slots.slot_image)
        candidate = slots.slot_is_candidate[counts.indices]
        correct[:, k] = clipped_counts(counts, runs, candidate, slots.candidate_slot)
    guess = np.maximum(testlen[:, None] - np.arange(n)[None, :], 0)
    pair_candidate, pair_reference = candidate_reference_pairs(candidate_image, reference_offsets)
    reflen = _closest_reference_length(testlen, ref_tokens.lengths, pair_candidate, pair_reference)
    return testlen, reflen, guess, correct


def bleu_statistics(
    ref_tokens: Tokens,
    cand_tokens: Tokens,
    candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
    *,
    n: int = 4,
) -> BleuStatistics:
    """BLEU's statistics of tokenized, aligned inputs, in the calling thread.

    Preconditions: as :func:`sparsecider.core.engine.token_statistics` (every
    image has at least one reference; ``candidate_image`` non-decreasing).

    Examples
    --------
    >>> from sparsecider.tokenizers import tokenize
    >>> refs = tokenize(["the cat sat on the mat", "a cat sat"], "whitespace")
    >>> cands = tokenize(["the the cat sat"], "whitespace")
    >>> s = bleu_statistics(refs, cands, np.array([0]), np.array([0, 2]))
    >>> s.testlen.tolist(), s.reflen.tolist(), s.guess.tolist(), s.correct.tolist()
    ([4], [3], [[4, 3, 2, 1]], [[4, 2, 1, 0]])

    "the" is clipped to 2 (its count in the first reference), "the cat" and
    "cat sat" match, "the the" does not; lengths 6 and 3 are 2 and 1 away
    from 4: the reference length is 3.
    """
    return BleuStatistics(*_measure(ref_tokens, cand_tokens, candidate_image, reference_offsets, n))


def corpus_statistics(
    corpus: Corpus, *, n: int, tokenizer: Tokenizer, n_jobs: int = 1
) -> BleuStatistics:
    """BLEU's statistics of a normalised corpus with checked options, in
    ``n_jobs`` threads (:func:`sparsecider.core.shards.per_candidate`:
    bit-identical for every value)."""

    def measure(ref_tokens, cand_tokens, candidate_image, reference_offsets):
        return _measure(ref_tokens, cand_tokens, candidate_image, reference_offsets, n)

    return BleuStatistics(*per_candidate(corpus, tokenizer, measure, n_jobs=n_jobs))


def sentence_bleu(stats: BleuStatistics) -> np.ndarray:
    """Per caption BLEU-1..n, as pycocoevalcap's per-image list; shape (n_candidates, n).

    The same operations as the reference in the same order, vectorised
    (numpy's ``**`` and ``exp`` may differ from the C library's in the last
    bit: agreement within 1e-15 relative).

    Examples
    --------
    A candidate equal to its only reference ("a b c d") scores just under 1
    (the smoothing constants), an empty one 0 (values from pycocoevalcap):

    >>> s = BleuStatistics(np.array([4, 0]), np.array([4, 3]),
    ...                    np.array([[4, 3, 2, 1], [0, 0, 0, 0]]),
    ...                    np.array([[4, 3, 2, 1], [0, 0, 0, 0]]))
    >>> sentence_bleu(s).tolist()
    [[0.9999999995000004, 0.9999999994583337, 0.9999999993888894, 0.9999999992291674],
     [0.0, 0.0, 0.0, 0.0]]
    """
    precision = (stats.correct + TINY) / (stats.guess + SMALL)
    values = np.cumprod(precision, axis=1)
    values **= 1.0 / np.arange(1, stats.n + 1, dtype=np.float64)
    ratio = (stats.testlen + TINY) / (stats.reflen + SMALL)
    short = ratio < 1
    values[short] *= np.exp(1 - 1 / ratio[short])[:, None]
    return values


def corpus_bleu(stats: BleuStatistics) -> list[float]:
    """Corpus BLEU-1..n, as pycocoevalcap's ``score``: the per-caption formula
    on the statistics summed over all candidates, in the reference's scalar
    arithmetic (bit-identical).

    Examples
    --------
    "a b c d" against "a b c d" and "x q" against "x y z" (pycocoevalcap's
    values): the totals are guess (6, 4, 2, 1), correct (5, 3, 2, 1), length
    6 against 7 (a brevity penalty); BLEU-3 exceeds BLEU-2, as the orders
    without a match in the second caption add nothing to the totals:

    >>> s = BleuStatistics(np.array([4, 2]), np.array([4, 3]),
    ...                    np.array([[4, 3, 2, 1], [2, 1, 0, 0]]),
    ...                    np.array([[4, 3, 2, 1], [1, 0, 0, 0]]))
    >>> corpus_bleu(s)
    [0.7054014371737114, 0.6692025618396454, 0.7237316940904137, 0.7526405106875256]
    """
    testlen, reflen = int(stats.testlen.sum()), int(stats.reflen.sum())
    guess, correct = stats.guess.sum(axis=0).tolist(), stats.correct.sum(axis=0).tolist()
    scores = []
    product = 1.0
    for k in range(stats.n):
        product *= float(correct[k] + TINY) / (guess[k] + SMALL)
        scores.append(product ** (1.0 / (k + 1)))
    ratio = (testlen + TINY) / (reflen + SMALL)
    if ratio < 1:
        scores = [s * math.exp(1 - 1 / ratio) for s in scores]
    return scores


def bleu(
    candidates: Sequence | Mapping,
    references: Sequence | Mapping,
    *,
    n: int = 4,
    tokenizer: TokenizerLike = "ptb",
    n_jobs: int | None = -1,
) -> CiderResult:
    """BLEU-1..n, exactly as pycocoevalcap's ``Bleu(n)`` computes it.

    Parameters
    ----------
    candidates, references
        As :func:`sparsecider.cider_d`: one caption (or several) per image,
        and each image's references; lists or dicts keyed by image id.
    n : int, default 4
        Highest n-gram order.  pycocoevalcap supports n <= 4 (its orders
        1..n are those of ``Bleu(4)``); larger n extend the same formula.
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
        As :func:`sparsecider.cider_d`: ``"ptb"`` for raw text (the
        reference pipeline), ``"whitespace"`` for captions already
        tokenized, as pycocoevalcap's ``Bleu`` takes them.
    n_jobs : int or None, default -1
        Threads (as :func:`sparsecider.cider_d`; each image is scored on
        its own, so the shards share nothing).  Results are bit-identical
        for every value.

    Returns
    -------
    CiderResult
        ``score``: corpus BLEU-n; ``corpus_per_order``: corpus BLEU-1..n
        (pycocoevalcap's ``score`` list); ``scores``: each candidate's
        BLEU-n; ``per_order``: each candidate's BLEU-1..n (pycocoevalcap's
        ``scores`` lists, transposed); ``signature`` such as
        ``BLEU-4|n:4|tok:ptb|version:...``.

    Raises
    ------
    TypeError, ValueError
        As :func:`sparsecider.cider_d` for the captions; ``n`` not a positive integer.

    Notes
    -----
    Several candidates of one image are scored each on its own against the
    image's references, and each adds its statistics to the corpus score,
    as if each were an image of its own.  The corpus score is not a mean of
    ``scores``: a bootstrap over ``scores`` is not a bootstrap of corpus BLEU.

    Examples
    --------
    The first candidate has no 4-gram in a reference: its BLEU-4 is the
    smoothing's 9e-05, not 0 (values as pycocoevalcap's):

    >>> import sparsecider
    >>> r = sparsecider.bleu(["a dog runs on the grass", "a red bus"],
    ...                      [["a dog running on the grass", "the dog runs"], ["a red bus stops"]])
    >>> r.corpus_per_order.round(4).tolist()
    [0.8948, 0.8285, 0.6263, 0.0001]
    >>> r.per_order.round(6).tolist()
    [[1.0, 0.894427, 0.584804, 9e-05], [0.716531, 0.716531, 0.716531, 0.022659]]
    >>> r.signature
    'BLEU-4|n:4|tok:ptb|version:0.1.0'
    """
    n = check_int("n", n, maximum=MAX_N)
    resolved = get_tokenizer(tokenizer)
    jobs = check_n_jobs(n_jobs)
    corpus = as_corpus(candidates, references)
    stats = corpus_statistics(corpus, n=n, tokenizer=resolved, n_jobs=jobs)
    advise(corpus.candidates, corpus.references, resolved)
    return bleu_result(
        stats, tokenizer=resolved.name, n_images=corpus.n_images,
        image_index=corpus.candidate_image, ids=corpus.ids,
    )  # fmt: skip


def bleu_result(
    stats: BleuStatistics, *, tokenizer: str, n_images: int, image_index: np.ndarray,
    ids: tuple | None,
) -> CiderResult:  # fmt: skip
    """The :class:`~sparsecider.CiderResult` of :func:`bleu` from its statistics,
    whose per-candidate rows may come from several calls
    (:class:`sparsecider.CiderAccumulator`): the corpus BLEU sums them."""
    n = stats.n
    per_order = sentence_bleu(stats)
    corpus_values = np.array(corpus_bleu(stats))
    return CiderResult(
        score=float(corpus_values[-1]),
        scores=per_order[:, -1].copy(),
        per_order=per_order,
        signature=Signature(f"BLEU-{n}", n=n, tokenizer=tokenizer, scale=None),
        n_images=n_images,
        image_index=image_index,
        ids=ids,
        metric=f"BLEU-{n}",
        corpus_per_order=corpus_values,
    )
