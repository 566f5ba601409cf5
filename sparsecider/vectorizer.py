"""``CiderVectorizer``: CIDEr's tf-idf space as a scikit-learn transformer."""

from __future__ import annotations

import numbers
import os

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._checks import caption_list, check_real
from ._kernels.hashing import ngram_keys
from ._kernels.weights import idf
from .core import reduce
from .core.advice import check_id_strings
from .core.corpus import Corpus, as_corpus, documents
from .core.engine import statistics
from .core.frequencies import DocumentFrequencies
from .core.result import CiderResult
from .core.validate import Options, check_df, check_options, warn_tokenizer_mismatch
from .metrics.cider import score_corpus
from .tokenizers import TokenizerLike, tokenize

__all__ = ["CiderVectorizer"]


class CiderVectorizer(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """CIDEr's tf-idf n-gram vectors, for scikit-learn pipelines.

    ``fit`` learns document frequencies from references (or takes fitted
    ones); ``transform`` maps captions to tf-idf rows in a fixed hashed
    column space; ``evaluate``, ``score`` and ``similarity`` compute CIDEr-D
    (or CIDEr) exactly, never through the hashed columns.  As in
    scikit-learn, ``score(X, y)`` returns a float (the corpus score, higher
    is better: what model selection uses); ``evaluate`` returns the whole
    :class:`~sparsecider.CiderResult`.

    Parameters
    ----------
    n : int, default 4
        Highest n-gram order.
    sigma : float, default 6.0
        Length-penalty width (CIDEr-D).
    variant : {"cider-d", "cider"}, default "cider-d"
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
    df : DocumentFrequencies, a name, a path, or None, default None
        Fitted frequencies (or the name of frequencies shipped in the
        package, such as ``"coco-val2014"``, or the path of a saved table)
        to use instead of learning them in ``fit``; None (or ``"corpus"``)
        learns them from ``fit``'s documents.
    n_features : int, default 2**18
        Columns per order in :meth:`transform`'s output (``n * n_features``
        in all: by default 2**20, as scikit-learn's ``HashingVectorizer``).
        An n-gram of order k goes to column
        ``(k - 1) * n_features + key % n_features``, where ``key`` is its
        64-bit hash (:mod:`sparsecider._kernels.hashing`): the same on every process
        and machine.  Distinct n-grams of one order share a column with
        probability about ``1 / n_features``; their values then add up (as in
        ``HashingVectorizer``).  Scores never use these columns.  The cost of
        a linear model on them grows with the columns: ``LogisticRegression``
        on 1,000 COCO captions fits in 5.0 s with 2**20 per order, 1.8 s with
        2**18, 0.5 s with 2**16, while the share of the 4-grams of 5,000
        COCO captions that share a column with another grows from 3% to 11%
        and 38% (the README's table).
    dtype : {np.float64, np.float32}, default np.float64
        Type of :meth:`transform`'s values.

    Attributes
    ----------
    df_ : DocumentFrequencies
        The frequencies used (fitted, or ``df``).

    Examples
    --------
    >>> from sparsecider import CiderVectorizer
    >>> refs = [["a dog runs on grass", "the dog runs"], ["a red bus"], ["a cat sleeps"]]
    >>> vec = CiderVectorizer(tokenizer="whitespace", n_features=2**10).fit(refs)
    >>> X = vec.transform(["a dog runs", "a red bus"])
    >>> X.shape
    (2, 4096)
    >>> import sparsecider
    >>> cands = ["a dog runs", "a red bus", "a cat"]
    >>> exact = sparsecider.cider_d(cands, refs, tokenizer="whitespace").score
    >>> bool(abs(vec.score(cands, refs) - exact) < 1e-12)
    True
    >>> # orders 1-3 match exactly, there is no 4-gram: 10 * 3/4; "a" is in every image
    >>> vec.similarity(["a red bus"], ["a red bus", "a cat"]).round(4).tolist()
    [[7.5, 0.0]]
    """

    def __init__(
        self,
        *,
        n: int = 4,
        sigma: float = 6.0,
        variant: str = "cider-d",
        tokenizer: TokenizerLike = "ptb",
        df: DocumentFrequencies | None = None,
        n_features: int = 2**18,
        dtype: type = np.float64,
    ) -> None:
        self.n = n
        self.sigma = sigma
        self.variant = variant
        self.tokenizer = tokenizer
        self.df = df
        self.n_features = n_features
        self.dtype = dtype

    # ---- scikit-learn protocol ----------------------------------------------

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        tags.requires_fit = True
        return tags

    def _check_params(self) -> Options:
        """Every parameter checked (:mod:`sparsecider.core.validate`); the scoring options."""
        if self.variant not in ("cider-d", "cider"):
            raise ValueError(f"variant must be 'cider-d' or 'cider', got {self.variant!r}")
        if (
            isinstance(self.n_features, bool)
            or not isinstance(self.n_features, numbers.Integral)
            or not 1 <= self.n_features <= 2**40
        ):
            raise ValueError(f"n_features must be an integer in 1..2**40, got {self.n_features!r}")
        if np.dtype(self.dtype) not in (np.float64, np.float32):
            raise ValueError(f"dtype must be float64 or float32, got {self.dtype!r}")
        if self.df is not None and not isinstance(self.df, DocumentFrequencies | str | os.PathLike):
            raise TypeError(
                "df must be a DocumentFrequencies, a name, a path or None, got "
                f"{type(self.df).__name__}"
            )
        if self.variant == "cider":
            check_real("sigma", self.sigma)  # checked even where unused, as sklearn expects
        sigma = self.sigma if self.variant == "cider-d" else None
        return check_options(
            n=self.n, sigma=sigma, scale=10.0, plain=self.variant == "cider",
            df="corpus" if getattr(self, "df_", None) is None else self.df_,
            tokenizer=self.tokenizer,
        )  # fmt: skip

    def fit(self, X, y=None) -> CiderVectorizer:
        """Learn document frequencies from ``X``: a list of reference lists
        (one per image), or a list of captions (each its own document).
        With ``df`` given, nothing is learned from ``X``.

        Parameters
        ----------
        X : list of list of str, or list of str
            The references of each image, or captions each forming its own
            document.  Tokenized with ``tokenizer``.
        y : ignored
            For scikit-learn's API.

        Returns
        -------
        CiderVectorizer
            ``self``, with ``df_`` set.

        Raises
        ------
        ValueError
            An invalid parameter, or a ``df`` fitted for fewer orders than ``n``.
        TypeError
            ``X`` is not a list, or ``df`` is not a :class:`DocumentFrequencies`.

        Examples
        --------
        >>> vec = CiderVectorizer(tokenizer="whitespace")
        >>> vec.fit([["a dog runs", "the dog runs"], ["a red bus"]]).df_.n_images
        2
        >>> vec.fit(["a dog runs", "the dog runs", "a red bus"]).df_.n_images  # 3 documents
        3
        """
        if hasattr(self, "df_"):
            del self.df_
        options = self._check_params()
        df = None if self.df is None else check_df(self.df, options.n)
        if df is not None:
            if X is not None:  # the table's kind against X, as every entry point checks it
                check_id_strings((), df, [c for doc in documents(X) for c in doc])
            self.df_ = df
            warn_tokenizer_mismatch(df, options.tokenizer.name, stacklevel=3)
        else:
            self.df_ = DocumentFrequencies.from_references(
                documents(X), n=options.n, tokenizer=options.tokenizer
            )
        return self

    def transform(self, X) -> sp.csr_matrix:
        """tf-idf rows of the captions ``X``: CSR of shape (len(X), n * n_features).

        Values are raw n-gram counts times idf, as in CIDEr; rows are not
        normalised (norms are per order in CIDEr).

        Parameters
        ----------
        X : list of str
            Captions, tokenized with ``tokenizer`` as one sequence.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (len(X), n * n_features)
            A ``csr_array`` instead under
            ``sklearn.set_config(sparse_interface="sparray")``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        TypeError
            ``X`` is not a list of strings (a bare string included).

        Examples
        --------
        Every n-gram of "a dog runs fast" occurs in one of the two images,
        so each of its 4 + 3 + 2 + 1 = 10 n-grams gets ``log(2 / 1)``; the
        unseen "cat" and "a cat" get the largest idf too, ``log(2)``:

        >>> refs = [["a dog runs fast"], ["the red bus stops"]]
        >>> vec = CiderVectorizer(tokenizer="whitespace").fit(refs)
        >>> X = vec.transform(["a dog runs fast", "a cat"])
        >>> X.shape, X.getnnz(axis=1).tolist()
        ((2, 1048576), [10, 3])
        >>> bool(np.allclose(X.data, np.log(2)))
        True
        """
        check_is_fitted(self, "df_")
        options = self._check_params()
        captions = caption_list(X, "X")
        check_id_strings(captions, self.df_)
        tokens = tokenize(captions, options.tokenizer)
        blocks = []
        for k, (keys, indptr) in enumerate(ngram_keys(tokens.hashes, tokens.lengths, options.n)):
            weights = idf(self.df_.lookup(keys, k + 1), self.df_.n_images)
            cols = (keys % np.uint64(self.n_features)).astype(np.int64)
            block = sp.csr_matrix(
                (weights, cols, indptr), shape=(len(captions), int(self.n_features))
            )
            block.sum_duplicates()  # repeated n-grams (and hash collisions) add up
            blocks.append(block)
        out = sp.hstack(blocks, format="csr").astype(self.dtype)
        warn_tokenizer_mismatch(self.df_, options.tokenizer.name, stacklevel=3)
        return _sparse_interface(out)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        """Names of :meth:`transform`'s columns: ``"<k>gram_<j>"``, hash bucket j of order k.

        The columns are hash buckets (as in scikit-learn's
        ``HashingVectorizer``), so the names say where a column sits, not
        which n-gram fills it.  ``input_features`` is ignored (the input is
        text).

        Returns
        -------
        ndarray of object, shape (n * n_features,)

        Examples
        --------
        >>> vec = CiderVectorizer(tokenizer="whitespace", n=2, n_features=3).fit([["a b"]])
        >>> vec.get_feature_names_out().tolist()
        ['1gram_0', '1gram_1', '1gram_2', '2gram_0', '2gram_1', '2gram_2']
        """
        check_is_fitted(self, "df_")
        options = self._check_params()
        buckets = np.arange(int(self.n_features)).astype(str).astype(object)
        return np.concatenate([f"{k}gram_" + buckets for k in range(1, options.n + 1)])

    def fit_transform(self, X, y=None) -> sp.csr_matrix:
        """Fit on ``X``, then transform its captions (all references, flattened).

        Parameters
        ----------
        X : list of list of str, or list of str
            As for :meth:`fit`.
        y : ignored
            For scikit-learn's API.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_captions, n * n_features)
            One row per caption of ``X``, image after image.

        Raises
        ------
        ValueError, TypeError
            As :meth:`fit` and :meth:`transform`.

        Examples
        --------
        >>> refs = [["a dog runs", "the dog runs"], ["a red bus"]]
        >>> vec = CiderVectorizer(tokenizer="whitespace", n_features=2**10)
        >>> vec.fit_transform(refs).shape  # 3 captions, 4 orders x 1024 columns
        (3, 4096)
        """
        self.fit(X, y)
        return self.transform([c for doc in documents(X) for c in doc])

    # ---- exact scores ------------------------------------------------------------

    def evaluate(self, candidates, references) -> CiderResult:
        """CIDEr-D (or CIDEr) of ``candidates`` against ``references`` with the
        fitted document frequencies; exactly :func:`sparsecider.cider_d`.

        Parameters
        ----------
        candidates, references
            As :func:`sparsecider.cider_d`.

        Returns
        -------
        CiderResult
            With ``df_`` as the document frequencies (``df:precomputed`` in
            the signature).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        TypeError, ValueError
            As :func:`sparsecider.cider_d`.

        Examples
        --------
        A candidate identical to its only reference scores 10, one sharing
        no word with it 0:

        >>> refs = [["a dog runs fast"], ["the red bus stops"]]
        >>> vec = CiderVectorizer(tokenizer="whitespace").fit(refs)
        >>> vec.evaluate(["a dog runs fast", "a cat"], refs).scores.tolist()
        [10.0, 0.0]
        """
        check_is_fitted(self, "df_")
        return score_corpus(as_corpus(candidates, references), self._check_params())

    def score(self, X, y) -> float:
        """The corpus CIDEr-D (or CIDEr) of candidates ``X`` against references
        ``y``: a float, as scikit-learn's ``score`` methods return (higher is
        better).  ``evaluate(X, y).score``; see :meth:`evaluate`.

        Examples
        --------
        >>> refs = [["a dog runs fast"], ["the red bus stops"]]
        >>> vec = CiderVectorizer(tokenizer="whitespace").fit(refs)
        >>> vec.score(["a dog runs fast", "a cat"], refs)
        5.0
        """
        return self.evaluate(X, y).score

    def similarity(self, captions_a, captions_b, *, scale: float = 10.0) -> np.ndarray:
        """CIDEr-D (or CIDEr) of every caption of ``a`` against every caption of ``b``.

        Entry (i, j) is the score of ``a[i]`` with ``b[j]`` as its only
        reference, under the fitted frequencies: a dense array of shape
        (len(a), len(b)).  For retrieval, consensus re-ranking of n-best lists
        (mean similarity to the other candidates) and self-CIDEr diversity.
        Not symmetric for CIDEr-D (the clip uses the reference's counts).

        Parameters
        ----------
        captions_a, captions_b : list of str
            Candidates (rows) and single references (columns).
        scale : float, default 10.0
            Final multiplier, as in :func:`sparsecider.cider_d`.

        Returns
        -------
        ndarray of float64, shape (len(captions_a), len(captions_b))

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before :meth:`fit`.
        TypeError
            Either argument is not a list of strings.

        Examples
        --------
        Identical 4-word captions score 10, captions sharing no word 0:

        >>> refs = [["a dog runs fast"], ["the red bus stops"]]
        >>> vec = CiderVectorizer(tokenizer="whitespace").fit(refs)
        >>> vec.similarity(["a dog runs fast", "the red bus stops"],
        ...                ["a dog runs fast", "the red bus stops"]).tolist()
        [[10.0, 0.0], [0.0, 10.0]]
        """
        check_is_fitted(self, "df_")
        options = self._check_params()
        a, b = caption_list(captions_a, "captions_a"), caption_list(captions_b, "captions_b")
        scale = check_real("scale", scale)
        check_id_strings(a, options.df, b)
        if not a or not b:
            return np.zeros((len(a), len(b)))
        # one image whose candidates are a and whose references are b: the
        # engine's pairs are then every (a[i], b[j]), candidate-major
        corpus = Corpus(
            candidates=a,
            candidate_image=np.zeros(len(a), dtype=np.int64),
            references=b,
            reference_offsets=np.array([0, len(b)], dtype=np.int64),
            ids=None,
        )
        stats = statistics(
            corpus, n=options.n, clip=options.clip, tokenizer=options.tokenizer, df=options.df
        )
        values = reduce.pair_values(stats, options.sigma).sum(axis=0)
        warn_tokenizer_mismatch(options.df, options.tokenizer.name, stacklevel=3)
        return (values * (scale / options.n)).reshape(len(a), len(b))


def _sparse_interface(matrix: sp.csr_matrix):
    """Honour ``sklearn.set_config(sparse_interface=...)`` ("spmatrix" or "sparray")."""
    from sklearn import get_config

    if get_config().get("sparse_interface", "spmatrix") == "sparray":
        return sp.csr_array(matrix)
    return matrix
