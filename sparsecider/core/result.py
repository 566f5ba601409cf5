"""The result of every scoring function, and the signature that makes it reproducible.

One :class:`CiderResult` type for every backend (in memory, streamed, Dask);
one :class:`Signature` builder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._version import __version__
from . import reduce

if TYPE_CHECKING:
    from .frequencies import DocumentFrequencies

__all__ = ["CiderResult", "Signature"]


def _fmt(x: float | str) -> str:
    """6 -> '6', 6.5 -> '6.5': the shortest exact decimal form; a str as it is."""
    if isinstance(x, str):
        return x
    return str(int(x)) if float(x).is_integer() else repr(float(x))


class Signature(str):
    """How a number was made: fields, and the familiar ``|``-joined line.

    A ``Signature`` *is* a ``str`` (a subclass): it compares equal to, prints
    as, and serialises to JSON as the line
    ``CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0``, so
    code that treats ``result.signature`` as a string keeps working.  Its
    fields are attributes; :meth:`replace` makes a new signature with some
    fields changed (never edit the string).

    Fields, in the order of the line: ``metric``; ``n`` (absent for ROUGE-L);
    ``sigma`` (CIDEr-D only); ``beta`` (ROUGE-L only); ``params`` (the
    other parameters of a variant, ``(name, value)`` pairs printed as
    ``name:value``: CIDEr-R's ``rc``, ``lc``, ``alpha``; METEOR's language,
    data checksum and stemmer, as strings); ``df`` (how document
    frequencies were obtained; absent for BLEU and ROUGE-L, which use none);
    ``tokenizer`` (``tok:``); ``scale`` (only when it differs from the
    reference's 10; None for the metrics that have none);
    ``bootstrap``, ``seed``, ``ci`` (the settings of a bootstrap interval,
    when there is one; document frequencies are held fixed while images are
    resampled); ``version``.

    Examples
    --------
    >>> s = Signature("CIDEr-D", n=4, sigma=6.0, df="corpus(n_images=2)", tokenizer="ptb",
    ...               version="0.1.0")
    >>> s
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    >>> s.metric, s.n, s.sigma, s.tokenizer
    ('CIDEr-D', 4, 6.0, 'ptb')
    >>> s.replace(bootstrap=1000, seed=0, ci=0.95)
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|bootstrap:1000|seed:0|ci:0.95|version:0.1.0'
    >>> Signature("CIDEr", n=2, df="corpus(n_images=5)", tokenizer="whitespace", scale=1.5,
    ...           version="0.1.0")
    'CIDEr|n:2|df:corpus(n_images=5)|tok:whitespace|scale:1.5|version:0.1.0'
    >>> Signature("BLEU-4", n=4, tokenizer="ptb", scale=None, version="0.1.0")
    'BLEU-4|n:4|tok:ptb|version:0.1.0'
    >>> Signature("ROUGE-L", beta=1.2, tokenizer="ptb", scale=None, version="0.1.0")
    'ROUGE-L|beta:1.2|tok:ptb|version:0.1.0'
    >>> Signature("CIDEr-R", n=4, params=(("rc", 0.8), ("lc", 0.2), ("alpha", 1.0)),
    ...           df="corpus(n_images=2)", tokenizer="ptb", version="0.1.0")
    'CIDEr-R|n:4|rc:0.8|lc:0.2|alpha:1|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    >>> Signature("METEOR-1.5", params=(("lang", "en"), ("norm", "yes"),
    ...           ("data", "0a1b2c3d+4e5f6a7b"), ("snowball", "2.2.0")),
    ...           tokenizer="ptb", scale=None, version="0.1.0")
    'METEOR-1.5|lang:en|norm:yes|data:0a1b2c3d+4e5f6a7b|snowball:2.2.0|tok:ptb|version:0.1.0'
    """

    _FIELDS = ("metric", "n", "sigma", "beta", "params", "df", "tokenizer", "scale", "bootstrap",
               "seed", "ci", "version")  # fmt: skip

    metric: str
    n: int | None
    sigma: float | None
    beta: float | None
    params: tuple[tuple[str, float | str], ...]
    df: str | None
    tokenizer: str
    scale: float | None
    bootstrap: int | None
    seed: int | None
    ci: float | None
    version: str

    def __new__(
        cls,
        metric: str,
        *,
        tokenizer: str,
        n: int | None = None,
        df: str | None = None,
        sigma: float | None = None,
        beta: float | None = None,
        params: tuple[tuple[str, float | str], ...] = (),
        scale: float | None = 10.0,
        bootstrap: int | None = None,
        seed: int | None = None,
        ci: float | None = None,
        version: str = __version__,
    ) -> Signature:
        parts = [metric] + ([] if n is None else [f"n:{n}"])
        if sigma is not None:
            parts.append(f"sigma:{_fmt(sigma)}")
        if beta is not None:
            parts.append(f"beta:{_fmt(beta)}")
        params = tuple((str(name), value) for name, value in params)
        parts += [f"{name}:{_fmt(value)}" for name, value in params]
        if df is not None:
            parts.append(f"df:{df}")
        parts.append(f"tok:{tokenizer}")
        if scale is not None and scale != 10.0:
            parts.append(f"scale:{_fmt(scale)}")
        if bootstrap is not None:
            parts += [f"bootstrap:{bootstrap}", f"seed:{seed}", f"ci:{ci:g}"]
        parts.append(f"version:{version}")
        for part in parts:
            # one line, one '|' between fields: a field holding either could
            # make a signature that claims other settings (or another table)
            if any(c in _NOT_IN_A_FIELD for c in part):
                raise ValueError(
                    f"signature field {part!r:.120} holds '|' or a line break; no field of a "
                    "signature may (rename the tokenizer, table or metric that carries it)"
                )
        self = super().__new__(cls, "|".join(parts))
        values = (metric, n, sigma, beta, params, df, tokenizer, scale, bootstrap, seed, ci,
                  version)  # fmt: skip
        for name, value in zip(cls._FIELDS, values, strict=True):
            object.__setattr__(self, name, value)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Signature is immutable; use .replace(...)")

    def fields(self) -> dict:
        """The fields as a dict (None where a field is absent).

        Examples
        --------
        >>> Signature("CIDEr", n=4, df="corpus(n_images=3)", tokenizer="ptb").fields()["df"]
        'corpus(n_images=3)'
        """
        return {name: getattr(self, name) for name in self._FIELDS}

    def replace(self, **changes: object) -> Signature:
        """A new signature with ``changes`` applied to the fields."""
        unknown = set(changes) - set(self._FIELDS)
        if unknown:
            raise TypeError(f"unknown signature field(s) {sorted(unknown)}; fields: {self._FIELDS}")
        fields = {**self.fields(), **changes}
        return Signature(fields.pop("metric"), **fields)

    def __reduce__(self):
        fields = self.fields()
        return _signature, (fields,)


def _signature(fields: dict) -> Signature:
    fields = dict(fields)
    return Signature(fields.pop("metric"), **fields)


#: ``|`` and every character ``str.splitlines`` breaks at
_NOT_IN_A_FIELD = "|\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True, eq=False)
class CiderResult:
    """Scores of one call to :func:`sparsecider.cider_d`, :func:`sparsecider.cider`,
    :func:`sparsecider.bleu`, :func:`sparsecider.rouge_l` or :func:`sparsecider.meteor`.

    Attributes
    ----------
    score : float
        Corpus score: the mean of ``scores``; for BLEU and METEOR the
        corpus score made from the statistics summed over all candidates
        (not a mean).
    scores : ndarray of float64, shape (n_candidates,)
        One score per candidate, in input order (nested candidates flattened
        image after image).
    per_order : ndarray of float64, shape (n_candidates, n)
        The per-order values: for CIDEr before averaging over orders, with
        the same scaling (``scores == per_order.mean(axis=1)``); for BLEU,
        BLEU-1 .. BLEU-n of each candidate (``scores == per_order[:, -1]``);
        for ROUGE-L and METEOR, shape (n_candidates, 1), the scores.
    signature : Signature
        How the number was made: a ``str`` such as
        ``CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0``,
        with the fields as attributes (see :class:`Signature`).
    n_images : int
        Number of images (documents for the corpus document frequencies).
    image_index : ndarray of int64, shape (n_candidates,)
        Position of each candidate's image in the input.
    ids : tuple or None
        The image ids, in output order, when the input was a mapping.
    metric : str
        ``"CIDEr-D"``, ``"CIDEr"``, ``"BLEU-4"`` (``"BLEU-<n>"``), ``"ROUGE-L"``
        or ``"METEOR"``.
    df : DocumentFrequencies or None
        The document frequencies every image was scored with, when they
        exist as an object: given by the caller, or fitted by a streamed or
        Dask run; None when the in-memory functions counted them over the
        references (``df:corpus`` in the signature), and for the metrics
        without document frequencies (BLEU, ROUGE-L).
    corpus_per_order : ndarray of float64, shape (n,), or None
        BLEU only: the corpus BLEU-1 .. BLEU-n (``score == corpus_per_order[-1]``).
    n_empty_candidates : int or None
        CIDEr and CIDEr-D: how many candidates have no token after
        tokenization (an empty caption, or only punctuation with the PTB
        tokenizer).  They score 0, as in pycocoevalcap, and count in the
        mean.  None for BLEU, ROUGE-L and METEOR.
    statistics : ndarray of int64, shape (n_candidates, 23), or None
        METEOR only: each candidate's 23 statistics, as METEOR 1.5's jar
        reports them (lengths, function words and matches per module on
        each side, chunks, matched words); integer counts, so sums over
        any split of the corpus are exact
        (:mod:`sparsecider.metrics.meteor.stats`).

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
    signature: Signature
    n_images: int
    image_index: np.ndarray
    ids: tuple | None = None
    metric: str = field(default="CIDEr-D")
    df: DocumentFrequencies | None = None
    corpus_per_order: np.ndarray | None = None
    n_empty_candidates: int | None = None
    statistics: np.ndarray | None = None

    @classmethod
    def from_per_order(
        cls,
        per_order: np.ndarray,
        *,
        signature: Signature,
        n_images: int,
        image_index: np.ndarray,
        ids: tuple | None = None,
        df: DocumentFrequencies | None = None,
        empty_candidates: int | None = None,
    ) -> CiderResult:
        """The result of per-order values (:func:`sparsecider.core.reduce.per_order_values`):
        scores are their mean over orders, the score the mean over candidates."""
        scores = reduce.scores(per_order)
        return cls(
            score=reduce.corpus_score(scores), scores=scores, per_order=per_order,
            signature=signature, n_images=n_images, image_index=image_index, ids=ids,
            metric=signature.metric, df=df, n_empty_candidates=empty_candidates,
        )  # fmt: skip

    def __post_init__(self) -> None:
        arrays = (self.scores, self.per_order, self.image_index, self.corpus_per_order,
                  self.statistics)  # fmt: skip
        for arr in arrays:
            if arr is not None:
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

    def to_records(self) -> list[dict]:
        """One dict per candidate, in output order: ``{"id", "score", "per_order"}``.

        ``id`` is the image id, or the image's position when the input had
        no ids (aligned lists).

        Examples
        --------
        >>> import sparsecider
        >>> r = sparsecider.cider_d({"x": "a dog runs fast", "y": "one green tram"},
        ...                         {"x": ["a dog runs fast"], "y": ["the red bus stops"]})
        >>> [(row["id"], row["score"]) for row in r.to_records()]
        [('x', 10.0), ('y', 0.0)]
        """
        images = self.image_index.tolist()
        ids = images if self.ids is None else [self.ids[i] for i in images]
        return [
            {"id": i, "score": s, "per_order": p}
            for i, s, p in zip(ids, self.scores.tolist(), self.per_order.tolist(), strict=True)
        ]

    def to_pandas(self):
        """The scores as a pandas ``DataFrame`` with columns ``id`` and
        ``score`` (one row per candidate); needs pandas."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from None
        return pd.DataFrame({"id": [row["id"] for row in self.to_records()], "score": self.scores})

    def __str__(self) -> str:
        return f"{self.metric} = {self.score:.4f} | {self.signature}"

    def __float__(self) -> float:
        return self.score

    def __format__(self, spec: str) -> str:
        """``f"{result:.3f}"`` formats the score; ``f"{result}"`` is ``str(result)``.

        Examples
        --------
        >>> import sparsecider
        >>> r = sparsecider.cider_d(["a dog runs fast"], [["a dog runs fast"]], df="coco-val2014")
        >>> f"{r:.3f}", f"{r:>8.2f}"
        ('10.000', '   10.00')
        """
        return str(self) if not spec else format(self.score, spec)
