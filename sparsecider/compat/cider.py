"""``Cider`` (pycocoevalcap's, which computes CIDEr-D) and ``CiderD`` (the CIDEr
authors' and the self-critical training code's), over :func:`sparsecider.cider_d`;
and the checks of their ``gts``/``res`` dicts that the other drop-ins share."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._checks import describe_keys, id_kind_mismatch
from ..core.corpus import check_references
from ..core.frequencies import DocumentFrequencies
from ..core.validate import check_df
from ..metrics.cider import cider_d
from .memo import ReferenceMemo

__all__ = ["Cider", "CiderD", "candidate_captions", "df_option", "one_caption"]


def one_caption(value: object, where: str) -> str:
    if not isinstance(value, list):
        raise TypeError(
            f"{where} must be a list holding one caption (as pycocoevalcap expects), "
            f"got {type(value).__name__}"
        )
    if len(value) != 1:
        raise ValueError(f"{where} must hold exactly one caption, got {len(value)}")
    return value[0]


def candidate_captions(gts: object, res: object) -> dict:
    """``res``'s one caption per image, in the order of ``gts``'s keys (checked)."""
    if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
        raise TypeError(
            f"gts and res must be dicts keyed by image id, got {type(gts).__name__} "
            f"and {type(res).__name__}"
        )
    if gts.keys() != res.keys():
        only_g = [k for k in gts if k not in res]
        only_r = [k for k in res if k not in gts]
        kinds = id_kind_mismatch(list(res), list(gts), "res", "gts")
        raise ValueError(
            (kinds + "; " if kinds else "") + "gts and res must have the same image ids; "
            f"only in gts: {describe_keys(only_g)}; only in res: {describe_keys(only_r)}"
        )
    return {k: one_caption(res[k], f"res[{k!r}]") for k in gts}


def df_option(df: object) -> DocumentFrequencies | str:
    """``df`` as every entry point takes it (``"corpus"``, a shipped name, a
    df file, a :class:`DocumentFrequencies`), checked when the scorer is made."""
    return check_df(df, 1) or "corpus"


class Cider:
    """pycocoevalcap's ``Cider`` (CIDEr-D), on sparse matrices.

    Parameters
    ----------
    test, refs : ignored
        Accepted for signature compatibility, as in pycocoevalcap.
    n : int, default 4
        Highest n-gram order; orders 1..n are averaged.
    sigma : float, default 6.0
        Width of the Gaussian length penalty.
    df : "corpus", a name, a path, or DocumentFrequencies, default "corpus"
        Document frequencies: from the references being scored (as
        pycocoevalcap), or fixed, as the CIDEr authors' scorer does with
        their ``coco-val-df`` file: ``df="coco-val2014"`` (shipped in the
        package; see :meth:`sparsecider.DocumentFrequencies.named`) gives
        one image or a few meaningful scores; or a file written by
        ``sparsecider df fit`` / ``df convert`` (e.g. the self-critical
        code's ``coco-train-idxs.p``, converted once).

    See Also
    --------
    sparsecider.cider_d : The function doing the work, with more options.

    Examples
    --------
    A candidate identical to its image's only reference scores the maximum,
    10 (every order's cosine is 1, no length penalty); one sharing no word
    with its references scores 0:

    >>> gts = {"a": ["a dog runs fast"], "b": ["the red bus stops"]}
    >>> res = {"a": ["a dog runs fast"], "b": ["one green tram"]}
    >>> score, scores = Cider().compute_score(gts, res)
    >>> float(score), scores.tolist()
    (5.0, [10.0, 0.0])

    One image alone scores 0 with ``df="corpus"`` (every idf is log 1); with
    the frequencies of all of COCO val it gets its score inside COCO val:

    >>> one = {"a": ["a man riding a wave on top of a surfboard"]}
    >>> ref = {"a": ["a surfer riding a wave on a surfboard", "a man surfing a big wave"]}
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # the single-image warning
    ...     alone, _ = Cider().compute_score(ref, one)
    >>> in_val, _ = Cider(df="coco-val2014").compute_score(ref, one)
    >>> float(alone), float(in_val) > 1
    (0.0, True)
    """

    _name = "CIDEr"

    def __init__(
        self, test=None, refs=None, n: int = 4, sigma: float = 6.0, df: object = "corpus"
    ) -> None:
        self._n = n
        self._sigma = sigma
        self._df = df_option(df)

    def _score(self, candidates, references) -> tuple[np.float64, np.ndarray]:
        # like pycocoevalcap's scorer: the captions are already tokenized
        result = cider_d(
            candidates, references, n=self._n, sigma=self._sigma, df=self._df,
            tokenizer="whitespace",
        )  # fmt: skip
        return np.float64(result.score), np.array(result.scores)

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        """Score ``res`` against ``gts``.

        Parameters
        ----------
        gts : dict
            Image id -> list of reference captions (already tokenized).
        res : dict
            Image id -> list holding exactly one candidate caption.

        Returns
        -------
        score : numpy.float64
            Corpus CIDEr-D.
        scores : ndarray of shape (len(gts),)
            Per-image scores in the order of ``gts``'s keys.

        Raises
        ------
        TypeError
            ``gts`` or ``res`` is not a dict, or an entry of ``res`` is not a list.
        ValueError
            The two dicts have different image ids, or an entry of ``res``
            does not hold exactly one caption.

        Examples
        --------
        Scores follow the order of ``gts``, whatever the order of ``res``:

        >>> gts = {2: ["the red bus stops"], 1: ["a dog runs fast"]}
        >>> res = {1: ["a dog runs fast"], 2: ["a cat"]}
        >>> score, scores = Cider().compute_score(gts, res)
        >>> scores.tolist()
        [0.0, 10.0]
        >>> Cider().compute_score(gts, {1: ["a dog runs fast"]})
        Traceback (most recent call last):
        ...
        ValueError: gts and res must have the same image ids; only in gts: [2]; only in res: []
        """
        # scores follow gts's key order, as pycocoevalcap's
        return self._score(candidate_captions(gts, res), gts)

    def method(self) -> str:
        """The metric's name, as pycocoevalcap reports it.

        Returns
        -------
        str
            ``"CIDEr"`` (pycocoevalcap's name for its CIDEr-D), or ``"CIDEr-D"``
            for :class:`CiderD`.

        Examples
        --------
        >>> Cider().method(), CiderD().method()
        ('CIDEr', 'CIDEr-D')
        """
        return self._name


class CiderD(Cider):
    """The CIDEr authors' ``CiderD`` (and its self-critical training copies).

    Parameters
    ----------
    n : int, default 4
        Highest n-gram order; orders 1..n are averaged.
    sigma : float, default 6.0
        Width of the Gaussian length penalty.
    df : "corpus", a name, a path, or DocumentFrequencies, default "corpus"
        As :class:`Cider`: the authors' ``df="coco-val-df"`` is
        ``df="coco-val2014"`` here.

    cache_references : bool, default True
        With fixed ``df``, remember the reference lists of every call and
        serve the images seen before from a cache of their n-grams, tf-idf
        and norms (a :class:`sparsecider.RewardScorer` over them, rebuilt
        as it grows; see :meth:`remember`): the same numbers, bit for bit,
        at about the speed of the scorer once the training set has been
        seen.  Memory grows to that of the scorer over the training set.

    ``compute_score(gts, res)`` accepts ``res`` as that code does, a list of
    ``{"image_id": id, "caption": [caption]}`` dicts, in which case every
    entry is its own document (as there) and scores follow ``res``'s order;
    or as a dict like :class:`Cider`.  With fixed ``df`` the entries sharing
    a reference list (an image's samples and greedy caption) are scored as
    one image's candidates: their references are read once.

    Raises
    ------
    ValueError
        ``df`` is neither ``"corpus"``, a shipped name, nor a DocumentFrequencies.

    Examples
    --------
    >>> gts = {"a": ["a dog runs fast"], "b": ["the red bus stops"]}
    >>> res = [
    ...     {"image_id": "a", "caption": ["a dog runs fast"]},
    ...     {"image_id": "b", "caption": ["the red bus stops"]},
    ... ]
    >>> score, scores = CiderD().compute_score(gts, res)
    >>> float(score), scores.tolist()
    (10.0, [10.0, 10.0])
    """

    _name = "CIDEr-D"

    def __init__(
        self, n: int = 4, sigma: float = 6.0, df: object = "corpus", *,
        cache_references: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(n=n, sigma=sigma, df=df)
        self._memo = None
        if cache_references and self._df != "corpus":
            frequencies = (
                DocumentFrequencies.named(self._df) if isinstance(self._df, str) else self._df
            )
            self._memo = ReferenceMemo(df=frequencies, n=self._n, sigma=self._sigma)

    def remember(self, references: object) -> None:
        """Cache reference lists now (a list of lists of strings, or a dict of them).

        With fixed document frequencies, reference lists are remembered as
        calls bring them and served from a cache once seen (see the
        class's description); giving the whole training set here before
        the first epoch serves every batch from the cache at once (one
        build: 5-8 s and 257 MiB for 113,287 images x 5 references).

        Raises
        ------
        ValueError
            With ``df="corpus"`` (nothing is remembered then) or
            ``cache_references=False``.
        """
        if self._memo is None:
            raise ValueError(
                "this CiderD remembers nothing: it needs fixed document frequencies (df=) "
                "and cache_references=True"
            )
        ref_lists, _ = check_references(references)
        self._memo.remember([tuple(refs) for refs in ref_lists])

    def compute_score(self, gts: Mapping, res) -> tuple[np.float64, np.ndarray]:
        """Score ``res`` against ``gts``.

        Parameters
        ----------
        gts : dict
            Image id -> list of reference captions (already tokenized).
        res : list of dict, or dict
            ``[{"image_id": id, "caption": [caption]}, ...]``: one entry per
            candidate (an image may appear several times, or not at all),
            each entry its own document.  Or a dict as for
            :meth:`Cider.compute_score`.

        Returns
        -------
        score : numpy.float64
            Corpus CIDEr-D.
        scores : ndarray of shape (len(res),)
            Per-entry scores in the order of ``res`` (of ``gts``'s keys for
            a dict).

        Raises
        ------
        TypeError
            ``gts`` is not a dict, ``res`` neither a list nor a dict, or an
            entry of ``res`` is not a dict with ``image_id`` and ``caption``.
        ValueError
            An entry names an image that ``gts`` does not have, or its
            ``caption`` does not hold exactly one caption.

        Examples
        --------
        Image ``"a"`` is scored twice, with its own caption (10) and with
        one sharing no word with its reference (0):

        >>> gts = {"a": ["a dog runs fast"], "b": ["the red bus stops"]}
        >>> res = [
        ...     {"image_id": "a", "caption": ["a dog runs fast"]},
        ...     {"image_id": "a", "caption": ["the red bus stops"]},
        ...     {"image_id": "b", "caption": ["the red bus stops"]},
        ... ]
        >>> score, scores = CiderD().compute_score(gts, res)
        >>> scores.tolist()
        [10.0, 0.0, 10.0]
        """
        if isinstance(res, Mapping):
            return super().compute_score(gts, res)
        if not isinstance(gts, Mapping) or not isinstance(res, list):
            raise TypeError(
                "gts must be a dict keyed by image id and res a list of "
                f"{{'image_id', 'caption'}} dicts (or a dict), got {type(gts).__name__} "
                f"and {type(res).__name__}"
            )
        candidates, references = [], []
        for i, entry in enumerate(res):
            if not isinstance(entry, Mapping) or "image_id" not in entry or "caption" not in entry:
                raise TypeError(
                    f"res[{i}] must be a dict with 'image_id' and 'caption', got {entry!r:.80}"
                )
            if entry["image_id"] not in gts:
                raise ValueError(
                    f"res[{i}] has image_id {entry['image_id']!r}, which gts does not have"
                )
            candidates.append(one_caption(entry["caption"], f"res[{i}]['caption']"))
            references.append(gts[entry["image_id"]])
        if self._df != "corpus":
            try:
                return self._score_by_references(candidates, references)
            except (TypeError, ValueError):
                pass  # scored entry by entry below, whose message names the entry
        return self._score(candidates, references)

    def _score_by_references(self, candidates, references) -> tuple[np.float64, np.ndarray]:
        """Entries sharing a reference list, scored as one image's candidates.

        With fixed document frequencies a candidate's score depends only on
        its own references, so the entries of one image (SCST code gives
        its samples and its greedy caption an entry each, with the same
        references) are scored against one copy of them: the same numbers,
        the references tokenized and counted once per image instead of once
        per entry.
        """
        key: dict[int, tuple] = {}  # SCST code shares one list object per image
        group: dict[tuple, int] = {}
        of_entry = []
        for refs in references:
            found = key.get(id(refs))
            if found is None:
                found = key[id(refs)] = tuple(refs)
            of_entry.append(group.setdefault(found, len(group)))
        members: list[list[int]] = [[] for _ in group]
        for i, g in enumerate(of_entry):
            members[g].append(i)
        grouped = [[candidates[i] for i in m] for m in members]
        if self._memo is not None:
            flat = self._memo.score(grouped, list(group))
        else:
            flat = cider_d(
                grouped, [list(refs) for refs in group], n=self._n, sigma=self._sigma,
                df=self._df, tokenizer="whitespace",
            ).scores  # fmt: skip
        scores = np.empty(len(candidates))
        scores[[i for m in members for i in m]] = flat
        return np.float64(scores.mean()), scores
