"""``DocumentFrequencies``: n-gram document frequencies as an immutable value.

Fitted once (from the references of a corpus, or read from a legacy pickle),
then used to score any number of images: a single image, RL reward batches,
shards of a corpus.  Two fitted on disjoint sets of images add up to the one
fitted on their union, which is what makes sharded and distributed fitting
trivial.

Files (``save`` / ``load``): the versioned ``.npz`` format of
:mod:`sparsecider.io.dffile`, never a pickle.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import BinaryIO

import numpy as np

from .._checks import MAX_N, check_bool, check_int
from .._kernels.counts import count_columns, image_runs
from .._kernels.docfreq import image_document_frequency
from .._kernels.hashing import SCHEME, ngram_keys
from .._kernels.lookup import bucket_index, lookup_buckets, merge_sorted
from .._kernels.tokens import Tokens
from .._version import __version__
from ..io.dffile import read_df_file, write_df_file
from ..tokenizers import TokenizerLike, split_whitespace, tokenize, tokenizer_name
from ..tokenizers.ids import id_tokenizer_name, reference_id_tokens
from .corpus import check_id, check_references, reference_id_rows

__all__ = ["NAMED", "DocumentFrequencies", "check_name", "merge_all", "names"]


class DocumentFrequencies:
    """Per-order n-gram document frequencies over a fixed set of images.

    Build with :meth:`from_references`, :meth:`load` or :meth:`from_pickle`;
    instances never change (lookups do not insert anything, unlike the
    reference's ``defaultdict``), so one can be shared between threads.

    Attributes
    ----------
    n : int
        Highest n-gram order.
    n_images : int
        Number of images (documents) the frequencies were counted over.
    tokenizer : str
        Name of the tokenizer the references went through.

    Examples
    --------
    >>> import sparsecider
    >>> refs = [["a dog runs", "the dog runs"], ["a red bus"], ["a bus stops"]]
    >>> df = sparsecider.DocumentFrequencies.from_references(refs)
    >>> df.n_images, df.n, len(df)
    (3, 4, 18)
    >>> # one image scored with these frequencies gets its in-corpus score
    >>> one = sparsecider.cider_d(["a red bus"], [["a red bus"]], df=df).score
    >>> full = sparsecider.cider_d(["a dog", "a red bus", "a bus"], refs).scores[1]
    >>> bool(abs(one - full) < 1e-12)
    True
    """

    __slots__ = (
        "_counts", "_digest", "_index", "_keys", "min_count", "n", "n_images", "name", "source",
        "tokenizer",
    )  # fmt: skip

    def __init__(
        self,
        keys: Sequence[np.ndarray],
        counts: Sequence[np.ndarray],
        *,
        n_images: int,
        tokenizer: str,
        source: str = "",
        name: str | None = None,
        min_count: int = 1,
    ) -> None:
        if len(keys) != len(counts) or not keys:
            raise ValueError("keys and counts must be given for each order 1..n")
        if isinstance(n_images, bool) or not isinstance(n_images, int | np.integer) or n_images < 1:
            raise ValueError(f"n_images must be a positive integer, got {n_images!r}")
        if n_images >= 2**32:
            raise ValueError(f"n_images must be below 2**32 (counts are uint32), got {n_images}")
        if isinstance(min_count, bool) or not isinstance(min_count, int | np.integer):
            raise ValueError(f"min_count must be an integer, got {min_count!r}")
        frozen_keys, frozen_counts = [], []
        for k, (key, count) in enumerate(zip(keys, counts, strict=True), start=1):
            key, count = np.asarray(key), np.asarray(count)
            # no silent conversion: float keys would round, negative or huge
            # counts would wrap
            if key.dtype != np.uint64 and not (key.size == 0 and key.dtype.kind in "iuf"):
                raise ValueError(f"order {k}: keys must be a uint64 array, got {key.dtype}")
            if count.dtype.kind not in "iu" and count.size:
                raise ValueError(f"order {k}: counts must be integers, got {count.dtype}")
            if key.ndim != 1 or key.shape != count.shape:
                raise ValueError(f"order {k}: keys and counts must be 1-D arrays of one length")
            # compare neighbours, never np.diff: uint64 differences wrap around
            if key.size > 1 and not (key[1:] > key[:-1]).all():
                raise ValueError(f"order {k}: keys must be strictly increasing")
            if count.size and (count.min() < min_count or count.max() > n_images):
                raise ValueError(f"order {k}: counts must lie in {min_count}..n_images={n_images}")
            key = np.ascontiguousarray(key, dtype=np.uint64)
            count = np.ascontiguousarray(count, dtype=np.uint32)
            key.setflags(write=False)
            count.setflags(write=False)
            frozen_keys.append(key)
            frozen_counts.append(count)
        object.__setattr__(self, "_keys", tuple(frozen_keys))
        object.__setattr__(self, "_counts", tuple(frozen_counts))
        object.__setattr__(self, "n", len(frozen_keys))
        object.__setattr__(self, "n_images", int(n_images))
        object.__setattr__(self, "tokenizer", str(tokenizer))
        object.__setattr__(self, "source", str(source))
        object.__setattr__(self, "name", None if name is None else check_name(name))
        object.__setattr__(self, "min_count", int(min_count))
        object.__setattr__(self, "_digest", None)
        # per order, built on first lookup: see bucket_index
        object.__setattr__(self, "_index", [None] * len(frozen_keys))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DocumentFrequencies is immutable")

    def __reduce__(self):
        # in-memory pickling (joblib, worker processes) goes through the
        # validating constructor; files on disk use save/load, never pickle
        return (
            _rebuild,
            (
                self._keys, self._counts, self.n_images, self.tokenizer, self.source, self.name,
                self.min_count,
            ),
        )  # fmt: skip

    # ---- construction ------------------------------------------------------

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

    # ---- queries -------------------------------------------------------------

    def lookup(self, keys: np.ndarray, order: int) -> np.ndarray:
        """Document frequency of each n-gram key of one order (0 where unseen).

        Parameters
        ----------
        keys : ndarray of uint64
        order : int
            1..n.

        Returns
        -------
        ndarray of float64, shape keys.shape

        Examples
        --------
        >>> from sparsecider._kernels.hashing import ngram_keys
        >>> from sparsecider.tokenizers import tokenize
        >>> df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> t = tokenize(["a dog", "a bus"], "whitespace")
        >>> bigrams, _ = list(ngram_keys(t.hashes, t.lengths, 2))[1]
        >>> df.lookup(bigrams, 2).tolist()  # "a dog" in one image, "a bus" in none
        [1.0, 0.0]
        """
        if not 1 <= order <= self.n:
            raise ValueError(f"order must be in 1..{self.n}, got {order}")
        table = self._keys[order - 1]
        counts = self._counts[order - 1]
        out = np.zeros(keys.shape[0], dtype=np.float64)
        if table.size == 0 or keys.size == 0:
            return out
        index = self._index[order - 1]
        if index is None:  # built once (a race only builds it twice)
            index = self._index[order - 1] = bucket_index(table)
        return lookup_buckets(table, counts, index, keys, out)

    def keys(self, order: int) -> np.ndarray:
        """The (read-only, sorted) n-gram keys of one order.

        Examples
        --------
        >>> df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> keys = df.keys(1)
        >>> keys.shape, keys.dtype.name, bool((keys[1:] > keys[:-1]).all()), keys.flags.writeable
        ((3,), 'uint64', True, False)
        """
        return self._keys[self._order(order) - 1]

    def counts(self, order: int) -> np.ndarray:
        """The (read-only) document frequencies aligned with :meth:`keys`.

        Examples
        --------
        >>> df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> sorted(df.counts(1).tolist()), df.counts(2).tolist()  # "a": 2 images
        ([1, 1, 2], [1, 1])
        """
        return self._counts[self._order(order) - 1]

    def _order(self, order: object) -> int:
        if isinstance(order, bool) or not isinstance(order, int | np.integer):
            raise TypeError(f"order must be an integer in 1..{self.n}, got {order!r}")
        if not 1 <= order <= self.n:
            raise ValueError(f"order must be in 1..{self.n}, got {order}")
        return int(order)

    def __len__(self) -> int:
        """Number of distinct n-grams, all orders together."""
        return sum(k.shape[0] for k in self._keys)

    @property
    def nbytes(self) -> int:
        """Memory held by the arrays: 12 bytes per n-gram (8-byte key, 4-byte count).

        Examples
        --------
        >>> df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> len(df), df.nbytes
        (5, 60)
        """
        return sum(k.nbytes + c.nbytes for k, c in zip(self._keys, self._counts, strict=True))

    @property
    def digest(self) -> str:
        """A short content hash (8 hex digits) identifying these frequencies.

        Examples
        --------
        >>> a = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> b = DocumentFrequencies.from_references([["a cat"], ["a dog"]], tokenizer="whitespace")
        >>> len(a.digest), a.digest == b.digest  # the same counts, whatever the image order
        (8, True)
        """
        if self._digest is None:
            h = hashlib.blake2b(digest_size=4)
            h.update(f"{self.n}|{self.n_images}|{SCHEME}".encode())
            for k, c in zip(self._keys, self._counts, strict=True):
                h.update(k.tobytes())
                h.update(c.tobytes())
            object.__setattr__(self, "_digest", h.hexdigest())
        return self._digest

    @property
    def shipped(self) -> bool:
        """Whether these are frequencies shipped in the package (:meth:`named`):
        the name, the content hash and the metadata (tokenizer, ``min_count``)
        all those of a shipped table, so that a copy with edited metadata
        cannot claim its name."""
        known = NAMED.get(self.name or "")
        return (
            known is not None
            and self.digest == known["sha"]
            and all(getattr(self, f) == known[f] for f in ("n_images", "tokenizer", "min_count"))
        )

    def describe(self) -> str:
        """The ``df`` field of a signature.

        ``coco-val2014(n_images=40504)`` for frequencies shipped in the
        package (:meth:`named`; their content is pinned by a hash in the
        registry), ``NAME(n_images=...,sha=...)`` for frequencies a user
        named (:meth:`renamed`), ``precomputed(n_images=...,sha=...)``
        otherwise.

        Examples
        --------
        >>> df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> df.describe() == f"precomputed(n_images=2,sha={df.digest})"
        True
        >>> df.renamed("pets").describe() == f"pets(n_images=2,sha={df.digest})"
        True
        """
        if self.shipped:
            return f"{self.name}(n_images={self.n_images})"
        label = self.name or "precomputed"
        return f"{label}(n_images={self.n_images},sha={self.digest})"

    def __repr__(self) -> str:
        named = "" if self.name is None else f"name={self.name!r}, "
        pruned = "" if self.min_count == 1 else f", min_count={self.min_count}"
        return (
            f"DocumentFrequencies({named}n={self.n}, n_images={self.n_images}, "
            f"ngrams={len(self)}, tokenizer={self.tokenizer!r}{pruned}, sha={self.digest})"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DocumentFrequencies):
            return NotImplemented
        return (
            self.n == other.n
            and self.n_images == other.n_images
            and self.tokenizer == other.tokenizer
            and self.min_count == other.min_count
            and all(np.array_equal(a, b) for a, b in zip(self._keys, other._keys, strict=True))
            and all(np.array_equal(a, b) for a, b in zip(self._counts, other._counts, strict=True))
        )

    __hash__ = None  # type: ignore[assignment]

    # ---- combination -------------------------------------------------------

    def merge(self, other: DocumentFrequencies) -> DocumentFrequencies:
        """Frequencies over the union of two *disjoint* sets of images.

        Counts add up, as do ``n_images``; fitting shards separately and
        merging gives exactly what fitting the whole corpus gives.  Both must
        have the same ``n`` and tokenizer.

        Examples
        --------
        >>> refs = [["a dog"], ["a cat"], ["the dog"]]
        >>> fit = lambda r: DocumentFrequencies.from_references(r, tokenizer="whitespace")
        >>> fit(refs[:1]) + fit(refs[1:]) == fit(refs)
        True
        """
        if not isinstance(other, DocumentFrequencies):
            raise TypeError(f"can only merge DocumentFrequencies, got {type(other).__name__}")
        if other.n != self.n:
            raise ValueError(f"cannot merge frequencies of n={self.n} and n={other.n}")
        if other.tokenizer != self.tokenizer:
            raise ValueError(
                f"cannot merge frequencies made with tokenizer {self.tokenizer!r} "
                f"and {other.tokenizer!r}"
            )
        for part in (self, other):
            if part.min_count > 1:
                raise ValueError(
                    f"cannot merge {part.describe()}: it is pruned (n-grams seen in fewer than "
                    f"{part.min_count} images were left out), so the sum would miss their "
                    "counts; refit both from their references and merge the full tables"
                )
        return merge_all([self, other])

    __add__ = merge

    def pruned(self) -> DocumentFrequencies:
        """These frequencies without the n-grams seen in a single image.

        Every score stays exactly the same: such an n-gram's idf,
        ``log(N) - log(1)``, equals that of an unseen one,
        ``log(N) - log(max(1, 0))``.  The table shrinks (most n-grams of a
        caption corpus occur once), and records ``min_count=2``, so that
        :meth:`merge` refuses it (a sum would miss the left-out counts).

        Examples
        --------
        >>> refs = [["a dog runs"], ["a cat runs"], ["a dog sleeps"]]
        >>> df = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
        >>> small = df.pruned()
        >>> # 5 unigrams + 5 bigrams + 3 trigrams; kept (>= 2 images): a, dog, runs, a dog
        >>> len(df), len(small), small.min_count
        (13, 4, 2)
        >>> import sparsecider
        >>> cands, few = ["a dog runs", "a cat"], [["a dog runs fast"], ["a cat sleeps"]]
        >>> same = [sparsecider.cider_d(cands, few, df=d, tokenizer="whitespace").scores
        ...         for d in (df, small)]
        >>> bool((same[0] == same[1]).all())
        True
        """
        keys, counts = [], []
        for order_keys, order_counts in zip(self._keys, self._counts, strict=True):
            keep = order_counts > 1
            keys.append(order_keys[keep])
            counts.append(order_counts[keep])
        return DocumentFrequencies(
            keys, counts, n_images=self.n_images, tokenizer=self.tokenizer, source=self.source,
            name=self.name, min_count=max(self.min_count, 2),
        )  # fmt: skip

    def renamed(
        self, name: str, *, tokenizer: str | None = None, source: str | None = None
    ) -> DocumentFrequencies:
        """The same frequencies under a name, which signatures show
        (``NAME(n_images=...,sha=...)``); optionally with another tokenizer
        label (e.g. ``"ptb"`` for references tokenized by PTB beforehand and
        counted with ``"whitespace"``) or source.

        Examples
        --------
        >>> df = DocumentFrequencies.from_references([["a dog"]], tokenizer="whitespace")
        >>> df.renamed("my-train").name
        'my-train'
        """
        return DocumentFrequencies(
            self._keys, self._counts, n_images=self.n_images,
            tokenizer=self.tokenizer if tokenizer is None else tokenizer,
            source=self.source if source is None else source, name=name,
            min_count=self.min_count,
        )  # fmt: skip

    @classmethod
    def named(cls, name: str) -> DocumentFrequencies:
        """Frequencies shipped in the package, by name (loaded once per process).

        ``"coco-val2014"``: all 40,504 COCO val 2014 images x all their
        references after the PTB tokenizer (the CIDEr authors'
        ``coco-val-df``), n = 1..4, pruned (:meth:`pruned`).  Use it to
        score one caption or a few: each gets the score it has inside COCO
        val.  :func:`names` lists what is available.

        Raises
        ------
        ValueError
            An unknown name; the message lists the known ones.

        Examples
        --------
        >>> df = DocumentFrequencies.named("coco-val2014")
        >>> df.n_images, df.n, df.describe()
        (40504, 4, 'coco-val2014(n_images=40504)')
        >>> DocumentFrequencies.named("coco-train")
        Traceback (most recent call last):
        ...
        ValueError: no document frequencies named 'coco-train'; known names: 'coco-val2014' ...
        """
        if not isinstance(name, str) or name not in NAMED:
            raise ValueError(
                f"no document frequencies named {name!r}; known names: "
                + ", ".join(map(repr, NAMED))
                + " (or fit your own: DocumentFrequencies.from_references, "
                "'sparsecider df fit')"
            )
        return _load_named(name)

    # ---- files ---------------------------------------------------------------

    def save(self, path: str | Path | BinaryIO) -> Path | None:
        """Write the versioned ``.npz`` file of :mod:`sparsecider.io.dffile`.

        ``path`` may also be an open binary file (which stays open; returns
        None), e.g. one from :func:`sparsecider.io.text.open_output`, which
        writes a complete file or nothing.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = df.save(pathlib.Path(tmp) / "coco-train.df.npz")
        ...     DocumentFrequencies.load(path) == df
        True
        """
        meta = {
            "n": self.n,
            "n_images": self.n_images,
            "tokenizer": self.tokenizer,
            "hashing": SCHEME,
            "library_version": __version__,
            "source": self.source,
            "name": self.name,
            "min_count": self.min_count,
        }
        return write_df_file(path, self._keys, self._counts, meta)

    @classmethod
    def load(cls, path: str | Path) -> DocumentFrequencies:
        """Read a file written by :meth:`save` (never unpickles anything).

        Raises ``ValueError`` naming the file for anything else, including
        frequencies saved under another hashing scheme (see :meth:`save`
        for an example).

        Examples
        --------
        >>> import tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     bad = pathlib.Path(tmp) / "notes.npz"
        ...     _ = bad.write_text("not an archive")
        ...     DocumentFrequencies.load(bad)
        Traceback (most recent call last):
        ...
        ValueError: .../notes.npz: not a sparsecider document frequency file (...)
        """
        keys, counts, meta = read_df_file(path, hashing=SCHEME)
        try:
            return cls(
                keys, counts, n_images=int(meta["n_images"]), tokenizer=meta.get("tokenizer", ""),
                source=meta.get("source", str(path)), name=meta.get("name"),
                min_count=int(meta.get("min_count", 1)),
            )  # fmt: skip
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None

    @classmethod
    def from_pickle(
        cls, path: str | Path, *, n_images: int | None = None, tokenizer: str | None = None
    ) -> DocumentFrequencies:
        """Import a legacy pickle of the CIDEr / self-critical training code.

        Reads the three layouts of the CIDEr authors' and the self-critical
        training code's files through a restricted
        unpickler (see :mod:`sparsecider.io.legacy`):

        - ``{ngram_tuple: df}``: give ``n_images`` (COCO val's 40,504 when
          omitted, as the code that wrote these files assumed);
        - ``{"document_frequency": {...}, "ref_len": N}``;
        - ``{"df": {...}, "ref_len": log(N)}``.

        n-gram tuples hold words, or vocabulary indices as strings
        (``("12", "5")``) in the ``*-idxs`` files; scored with
        :func:`sparsecider.cider_d_ids` or on space-joined id strings.
        ``tokenizer`` (what the table records it counts) is found from the
        n-grams unless given: token ids when every token is a decimal
        number, ``"ids(eos=0,with-eos)"`` when the id 0 is in every image
        (the self-critical code appends the end-of-sequence id 0 to every
        reference before counting), else ``"ids"`` (end-of-sequence policy
        unknown, accepted by every :func:`sparsecider.cider_d_ids` call);
        ``"whitespace"`` for words (tokenized beforehand).

        Examples
        --------
        >>> import pickle, tempfile, pathlib
        >>> words = {("a",): 2.0, ("dog",): 1.0, ("a", "dog"): 1.0}
        >>> ids = {("5",): 1, ("0",): 2, ("5", "0"): 1}  # every reference ends with 0
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     for name, table in (("coco-train-words.p", words), ("coco-train-idxs.p", ids)):
        ...         path = pathlib.Path(tmp) / name
        ...         _ = path.write_bytes(pickle.dumps({"document_frequency": table, "ref_len": 2}))
        ...         df = DocumentFrequencies.from_pickle(path)
        ...         print(df.n, df.n_images, len(df), df.tokenizer)
        2 2 3 whitespace
        2 2 3 ids(eos=0,with-eos)
        """
        from ..io.legacy import read_legacy_df

        table, found_images = read_legacy_df(path, n_images=n_images)
        try:
            return cls.from_ngram_counts(
                table, n_images=found_images, tokenizer=tokenizer,
                source=f"pickle:{Path(path).name}",
            )  # fmt: skip
        except ValueError as err:
            raise ValueError(f"{path}: {err}") from None

    @classmethod
    def from_ngram_counts(
        cls, table: dict, *, n_images: int, tokenizer: str | None = "whitespace", source: str = ""
    ) -> DocumentFrequencies:
        """From ``{tuple_of_tokens: count}`` (counts of 0 are dropped: they
        weigh exactly like unseen n-grams).  ``tokenizer=None``: found from
        the n-grams, as :meth:`from_pickle` describes.

        Examples
        --------
        >>> table = {("a",): 2, ("dog",): 1, ("cat",): 1, ("a", "dog"): 1, ("a", "cat"): 1}
        >>> df = DocumentFrequencies.from_ngram_counts(table, n_images=2)
        >>> df == DocumentFrequencies.from_references(
        ...     [["a dog"], ["a cat"]], n=2, tokenizer="whitespace")
        True
        """

        by_order: dict[int, tuple[list[str], list[float]]] = {}
        for gram, count in table.items():
            if not isinstance(gram, tuple) or not gram or not all(isinstance(t, str) for t in gram):
                # the types only: printing a malformed key may not end (a 5,000-digit int)
                what = type(gram).__name__
                if isinstance(gram, tuple):
                    what += " of " + ", ".join(type(t).__name__ for t in gram[:4])
                raise ValueError(f"n-gram keys must be non-empty tuples of strings, found a {what}")
            if len(gram) > MAX_N:
                raise ValueError(
                    f"n-gram {gram[:3]!r:.60}... has {len(gram)} tokens; document frequencies "
                    f"go up to order {MAX_N}"
                )
            if not isinstance(count, int | float) or isinstance(count, bool):
                raise ValueError(f"n-gram {gram!r:.60} has a count of type {type(count).__name__}")
            # a whole number in range (ints compared exactly: 10**400 has no float)
            whole = isinstance(count, int) or (math.isfinite(count) and count == int(count))
            if not whole or count < 0 or count > n_images:
                big = isinstance(count, int) and count.bit_length() > 64
                shown = f"of {count.bit_length()} bits" if big else count
                raise ValueError(f"n-gram {gram!r:.60} has count {shown}, not in 0..{n_images}")
            if count == 0:
                continue
            joined = " ".join(gram)
            if len(joined.split()) != len(gram):
                raise ValueError(f"n-gram {gram!r:.60} holds an empty token or whitespace")
            texts, values = by_order.setdefault(len(gram), ([], []))
            texts.append(joined)
            values.append(count)
        if not by_order:
            raise ValueError("no n-gram with a positive count")
        if tokenizer is None:
            tokenizer = _legacy_tokenizer(by_order, n_images)
        n = max(by_order)
        keys, counts = [], []
        for k in range(1, n + 1):
            texts, values = by_order.get(k, ([], []))
            tokens = split_whitespace(texts)
            # every text has exactly k tokens: its only k-gram is the last order's key
            *_, (order_keys, _) = ngram_keys(tokens.hashes, tokens.lengths, k)
            uniq, inverse = np.unique(order_keys, return_inverse=True)
            keys.append(uniq)
            summed = np.bincount(inverse, weights=np.asarray(values, dtype=np.float64))
            counts.append(summed.astype(np.int64))  # whole numbers (checked above)
        return cls(keys, counts, n_images=n_images, tokenizer=tokenizer, source=source)


#: Frequencies shipped in the package: name -> file (in ``sparsecider/data``),
#: the content hash that pins it, and where it comes from (``df info NAME``).
NAMED: dict[str, dict] = {
    "coco-val2014": {
        "file": "coco-val2014.df.npz",
        "sha": "f20d914b",
        "n_images": 40504,
        "tokenizer": "ptb",  # metadata the content hash does not cover, pinned here
        "min_count": 2,
        "description": (
            "COCO val 2014: all 40,504 images x all 202,654 reference captions, PTB-tokenized "
            "as the reference pipeline does (the CIDEr authors' coco-val-df), n = 1..4; "
            "n-grams seen in one image left out (scores unchanged)"
        ),
        "source": "coco-val2014 (benchmarks/make_named_df.py)",
        "credit": (
            "Derived from the MS-COCO 2014 caption annotations, CC BY 4.0 "
            "(Lin et al. 2014, 'Microsoft COCO: Common Objects in Context'; "
            "Chen et al. 2015, 'Microsoft COCO Captions')"
        ),
    },
}


_NAME_FORBIDDEN = "|()\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def check_name(name: object) -> str:
    """A table's name, checked: it becomes a field of signatures, so it may
    hold neither ``|`` nor brackets nor a line break.

    Examples
    --------
    >>> check_name("my-train")
    'my-train'
    >>> check_name("coco|x")
    Traceback (most recent call last):
    ...
    ValueError: name must be a non-empty string without '|', '(', ')' or line breaks, got 'coco|x'
    """
    if not isinstance(name, str) or not name or any(c in _NAME_FORBIDDEN for c in name):
        raise ValueError(
            "name must be a non-empty string without '|', '(', ')' or line breaks, "
            f"got {name!r:.80}"
        )
    return name


def names() -> list[str]:
    """The names of the frequencies shipped in the package (:meth:`DocumentFrequencies.named`).

    Examples
    --------
    >>> names()
    ['coco-val2014']
    """
    return list(NAMED)


@functools.cache
def _load_named(name: str) -> DocumentFrequencies:
    entry = NAMED[name]
    with resources.as_file(resources.files("sparsecider") / "data" / entry["file"]) as path:
        df = DocumentFrequencies.load(path)
    if not df.shipped or df.name != name:
        raise ValueError(
            f"the shipped file {entry['file']} does not hold {name!r} (content hash "
            f"{df.digest}, expected {entry['sha']}); reinstall sparsecider"
        )
    return df


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
    return DocumentFrequencies(
        keys, counts, n_images=n_images, tokenizer=tokenizer, source="merged"
    )


_DECIMAL_TEXTS = re.compile(r"[0-9 \n-]*")


def _legacy_tokenizer(by_order: dict[int, tuple[list[str], list]], n_images: int) -> str:
    """What a legacy table counts: token ids (``ids(...)``) when every token
    is a decimal number, else words (``"whitespace"``)."""
    texts = "\n".join(text for order_texts, _ in by_order.values() for text in order_texts)
    if not _DECIMAL_TEXTS.fullmatch(texts):
        return "whitespace"
    unigrams, counts = by_order.get(1, ([], []))
    # the self-critical code appends the end-of-sequence id 0 to every reference
    in_every_image = any(u == "0" and c == n_images for u, c in zip(unigrams, counts, strict=True))
    return "ids(eos=0,with-eos)" if in_every_image else "ids"


def _rebuild(
    keys, counts, n_images, tokenizer, source, name=None, min_count=1
) -> DocumentFrequencies:
    return DocumentFrequencies(
        keys, counts, n_images=n_images, tokenizer=tokenizer, source=source, name=name,
        min_count=min_count,
    )  # fmt: skip
