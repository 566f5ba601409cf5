"""The scoring pipeline and the public functions :func:`cider_d` and :func:`cider`.

Data flow (one module per arrow)::

    strings -> token hashes      (tokenize, hashing)
            -> n-gram keys        (hashing.ngram_keys)
            -> CSR counts/order   (ngrams)
            -> document freq.     (docfreq)
            -> tf-idf             (weights)
            -> pair similarities  (pairs)
            -> per-candidate scores, per order, corpus mean (here)
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from . import __version__
from .docfreq import image_document_frequency
from .frequencies import DocumentFrequencies
from .hashing import ngram_keys
from .inputs import Corpus, as_corpus
from .ngrams import columns_for_keys, count_matrix
from .pairs import candidate_reference_pairs, length_penalty, pair_similarity
from .result import CiderResult, make_signature
from .tokenize import TokenizerLike, Tokens, resolve_tokenizer, tokenize, tokenizer_name
from .weights import apply_idf, idf

__all__ = ["cider", "cider_d", "score_corpus"]

Candidates = Sequence[str] | Sequence[Sequence[str]] | Mapping[object, str | Sequence[str]]
References = Sequence[Sequence[str]] | Mapping[object, Sequence[str]]


def _check_number(
    name: str, value: object, *, integer: bool = False, positive: bool = True
) -> None:
    kind = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, kind):
        expected = "an integer" if integer else "a number"
        raise TypeError(f"{name} must be {expected}, got {type(value).__name__} {value!r}")
    if integer and value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if not integer and positive and not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")


def check_df(df: object, n: int) -> DocumentFrequencies | None:
    """``None`` for corpus mode, the object for precomputed frequencies; else raise."""
    if isinstance(df, DocumentFrequencies):
        if df.n < n:
            raise ValueError(f"df was fitted for n={df.n}; it cannot score n={n}")
        return df
    if isinstance(df, str) and df == "corpus":
        return None
    raise ValueError(
        f"df={df!r:.60} is not supported; use df='corpus' (document frequencies from the "
        "references being scored) or a sparsecider.DocumentFrequencies (load one with "
        "DocumentFrequencies.load, or import a legacy pickle with DocumentFrequencies.from_pickle)"
    )


def score_tokens(
    ref_tokens: Tokens,
    cand_tokens: Tokens,
    candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
    *,
    n: int,
    sigma: float | None,
    df: DocumentFrequencies | None,
    scale: float,
) -> np.ndarray:
    """Per-order values (n_candidates, n) for tokenized, aligned inputs.

    ``sigma=None`` means plain CIDEr (no clip, no length penalty), otherwise
    CIDEr-D.  ``df=None`` counts document frequencies over these references
    (one document per image); otherwise they come from ``df``.
    """
    n_images = reference_offsets.shape[0] - 1
    clip = sigma is not None
    pair_c, pair_r = candidate_reference_pairs(candidate_image, reference_offsets)
    if clip:
        # pycocoevalcap's "length" is the bigram count: words - 1, or 0 when empty
        cand_len = np.maximum(cand_tokens.lengths - 1, 0)
        ref_len = np.maximum(ref_tokens.lengths - 1, 0)
        penalty = length_penalty(cand_len[pair_c] - ref_len[pair_r], sigma)
    n_cands = candidate_image.shape[0]
    per_order = np.empty((n_cands, n), dtype=np.float64)
    orders = zip(
        ngram_keys(ref_tokens.hashes, ref_tokens.lengths, n),
        ngram_keys(cand_tokens.hashes, cand_tokens.lengths, n),
        strict=True,
    )
    for k, ((ref_keys, ref_ptr), (cand_keys, cand_ptr)) in enumerate(orders):
        column_keys, (ref_cols, cand_cols) = columns_for_keys(ref_keys, cand_keys)
        refs = count_matrix(ref_cols, ref_ptr, column_keys.shape[0])
        cands = count_matrix(cand_cols, cand_ptr, column_keys.shape[0])
        if df is None:
            weights = idf(image_document_frequency(refs, reference_offsets), n_images)
        else:
            weights = idf(df.lookup(column_keys, k + 1), df.n_images)
        apply_idf(refs, weights)
        apply_idf(cands, weights)
        values = pair_similarity(cands, refs, pair_c, pair_r, clip=clip)
        if clip:
            values *= penalty
        per_order[:, k] = np.bincount(pair_c, weights=values, minlength=n_cands)
    # mean over references, then the reference's x10
    per_order /= np.diff(reference_offsets)[candidate_image][:, None]
    per_order *= scale
    return per_order


def make_result(
    per_order: np.ndarray,
    *,
    n: int,
    sigma: float | None,
    df: DocumentFrequencies | None,
    tokenizer: str,
    scale: float,
    n_images: int,
    candidate_image: np.ndarray,
    ids: tuple | None,
) -> CiderResult:
    """Wrap per-order values into a :class:`CiderResult` with its signature."""
    scores = per_order.mean(axis=1)
    metric = "CIDEr-D" if sigma is not None else "CIDEr"
    signature = make_signature(
        metric,
        n=n,
        sigma=sigma,
        df=f"corpus(n_images={n_images})" if df is None else df.describe(),
        tokenizer=tokenizer,
        scale=scale,
        version=__version__,
    )
    return CiderResult(
        score=float(scores.mean()),
        scores=scores,
        per_order=per_order,
        signature=signature,
        n_images=n_images,
        image_index=candidate_image,
        ids=ids,
        metric=metric,
    )


def warn_single_image(n_images: int, df: DocumentFrequencies | None) -> None:
    if n_images == 1 and df is None:
        warnings.warn(
            "scoring a single image with df='corpus' gives 0: every n-gram of its "
            "references occurs in all (1) images, so every idf is log(1) - log(1) = 0. "
            "Use document frequencies from a larger corpus (df=DocumentFrequencies) "
            "to score few images.",
            UserWarning,
            stacklevel=4,
        )


def score_corpus(
    corpus: Corpus,
    *,
    n: int,
    sigma: float | None,
    tokenizer: TokenizerLike,
    scale: float,
    df: DocumentFrequencies | None = None,
) -> CiderResult:
    """Score a validated corpus (see :func:`score_tokens`)."""
    ref_tokens = tokenize(corpus.references, tokenizer)
    if ref_tokens.hashes.shape[0] == 0 and df is None:
        raise ValueError(
            "every reference is empty after tokenization: with no reference words there "
            "is nothing to score against (pycocoevalcap fails here with "
            "'max() arg is an empty sequence')"
        )
    cand_tokens = tokenize(corpus.candidates, tokenizer)
    warn_single_image(corpus.n_images, df)
    per_order = score_tokens(
        ref_tokens, cand_tokens, corpus.candidate_image, corpus.reference_offsets,
        n=n, sigma=sigma, df=df, scale=scale,
    )  # fmt: skip
    return make_result(
        per_order, n=n, sigma=sigma, df=df, tokenizer=tokenizer_name(tokenizer), scale=scale,
        n_images=corpus.n_images, candidate_image=corpus.candidate_image, ids=corpus.ids,
    )  # fmt: skip


def cider_d(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
) -> CiderResult:
    """CIDEr-D, exactly as pycocoevalcap's ``Cider`` class computes it.

    Parameters
    ----------
    candidates : list of str, list of list of str, or dict
        One caption per image; or several per image (n-best lists, sampled
        captions), each scored against that image's references; or a dict
        from image id to a caption or a list of captions.
    references : list of list of str, or dict
        The reference captions of each image, aligned with ``candidates``;
        or a dict from image id to its references (then the ids must match
        those of ``candidates`` exactly; output follows the candidates' order).
    n : int, default 4
        Highest n-gram order; orders 1..n are averaged.
    sigma : float, default 6.0
        Width of the Gaussian length penalty.
    df : "corpus" or DocumentFrequencies, default "corpus"
        ``"corpus"``: document frequencies from the references being scored
        (one document per image).  A :class:`DocumentFrequencies` fitted on
        another corpus (e.g. the training captions for RL rewards, or COCO val
        to score a handful of images): each image then scores exactly as it
        would inside that corpus.
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
        How captions become tokens.  ``"ptb"``: raw text through the
        reference pipeline (pycocoevalcap's ``PTBTokenizer``, in pure Python:
        see :func:`sparsecider.ptb_tokenize`); the references, flattened
        image after image, are tokenized as one sequence and the candidates
        as another, as ``COCOEvalCap`` does.  ``"whitespace"``: captions
        already tokenized (``str.split``), as pycocoevalcap's scorer takes
        them.  A callable maps the list of captions to a list of token lists.
    scale : float, default 10.0
        Final multiplier (pycocoevalcap uses 10).

    Returns
    -------
    CiderResult
        ``score`` (corpus mean), ``scores`` (one per candidate, input order),
        ``per_order`` (shape (n_candidates, n)), ``signature`` and more.

    Raises
    ------
    TypeError
        A bare string where a list is expected, or a non-string caption.
    ValueError
        Misaligned or mismatched inputs, an image without references, every
        reference empty, or an invalid parameter.

    Notes
    -----
    A corpus of one image scores 0 with ``df="corpus"`` (every idf is
    ``log 1 = 0``); a warning says so.

    Examples
    --------
    >>> import sparsecider
    >>> r = sparsecider.cider_d(
    ...     ["A dog runs on the grass.", "A red bus."],
    ...     [["A dog running on grass.", "The dog runs!"], ["A red bus on the road."]],
    ... )
    >>> round(r.score, 4), r.scores.shape, r.per_order.shape
    (3.3234, (2,), (2, 4))
    >>> r.signature
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    """
    _check_number("n", n, integer=True)
    _check_number("sigma", sigma)
    _check_number("scale", scale)
    frequencies = check_df(df, int(n))
    resolve_tokenizer(tokenizer)
    corpus = as_corpus(candidates, references)
    return score_corpus(
        corpus,
        n=int(n),
        sigma=float(sigma),
        tokenizer=tokenizer,
        scale=float(scale),
        df=frequencies,
    )


def cider(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
) -> CiderResult:
    """Plain CIDEr: as :func:`cider_d` without clipping and without the length penalty.

    Each order's value is the plain cosine of the tf-idf vectors, as in the
    CIDEr authors' own ``Cider`` scorer (not pycocoevalcap's ``Cider``, which
    is CIDEr-D).  Parameters, return value and errors as :func:`cider_d`.

    Examples
    --------
    >>> import sparsecider
    >>> r = sparsecider.cider(["a dog runs", "a red bus"], [["a dog runs fast"], ["a bus"]])
    >>> r.signature
    'CIDEr|n:4|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    """
    _check_number("n", n, integer=True)
    _check_number("scale", scale)
    frequencies = check_df(df, int(n))
    resolve_tokenizer(tokenizer)
    corpus = as_corpus(candidates, references)
    return score_corpus(
        corpus, n=int(n), sigma=None, tokenizer=tokenizer, scale=float(scale), df=frequencies
    )
