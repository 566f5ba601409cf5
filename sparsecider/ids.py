"""CIDEr-D straight from integer token ids: rewards for self-critical training.

Captioning models produce padded arrays of vocabulary indices.  Decoding them
to strings only to split them again is wasted time: here each id becomes the
hash of its decimal string directly, so the scores are *identical* to
scoring the space-joined decimal strings with ``tokenizer="whitespace"``
under the same document frequencies (and to the ``*-idxs`` legacy files,
whose n-grams are such strings).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from .frequencies import DocumentFrequencies
from .result import CiderResult
from .scoring import check_df, make_result, score_tokens, warn_single_image
from .tokenize import Tokens, split_whitespace

__all__ = ["cider_d_ids", "id_sequences", "id_tokens"]


def _int_array(value: object, where: str, ndim: int) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except Exception as err:  # objects whose __array__ fails
        raise TypeError(f"{where} could not be read as an integer array ({err})") from None
    if arr.ndim != ndim:
        raise ValueError(f"{where} must be a {ndim}-D integer array, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{where} must hold integer token ids, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False)


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
    >>> from sparsecider.tokenize import split_whitespace
    >>> t = id_tokens(np.array([4, 5, 17]), np.array([2, 1]))
    >>> same = split_whitespace(["4 5", "17"])
    >>> bool(np.array_equal(t.hashes, same.hashes)), t.lengths.tolist()
    (True, [2, 1])
    """
    distinct, inverse = np.unique(flat, return_inverse=True)
    table = split_whitespace([str(int(i)) for i in distinct]).hashes
    return Tokens(hashes=table[inverse.ravel()], lengths=lengths.astype(np.int64))


def _reference_rows(references: object) -> tuple[list[np.ndarray], np.ndarray]:
    """Each image's references as a list of 1-D arrays, and the per-image counts."""
    if isinstance(references, np.ndarray) and references.ndim == 3:
        references = list(references)
    if not isinstance(references, Sequence) or isinstance(references, str):
        raise TypeError(
            "references must be a list with one entry per image: a padded 2-D array or a "
            f"list of 1-D arrays, got {type(references).__name__}"
        )
    rows: list[np.ndarray] = []
    counts = np.zeros(len(references), dtype=np.int64)
    for i, entry in enumerate(references):
        if isinstance(entry, Sequence) and not isinstance(entry, str | bytes):
            seqs = [_int_array(s, f"references[{i}][{j}]", 1) for j, s in enumerate(entry)]
        else:
            seqs = list(_int_array(entry, f"references[{i}]", 2))
        if not seqs:
            raise ValueError(f"references[{i}] is empty; every image needs at least one reference")
        counts[i] = len(seqs)
        rows.extend(seqs)
    return rows, counts


def reference_id_tokens(
    references: object, *, eos: int, pad: int | None, include_eos: bool
) -> tuple[Tokens, np.ndarray]:
    """Tokens of all references (image after image) and the image offsets."""
    rows, counts = _reference_rows(references)
    lengths = np.array([r.shape[0] for r in rows], dtype=np.int64)
    padded = np.zeros((len(rows), int(lengths.max(initial=0))), dtype=np.int64)
    for j, r in enumerate(rows):
        padded[j, : r.shape[0]] = r
    flat, kept = id_sequences(
        padded, eos=eos, pad=pad, include_eos=include_eos, row_lengths=lengths
    )
    offsets = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return id_tokens(flat, kept), offsets


