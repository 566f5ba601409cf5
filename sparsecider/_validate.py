"""Every option of the public API, checked once, in one message style.

Faces (the functions, the vectorizer, the stream and Dask backends, the
drop-ins, the command line) call :func:`check_options` (or the single checks
below) at their boundary and never re-check.  The policy of
:mod:`sparsecider._checks` holds: ``TypeError`` for a wrong type,
``ValueError`` for a wrong value, each message naming the argument, the
value and the fix.  :class:`Options` also builds the result's
:class:`~sparsecider.result.Signature`: the one place a signature is made.
"""

from __future__ import annotations

import numbers
import os
import warnings
from dataclasses import dataclass

from ._checks import MAX_N, check_int, check_real
from .frequencies import NAMED, DocumentFrequencies
from .result import Signature
from .tokenizers import Tokenizer, TokenizerLike, get_tokenizer

__all__ = [
    "SMALL_CORPUS",
    "Options",
    "SmallCorpusWarning",
    "check_df",
    "check_n_jobs",
    "check_options",
    "warn_small_corpus",
]


@dataclass(frozen=True, eq=False)
class Options:
    """Checked scoring options.

    ``sigma=None`` means plain CIDEr (no clip, no length penalty); ``df=None``
    means document frequencies from the references being scored.
    """

    n: int
    sigma: float | None
    scale: float
    tokenizer: Tokenizer
    df: DocumentFrequencies | None

    @property
    def metric(self) -> str:
        return "CIDEr" if self.sigma is None else "CIDEr-D"

    @property
    def clip(self) -> bool:
        return self.sigma is not None

    def signature(self, n_images: int, *, tokenizer: str | None = None) -> Signature:
        """The signature of a run over ``n_images`` images with these options
        (``tokenizer`` overrides the tokenizer's name, e.g. for token ids)."""
        return Signature(
            self.metric,
            n=self.n,
            sigma=self.sigma,
            df=f"corpus(n_images={n_images})" if self.df is None else self.df.describe(),
            tokenizer=self.tokenizer.name if tokenizer is None else tokenizer,
            scale=self.scale,
        )


def check_df(df: object, n: int) -> DocumentFrequencies | None:
    """``None`` for corpus mode, the frequencies otherwise (given, or shipped
    under a name such as ``"coco-val2014"``); else raise.

    Examples
    --------
    >>> check_df("corpus", 4) is None
    True
    >>> check_df("coco-val2014", 4).n_images
    40504
    >>> check_df("coco", 4)
    Traceback (most recent call last):
    ...
    ValueError: df='coco' is not supported; use df='corpus' (document frequencies from ...
    """
    if isinstance(df, str) and df == "corpus":
        return None
    if isinstance(df, str) and df in NAMED:
        df = DocumentFrequencies.named(df)
    if isinstance(df, DocumentFrequencies):
        if df.n < n:
            raise ValueError(f"df was fitted for n={df.n}; it cannot score n={n}")
        return df
    raise ValueError(
        f"df={df!r:.60} is not supported; use df='corpus' (document frequencies from the "
        "references being scored), the name of frequencies shipped in the package ("
        + ", ".join(map(repr, NAMED))
        + ") or a sparsecider.DocumentFrequencies (load one with "
        "DocumentFrequencies.load, or import a legacy pickle with DocumentFrequencies.from_pickle)"
    )


def check_options(
    *, n: object, sigma: object, scale: object, df: object, tokenizer: TokenizerLike
) -> Options:
    """Check the options shared by every scoring entry point, in this order.

    Examples
    --------
    >>> o = check_options(n=4, sigma=6, scale=10, df="corpus", tokenizer="ptb")
    >>> o.n, o.sigma, o.metric, str(o.signature(3))
    (4, 6.0, 'CIDEr-D', 'CIDEr-D|n:4|sigma:6|df:corpus(n_images=3)|tok:ptb|version:...')
    """
    n = check_int("n", n, maximum=MAX_N)
    # sigma**2 must neither underflow to 0 nor overflow; scale times a value
    # of at most 1 must stay finite
    sigma = None if sigma is None else check_real("sigma", sigma, low=1e-150, high=1e150)
    scale = check_real("scale", scale, high=1e300)
    frequencies = check_df(df, n)
    resolved = get_tokenizer(tokenizer)
    if frequencies is not None:
        warn_tokenizer_mismatch(frequencies, resolved.name)
    return Options(n, sigma, scale, resolved, frequencies)


# PTB output is whitespace-separated tokens: frequencies fitted on either
# serve captions tokenized by the other beforehand (pycocoevalcap's own setup)
_INTERCHANGEABLE = {"ptb", "whitespace"}


def warn_tokenizer_mismatch(df: DocumentFrequencies, tokenizer: str) -> None:
    """Warn when frequencies fitted on one tokenizer's tokens score another's."""
    if df.tokenizer == tokenizer or {df.tokenizer, tokenizer} <= _INTERCHANGEABLE:
        return
    warnings.warn(
        f"the document frequencies ({df.describe()}) were fitted on tokens of "
        f"tokenizer {df.tokenizer!r}, but the captions are tokenized with {tokenizer!r}: "
        "n-grams will not match and idf values will be wrong; fit the frequencies with "
        "the same tokenizer",
        UserWarning,
        stacklevel=4,
    )


def check_n_jobs(n_jobs: object) -> int:
    """``n_jobs`` as a thread count: None -> 1, -1 -> all CPUs, -2 -> all but one.

    Examples
    --------
    >>> check_n_jobs(None), check_n_jobs(3)
    (1, 3)
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(
            f"n_jobs must be a non-zero integer or None (-1: all CPUs), got {n_jobs!r}"
        )
    if n_jobs > 0:
        return int(n_jobs)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cpus or 1) + 1 + int(n_jobs))


class SmallCorpusWarning(UserWarning):
    """Corpus document frequencies over too few images for stable scores."""


#: Below this many images, ``df="corpus"`` warns (:func:`warn_small_corpus`):
#: on COCO val, the median corpus score of random subsets of 2 to 99 images is
#: 13-26% away from the same captions scored with the frequencies of all 40,504
#: images (5.3% at 1,000 images, 1.5% at 5,000; the README's table,
#: ``benchmarks/small_sets.py``).
SMALL_CORPUS = 100


def warn_small_corpus(n_images: int, df: DocumentFrequencies | None, stacklevel: int = 4) -> None:
    """Warn when document frequencies come from so few images that the scores
    mean little: one image scores 0 (every idf is log 1 = 0), fewer than
    :data:`SMALL_CORPUS` images are unstable.  Each warning names the fix."""
    if df is not None or n_images >= SMALL_CORPUS:
        return
    if n_images == 1:
        warnings.warn(
            "scoring a single image with df='corpus' gives 0: every n-gram of its "
            "references occurs in all (1) images, so every idf is log(1) - log(1) = 0. "
            "Use df='coco-val2014' (COCO-like captions) or document frequencies from a "
            "larger corpus (df=DocumentFrequencies) to score few images.",
            UserWarning,
            stacklevel=stacklevel,
        )
        return
    warnings.warn(
        f"scoring {n_images} images with df='corpus': document frequencies counted over "
        f"fewer than {SMALL_CORPUS} images make scores unstable (on COCO val such subsets "
        "score 13-26% away from the same captions scored with the frequencies of all "
        "40,504 images). Use df='coco-val2014' for COCO-like captions, or fit frequencies "
        "on a larger corpus (DocumentFrequencies.from_references, 'sparsecider df fit') "
        "and pass df=.",
        SmallCorpusWarning,
        stacklevel=stacklevel,
    )
