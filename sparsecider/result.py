"""The result object and the signature that makes a number reproducible."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["CiderResult", "make_signature", "with_extra"]


def _fmt(x: float) -> str:
    """6 -> '6', 6.5 -> '6.5': the shortest exact decimal form."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def make_signature(
    metric: str,
    *,
    n: int,
    sigma: float | None,
    df: str,
    tokenizer: str,
    scale: float,
    version: str,
    extra: tuple[str, ...] = (),
) -> str:
    """``CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0``.

    Fields are always in this order; ``sigma`` appears for CIDEr-D only,
    ``scale`` only when it differs from the reference's 10, and ``extra``
    fields (bootstrap settings) before the version.

    Parameters
    ----------
    metric : str
        ``"CIDEr-D"`` or ``"CIDEr"``.
    n : int
        Highest n-gram order.
    sigma : float or None
        Length-penalty width; None for CIDEr.
    df : str
        How document frequencies were obtained, e.g. ``corpus(n_images=2)``.
    tokenizer : str
        The tokenizer's name (:func:`sparsecider.tokenize.tokenizer_name`).
    scale : float
        Final multiplier.
    version : str
        The sparsecider version.
    extra : tuple of str, default ()
        Further ``name:value`` fields.

    Returns
    -------
    str
        The fields joined by ``|``; numbers in their shortest exact form.

    Examples
    --------
    >>> make_signature("CIDEr-D", n=4, sigma=6.0, df="corpus(n_images=2)", tokenizer="ptb",
    ...                scale=10.0, version="0.1.0")
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    >>> make_signature("CIDEr", n=2, sigma=None, df="corpus(n_images=5)", tokenizer="whitespace",
    ...                scale=1.5, version="0.1.0", extra=("seed:0",))
    'CIDEr|n:2|df:corpus(n_images=5)|tok:whitespace|scale:1.5|seed:0|version:0.1.0'
    """
    parts = [metric, f"n:{n}"]
    if sigma is not None:
        parts.append(f"sigma:{_fmt(sigma)}")
    parts += [f"df:{df}", f"tok:{tokenizer}"]
    if scale != 10.0:
        parts.append(f"scale:{_fmt(scale)}")
    parts += list(extra)
    parts.append(f"version:{version}")
    return "|".join(parts)


@dataclass(frozen=True, eq=False)
class CiderResult:
    """Scores of one call to :func:`sparsecider.cider_d` or :func:`sparsecider.cider`.

    Attributes
    ----------
    score : float
        Corpus score: the mean of ``scores``.
    scores : ndarray of float64, shape (n_candidates,)
        One score per candidate, in input order (nested candidates flattened
        image after image).
    per_order : ndarray of float64, shape (n_candidates, n)
        The per-order values before averaging over orders, with the same
        scaling: ``scores == per_order.mean(axis=1)``.
    signature : str
        How the number was made, e.g.
        ``CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0``.
    n_images : int
        Number of images (documents for the corpus document frequencies).
    image_index : ndarray of int64, shape (n_candidates,)
        Position of each candidate's image in the input.
    ids : tuple or None
        The image ids, in output order, when the input was a mapping.
    metric : str
        ``"CIDEr-D"`` or ``"CIDEr"``.

    Notes
    -----
    The arrays are read-only.  ``str(result)`` gives the metric, the score
    to 4 decimals and the signature; ``float(result)`` the score.

    Examples
    --------
    Image 0 has two candidates: its only reference (10) and a caption
    sharing no word with it (0):

    >>> import sparsecider
    >>> r = sparsecider.cider_d(
    ...     [["a dog runs fast", "one green tram"], ["the red bus stops"]],
    ...     [["a dog runs fast"], ["the red bus stops"]],
    ... )
    >>> r.scores.tolist(), r.image_index.tolist(), r.n_images, r.n_candidates
    ([10.0, 0.0, 10.0], [0, 0, 1], 2, 3)
    >>> r.per_order.round(6).tolist()
    [[10.0, 10.0, 10.0, 10.0], [0.0, 0.0, 0.0, 0.0], [10.0, 10.0, 10.0, 10.0]]
    >>> print(r)
    CIDEr-D = 6.6667 | CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0
    >>> float(r) == r.score == 20 / 3
    True

    With dicts, ``ids`` holds the image ids in output order:

    >>> sparsecider.cider_d(
    ...     {"x": "a dog runs fast", "y": "one green tram"},
    ...     {"x": ["a dog runs fast"], "y": ["the red bus stops"]},
    ... ).ids
    ('x', 'y')
    """

    score: float
    scores: np.ndarray
    per_order: np.ndarray
    signature: str
    n_images: int
    image_index: np.ndarray
    ids: tuple | None = None
    metric: str = field(default="CIDEr-D")

    def __post_init__(self) -> None:
        for arr in (self.scores, self.per_order, self.image_index):
            arr.setflags(write=False)

    @property
    def n_candidates(self) -> int:
        """Number of candidates scored: ``len(scores)``.

        Examples
        --------
        >>> import sparsecider
        >>> sparsecider.cider_d(
        ...     [["a dog runs", "a cat"], ["a red bus"]], [["a dog runs"], ["a red bus"]]
        ... ).n_candidates
        3
        """
        return int(self.scores.shape[0])

    def image_scores(self) -> np.ndarray:
        """Mean score of each image's candidates, shape (n_images,).

        Returns
        -------
        ndarray of float64, shape (n_images,)
            Equal to ``scores`` with one candidate per image.  An image
            without candidates (possible only through
            :func:`sparsecider.cider_d_ids`'s ``image_index``) gets ``nan``,
            with numpy's ``RuntimeWarning``.

        Examples
        --------
        >>> import sparsecider
        >>> r = sparsecider.cider_d(
        ...     [["a dog runs fast", "one green tram"], ["the red bus stops"]],
        ...     [["a dog runs fast"], ["the red bus stops"]],
        ... )
        >>> r.image_scores().tolist()  # (10 + 0) / 2 and 10
        [5.0, 10.0]
        """
        total = np.bincount(self.image_index, weights=self.scores, minlength=self.n_images)
        count = np.bincount(self.image_index, minlength=self.n_images)
        return total / count

    def __str__(self) -> str:
        return f"{self.metric} = {self.score:.4f} | {self.signature}"

    def __float__(self) -> float:
        return self.score


def with_extra(signature: str, *fields: str) -> str:
    """Insert fields (e.g. bootstrap settings) just before ``version:``.

    Parameters
    ----------
    signature : str
        A signature from :func:`make_signature`.
    *fields : str
        ``name:value`` fields to add, in order.

    Returns
    -------
    str

    Examples
    --------
    >>> with_extra("CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0",
    ...            "bootstrap:1000", "seed:0")
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|bootstrap:1000|seed:0|version:0.1.0'
    """
    head, sep, version = signature.rpartition("|version:")
    return "|".join([head, *fields]) + sep + version
