"""``RewardScorer``: CIDEr-D rewards against a training set whose references are cached.

Self-critical sequence training (SCST) scores every batch of sampled
captions against the same training references, under document frequencies
fitted once on them.  :func:`sparsecider.cider_d_ids` redoes the
references' share of the work on every call (tokens, n-grams, document
frequency lookups, norms); a ``RewardScorer`` does it once, for the whole
training set (:class:`~sparsecider.training.reference_cache.ReferenceCache`), and
each batch then touches only its candidates and the cached rows of its own
images.  The rewards are bit-identical to :func:`~sparsecider.cider_d_ids`
(and so to the reference SCST code, see the README).

The SCST baselines come with it: :meth:`RewardScorer.self_critical` (each
sample minus its image's greedy caption) and :meth:`RewardScorer.leave_one_out`
(each sample minus the mean of its image's other samples).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._checks import MAX_N, CaptionError, caption_list, check_bool, check_int, int_array
from .._kernels.tokens import Tokens
from ..core import reduce
from ..core.advice import check_id_strings, sample
from ..core.corpus import Corpus, check_id, check_references, reference_id_rows
from ..core.frequencies import DocumentFrequencies
from ..core.result import CiderResult
from ..core.stages import no_reference_words
from ..core.validate import check_options, warn_tokenizer_mismatch
from ..tokenizers import TokenizerLike
from ..tokenizers.ids import (
    IdHasher,
    counts_ids,
    id_sequences,
    id_tokenizer_name,
    reference_id_tokens,
)
from .image_keys import ImageKeys
from .reference_cache import ReferenceCache

__all__ = ["RewardScorer"]

#: Ids below this get their hash from a table built once (8 bytes each);
#: larger ones (rare in a vocabulary) are hashed per batch.
ID_TABLE_LIMIT = 1 << 22


def _concat(parts: list[Tokens]) -> Tokens:
    return Tokens(
        np.concatenate([p.hashes for p in parts]), np.concatenate([p.lengths for p in parts])
    )


class RewardScorer:
    """CIDEr-D of candidates against a fixed training set, with its references cached.

    Parameters
    ----------
    references : list or dict
        The training references, one entry per image: a padded 2-D integer
        array (references x time) or a list of 1-D integer arrays, as for
        :func:`sparsecider.cider_d_ids`.  A list names images by position
        (the dataset index), a dict by its keys (image ids).
    df : DocumentFrequencies, a name, or "corpus"
        The document frequencies of every reward; ``"corpus"`` fits them on
        these references (:meth:`DocumentFrequencies.from_id_references`),
        as SCST code does with its training set.
    eos : int
        End-of-sequence id: every reference and candidate ends at its first ``eos``.
    pad : int, optional
        Padding id, ignored wherever it occurs before the end.
    include_eos : bool, default False
        Count the ``eos`` id as a word, as the reference SCST code does.
    n, sigma, scale
        As :func:`sparsecider.cider_d`.

    Attributes
    ----------
    n_images : int
    cache : ReferenceCache
        The cached references; ``cache.nbytes`` is their memory.
    df : DocumentFrequencies
    signature : Signature
        The signature of every result.

    See Also
    --------
    RewardScorer.from_texts : The same for reference strings.

    Notes
    -----
    Building the cache costs about as much as fitting the document
    frequencies: for 113,287 images x 5 references, 6 s, 257 MiB held
    (mostly one 4-byte n-gram index and a 1-byte reference-and-count code
    per distinct n-gram of each reference, 28 million of them) and a peak
    of about 930 MiB while building; 40,504 images: 1.7 s, 101 MiB.  A
    batch then costs O(its candidates' n-grams + its images' cached
    entries), about 2 ms for 300 candidates (see the README).  One scorer
    may serve several threads.

    Examples
    --------
    >>> import numpy as np
    >>> import sparsecider
    >>> train = [np.array([[4, 5, 6, 0], [4, 5, 0, 0]]), np.array([[7, 8, 9, 0]]),
    ...          np.array([[7, 5, 9, 0]])]
    >>> scorer = sparsecider.RewardScorer(train, df="corpus", eos=0, include_eos=True)
    >>> samples = np.array([[4, 5, 6, 0], [4, 0, 0, 0], [7, 8, 9, 0]])
    >>> r = scorer(samples, [0, 0, 1])
    >>> same = sparsecider.cider_d_ids(samples, [train[0], train[1]], df=scorer.df, eos=0,
    ...                                include_eos=True, image_index=[0, 0, 1])
    >>> bool((r.scores == same.scores).all()), r.ids
    (True, (0, 1))
    """

    def __init__(
        self,
        references: object,
        *,
        df: DocumentFrequencies | str,
        eos: int,
        pad: int | None = None,
        include_eos: bool = False,
        n: int = 4,
        sigma: float = 6.0,
        scale: float = 10.0,
    ) -> None:
        self.eos = check_id("eos", eos)
        self.pad = None if pad is None else check_id("pad", pad)
        self.include_eos = include_eos = check_bool("include_eos", include_eos)
        label = id_tokenizer_name(self.eos, include_eos)
        keys = list(references) if isinstance(references, Mapping) else None
        values = list(references.values()) if isinstance(references, Mapping) else references
        rows, counts = reference_id_rows(values, keys)
        if not rows:
            raise ValueError("references is empty: the scorer needs at least one image")
        corpus = isinstance(df, str) and df == "corpus"
        if corpus:
            df = DocumentFrequencies.from_id_references(
                values, eos=self.eos, pad=self.pad, include_eos=include_eos,
                n=check_int("n", n, maximum=MAX_N),
            )  # fmt: skip
        # the checks of cider_d_ids, which scores the same ids the same way (a table of
        # ids counted with this eos policy)
        self._options = check_options(
            n=n, sigma=sigma, scale=scale, df=df, tokenizer="whitespace", ids=label
        )
        if self._options.df is None:
            raise ValueError(
                "df='corpus' needs references to count over; pass df='corpus' here (counted "
                "over these references) or a DocumentFrequencies"
            )
        largest = int(np.concatenate(rows).max(initial=0))
        self._hasher = IdHasher(min(largest + 1, ID_TABLE_LIMIT))
        tokens, offsets = reference_id_tokens(
            rows, counts, eos=self.eos, pad=self.pad, include_eos=include_eos, hasher=self._hasher
        )
        if corpus and tokens.hashes.shape[0] == 0:
            raise no_reference_words()  # as cider_d_ids: every reward would be 0
        self._tokenize = self._ids
        self._setup(tokens, offsets, keys, label)

    @classmethod
    def from_texts(
        cls,
        references: object,
        *,
        df: DocumentFrequencies | str,
        tokenizer: TokenizerLike = "whitespace",
        n: int = 4,
        sigma: float = 6.0,
        scale: float = 10.0,
    ) -> RewardScorer:
        """A scorer of caption strings: references tokenized once, candidates per batch.

        ``references`` is a list of reference lists (one per image) or a
        dict from image id to such a list; ``tokenizer`` as in
        :func:`sparsecider.cider_d` (``"whitespace"``: already tokenized
        text, such as decoded vocabulary words; ``"ptb"``: raw text, each
        batch's candidates tokenized as one sequence).  ``df="corpus"``
        fits the frequencies on these references.  Candidates are then a
        list of strings.

        Examples
        --------
        >>> train = {"a": ["a dog runs", "the dog runs"], "b": ["a red bus"], "c": ["a cat"]}
        >>> scorer = RewardScorer.from_texts(train, df="corpus")
        >>> r = scorer(["a dog runs", "a red bus", "a bus"], ["a", "b", "b"])
        >>> import sparsecider
        >>> same = sparsecider.cider_d([["a dog runs"], ["a red bus", "a bus"]],
        ...                            [train["a"], train["b"]], df=scorer.df,
        ...                            tokenizer="whitespace")
        >>> bool((r.scores == same.scores).all()), r.ids
        (True, ('a', 'b'))
        """
        self = cls.__new__(cls)
        ref_lists, keys = check_references(references)
        flat = [r for refs in ref_lists for r in refs]
        offsets = np.zeros(len(ref_lists) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in ref_lists], out=offsets[1:])
        # a caption the tokenizer cannot read is named references[key][j]
        named = Corpus(
            [], np.zeros(0, np.int64), flat, offsets, None if keys is None else tuple(keys)
        )
        corpus = isinstance(df, str) and df == "corpus"
        if corpus:
            with named.naming("references"):
                df = DocumentFrequencies.from_references(
                    ref_lists, n=check_int("n", n, maximum=MAX_N), tokenizer=tokenizer
                )
        self._options = check_options(n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer)
        check_id_strings((), self._options.df, flat)  # the table's kind (references decide)
        self._text = self._options.tokenizer
        if offsets.shape[0] < 2:
            raise ValueError("references is empty: the scorer needs at least one image")
        self._tokenize = self._texts
        with named.naming("references"):
            tokens = self._text.split(flat)
        if corpus and tokens.hashes.shape[0] == 0:
            raise no_reference_words()  # as cider_d: every reward would be 0
        self._setup(tokens, offsets, keys, self._text.name)
        # once built: no warning just before an error
        warn_tokenizer_mismatch(self.df, self._text.name, stacklevel=3)
        return self

    def _setup(self, tokens: Tokens, offsets: np.ndarray, keys: list | None, label: str) -> None:
        options = self._options
        self.df = options.df
        self.cache = ReferenceCache.build(tokens, offsets, options.df, n=options.n)
        self.images = ImageKeys(keys, self.cache.n_images)
        self.signature = options.signature(self.cache.n_images, tokenizer=label)

    @property
    def n_images(self) -> int:
        return self.cache.n_images

    # ---- candidates -------------------------------------------------------------------

    def _ids(self, candidates: object, name: str) -> Tokens:
        if isinstance(candidates, list | tuple) and any(isinstance(c, str) for c in candidates):
            raise TypeError(
                f"{name} holds strings, but this scorer was built from token ids: pass padded "
                "id arrays, or build a scorer of strings with RewardScorer.from_texts"
            )
        rows = int_array(candidates, name, 2)
        flat, lengths = id_sequences(rows, eos=self.eos, pad=self.pad, include_eos=self.include_eos)
        return self._hasher(flat, lengths)

    def _texts(self, candidates: object, name: str) -> Tokens:
        captions = caption_list(candidates, name)
        if counts_ids(self.df.tokenizer):  # a few per batch: words against a table of ids
            check_id_strings(sample(captions, 16), self.df)
        try:
            return self._text.split(captions)
        except CaptionError as err:  # named as the batch's rows
            raise CaptionError(err.index, err.problem, f"{name}[{err.index}]") from None

    def _statistics(self, tokens: Tokens, positions: np.ndarray):
        if tokens.lengths.shape[0] != positions.shape[0]:
            raise ValueError(
                f"candidates has {tokens.lengths.shape[0]} rows but images names "
                f"{positions.shape[0]}; give the image of every candidate row"
            )
        if positions.shape[0] == 0:
            raise ValueError("candidates is empty: there is nothing to score")
        return self.cache.statistics(tokens, positions, clip=True)

    def __call__(self, candidates: object, images: object) -> CiderResult:
        """Score a batch: each candidate against the references of its image.

        Parameters
        ----------
        candidates : array of int, shape (batch, time), or list of str
            Padded candidate ids (numpy, a CPU torch tensor, anything with
            ``__array__`` or ``__dlpack__``), or strings for a scorer made
            by :meth:`from_texts`.
        images : array of int, or list of keys, shape (batch,)
            The image of each candidate: its position in ``references``
            (a list), or its key (a dict).

        Returns
        -------
        CiderResult
            ``scores`` (the rewards, one per candidate row), ``per_order``;
            ``ids`` lists the batch's distinct images (increasing position)
            and ``image_index`` each row's place among them.

        Raises
        ------
        TypeError, ValueError
            Candidates that are not an integer array (strings), a row count
            different from ``images``, or an image the scorer does not know
            (the message names it).
        """
        positions = self.images.positions(images)
        stats = self._statistics(self._tokenize(candidates, "candidates"), positions)
        options = self._options
        return CiderResult.from_per_order(
            reduce.per_order_values(stats, options.sigma, options.scale),
            signature=self.signature,
            n_images=stats.n_images,
            image_index=stats.candidate_image,
            ids=self.images.names(np.unique(positions)),
            df=options.df,
            empty_candidates=stats.empty_candidates,
        )

    def _grouped(self, samples: object, images: object, extra: Tokens | None = None):
        """Scores of ``samples`` (then of ``extra``), k consecutive rows per image."""
        positions = self.images.positions(images)
        sampled = self._tokenize(samples, "samples")
        n_images, n_rows = positions.shape[0], sampled.lengths.shape[0]
        if n_images == 0 or n_rows % n_images:
            raise ValueError(
                f"samples has {n_rows} rows for {n_images} images; give the same number of "
                "samples for every image, each image's samples in consecutive rows"
            )
        k = n_rows // n_images
        if extra is not None and extra.lengths.shape[0] != n_images:
            raise ValueError(
                f"greedy has {extra.lengths.shape[0]} rows; give one per image ({n_images})"
            )
        every = [positions.repeat(k)] + ([] if extra is None else [positions])
        tokens = sampled if extra is None else _concat([sampled, extra])
        stats = self._statistics(tokens, np.concatenate(every))
        options = self._options
        scores = reduce.scores(reduce.per_order_values(stats, options.sigma, options.scale))
        return scores, k, n_rows

    def self_critical(self, samples: object, greedy: object, images: object) -> np.ndarray:
        """Each sample's reward minus that of its image's greedy caption (Rennie et al. 2017).

        Parameters
        ----------
        samples : array of int, shape (n_images * k, time), or list of str
            k sampled captions per image, each image's in consecutive rows.
        greedy : array of int, shape (n_images, time'), or list of str
            The greedy (test-time) caption of each image.
        images : shape (n_images,)
            The image of each group of samples, as for ``__call__``.

        Returns
        -------
        ndarray of float64, shape (n_images * k,)
            ``reward(sample) - reward(greedy of its image)``, aligned with
            the rows of ``samples``; all scored in one pass.

        Examples
        --------
        Image 0's first sample equals its reference (10), its greedy caption
        does not (6.222); image 1's greedy caption equals its reference:

        >>> import numpy as np
        >>> train = [np.array([[4, 5, 6, 7, 0]]), np.array([[7, 8, 9, 10, 0]]),
        ...          np.array([[7, 5, 9, 3, 0]])]
        >>> scorer = RewardScorer(train, df="corpus", eos=0)
        >>> samples = np.array([[4, 5, 6, 7, 0], [4, 5, 0, 0, 0],
        ...                     [7, 8, 9, 10, 0], [1, 2, 0, 0, 0]])
        >>> greedy = np.array([[4, 5, 6, 0, 0], [7, 8, 9, 10, 0]])
        >>> scorer.self_critical(samples, greedy, [0, 1]).round(4).tolist()
        [3.778, -3.1319, 0.0, -10.0]
        >>> r = scorer(np.vstack((samples, greedy)), [0, 0, 1, 1, 0, 1]).scores
        >>> r.round(4).tolist()
        [10.0, 3.0901, 10.0, 0.0, 6.222, 10.0]
        >>> (r[:4] - r[[4, 4, 5, 5]]).round(4).tolist()
        [3.778, -3.1319, 0.0, -10.0]
        """
        scores, k, n_rows = self._grouped(samples, images, self._tokenize(greedy, "greedy"))
        return scores[:n_rows] - scores[n_rows:].repeat(k)

    def leave_one_out(self, samples: object, images: object) -> np.ndarray:
        """Each sample's reward minus the mean reward of its image's other samples.

        The baseline of "A Better Variant of Self-Critical Sequence
        Training" (Luo 2020), as its code computes it:
        ``baseline = (scores.sum(1, keepdims=True) - scores) / (k - 1)`` on
        the rewards reshaped to (n_images, k).

        Parameters
        ----------
        samples : array of int, shape (n_images * k, time), or list of str
            k >= 2 sampled captions per image, each image's in consecutive rows.
        images : shape (n_images,)
            The image of each group of samples.

        Returns
        -------
        ndarray of float64, shape (n_images * k,)

        Examples
        --------
        Three samples of image 0 with rewards 10, 3.0901 and 0 (the first
        equals its reference); the first's baseline is (3.0901 + 0) / 2:

        >>> import numpy as np
        >>> train = [np.array([[4, 5, 6, 7, 0]]), np.array([[7, 8, 9, 10, 0]]),
        ...          np.array([[7, 5, 9, 3, 0]])]
        >>> scorer = RewardScorer(train, df="corpus", eos=0)
        >>> samples = np.array([[4, 5, 6, 7, 0], [4, 5, 0, 0, 0], [1, 2, 0, 0, 0]])
        >>> scorer(samples, [0, 0, 0]).scores.round(4).tolist()
        [10.0, 3.0901, 0.0]
        >>> scorer.leave_one_out(samples, [0]).round(4).tolist()
        [8.4549, -1.9099, -6.5451]
        """
        scores, k, _ = self._grouped(samples, images)
        if k < 2:
            raise ValueError("leave_one_out needs at least 2 samples per image")
        grouped = scores.reshape(-1, k)
        baseline = (grouped.sum(axis=1, keepdims=True) - grouped) / (k - 1)
        return (grouped - baseline).ravel()

    def __repr__(self) -> str:
        return (
            f"RewardScorer(n_images={self.n_images}, references={self.cache.n_references}, "
            f"{self.signature}, cache={self.cache.nbytes / 2**20:.1f} MiB)"
        )
