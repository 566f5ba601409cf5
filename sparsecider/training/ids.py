"""CIDEr-D straight from integer token ids: rewards for self-critical training.

Captioning models produce padded arrays of vocabulary indices.  Decoding them
to strings only to split them again is wasted time: here each id becomes the
hash of its decimal string directly (:mod:`sparsecider.tokenizers.ids`), so
the scores are *identical* to scoring the space-joined decimal strings with
``tokenizer="whitespace"`` under the same document frequencies (and to the
``*-idxs`` legacy files, whose n-grams are such strings).
"""

from __future__ import annotations

import numpy as np

from .._checks import check_bool, int_array
from ..core import reduce
from ..core.advice import warn_small_corpus
from ..core.corpus import check_id, reference_id_rows
from ..core.engine import token_statistics
from ..core.frequencies import DocumentFrequencies
from ..core.result import CiderResult
from ..core.validate import check_options
from ..tokenizers.ids import id_sequences, id_tokenizer_name, id_tokens, reference_id_tokens

__all__ = ["cider_d_ids"]


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
    df : DocumentFrequencies, a path, or "corpus"
        Usually fitted once on the training references
        (:meth:`DocumentFrequencies.from_id_references`, or an ``*-idxs``
        legacy pickle through :meth:`DocumentFrequencies.from_pickle`), or
        the path of such a table saved.  It must count token ids read with
        the same ``eos`` and ``include_eos``: a table of words (such as
        ``"coco-val2014"``) is refused, its n-grams would never match.
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
        A ``df`` of words, or of ids counted with another end-of-sequence
        policy; arrays of the wrong shape, an image without references, rows not
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
    eos = check_id("eos", eos)
    pad = None if pad is None else check_id("pad", pad)
    include_eos = check_bool("include_eos", include_eos)
    tokenizer = id_tokenizer_name(eos, include_eos)
    options = check_options(
        n=n, sigma=sigma, scale=scale, df=df, tokenizer="whitespace", ids=tokenizer
    )
    cand = int_array(candidates, "candidates", 2)
    rows, counts = reference_id_rows(references)
    ref_tokens, offsets = reference_id_tokens(
        rows, counts, eos=eos, pad=pad, include_eos=include_eos
    )
    n_images = offsets.shape[0] - 1
    if image_index is None:
        if cand.shape[0] != n_images:
            raise ValueError(
                f"candidates has {cand.shape[0]} rows but references has {n_images} images; "
                "pass image_index to map rows to images"
            )
        image = np.arange(n_images, dtype=np.int64)
    else:
        image = int_array(image_index, "image_index", 1)
        if image.shape[0] != cand.shape[0]:
            raise ValueError(
                f"image_index has {image.shape[0]} entries for {cand.shape[0]} candidate rows"
            )
        if image.size and (image.min() < 0 or image.max() >= n_images):
            bad = int(np.flatnonzero((image < 0) | (image >= n_images))[0])
            raise ValueError(
                f"image_index[{bad}] = {int(image[bad])} is not an image (0..{n_images - 1})"
            )
    if cand.shape[0] == 0:  # as RewardScorer says it (not a NaN mean of no scores)
        raise ValueError("candidates is empty: there is nothing to score")
    cand_tokens = id_tokens(*id_sequences(cand, eos=eos, pad=pad, include_eos=include_eos))
    stats = token_statistics(
        ref_tokens, cand_tokens, image, offsets, n=options.n, clip=True, df=options.df
    )
    warn_small_corpus(n_images, options.df, stacklevel=3, ids=True)
    return CiderResult.from_per_order(
        reduce.per_order_values(stats, options.sigma, options.scale),
        signature=options.signature(n_images, tokenizer=tokenizer),
        n_images=n_images,
        image_index=image,
        df=options.df,
        empty_candidates=stats.empty_candidates,
    )
