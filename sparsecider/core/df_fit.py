"""Fitting :class:`~sparsecider.core.frequencies.DocumentFrequencies`: from
references (strings or token ids) or tokens, and the exact sum of partial fits.

A mixin, so that the constructors stay methods of the one class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._checks import MAX_N, check_bool, check_int
from .._kernels.counts import count_columns, image_runs
from .._kernels.docfreq import image_document_frequency
from .._kernels.hashing import ngram_keys
from .._kernels.lookup import merge_sorted
from .._kernels.tokens import Tokens
from ..tokenizers import TokenizerLike, tokenize, tokenizer_name
from ..tokenizers.ids import id_tokenizer_name, reference_id_tokens
from .corpus import check_id, check_references, reference_id_rows

if TYPE_CHECKING:
    from .frequencies import DocumentFrequencies

__all__ = ["DocumentFrequencyFit", "merge_all"]


class DocumentFrequencyFit:
    """``from_references``, ``from_id_references`` and ``from_tokens`` of
    :class:`~sparsecider.core.frequencies.DocumentFrequencies`."""

    __slots__ = ()

    @classmethod
    def from_references(
        cls,
        references: Sequence[Sequence[str]],
        *,
        n: int = 4,
        tokenizer: TokenizerLike = "ptb",
    ) -> DocumentFrequencies:
        """Count, for every n-gram, the images with at least one reference containing it.

        Parameters
        ----------
        references : list of list of str, or dict
            The reference captions of each image (one entry per image).
        n : int, default 4
        tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
            As in :func:`sparsecider.cider_d`; all references are tokenized
            as one sequence, image after image.

        Examples
        --------
        "dog" is in two of the three images, however many of their
        references hold it; "the" only in the first:

        >>> from sparsecider import DocumentFrequencies
        >>> refs = [["the dog runs", "a dog"], ["a dog sits"], ["a cat"]]
        >>> df = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
        >>> from sparsecider.tokenizers import tokenize
        >>> df.lookup(tokenize(["dog the cat bus"], "whitespace").hashes, 1).tolist()
        [2.0, 1.0, 1.0, 0.0]
        """
        n = check_int("n", n, maximum=MAX_N)
        ref_lists, _ = check_references(references)
        flat = [r for refs in ref_lists for r in refs]
        offsets = np.zeros(len(ref_lists) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in ref_lists], out=offsets[1:])
        return cls.from_tokens(
            tokenize(flat, tokenizer), offsets, n=n, tokenizer=tokenizer_name(tokenizer)
        )

    @classmethod
    def from_id_references(
        cls,
        references: object,
        *,
        eos: int,
        pad: int | None = None,
        include_eos: bool = False,
        n: int = 4,
    ) -> DocumentFrequencies:
        """Fit on references given as token ids (see :func:`sparsecider.cider_d_ids`).

        The n-grams are those of the space-joined decimal id strings: the
        keys and counts equal :meth:`from_references` on those strings with
        ``tokenizer="whitespace"`` (and the ``*-idxs`` legacy files when
        ``include_eos=True``, which counted the end-of-sequence id).  The
        table records what it counts, ``tokenizer="ids(eos=0)"`` (or
        ``"ids(eos=0,with-eos)"``): the functions that score words refuse it
        (but for space-joined id strings with ``tokenizer="whitespace"``), and
        :func:`sparsecider.cider_d_ids` refuses another end-of-sequence policy.

        Examples
        --------
        Two images of padded id sequences (0 ends a caption):

        >>> from sparsecider import DocumentFrequencies
        >>> refs = [[[5, 7, 0, 0], [5, 8, 0, 0]], [[9, 7, 0, 0]]]
        >>> df = DocumentFrequencies.from_id_references(refs, eos=0)
        >>> words = DocumentFrequencies.from_references(
        ...     [["5 7", "5 8"], ["9 7"]], tokenizer="whitespace")
        >>> df == words.renamed("ids", tokenizer="ids(eos=0)"), df.tokenizer
        (True, 'ids(eos=0)')
        """
        n = check_int("n", n, maximum=MAX_N)
        eos = check_id("eos", eos)
        if pad is not None:
            check_id("pad", pad)
        include_eos = check_bool("include_eos", include_eos)
        rows, counts = reference_id_rows(references)
        tokens, offsets = reference_id_tokens(
            rows, counts, eos=eos, pad=pad, include_eos=include_eos
        )
        return cls.from_tokens(tokens, offsets, n=n, tokenizer=id_tokenizer_name(eos, include_eos))

    @classmethod
    def from_tokens(
        cls, tokens: Tokens, reference_offsets: np.ndarray, *, n: int, tokenizer: str
    ) -> DocumentFrequencies:
        """From tokenized references grouped by image (``reference_offsets``).

        The kernel under :meth:`from_references`: per order, the count
        matrix of :func:`sparsecider._kernels.counts.count_columns` and its image
        document frequencies.

        Examples
        --------
        >>> from sparsecider import DocumentFrequencies
        >>> from sparsecider.tokenizers import tokenize
        >>> tokens = tokenize(["a dog", "a cat", "a dog"], "whitespace")  # images: [0, 0], [1]
        >>> df = DocumentFrequencies.from_tokens(
        ...     tokens, np.array([0, 2, 3]), n=2, tokenizer="whitespace")
        >>> df.n_images  # "a" and "dog" are in 2 images, "cat" in 1; "a dog" 2, "a cat" 1
        2
        >>> sorted(df.counts(1).tolist()), sorted(df.counts(2).tolist())
        ([1, 2, 2], [1, 2])
        """
        n_images = int(reference_offsets.shape[0] - 1)
        if n_images < 1:
            raise ValueError("references is empty: document frequencies need at least one image")
        keys, counts = [], []
        image = np.repeat(np.arange(n_images, dtype=np.int64), np.diff(reference_offsets))
        for order_keys, indptr in ngram_keys(tokens.hashes, tokens.lengths, n):
            matrix, column_keys = count_columns(order_keys, indptr)
            keys.append(column_keys)  # increasing
            freq = image_document_frequency(matrix, image_runs(matrix, image))
            counts.append(freq.astype(np.int64))  # whole numbers: image counts
        return cls(keys, counts, n_images=n_images, tokenizer=tokenizer, source="references")


def merge_all(
    parts: Sequence[DocumentFrequencies], *, consume: bool = False
) -> DocumentFrequencies | None:
    """The sum of frequencies fitted on disjoint sets of images (None for none),
    in one k-way merge per order (see :func:`merge_sorted`).

    Preconditions: all have the same ``n`` and tokenizer (as
    :meth:`DocumentFrequencies.merge` checks).  ``consume=True`` is for
    partial tables no one else holds (the streaming fit's): each part's
    arrays are dropped as soon as they are merged, so the peak is the parts
    plus one order of the result, not the parts plus the whole result; the
    parts are unusable afterwards.
    """
    if not parts:
        return None
    first = parts[0]
    if len(parts) == 1:
        return first
    n, n_images, tokenizer = first.n, sum(p.n_images for p in parts), first.tokenizer
    held_keys = [list(p._keys) for p in parts]
    held_counts = [list(p._counts) for p in parts]
    if consume:  # the parts (frozen) give up their arrays: only held_* refer to them
        for p in parts:
            object.__setattr__(p, "_keys", ())
            object.__setattr__(p, "_counts", ())
    keys, counts = [], []
    for k in range(n):
        order_keys = [held[k] for held in held_keys]
        order_counts = [held[k] for held in held_counts]
        if consume:
            for held in (*held_keys, *held_counts):
                held[k] = None
        merged = merge_sorted(order_keys, order_counts, consume=consume)
        del order_keys, order_counts
        keys.append(merged[0])
        counts.append(merged[1])
    # the class of the parts (a mixin cannot import it: frequencies imports this module)
    return type(first)(keys, counts, n_images=n_images, tokenizer=tokenizer, source="merged")
