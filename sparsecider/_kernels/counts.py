"""n-gram keys to one sparse count matrix per order, by sorting packed words.

The captions of a scoring call are laid out image after image, each image's
references first and then its candidates (*slots*, :class:`Layout`).  For one
order, the keys of all n-grams, slot after slot, are sorted once (the key's
high bits and the n-gram's position packed in one 64-bit word, so a plain
``np.sort`` does it), which groups every n-gram's occurrences by key, then
slot.  Run lengths give the raw counts: the result is the count matrix in CSC
form (one column per distinct key, in increasing key order; row indices are
slots, sorted within each column).  Within a column the slots of one image are
adjacent, references before candidates, which is what document frequencies
(:mod:`.docfreq`) and the candidate-reference join (:mod:`.pairs`) read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .arrays import BLOCK, blocks, exclusive_cumsum, ranges
from .tokens import Tokens

__all__ = ["Layout", "count_columns", "image_runs", "layout", "slot_tokens"]


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each caption sits in the image-major slot order.

    Slots run image after image: image i's references (in input order), then
    image i's candidates (in input order).

    Attributes
    ----------
    reference_slot : ndarray of int64, shape (n_references,)
    candidate_slot : ndarray of int64, shape (n_candidates,)
    slot_image : ndarray of int32 (int64 from 2**31 images), shape (n_slots,)
        The image of each slot.
    slot_is_candidate : ndarray of bool, shape (n_slots,)
    slot_pair_base : ndarray of int64, shape (n_slots,)
        For a candidate slot, the index of its first pair (pairs are grouped
        by candidate, see :func:`sparsecider._kernels.pairs.candidate_reference_pairs`);
        for a reference slot, its position among its image's references.
        The pair of candidate slot a and reference slot b is
        ``slot_pair_base[a] + slot_pair_base[b]``.
    """

    reference_slot: np.ndarray
    candidate_slot: np.ndarray
    slot_image: np.ndarray
    slot_is_candidate: np.ndarray
    slot_pair_base: np.ndarray

    @property
    def n_slots(self) -> int:
        return int(self.slot_image.shape[0])


def layout(candidate_image: np.ndarray, reference_offsets: np.ndarray) -> Layout:
    """The slot layout of aligned inputs.

    Preconditions: image i's references are rows
    ``reference_offsets[i]:reference_offsets[i + 1]``; ``candidate_image``
    holds each candidate's image (in any order).  Cost: O(n_captions), plus a
    stable sort of ``candidate_image`` when it is not already non-decreasing.

    Examples
    --------
    Image 0 has references 0 and 1 and candidate 0; image 1 has reference 2
    and candidates 1 and 2.  Pairs run candidate after candidate:
    (0, 0), (0, 1), (1, 2), (2, 2):

    >>> s = layout(np.array([0, 1, 1]), np.array([0, 2, 3]))
    >>> s.reference_slot.tolist(), s.candidate_slot.tolist()
    ([0, 1, 3], [2, 4, 5])
    >>> s.slot_image.tolist(), s.slot_pair_base.tolist()
    ([0, 0, 0, 1, 1, 1], [0, 1, 0, 0, 2, 3])
    """
    n_images = reference_offsets.shape[0] - 1
    n_refs = int(reference_offsets[-1])
    n_cands = candidate_image.shape[0]
    refs_per_image = np.diff(reference_offsets)
    cands_per_image = np.bincount(candidate_image, minlength=n_images)
    cands_before = exclusive_cumsum(cands_per_image)
    ref_image = np.repeat(np.arange(n_images, dtype=np.int64), refs_per_image)
    reference_slot = np.arange(n_refs, dtype=np.int64) + cands_before[ref_image]
    # a candidate's rank among its image's candidates, in input order
    if n_cands < 2 or bool((candidate_image[1:] >= candidate_image[:-1]).all()):
        rank = np.arange(n_cands, dtype=np.int64) - cands_before[candidate_image]
    else:
        order = np.argsort(candidate_image, kind="stable")
        rank = np.empty(n_cands, dtype=np.int64)
        rank[order] = np.arange(n_cands, dtype=np.int64) - cands_before[candidate_image[order]]
    candidate_slot = reference_offsets[candidate_image + 1] + cands_before[candidate_image] + rank

    n_slots = n_refs + n_cands
    slot_image = np.empty(n_slots, dtype=np.int32 if n_images < 2**31 else np.int64)
    slot_image[reference_slot] = ref_image
    slot_image[candidate_slot] = candidate_image
    slot_is_candidate = np.zeros(n_slots, dtype=bool)
    slot_is_candidate[candidate_slot] = True
    slot_pair_base = np.empty(n_slots, dtype=np.int64)
    slot_pair_base[reference_slot] = np.arange(n_refs) - reference_offsets[ref_image]
    slot_pair_base[candidate_slot] = exclusive_cumsum(refs_per_image[candidate_image])[:-1]
    return Layout(reference_slot, candidate_slot, slot_image, slot_is_candidate, slot_pair_base)


