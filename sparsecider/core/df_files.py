"""The file side of :class:`~sparsecider.core.frequencies.DocumentFrequencies`.

Saving and loading the versioned ``.npz`` of :mod:`sparsecider.io.dffile`
(never a pickle), and importing the legacy tables of the CIDEr and
self-critical training code (``{ngram_tuple: count}``, read through the
restricted unpickler of :mod:`sparsecider.io.legacy`).  A mixin, so that these
stay methods of the one class.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from .._checks import MAX_N
from .._kernels.hashing import SCHEME, ngram_keys
from .._version import __version__
from ..io.dffile import read_df_file, write_df_file
from ..tokenizers import split_whitespace

if TYPE_CHECKING:
    from .frequencies import DocumentFrequencies

__all__ = ["DocumentFrequencyFiles"]


class DocumentFrequencyFiles:
    """``save``, ``load``, ``from_pickle`` and ``from_ngram_counts`` of
    :class:`~sparsecider.core.frequencies.DocumentFrequencies`."""

    __slots__ = ()

    def save(self, path: str | Path | BinaryIO) -> Path | None:
        """Write the versioned ``.npz`` file of :mod:`sparsecider.io.dffile`.

        ``path`` may also be an open binary file (which stays open; returns
        None), e.g. one from :func:`sparsecider.io.text.open_output`, which
        writes a complete file or nothing.

        Examples
        --------
        >>> from sparsecider import DocumentFrequencies
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
        >>> from sparsecider import DocumentFrequencies
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
        >>> from sparsecider import DocumentFrequencies
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
        >>> from sparsecider import DocumentFrequencies
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
