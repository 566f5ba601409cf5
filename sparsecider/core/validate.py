"""Every option of the public API, checked once, in one message style.

Faces (the functions, the vectorizer, the stream and Dask backends, the
drop-ins, the command line) call :func:`check_options` (or the single checks
below) at their boundary and never re-check.  The policy of
:mod:`sparsecider._checks` holds: ``TypeError`` for a wrong type,
``ValueError`` for a wrong value, each message naming the argument, the
value and the fix.  :class:`Options` also builds the result's
:class:`~sparsecider.core.result.Signature`: the one place a signature is made.
"""

from __future__ import annotations

import numbers
import os
import warnings
from dataclasses import dataclass

from .._checks import MAX_N, SIGMA_RANGE, check_int, check_real
from ..io.named import NAMED
from ..tokenizers import Tokenizer, TokenizerLike, get_tokenizer
from ..tokenizers.ids import counts_ids
from .frequencies import DocumentFrequencies
from .result import Signature

__all__ = [
    "BETA_RANGE",
    "Options",
    "SmallCorpusWarning",
    "TokenizerWarning",
    "check_beta",
    "check_df",
    "check_df_kind",
    "check_n_jobs",
    "check_options",
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
    """``None`` for corpus mode, the frequencies otherwise; else raise.

    ``df`` is what every entry point (and the command line's ``--df``)
    accepts: ``"corpus"``, the name of frequencies shipped in the package
    (``"coco-val2014"``), the path of a file written by
    :meth:`DocumentFrequencies.save` or ``sparsecider df fit`` (a ``str``
    or an ``os.PathLike``), or a :class:`DocumentFrequencies`.

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
    >>> check_df("train.df.npz", 4)
    Traceback (most recent call last):
    ...
    ValueError: df='train.df.npz': no such file, and not the name of frequencies shipped ...
    """
    if isinstance(df, str) and df == "corpus":
        return None
    if isinstance(df, str) and df in NAMED:
        df = DocumentFrequencies.named(df)
    elif isinstance(df, os.PathLike) or (isinstance(df, str) and _looks_like_path(df)):
        df = _load_df_file(df)
    if isinstance(df, DocumentFrequencies):
        if df.n < n:
            raise ValueError(f"df was fitted for n={df.n}; it cannot score n={n}")
        return df
    raise ValueError(
        f"df={df!r:.60} is not supported; use df='corpus' (document frequencies from the "
        "references being scored), the name of frequencies shipped in the package ("
        + ", ".join(map(repr, NAMED))
        + "), the path of a file written by DocumentFrequencies.save or 'sparsecider df fit', "
        "or a sparsecider.DocumentFrequencies (import a legacy pickle with "
        "DocumentFrequencies.from_pickle)"
        + _LEGACY_NAMES.get(df if isinstance(df, str) else "", "")
    )


# the names other code gives its df files, and what they are here
_LEGACY_NAMES = {
    "coco-val-df": "; the CIDEr authors' 'coco-val-df' is df='coco-val2014' here",
    **dict.fromkeys(
        ("coco-train-idxs", "coco-train-words"),
        "; the self-critical code's pickles are not shipped: convert yours once "
        "('sparsecider df convert coco-train-idxs.p -o coco-train-idxs.df.npz') and pass the file",
    ),
}


# what a df argument that names a file looks like, when no such file exists
_DF_SUFFIXES = (".npz", ".p", ".pkl", ".pickle")


def _looks_like_path(text: str) -> bool:
    return text.endswith(_DF_SUFFIXES) or os.sep in text or os.path.exists(text)


def _load_df_file(path: str | os.PathLike) -> DocumentFrequencies:
    """A df file, with the messages of the command line's ``--df FILE``."""
    name = os.fspath(path)
    if str(name).endswith((".p", ".pkl", ".pickle")):
        raise ValueError(
            f"df={name!r} is a legacy pickle: convert it once with "
            f"DocumentFrequencies.from_pickle({name!r}).save(...) or 'sparsecider df convert "
            f"{name} -o FILE.df.npz', then pass the .npz (pickles are never read implicitly)"
        )
    try:
        return DocumentFrequencies.load(name)
    except FileNotFoundError:
        raise ValueError(
            f"df={name!r}: no such file, and not the name of frequencies shipped in the package "
            f"({', '.join(map(repr, NAMED))}); use 'corpus', a name, or a file written by "
            "DocumentFrequencies.save or 'sparsecider df fit'"
        ) from None


def check_df_kind(df: DocumentFrequencies, tokenizer: str, ids: str | None = None) -> None:
    """Refuse frequencies of the other kind: a table counts either words (of
    the tokenizer it records) or token ids (``ids(eos=...)``, see
    :func:`sparsecider.tokenizers.ids.id_tokenizer_name`).

    ``ids`` is the id tokenizer of an entry point that scores token ids
    (:func:`sparsecider.cider_d_ids`); None for one that scores captions
    tokenized by ``tokenizer``.  Captions may use a table of token ids only
    as space-joined decimal ids with ``tokenizer="whitespace"`` (the strings
    of self-critical training code; :mod:`sparsecider.core.advice` checks that
    they are such strings).  Words of another tokenizer than the table's
    get a :class:`TokenizerWarning` (:func:`warn_tokenizer_mismatch`), given
    once the scores exist (:func:`sparsecider.core.advice.advise`).

    Raises
    ------
    ValueError
        Words against a table of ids or the reverse, or ids read with
        another end-of-sequence policy than the table's; the message names
        the table that fits.

    Examples
    --------
    >>> words = DocumentFrequencies.named("coco-val2014")
    >>> check_df_kind(words, "whitespace", ids="ids(eos=0)")
    Traceback (most recent call last):
    ...
    ValueError: df=coco-val2014(n_images=40504) counts words (tokenizer 'ptb'), but token ids ...
    """
    table = df.tokenizer
    if ids is not None:
        if not counts_ids(table):
            raise ValueError(
                f"df={df.describe()} counts words (tokenizer {table!r}), but token ids are "
                "scored here, so no n-gram would be found in it; fit frequencies on the "
                "training references as ids (DocumentFrequencies.from_id_references(references, "
                "eos=...)) or convert an '*-idxs' pickle (DocumentFrequencies.from_pickle)"
            )
        if table != "ids" and table != ids:
            raise ValueError(
                f"df={df.describe()} counts token ids as {table}, but this call reads them as "
                f"{ids} ('with-eos': the end-of-sequence id counted as a word, "
                "include_eos=True); pass the eos and include_eos the table was fitted with, or "
                "refit it with DocumentFrequencies.from_id_references"
            )
        return
    if counts_ids(table):
        if tokenizer != "whitespace":
            raise ValueError(
                f"df={df.describe()} counts token ids ({table}), but the captions are words "
                f"tokenized with {tokenizer!r}; use frequencies fitted on words with that "
                "tokenizer (DocumentFrequencies.from_references, 'sparsecider df fit'; "
                "df='coco-val2014' for COCO-like English captions), or score token ids with "
                "cider_d_ids (space-joined id strings also work, with tokenizer='whitespace')"
            )
        return
    # words of another tokenizer than the table's: a warning, given by
    # core.advice.advise once the scores exist (no warning just before an error)


def check_options(
    *, n: object, sigma: object, scale: object, df: object, tokenizer: TokenizerLike,
    ids: str | None = None, plain: bool = False,
) -> Options:  # fmt: skip
    """Check the options shared by every scoring entry point, in this order
    (``ids``: see :func:`check_df_kind`).  ``plain=True``: plain CIDEr (the
    caller's own choice, ``sigma`` ignored); otherwise ``sigma`` must be a
    number: ``sigma=None`` from a user is an error, never plain CIDEr.

    Examples
    --------
    >>> o = check_options(n=4, sigma=6, scale=10, df="corpus", tokenizer="ptb")
    >>> o.n, o.sigma, o.metric, str(o.signature(3))
    (4, 6.0, 'CIDEr-D', 'CIDEr-D|n:4|sigma:6|df:corpus(n_images=3)|tok:ptb|version:...')
    """
    n = check_int("n", n, maximum=MAX_N)
    # sigma**2 must neither underflow to 0 nor overflow; scale times a value
    # of at most 1 must stay finite
    if plain:
        sigma = None
    elif sigma is None:
        raise TypeError(
            "sigma must be a number (the width of CIDEr-D's length penalty, default 6), got "
            "None; for plain CIDEr (no clipping, no length penalty) call the CIDEr function "
            "(sparsecider.cider, stream.cider, dask.cider, metric='CIDEr')"
        )
    else:
        sigma = check_real("sigma", sigma, low=SIGMA_RANGE[0], high=SIGMA_RANGE[1])
    scale = check_real("scale", scale, high=1e300)
    frequencies = check_df(df, n)
    resolved = get_tokenizer(tokenizer)
    if frequencies is not None:
        check_df_kind(frequencies, resolved.name, ids)
    return Options(n, sigma, scale, resolved, frequencies)


#: The range of ROUGE-L's ``beta``: beyond it ``beta**2`` (and ``1 + beta**2``)
#: overflows or vanishes, as for ``sigma``.
BETA_RANGE = (1e-150, 1e150)


def check_beta(beta: object) -> float:
    """ROUGE-L's ``beta``, a number in :data:`BETA_RANGE`.

    Examples
    --------
    >>> check_beta(1.2)
    1.2
    >>> check_beta(1e200)
    Traceback (most recent call last):
    ...
    ValueError: beta must lie in [1e-150, 1e+150] (outside it the arithmetic overflows or ...
    """
    return check_real("beta", beta, low=BETA_RANGE[0], high=BETA_RANGE[1])


# PTB output is whitespace-separated tokens: frequencies fitted on either
# serve captions tokenized by the other beforehand (pycocoevalcap's own setup)
_INTERCHANGEABLE = {"ptb", "whitespace"}


def warn_tokenizer_mismatch(df: DocumentFrequencies, tokenizer: str, stacklevel: int = 5) -> None:
    """Warn when frequencies fitted on one tokenizer's tokens score another's
    (``stacklevel``: as ``warnings.warn``'s, from this function)."""
    if df.tokenizer == tokenizer or {df.tokenizer, tokenizer} <= _INTERCHANGEABLE:
        return
    if counts_ids(df.tokenizer):  # ids as text: check_df_kind's and check_id_strings' rules
        return
    warnings.warn(
        f"the document frequencies ({df.describe()}) were fitted on tokens of "
        f"tokenizer {df.tokenizer!r}, but the captions are tokenized with {tokenizer!r}: "
        "n-grams will not match and idf values will be wrong; fit the frequencies with "
        "the same tokenizer",
        TokenizerWarning,
        stacklevel=stacklevel,
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


class TokenizerWarning(UserWarning):
    """The tokenizer does not fit the captions or the document frequencies:
    the n-grams it makes cannot match, and the score means little (CJK text
    under ``"ptb"``, frequencies of another tokenizer, captions that are
    not tokenized as the frequencies' were).  Make it an error with
    ``warnings.simplefilter("error", sparsecider.TokenizerWarning)``."""
