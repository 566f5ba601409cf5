"""The stages of the engine for one contiguous block of images (a shard).

``prepare`` lays out tokenized captions and hashes their n-grams;
``count_order`` builds one order's count matrix (and, in corpus mode, the
block's own image document frequencies); ``order_statistics`` turns one
order's counts into tf-idf and returns the pair statistics of every
(candidate, reference) pair of the block.  :mod:`sparsecider.core.engine` runs
them for a whole corpus, :mod:`sparsecider.core.threads` for shards in threads.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._kernels.counts import Layout, count_columns, image_runs, layout, slot_tokens
from .._kernels.docfreq import image_document_frequency
from .._kernels.hashing import ngram_keys
from .._kernels.pairs import candidate_reference_pairs, column_pair_dots, slot_norms
from .._kernels.tokens import Tokens
from .._kernels.weights import apply_idf, idf

__all__ = [
    "OrderCounts",
    "Prepared",
    "count_order",
    "no_reference_words",
    "order_statistics",
    "prepare",
]


def no_reference_words() -> ValueError:
    """The error when every reference is empty after tokenization and df comes from them."""
    return ValueError(
        "every reference is empty after tokenization: with no reference words there "
        "is nothing to score against (pycocoevalcap fails here with "
        "'max() arg is an empty sequence')"
    )


@dataclass(eq=False)
class Prepared:
    """One block of images, tokenized and laid out, ready for counting.

    ``orders[k]`` holds order k + 1 once counted (:func:`count_order`).
    Until then ``keys[k]`` holds that order's n-gram keys and row pointer
    (:func:`sparsecider._kernels.hashing.ngram_keys`).  ``length_delta`` is
    each pair's candidate length minus reference length, in pycocoevalcap's
    unit (bigrams: words - 1, or 0 when empty).  ``empty_candidates``: how
    many candidates have no token (they score 0).
    """

    n_images: int
    candidate_image: np.ndarray
    reference_offsets: np.ndarray
    slots: Layout
    pair_candidate: np.ndarray
    pair_reference: np.ndarray
    length_delta: np.ndarray
    keys: list[tuple[np.ndarray, np.ndarray] | None]
    orders: list[OrderCounts | None]
    empty_candidates: int = 0


@dataclass(eq=False)
class OrderCounts:
    """One order's ``column_keys`` (uint64, strictly increasing), raw-count
    CSC matrix ``counts`` (rows: slots; columns: those keys) and
    ``local_df`` (the block's own image document frequencies per column, or
    None when not asked for)."""

    column_keys: np.ndarray
    counts: sp.csc_matrix
    local_df: np.ndarray | None
    runs: np.ndarray | None = None  # see _kernels.counts.image_runs
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
) -> Prepared:
    """Lay out tokenized, aligned inputs and hash their n-grams of every order.

    Cost: O(number of n-grams); the keys of all n orders are held until
    :func:`count_order` consumes them.
    """
    pair_c, pair_r = candidate_reference_pairs(candidate_image, reference_offsets)
    # pycocoevalcap's "length" is the bigram count: words - 1, or 0 when empty
    cand_len = np.maximum(cand_tokens.lengths - 1, 0)
    ref_len = np.maximum(ref_tokens.lengths - 1, 0)
    slots = layout(candidate_image, reference_offsets)
    tokens = slot_tokens(ref_tokens, cand_tokens, slots)
    return Prepared(
        n_images=int(reference_offsets.shape[0] - 1),
        candidate_image=candidate_image,
        reference_offsets=reference_offsets,
        slots=slots,
        pair_candidate=pair_c,
        pair_reference=pair_r,
        # with n = 1 there are no bigrams: the reference (n honoured) gives every
        # caption length 0, so no length penalty
        length_delta=(cand_len[pair_c] - ref_len[pair_r]) if n >= 2 else np.zeros_like(pair_c),
        keys=list(ngram_keys(tokens.hashes, tokens.lengths, n)),
        orders=[None] * n,
        empty_candidates=int(np.count_nonzero(cand_tokens.lengths == 0)),
    )


def count_order(prepared: Prepared, k: int, *, local_df: bool) -> None:
    """Count order k + 1 of ``prepared`` (its keys are released), in place.

    Cost: one ``np.sort`` of packed keys and a few passes
    (:func:`sparsecider._kernels.counts.count_columns`); ``local_df=True``
    adds one pass over the stored counts.
    """
    keys, indptr = prepared.keys[k]
    prepared.keys[k] = None
    # the keys have no other owner: hashed here, or (order 1) slot_tokens' new array
    counts, column_keys = count_columns(keys, indptr, overwrite_keys=True)
    order = OrderCounts(column_keys, counts, None)
    if local_df:
        order.local_df = image_document_frequency(counts, *order.entry_groups(prepared.slots))
    prepared.orders[k] = order


def order_statistics(
    prepared: Prepared,
    k: int,
    freq: np.ndarray,
    n_documents: int,
    *,
    clip: bool,
    out: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Order k + 1's statistics of every pair, written to ``out = (dot,
    candidate_norm, reference_norm)`` (float64 views of shape (n_pairs,)).

    ``freq`` is the document frequency of each column of the order over
    ``n_documents`` images.  ``dot`` is ``sum(min(c, r) * r)`` over the
    n-grams the pair shares (``clip=True``, CIDEr-D) or ``sum(c * r)``, on
    tf-idf values; the norms are the Euclidean norms of the two tf-idf
    vectors.  Turns the order's counts into tf-idf in place.  Cost: the
    join of :func:`sparsecider._kernels.pairs.column_pair_dots`.
    """
    order = prepared.orders[k]
    slots = prepared.slots
    pair_c = prepared.pair_candidate
    runs, candidate = order.entry_groups(slots)
    weighted = apply_idf(order.counts, idf(freq, n_documents))
    out[0][:] = column_pair_dots(
        weighted, runs, candidate, slots.slot_pair_base, pair_c.shape[0], clip=clip
    )
    norms = slot_norms(weighted)
    np.take(norms, slots.candidate_slot[pair_c], out=out[1])
    np.take(norms, slots.reference_slot[prepared.pair_reference], out=out[2])
