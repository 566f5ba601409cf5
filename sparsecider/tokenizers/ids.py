"""Integer token ids -> token hashes: the ids tokenizer of self-critical rewards.

Each id becomes the hash of its decimal string, so id sequences score
*identically* to the space-joined decimal strings with
``tokenizer="whitespace"`` (and to the ``*-idxs`` legacy files, whose n-grams
are such strings).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._kernels.tokens import Tokens
from .whitespace import split_whitespace

__all__ = [
    "IdHasher",
    "counts_ids",
    "id_sequences",
    "id_tokenizer_name",
    "id_tokens",
    "reference_id_tokens",
]


def id_tokenizer_name(eos: int, include_eos: bool) -> str:
    """The tokenizer name of token ids read with this end-of-sequence policy.

    It is the ``tok:`` field of :func:`sparsecider.cider_d_ids`'s signature
    and the ``tokenizer`` of document frequencies fitted on token ids, so
    that a table records how its ids were counted.

    Examples
    --------
    >>> id_tokenizer_name(0, False), id_tokenizer_name(0, True)
    ('ids(eos=0)', 'ids(eos=0,with-eos)')
    """
    return f"ids(eos={eos}{',with-eos' if include_eos else ''})"


def counts_ids(tokenizer: str) -> bool:
    """Whether a tokenizer name (a table's or a signature's) is that of token
    ids: ``ids(...)``, or ``ids`` alone for a converted legacy table whose
    end-of-sequence policy is not known.

    Examples
    --------
    >>> counts_ids("ids(eos=0,with-eos)"), counts_ids("ids"), counts_ids("ptb")
    (True, True, False)
    """
    return tokenizer == "ids" or tokenizer.startswith("ids(")


def id_sequences(
    rows: np.ndarray,
    *,
    eos: int,
    pad: int | None,
    include_eos: bool,
    row_lengths: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Cut id rows at their first ``eos``; drop ``pad`` ids.

    Parameters
    ----------
    rows : ndarray of int64, shape (n_rows, time)
    eos : int
        End-of-sequence id: a row ends at its first ``eos``.
    pad : int or None
        Padding id, dropped wherever it occurs before the end (ignored when
        equal to ``eos``).
    include_eos : bool
        Keep the ``eos`` that ends a row, as a word.
    row_lengths : ndarray of int64, shape (n_rows,), optional
        How much of each row holds ids (for ragged rows padded into one
        array); default: all of it.

    Returns
    -------
    flat : ndarray of int64
        The kept ids, row after row.
    lengths : ndarray of int64, shape (n_rows,)

    Examples
    --------
    >>> rows = np.array([[4, 5, 0, 9], [7, 1, 1, 1], [2, 0, 3, 0]])
    >>> flat, lengths = id_sequences(rows, eos=0, pad=None, include_eos=False)
    >>> flat.tolist(), lengths.tolist()  # the 9 and the 3 come after an eos
    ([4, 5, 7, 1, 1, 1, 2], [2, 4, 1])
    >>> flat, lengths = id_sequences(rows, eos=0, pad=1, include_eos=True)
    >>> flat.tolist(), lengths.tolist()
    ([4, 5, 0, 7, 2, 0], [3, 1, 2])
    """
    if rows.shape[1] == 0:  # no ids at all (argmax needs a column)
        return rows.reshape(-1), np.zeros(rows.shape[0], dtype=np.int64)
    positions = np.arange(rows.shape[1])[None, :]
    limit = np.full(rows.shape[0], rows.shape[1]) if row_lengths is None else row_lengths
    is_eos = (rows == eos) & (positions < limit[:, None])
    has_eos = is_eos.any(axis=1)
    # the eos id counts as a word with include_eos, as in the reference SCST code
    end = np.where(has_eos, is_eos.argmax(axis=1) + int(include_eos), limit)
    keep = positions < end[:, None]
    if pad is not None and pad != eos:
        keep &= rows != pad
    return rows[keep], keep.sum(axis=1)


def id_tokens(flat: np.ndarray, lengths: np.ndarray) -> Tokens:
    """Token hashes of ids: the hash of each id's decimal string (one per distinct id).

    Parameters
    ----------
    flat : ndarray of int
        The ids of all sequences, back to back (as from :func:`id_sequences`).
    lengths : ndarray of int, shape (n_sequences,)
        Ids per sequence.

    Returns
    -------
    Tokens
        The same hashes as splitting the space-joined decimal strings.

    Examples
    --------
    >>> from sparsecider.tokenizers import split_whitespace
    >>> t = id_tokens(np.array([4, 5, 17]), np.array([2, 1]))
    >>> same = split_whitespace(["4 5", "17"])
    >>> bool(np.array_equal(t.hashes, same.hashes)), t.lengths.tolist()
    (True, [2, 1])
    """
    distinct, inverse = np.unique(flat, return_inverse=True)
    table = split_whitespace([str(int(i)) for i in distinct]).hashes
    return Tokens(hashes=table[inverse.ravel()], lengths=lengths.astype(np.int64))


def reference_id_tokens(
    rows: list[np.ndarray],
    counts: np.ndarray,
    *,
    eos: int,
    pad: int | None,
    include_eos: bool,
    hasher: Callable[[np.ndarray, np.ndarray], Tokens] | None = None,
) -> tuple[Tokens, np.ndarray]:
    """Tokens of all reference id rows (image after image) and the image offsets.

    ``rows`` are 1-D int64 arrays, ``counts`` the rows per image (as checked
    by :func:`sparsecider.core.corpus.reference_id_rows`).  ``hasher`` turns the
    kept ids and their lengths into tokens (default :func:`id_tokens`).
    """
    lengths = np.array([r.shape[0] for r in rows], dtype=np.int64)
    padded = np.zeros((len(rows), int(lengths.max(initial=0))), dtype=np.int64)
    if rows:  # row after row, as the mask's True entries run
        padded[np.arange(padded.shape[1]) < lengths[:, None]] = np.concatenate(rows)
    flat, kept = id_sequences(
        padded, eos=eos, pad=pad, include_eos=include_eos, row_lengths=lengths
    )
    offsets = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return (id_tokens if hasher is None else hasher)(flat, kept), offsets


class IdHasher:
    """Token hashes of ids from a table of the ids ``0 .. size - 1``, built once.

    :func:`id_tokens` hashes the decimal string of every distinct id of a
    call; a scorer called on every training batch looks the hashes up
    instead.  Ids outside the table (negative, or ``size`` and above) are
    hashed as :func:`id_tokens` does.  The table takes 8 bytes per id.

    Examples
    --------
    >>> hasher = IdHasher(10)
    >>> flat, lengths = np.array([4, 5, 17, -2]), np.array([2, 2])
    >>> bool(np.array_equal(hasher(flat, lengths).hashes, id_tokens(flat, lengths).hashes))
    True
    """

    def __init__(self, size: int) -> None:
        self.table = split_whitespace([" ".join(map(str, range(size)))]).hashes

    def __call__(self, flat: np.ndarray, lengths: np.ndarray) -> Tokens:
        size = self.table.shape[0]
        inside = (flat >= 0) & (flat < size)
        hashes = self.table[np.where(inside, flat, 0)] if size else np.zeros(flat.shape, np.uint64)
        if not inside.all():
            outside = np.flatnonzero(~inside)
            hashes[outside] = id_tokens(flat[outside], np.array([outside.shape[0]])).hashes
        return Tokens(hashes=hashes, lengths=lengths.astype(np.int64))