def cider_d_ids(
    candidates: object,
    references: object,
    *,
    df: DocumentFrequencies | str,
    eos: int,
    pad: int | None = None,
    include_eos: bool = False,
    image_index: object = None,
    n: int = 4,
    sigma: float = 6.0,
    scale: float = 10.0,
) -> CiderResult:
    """CIDEr-D of candidate id sequences against reference id sequences.

    Parameters
    ----------
    candidates : array of int, shape (batch, time)
        Padded candidate ids (numpy, or anything with ``__array__`` such as a
        CPU torch tensor).  Each row ends at its first ``eos``.
    references : list, one entry per image
        A padded 2-D integer array (references x time) or a list of 1-D
        integer arrays.  Each sequence ends at its first ``eos``.
    df : DocumentFrequencies or "corpus"
        Usually fitted once on the training references
        (:meth:`DocumentFrequencies.from_id_references`, or an ``*-idxs``
        legacy pickle through :meth:`DocumentFrequencies.from_pickle`).
    eos : int
        End-of-sequence id.
    pad : int, optional
        Padding id, ignored wherever it occurs before the end.
    include_eos : bool, default False
        Count the ``eos`` id itself as a word (as the reference SCST code,
        which appends it to every sequence before counting).
    image_index : array of int, shape (batch,), optional
        The references entry of each candidate row (e.g. ``np.repeat(arange(50), 6)``
        for 5 samples plus a greedy caption per image); default: one to one.
    n, sigma, scale
        As :func:`sparsecider.cider_d`.

    Returns
    -------
    CiderResult
        ``scores`` per candidate row, identical to scoring
        ``" ".join(map(str, ids))`` with ``tokenizer="whitespace"``.

    Raises
    ------
    TypeError
        Non-integer ids, ``eos`` or ``pad``, or an argument that is not an array.
    ValueError
        Arrays of the wrong shape, an image without references, rows not
        matching the images (without ``image_index``), an ``image_index``
        outside the images, every reference empty with ``df="corpus"``, or
        an invalid ``n``, ``sigma``, ``scale`` or ``df``.

    Examples
    --------
    >>> import numpy as np
    >>> from sparsecider import DocumentFrequencies, cider_d, cider_d_ids
    >>> refs = [np.array([[4, 5, 6, 0], [4, 5, 0, 0]]), np.array([[7, 8, 9, 0]])]
    >>> df = DocumentFrequencies.from_id_references(refs, eos=0)
    >>> cands = np.array([[4, 5, 6, 0, 0], [7, 8, 0, 3, 3]])  # rows end at the first 0
    >>> r = cider_d_ids(cands, refs, df=df, eos=0)
    >>> strings = [["4 5 6", "4 5"], ["7 8 9"]]
    >>> same = cider_d(["4 5 6", "7 8"], strings, df=df, tokenizer="whitespace")
    >>> bool(np.abs(r.scores - same.scores).max() < 1e-12), r.scores.shape
    (True, (2,))

    Several candidates per image through ``image_index``: a candidate
    identical to its image's only reference scores 10, one sharing no id
    with it 0:

    >>> refs = [np.array([[4, 5, 6, 7, 0]]), np.array([[8, 9, 10, 11, 0]])]
    >>> cands = np.array([[4, 5, 6, 7, 0], [8, 9, 10, 11, 0], [8, 9, 10, 11, 0]])
    >>> r = cider_d_ids(cands, refs, df="corpus", eos=0, image_index=[0, 0, 1])
    >>> r.scores.tolist(), r.image_scores().tolist()
    ([10.0, 0.0, 10.0], [5.0, 10.0])
    """
    from .scoring import _check_number

    _check_number("n", n, integer=True)
    _check_number("sigma", sigma)
    _check_number("scale", scale)
    for name, value in (("eos", eos), ("pad", pad)):
        if name == "pad" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer id, got {value!r}")
    frequencies = check_df(df, int(n))
    cand = _int_array(candidates, "candidates", 2)
    ref_tokens, offsets = reference_id_tokens(references, eos=eos, pad=pad, include_eos=include_eos)
    n_images = offsets.shape[0] - 1
    if image_index is None:
        if cand.shape[0] != n_images:
            raise ValueError(
                f"candidates has {cand.shape[0]} rows but references has {n_images} images; "
                "pass image_index to map rows to images"
            )
        image = np.arange(n_images, dtype=np.int64)
    else:
        image = _int_array(image_index, "image_index", 1)
        if image.shape[0] != cand.shape[0]:
            raise ValueError(
                f"image_index has {image.shape[0]} entries for {cand.shape[0]} candidate rows"
            )
        if image.size and (image.min() < 0 or image.max() >= n_images):
            bad = int(np.flatnonzero((image < 0) | (image >= n_images))[0])
            raise ValueError(
                f"image_index[{bad}] = {int(image[bad])} is not an image (0..{n_images - 1})"
            )
    cand_tokens = id_tokens(*id_sequences(cand, eos=eos, pad=pad, include_eos=include_eos))
    if frequencies is None:
        if ref_tokens.hashes.shape[0] == 0:
            raise ValueError("every reference is empty: nothing to score against")
        warn_single_image(n_images, None)
    per_order = score_tokens(
        ref_tokens, cand_tokens, image, offsets,
        n=int(n), sigma=float(sigma), df=frequencies, scale=float(scale),
    )  # fmt: skip
    tok = f"ids(eos={eos}{',with-eos' if include_eos else ''})"
    return make_result(
        per_order, n=int(n), sigma=float(sigma), df=frequencies, tokenizer=tok,
        scale=float(scale), n_images=n_images, candidate_image=image, ids=None,
    )  # fmt: skip
