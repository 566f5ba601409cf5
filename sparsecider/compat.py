"""Drop-in replacements for the reference implementation's scorer classes.

``Cider`` replaces ``pycocoevalcap.cider.cider.Cider`` (which, despite its
name, computes CIDEr-D) and ``CiderD`` replaces the ``CiderD`` class of the
CIDEr authors' repository and of the self-critical training code derived
from it.  Same constructor, same ``compute_score(gts, res)`` inputs, same
``(float, ndarray)`` return value and the same numbers, computed by
:func:`sparsecider.cider_d`.

Differences, all deliberate:

- bad input raises ``TypeError``/``ValueError`` naming the offending image
  instead of a bare ``AssertionError``;
- ``n`` means what it says (pycocoevalcap always extracts 1- to 4-grams:
  ``n < 4`` raises ``IndexError`` there, ``n > 4`` averages in orders that
  are always 0); ``n=4``, the default, is identical.

Examples
--------
>>> from sparsecider.compat import Cider
>>> gts = {1: ["a dog runs on grass", "the dog runs"], 2: ["a red bus"]}
>>> res = {1: ["a dog runs"], 2: ["a bus"]}
>>> score, scores = Cider().compute_score(gts, res)
>>> scores.shape
(2,)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._checks import describe_keys
from .api import cider_d
from .frequencies import NAMED, DocumentFrequencies
from .io.captions import load_annotations, load_results
from .tokenizers.ptb import ptb_tokenize

__all__ = ["COCOEvalCap", "Cider", "CiderD", "PTBTokenizer"]


def _one_caption(value: object, where: str) -> str:
    if not isinstance(value, list):
        raise TypeError(
            f"{where} must be a list holding one caption (as pycocoevalcap expects), "
            f"got {type(value).__name__}"
        )
    if len(value) != 1:
        raise ValueError(f"{where} must hold exactly one caption, got {len(value)}")
    return value[0]


def _df_option(df: object) -> object:
    """``df`` as :func:`sparsecider.cider_d` takes it; a clear error otherwise."""
    if isinstance(df, DocumentFrequencies) or (isinstance(df, str) and df in ("corpus", *NAMED)):
        return df
    raise ValueError(
        f"df={df!r:.60}: only 'corpus' (document frequencies from the references being "
        "scored), the name of frequencies shipped in the package ("
        + ", ".join(map(repr, NAMED))
        + ") or a sparsecider.DocumentFrequencies is supported"
    )


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
    df : "corpus", a name, or DocumentFrequencies, default "corpus"
        Document frequencies: from the references being scored (as
        pycocoevalcap), or fixed, as the CIDEr authors' scorer does with
        their ``coco-val-df`` file: ``df="coco-val2014"`` (shipped in the
        package; see :meth:`sparsecider.DocumentFrequencies.named`) gives
        one image or a few meaningful scores.

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
        self._df = _df_option(df)

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
        if not isinstance(gts, Mapping) or not isinstance(res, Mapping):
            raise TypeError(
                f"gts and res must be dicts keyed by image id, got {type(gts).__name__} "
                f"and {type(res).__name__}"
            )
        if gts.keys() != res.keys():
            only_g = [k for k in gts if k not in res]
            only_r = [k for k in res if k not in gts]
            raise ValueError(
                "gts and res must have the same image ids; "
                f"only in gts: {describe_keys(only_g)}; only in res: {describe_keys(only_r)}"
            )
        # scores follow gts's key order, as pycocoevalcap's
        candidates = {k: _one_caption(res[k], f"res[{k!r}]") for k in gts}
        return self._score(candidates, gts)

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
    df : "corpus", a name, or DocumentFrequencies, default "corpus"
        As :class:`Cider`: the authors' ``df="coco-val-df"`` is
        ``df="coco-val2014"`` here.

    ``compute_score(gts, res)`` accepts ``res`` as that code does, a list of
    ``{"image_id": id, "caption": [caption]}`` dicts, in which case every
    entry is its own document (as there) and scores follow ``res``'s order;
    or as a dict like :class:`Cider`.

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

    def __init__(self, n: int = 4, sigma: float = 6.0, df: object = "corpus") -> None:
        super().__init__(n=n, sigma=sigma, df=df)

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
            candidates.append(_one_caption(entry["caption"], f"res[{i}]['caption']"))
            references.append(gts[entry["image_id"]])
        return self._score(candidates, references)


class PTBTokenizer:
    """pycocoevalcap's ``PTBTokenizer``, without Java.

    ``tokenize({image_id: [{"caption": str}, ...]})`` returns
    ``{image_id: [tokenized str, ...]}``, all captions tokenized as one
    sequence in input order, as the Java pipeline does (see
    :func:`sparsecider.ptb_tokenize`).  Unlike the Java wrapper it never
    shifts captions onto other images (line separators inside a caption are
    read as spaces) and keeps images that have no caption (with an empty list).

    Examples
    --------
    >>> PTBTokenizer().tokenize({1: [{"caption": "A dog's toy."}], 2: [{"caption": "Hi!"}]})
    {1: ["a dog 's toy"], 2: ['hi']}
    """

    def tokenize(self, captions_for_image: Mapping) -> dict:
        """Tokenize every caption as the reference pipeline does.

        Parameters
        ----------
        captions_for_image : dict
            Image id -> list of ``{"caption": str, ...}`` dicts (other keys
            are ignored), as in COCO annotation files grouped by image.

        Returns
        -------
        dict
            Image id -> list of tokenized captions (lower-cased, punctuation
            removed, tokens joined by single spaces), same keys and order.

        Raises
        ------
        TypeError
            The input is not a dict of lists of dicts with a string ``caption``.

        Examples
        --------
        >>> PTBTokenizer().tokenize(
        ...     {7: [{"caption": "A Dog, running!", "id": 70}, {"caption": "The dog."}], 8: []}
        ... )
        {7: ['a dog running', 'the dog'], 8: []}
        """
        if not isinstance(captions_for_image, Mapping):
            raise TypeError(
                "captions_for_image must be a dict {image_id: [{'caption': str}, ...]}, "
                f"got {type(captions_for_image).__name__}"
            )
        flat: list[str] = []
        counts: list[int] = []
        for key, entries in captions_for_image.items():
            if not isinstance(entries, list):
                raise TypeError(
                    f"captions_for_image[{key!r}] must be a list of dicts, "
                    f"got {type(entries).__name__}"
                )
            for j, entry in enumerate(entries):
                if not isinstance(entry, Mapping) or not isinstance(entry.get("caption"), str):
                    raise TypeError(
                        f"captions_for_image[{key!r}][{j}] must be a dict with a string 'caption'"
                    )
                flat.append(entry["caption"])
            counts.append(len(entries))
        tokens = iter(ptb_tokenize(flat))
        return {
            key: [next(tokens) for _ in range(count)]
            for key, count in zip(captions_for_image, counts, strict=True)
        }


class COCOEvalCap:
    """pycocoevalcap's ``COCOEvalCap``, for the metric sparsecider computes: CIDEr.

    Parameters
    ----------
    coco : pycocotools ``COCO``, path, or dict
        The annotation file (references).
    cocoRes : pycocotools ``COCO`` (from ``coco.loadRes``), path, or list
        The results file (one caption per image).
    verbose : bool, default True
        Print progress as the reference does.

    After :meth:`evaluate`: ``eval`` (``{"CIDEr": score}``), ``imgToEval``
    (``{image_id: {"image_id": ..., "CIDEr": ...}}``), ``evalImgs`` (the same
    dicts as a list), with ``params["image_id"]`` the evaluated images.  The
    number is the reference's "CIDEr" (which is CIDEr-D), tokenized by
    :class:`PTBTokenizer`; no Java is needed.

    Raises
    ------
    ValueError
        A malformed annotation or results file, or a result for an image
        the annotations do not have (see :func:`sparsecider.io.captions.load_results`).
        A file that cannot be read raises
        :class:`sparsecider.io.text.CaptionFileError`, a ``ValueError``.

    Examples
    --------
    >>> from sparsecider.demo import load_demo
    >>> ids, cands, refs = load_demo(tokenized=False)
    >>> anns = [{"image_id": i, "caption": r} for i, rs in zip(ids, refs) for r in rs]
    >>> coco = {"images": [{"id": i} for i in ids], "annotations": anns}
    >>> res = [{"image_id": i, "caption": c} for i, c in zip(ids, cands)]
    >>> e = COCOEvalCap(coco, res, verbose=False)
    >>> e.evaluate()
    >>> e.eval["CIDEr"]
    0.5997905185184199
    """

    def __init__(self, coco, cocoRes, verbose: bool = True) -> None:
        self.coco = load_annotations(coco)
        self.cocoRes = load_results(cocoRes, self.coco)
        self.verbose = verbose
        self.evalImgs: list[dict] = []
        self.eval: dict[str, float] = {}
        self.imgToEval: dict = {}
        self.params = {"image_id": self.cocoRes.getImgIds()}

    def evaluate(self) -> None:
        """Tokenize, score, and fill ``eval``, ``imgToEval`` and ``evalImgs``.

        Examples
        --------
        A result identical to its image's only annotation once tokenized
        scores the maximum, 10, one sharing no word with it 0; image 3 has
        no result and is not evaluated:

        >>> coco = {
        ...     "images": [{"id": 1}, {"id": 2}, {"id": 3}],
        ...     "annotations": [
        ...         {"image_id": 1, "caption": "A dog runs fast."},
        ...         {"image_id": 2, "caption": "The red bus stops."},
        ...         {"image_id": 3, "caption": "A cat sleeps."},
        ...     ],
        ... }
        >>> res = [
        ...     {"image_id": 2, "caption": "A cat."},
        ...     {"image_id": 1, "caption": "a dog runs fast"},
        ... ]
        >>> e = COCOEvalCap(coco, res)
        >>> e.evaluate()
        tokenization...
        computing CIDEr score...
        CIDEr: 5.000
        >>> e.params["image_id"], e.eval
        ([1, 2], {'CIDEr': 5.0})
        >>> e.evalImgs
        [{'image_id': 1, 'CIDEr': 10.0}, {'image_id': 2, 'CIDEr': 0.0}]
        """
        gts = {i: self.coco.imgToAnns[i] for i in self.params["image_id"]}
        res = {i: self.cocoRes.imgToAnns[i] for i in self.params["image_id"]}
        if self.verbose:
            print("tokenization...")
        tokenizer = PTBTokenizer()
        gts = tokenizer.tokenize(gts)
        res = tokenizer.tokenize(res)
        if self.verbose:
            print("computing CIDEr score...")
        score, scores = Cider().compute_score(gts, res)
        self.eval["CIDEr"] = float(score)
        for image_id, value in zip(gts, scores, strict=True):
            self.imgToEval.setdefault(image_id, {"image_id": image_id})["CIDEr"] = float(value)
        self.evalImgs = [self.imgToEval[i] for i in self.imgToEval]
        if self.verbose:
            print(f"CIDEr: {score:0.3f}")
