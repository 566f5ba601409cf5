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
from collections.abc import Sequence
from importlib import resources

import numpy as np

from .._kernels.hashing import SCHEME
from .._kernels.lookup import bucket_index, lookup_buckets
from ..io.named import NAMED, check_name
from .df_files import DocumentFrequencyFiles
from .df_fit import DocumentFrequencyFit, merge_all

__all__ = ["DocumentFrequencies"]


class DocumentFrequencies(DocumentFrequencyFit, DocumentFrequencyFiles):
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


def _rebuild(
    keys, counts, n_images, tokenizer, source, name=None, min_count=1
) -> DocumentFrequencies:
    return DocumentFrequencies(
        keys, counts, n_images=n_images, tokenizer=tokenizer, source=source, name=name,
        min_count=min_count,
    )  # fmt: skip