def slot_tokens(references: Tokens, candidates: Tokens, slots: Layout) -> Tokens:
    """Both token streams merged into one, caption after caption in slot order.

    Cost: one gather of the token hashes (a copy when there are no
    candidates); the hashes returned are always a new array.

    Examples
    --------
    >>> from sparsecider.tokenizers import tokenize
    >>> refs, cands = tokenize(["r0", "r1 r1"], "whitespace"), tokenize(["c0"], "whitespace")
    >>> merged = slot_tokens(refs, cands, layout(np.array([0]), np.array([0, 2])))
    >>> merged.lengths.tolist(), bool(merged.hashes[-1] == cands.hashes[0])
    ([1, 2, 1], True)
    """
    if candidates.lengths.shape[0] == 0:  # a copy all the same: the caller may overwrite it
        return Tokens(hashes=references.hashes.copy(), lengths=references.lengths)
    lengths = np.empty(slots.n_slots, dtype=np.int64)
    lengths[slots.reference_slot] = references.lengths
    lengths[slots.candidate_slot] = candidates.lengths
    source = np.empty(slots.n_slots, dtype=np.int64)  # where each slot's tokens start now
    source[slots.reference_slot] = exclusive_cumsum(references.lengths)[:-1]
    source[slots.candidate_slot] = (
        exclusive_cumsum(candidates.lengths)[:-1] + references.hashes.shape[0]
    )
    gather = ranges(source, lengths)
    hashes = np.concatenate((references.hashes, candidates.hashes))[gather]
    return Tokens(hashes=hashes, lengths=lengths)


