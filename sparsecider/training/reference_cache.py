"""``ReferenceCache``: the part of scoring that depends only on fixed references, done once.

Scoring against a training set's references under fixed document
frequencies (self-critical rewards) repeats the same work on every batch:
tokenizing and hashing the references, counting their n-grams, looking
those up in the document frequencies, their norms.  None of it changes
while the references and the frequencies stay the same, so it is done once
here, for every image, into flat arrays:

- the reference vocabulary: per order, the distinct n-gram keys of all
  references (sorted, end to end, one global index ``g`` over the orders),
  each with its document frequency and a bucket index for lookups
  (:func:`sparsecider._kernels.lookup.bucket_positions`);
- per image, its references' n-gram entries, grouped by ``g`` (order after
  order): ``g``, and the reference's position in the image and the count
  packed in one small integer (one byte for 5 references of up to 50 words);
- per reference, its length and per order the norm of its tf-idf vector.

A batch then touches only its candidates and the entries of its own images
(:meth:`ReferenceCache.statistics`): it counts the candidates' n-grams, finds
them in the vocabulary (which gives their document frequencies), joins them
with their images' entries by a binary search of (image, ``g``) among the
batch's entries, and returns the engine's
:class:`~sparsecider.core.engine.PairStatistics`, reduced to scores by
:mod:`sparsecider.core.reduce` as everywhere.  Every sum adds the same terms in
the same order as the engine (n-grams in key order), so the scores are
bit-identical to :func:`sparsecider.cider_d_ids` and
:func:`sparsecider.cider_d` with the same frequencies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._kernels.arrays import exclusive_cumsum, ranges, smallest_uint
from .._kernels.counts import count_columns
from .._kernels.hashing import ngram_keys
from .._kernels.lookup import bucket_index, bucket_positions
from .._kernels.pairs import slot_norms
from .._kernels.rows import caption_ngrams
from .._kernels.tokens import Tokens
from .._kernels.weights import apply_idf, idf
from ..core.engine import PairStatistics
from ..core.frequencies import DocumentFrequencies

__all__ = ["BUCKET_BITS", "ReferenceCache"]

#: Bits of the vocabulary's bucket index beyond one bucket per two keys:
#: with 1, buckets hold about one key and a lookup reads about 1.3 keys
#: (28 MiB of index for the 6.5 million n-grams of 113,287 images).
BUCKET_BITS = 1


@dataclass(frozen=True, eq=False)
class ReferenceCache:
    """Fixed references under fixed document frequencies, precomputed for scoring.

    Build with :meth:`build`; immutable afterwards (one cache can serve
    several threads).  Attributes hold flat arrays; ``nbytes`` their size.

    Examples
    --------
    >>> from sparsecider.tokenizers import tokenize
    >>> refs = ["a dog runs", "the dog runs", "a red bus"]  # images: [0, 1], [2]
    >>> df = DocumentFrequencies.from_references([refs[:2], refs[2:]], tokenizer="whitespace")
    >>> cache = ReferenceCache.build(tokenize(refs, "whitespace"), np.array([0, 2, 3]), df, n=4)
    >>> cache.n_images, cache.n_references, cache.vocabulary_size
    (2, 3, 14)
    >>> stats = cache.statistics(tokenize(["a red bus"], "whitespace"), np.array([1]), clip=True)
    >>> from sparsecider.core import reduce
    >>> reduce.per_order_values(stats, 6.0, 10.0).round(6).tolist()  # 3-grams: cosine 1, no 4-gram
    [[10.0, 10.0, 10.0, 0.0]]
    """

    n: int
    df: DocumentFrequencies
    reference_offsets: np.ndarray  # (n_images + 1,) images -> references
    reference_length: np.ndarray  # (n_references,) bigrams: words - 1, or 0
    reference_norms: np.ndarray  # (n, n_references)
    entry_offsets: np.ndarray  # (n_images + 1,) images -> entries
    entry_g: np.ndarray  # (n_entries,) vocabulary index, grouped by image then g
    entry_code: np.ndarray  # (n_entries,) reference (within the image) * code_base + count
    code_base: int
    vocabulary: np.ndarray  # (V,) uint64 keys, order after order, each order sorted
    vocabulary_df: np.ndarray  # (V + 1,) uint32 document frequencies, then 0
    order_offsets: np.ndarray  # (n + 1,) order k's keys: vocabulary[off[k - 1]:off[k]]
    bucket_index: np.ndarray  # per-order bucket indexes end to end
    bucket_base: np.ndarray  # (n,) where order k's bucket index starts
    bucket_shift: np.ndarray  # (n,) uint64: 64 - bits of order k's buckets
    covered: np.ndarray  # (n,) bool: every n-gram of df is in the vocabulary
    idf_table: np.ndarray  # idf of each document frequency 0 .. max

    @property
    def n_images(self) -> int:
        return int(self.reference_offsets.shape[0] - 1)

    @property
    def n_references(self) -> int:
        return int(self.reference_offsets[-1])

    @property
    def vocabulary_size(self) -> int:
        return int(self.vocabulary.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by the cache's arrays (the document frequencies not included)."""
        return sum(
            getattr(self, name).nbytes
            for name in self.__dataclass_fields__
            if isinstance(getattr(self, name), np.ndarray)
        )

    @classmethod
    def build(
        cls, tokens: Tokens, reference_offsets: np.ndarray, df: DocumentFrequencies, *, n: int
    ) -> ReferenceCache:
        """The cache of tokenized references grouped by image (``reference_offsets``).

        Preconditions: every image has a reference; ``n <= df.n``.  Cost:
        per order one :func:`sparsecider._kernels.counts.count_columns` of
        all reference n-grams and one lookup of the distinct ones in
        ``df``, then one counting sort of all entries by image (scipy's
        CSC to CSR conversion: O(entries), entries of one image keep their
        column order).  Peak memory: a few times the entries, as fitting
        document frequencies.
        """
        n_images = reference_offsets.shape[0] - 1
        n_refs = int(reference_offsets[-1])
        refs_per_image = np.diff(reference_offsets)
        ref_image = np.repeat(np.arange(n_images, dtype=np.int32), refs_per_image)
        # an entry's reference (within its image) and count in one small integer
        base = int(tokens.lengths.max(initial=0)) + 1  # a count is at most a length
        code_dtype = smallest_uint(int(refs_per_image.max(initial=1)) * base)
        ref_code = (np.arange(n_refs) - reference_offsets[ref_image]) * base
        norms = np.empty((n, n_refs))
        vocabulary, vocabulary_df, per_g, images, codes = [], [], [], [], []
        index_parts, shifts, covered = [], [], []
        offset = 0
        for k, (keys, indptr) in enumerate(ngram_keys(tokens.hashes, tokens.lengths, n)):
            matrix, column_keys = count_columns(keys, indptr)
            freq = df.lookup(column_keys, k + 1)
            covered.append(int(np.count_nonzero(freq)) == df.keys(k + 1).shape[0])
            images.append(ref_image[matrix.indices])
            code = ref_code[matrix.indices]
            code += matrix.data.astype(np.int64)
            codes.append(code.astype(code_dtype))
            del code
            per_g.append(np.diff(matrix.indptr))
            norms[k] = slot_norms(apply_idf(matrix, idf(freq, df.n_images)))
            del matrix
            index = bucket_index(column_keys, BUCKET_BITS).astype(np.int64)
            index_parts.append(index + offset)
            shifts.append(64 - (int(index.shape[0] - 1).bit_length() - 1))
            vocabulary.append(column_keys)
            vocabulary_df.append(freq.astype(np.uint32))
            offset += column_keys.shape[0]
        order_offsets = exclusive_cumsum(np.array([v.shape[0] for v in vocabulary]))
        size = int(order_offsets[-1])
        # entries come order after order, each order column after column: the
        # columns of all orders together are the vocabulary indices g.  The
        # transposition to images x g is scipy's counting sort (entries of one
        # image keep their g order; the references sharing a g stay adjacent)
        g_offsets = exclusive_cumsum(np.concatenate(per_g))
        by_g = sp.csc_matrix(
            (np.concatenate(codes), np.concatenate(images), g_offsets), shape=(n_images, size)
        )
        del codes, images
        by_image = by_g.tocsr()
        del by_g
        index = np.concatenate(index_parts)
        # a last 0: the frequency of "in no reference" (vocabulary index -1)
        vocabulary_df = np.concatenate([*vocabulary_df, np.zeros(1, np.uint32)])
        return cls(
            n=n,
            df=df,
            reference_offsets=reference_offsets.astype(np.int64),
            reference_length=np.maximum(tokens.lengths - 1, 0).astype(np.int32),
            reference_norms=norms,
            entry_offsets=by_image.indptr.astype(np.int64),
            entry_g=by_image.indices.astype(np.int32 if size < 2**31 else np.int64, copy=False),
            entry_code=by_image.data,
            code_base=base,
            vocabulary=np.concatenate(vocabulary),
            vocabulary_df=vocabulary_df,
            order_offsets=order_offsets,
            bucket_index=index.astype(np.int32 if size < 2**31 else np.int64),
            bucket_base=exclusive_cumsum(np.array([p.shape[0] for p in index_parts]))[:-1],
            bucket_shift=np.array(shifts, dtype=np.uint64),
            covered=np.array(covered),
            idf_table=idf(np.arange(int(vocabulary_df.max(initial=0)) + 1.0), df.n_images),
        )

    def _candidate_idf(self, keys: np.ndarray, order: np.ndarray):
        """Each candidate n-gram's vocabulary index (-1: in no reference) and idf."""
        bucket = (keys >> np.take(self.bucket_shift, order)).astype(np.int64)
        bucket += np.take(self.bucket_base, order)
        g = bucket_positions(self.vocabulary, self.bucket_index, bucket, keys)
        # vocabulary_df ends with a 0, which g = -1 reads: unseen, the largest idf
        weights = np.take(self.idf_table, self.vocabulary_df[g])
        for k in np.flatnonzero(~self.covered):
            # n-grams of df that no reference holds: their frequencies from df
            miss = np.flatnonzero((g < 0) & (order == k))
            weights[miss] = idf(self.df.lookup(keys[miss], int(k) + 1), self.df.n_images)
        return g, weights

    def statistics(
        self, candidates: Tokens, candidate_image: np.ndarray, *, clip: bool
    ) -> PairStatistics:
        """Pair statistics of candidates against the references of their images.

        Parameters
        ----------
        candidates : Tokens
            Tokenized candidates, one per row of the batch.
        candidate_image : ndarray of int64, shape (n_candidates,)
            Each candidate's image (0 .. n_images - 1), in any order.
        clip : bool
            CIDEr-D's clipped dot products, or plain CIDEr's.

        Returns
        -------
        PairStatistics
            Over the batch's own images: ``candidate_image`` holds each
            candidate's position among the distinct images of the batch
            (increasing image order), ``reference_offsets`` their references.
            ``n_documents`` is ``df.n_images``.

        Cost: O(candidate n-grams + the cached entries of the batch's
        images); nothing proportional to the whole cache.
        """
        n, n_cands = self.n, candidates.lengths.shape[0]
        images, batch_image = np.unique(candidate_image, return_inverse=True)
        first_ref = self.reference_offsets[images]
        refs_per_image = self.reference_offsets[images + 1] - first_ref
        refs_per_cand = np.take(refs_per_image, batch_image)
        pair_base = exclusive_cumsum(refs_per_cand)
        n_pairs = int(pair_base[-1])
        pair_candidate = np.repeat(np.arange(n_cands, dtype=np.int64), refs_per_cand)
        pair_reference = ranges(np.take(first_ref, batch_image), refs_per_cand)

        keys, group, counts = caption_ngrams(candidates, n)
        order = group // n_cands
        row = group - order * n_cands
        g, idf_values = self._candidate_idf(keys, order)
        weights = counts * idf_values
        norm_sq = np.bincount(group, weights * weights, minlength=n * n_cands)
        candidate_norms = np.sqrt(norm_sq).reshape(n, n_cands)

        # the batch's reference entries, image after image, grouped by g: runs
        # of one (image, g), keyed image * size + g
        first_entry = self.entry_offsets[images]
        entries_per_image = self.entry_offsets[images + 1] - first_entry
        entry = ranges(first_entry, entries_per_image)
        size = self.vocabulary_size
        image_g = np.repeat(np.arange(images.shape[0], dtype=np.int64) * size, entries_per_image)
        image_g += np.take(self.entry_g, entry)
        new_run = np.empty(image_g.shape[0], dtype=bool)
        new_run[:1] = True
        np.not_equal(image_g[1:], image_g[:-1], out=new_run[1:])
        run_start = np.flatnonzero(new_run)
        run_keys = np.empty(run_start.shape[0] + 1, dtype=np.int64)
        np.take(image_g, run_start, out=run_keys[:-1])
        run_keys[-1] = np.iinfo(np.int64).max  # after every key: no search falls off the end

        # each candidate n-gram meets the references of its own image holding it
        seen = np.flatnonzero(g >= 0)
        wanted = np.take(batch_image, np.take(row, seen)) * size
        wanted += np.take(g, seen)
        # run_keys increase (images in order, g within an image): one binary search each
        found = np.searchsorted(run_keys, wanted)
        matched = np.take(run_keys, found) == wanted
        cand_entry, found = np.compress(matched, seen), np.compress(matched, found)
        per_match = np.diff(run_start, append=image_g.shape[0])[found]
        term_cand = np.repeat(cand_entry, per_match)
        term_ref = np.take(entry, ranges(np.take(run_start, found), per_match))
        code = np.take(self.entry_code, term_ref)
        term_ref_in_image, term_count = np.divmod(code, self.code_base)
        # a matched reference n-gram has the candidate's idf
        ref_value = term_count * np.take(idf_values, term_cand)
        cand_value = np.take(weights, term_cand)
        if clip:
            terms = np.minimum(cand_value, ref_value)
            terms *= ref_value
        else:
            terms = cand_value * ref_value
        pair = np.take(pair_base, np.take(row, term_cand))
        pair += term_ref_in_image
        pair += np.take(order, term_cand) * n_pairs
        dots = np.bincount(pair, terms, minlength=n * n_pairs).astype(np.float64, copy=False)

        if n >= 2:  # with n = 1 there are no bigrams: no length penalty
            cand_length = np.maximum(candidates.lengths - 1, 0)
            delta = cand_length[pair_candidate] - self.reference_length[pair_reference]
        else:
            delta = np.zeros(n_pairs, dtype=np.int64)
        return PairStatistics(
            dots=dots.reshape(n, n_pairs),
            candidate_norms=candidate_norms[:, pair_candidate],
            reference_norms=self.reference_norms[:, pair_reference],
            length_delta=delta.astype(np.int64, copy=False),
            pair_candidate=pair_candidate,
            candidate_image=batch_image.astype(np.int64, copy=False),
            reference_offsets=exclusive_cumsum(refs_per_image),
            n_documents=self.df.n_images,
            clipped=clip,
            empty_candidates=int(np.count_nonzero(candidates.lengths == 0)),
        )