def _sort_entries(
    keys: np.ndarray, indptr: np.ndarray, index_dtype: type, overwrite: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Keys and slots of all occurrences in increasing (key, slot) order.

    Preconditions: ``keys[indptr[s]:indptr[s + 1]]`` are slot s's keys;
    fewer than 2**32 of them.  Each key's high bits and its position share
    one word, so one ``np.sort`` of plain 64-bit integers (vectorised, far
    cheaper than ``argsort``) orders them.  One gather by position then reads
    back each occurrence's slot and the key's low bits (packed in one word:
    one random access, not two), which complete the key exactly.  Runs whose
    keys agree only in the high bits are re-sorted on the full key.  The
    passes before and after the sort run block by block (:data:`BLOCK`).
    With ``overwrite``, ``keys`` itself becomes the returned sorted keys.
    """
    n = keys.shape[0]
    n_slots = indptr.shape[0] - 1
    bits = max(int(n - 1).bit_length(), 1)
    position_mask = np.uint64((1 << bits) - 1)
    high_mask = ~position_mask
    slot_of = np.repeat(np.arange(n_slots, dtype=np.uint32), np.diff(indptr))
    # the low 32 bits of each key over its slot (bits <= 32 <= 64 - 32);
    # the key's high bits over its position
    low_and_slot = np.empty(n, dtype=np.uint64)
    words = keys if overwrite else np.empty(n, dtype=np.uint64)
    for start, stop in blocks(n):
        block = keys[start:stop]
        low = low_and_slot[start:stop]
        np.left_shift(block, np.uint64(32), out=low)
        low |= slot_of[start:stop]
        word = words[start:stop]
        np.bitwise_and(block, high_mask, out=word)
        word |= np.arange(start, stop, dtype=np.uint64)
    del slot_of
    words.sort()
    slots = np.empty(n, dtype=index_dtype)
    positions = np.empty(min(n, BLOCK), dtype=np.int64)
    gathered = np.empty(min(n, BLOCK), dtype=np.uint64)
    disordered = False
    for start, stop in blocks(n):
        word = words[start:stop]
        position, found = positions[: stop - start], gathered[: stop - start]
        np.bitwise_and(word, position_mask, out=position.view(np.uint64))
        np.take(low_and_slot, position, out=found)
        slots[start:stop] = found.view(np.uint32)[0::2]  # little-endian low half
        found >>= np.uint64(32)
        found &= position_mask  # the key's low bits, under the sorted high bits
        word &= high_mask
        word |= found
        if not disordered:
            before = max(start - 1, 0)
            disordered = bool((words[before + 1 : stop] < words[before : stop - 1]).any())
    del low_and_slot
    sorted_keys = words
    # Keys that agree in the high bits interleave by position; the order is
    # right exactly when the full keys come out non-decreasing.  Otherwise
    # re-sort the runs of those high bits on the full key (then slot: equal
    # keys came in position order, hence slot order).  Such pairs number
    # about distinct**2 / 2**(65 - bits): none on COCO val, thousands at a
    # million images, so the runs are found in O(n) and only they are sorted.
    if disordered:
        high = sorted_keys >> np.uint64(bits)
        same_high = high[1:] == high[:-1]
        run_start = np.flatnonzero(np.concatenate(([True], ~same_high)))
        run_end = np.append(run_start[1:], n)
        clash = np.flatnonzero((sorted_keys[1:] != sorted_keys[:-1]) & same_high)
        bad = np.unique(np.searchsorted(run_start, clash, side="right") - 1)
        at = ranges(run_start[bad], run_end[bad] - run_start[bad])  # those runs' places
        order = np.lexsort((slots[at], sorted_keys[at]))
        slots[at] = slots[at][order]
        sorted_keys[at] = sorted_keys[at][order]
    return sorted_keys, slots


def count_columns(
    keys: np.ndarray, indptr: np.ndarray, *, overwrite_keys: bool = False
) -> tuple[sp.csc_matrix, np.ndarray]:
    """The raw-count matrix of one order, from its n-gram keys in slot order.

    Preconditions: ``keys[indptr[s]:indptr[s + 1]]`` are the keys of slot s's
    n-grams (one per occurrence).  With ``overwrite_keys=True`` the sort
    works in ``keys`` itself (spares one array as large; ``keys`` is then
    garbage).  Cost: one ``np.sort`` of ``len(keys)`` words, one gather and
    a handful of sequential passes; no Python loop per n-gram.

    Returns
    -------
    counts : csc_matrix of float64, shape (n_slots, n_columns)
        Row indices (slots) sorted within each column, no duplicates.
    column_keys : ndarray of uint64, shape (n_columns,)
        Strictly increasing: column j is the n-gram of key ``column_keys[j]``.

    Examples
    --------
    Slot 0 holds keys 7, 3, 7 and slot 1 keys 3, 5:

    >>> keys = np.array([7, 3, 7, 3, 5], dtype=np.uint64)
    >>> counts, column_keys = count_columns(keys, np.array([0, 3, 5]))
    >>> column_keys.tolist(), counts.toarray().tolist()
    ([3, 5, 7], [[1.0, 0.0, 2.0], [1.0, 1.0, 0.0]])
    """
    n = keys.shape[0]
    n_slots = indptr.shape[0] - 1
    if n >= 2**32 or n_slots >= 2**32:
        raise ValueError(
            f"{n} n-grams in {n_slots} captions: too many for one call; shard the corpus"
        )
    index_dtype = np.int32 if max(n_slots, n) < 2**31 else np.int64
    if n == 0:
        empty = sp.csc_matrix((n_slots, 0), dtype=np.float64)
        return empty, np.empty(0, dtype=np.uint64)
    sorted_keys, slots = _sort_entries(keys, indptr, index_dtype, overwrite_keys)
    new_key = np.empty(n, dtype=bool)
    new_key[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new_key[1:])
    entry = new_key.copy()
    entry[1:] |= slots[1:] != slots[:-1]
    starts = np.flatnonzero(entry)
    counts = np.empty(starts.shape[0], dtype=np.float64)
    np.subtract(starts[1:], starts[:-1], out=counts[:-1])
    counts[-1] = n - starts[-1]
    column_starts = np.flatnonzero(new_key[starts])
    column_keys = sorted_keys[starts[column_starts]]
    colptr = np.append(column_starts, starts.shape[0]).astype(index_dtype)
    matrix = sp.csc_matrix((counts, slots[starts], colptr), shape=(n_slots, column_keys.shape[0]))
    matrix.has_sorted_indices = True
    return matrix, column_keys


def image_runs(counts: sp.csc_matrix, slot_image: np.ndarray) -> np.ndarray:
    """Where each run of one column's entries within one image starts.

    Preconditions: ``counts`` from :func:`count_columns` over slots grouped
    by image (``slot_image`` non-decreasing).  Cost: one gather and one
    comparison over the stored entries.

    Returns
    -------
    ndarray of bool, shape (nnz,)
        True at an entry whose column or image differs from the previous entry's.

    Examples
    --------
    Slots 0 and 1 belong to image 0, slot 2 to image 1; key 4 is in all three:

    >>> keys = np.array([4, 4, 4, 9], dtype=np.uint64)
    >>> counts, _ = count_columns(keys, np.array([0, 1, 2, 4]))
    >>> image_runs(counts, np.array([0, 0, 1])).tolist()  # entries: key 4 x 3 slots, key 9
    [True, False, True, True]
    """
    image = slot_image[counts.indices]
    starts = np.empty(image.shape[0], dtype=bool)
    if image.shape[0]:
        starts[0] = True
        np.not_equal(image[1:], image[:-1], out=starts[1:])
        starts[counts.indptr[:-1]] = True  # every column holds at least one entry
    return starts
