"""Drop-in replacements for the reference implementation's scorer classes.

``Cider`` replaces ``pycocoevalcap.cider.cider.Cider`` (which, despite its
name, computes CIDEr-D) and ``CiderD`` replaces the ``CiderD`` class of the
CIDEr authors' repository and of the self-critical training code derived
from it.  Same constructor, same ``compute_score(gts, res)`` inputs, same
``(float, ndarray)`` return value and the same numbers, computed by
:func:`sparsecider.cider_d`.  ``Bleu`` and ``Rouge`` replace pycocoevalcap's
``Bleu`` and ``Rouge`` (:func:`sparsecider.bleu`, :func:`sparsecider.rouge_l`),
and ``COCOEvalCap`` fills the COCO caption table (BLEU-1..4, ROUGE-L,
CIDEr) without Java, METEOR and SPICE being delegated to pycocoevalcap on
request.

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

import importlib.util
import shutil
import warnings
from collections.abc import Mapping

import numpy as np

from .._checks import MAX_N, check_int, describe_keys
from ..core.corpus import as_corpus, check_references
from ..core.frequencies import DocumentFrequencies
from ..core.validate import check_df
from ..io.captions import load_annotations, load_results
from ..metrics.bleu import corpus_bleu, corpus_statistics, sentence_bleu
from ..metrics.cider import cider_d
from ..metrics.rouge import rouge_l
from ..tokenizers import get_tokenizer
from ..tokenizers.ptb import ptb_tokenize
from .memo import ReferenceMemo

__all__ = ["Bleu", "COCOEvalCap", "Cider", "CiderD", "EvalScores", "PTBTokenizer", "Rouge"]


def _one_caption(value: object, where: str) -> str:
    if not isinstance(value, list):
        raise TypeError(
            f"{where} must be a list holding one caption (as pycocoevalcap expects), "
            f"got {type(value).__name__}"
        )
    if len(value) != 1:
        raise ValueError(f"{where} must hold exactly one caption, got {len(value)}")
    return value[0]


def _candidates(gts: object, res: object) -> dict:
    """``res``'s one caption per image, in the order of ``gts``'s keys (checked)."""
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
    return {k: _one_caption(res[k], f"res[{k!r}]") for k in gts}


def _df_option(df: object) -> DocumentFrequencies | str:
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
        # scores follow gts's key order, as pycocoevalcap's
        return self._score(_candidates(gts, res), gts)

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
            candidates.append(_one_caption(entry["caption"], f"res[{i}]['caption']"))
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


class Bleu:
    """pycocoevalcap's ``Bleu``: BLEU-1..n of already tokenized captions.

    Parameters
    ----------
    n : int, default 4
        Highest n-gram order (pycocoevalcap raises ``IndexError`` for n > 4;
        here larger n extend the same formula).

    See Also
    --------
    sparsecider.bleu : The function doing the work, with more options.

    Examples
    --------
    >>> gts = {"a": ["a dog runs fast"], "b": ["the red bus stops"]}
    >>> res = {"a": ["a dog runs fast"], "b": ["one green tram"]}
    >>> score, scores = Bleu(4).compute_score(gts, res, verbose=0)

    "one green tram" adds 3 unmatched words, 2 bigrams and 1 trigram to the
    totals of the corpus score, so the corpus BLEU grows with the order
    (pycocoevalcap's numbers):

    >>> [round(s, 4) for s in score]
    [0.4954, 0.5076, 0.53, 0.5994]
    >>> [[round(v, 4) for v in order] for order in scores]
    [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    """

    def __init__(self, n: int = 4) -> None:
        self._n = check_int("n", n, maximum=MAX_N)

    def compute_score(self, gts: Mapping, res: Mapping, verbose: int = 1):
        """Score ``res`` against ``gts``, as pycocoevalcap's ``Bleu.compute_score``.

        Parameters
        ----------
        gts : dict
            Image id -> list of reference captions (already tokenized).
        res : dict
            Image id -> list holding exactly one candidate caption.
        verbose : int, default 1
            Print the corpus totals and the length ratio, as the reference does.

        Returns
        -------
        score : list of float, length n
            Corpus BLEU-1..n.
        scores : list of n lists of float
            Per order, the per-image BLEU in the order of ``gts``'s keys.

        Raises
        ------
        TypeError, ValueError
            As :meth:`Cider.compute_score`.
        """
        candidates = _candidates(gts, res)
        stats = corpus_statistics(
            as_corpus(candidates, gts), n=self._n, tokenizer=get_tokenizer("whitespace")
        )
        score = corpus_bleu(stats)
        if verbose > 0:
            # the reference's own report of its totals
            testlen, reflen = int(stats.testlen.sum()), int(stats.reflen.sum())
            print({"testlen": testlen, "reflen": reflen,
                   "guess": stats.guess.sum(axis=0).tolist(),
                   "correct": stats.correct.sum(axis=0).tolist()})  # fmt: skip
            print("ratio:", (testlen + 1e-15) / (reflen + 1e-9))
        return score, sentence_bleu(stats).T.tolist()

    def method(self) -> str:
        """``"Bleu"``, as pycocoevalcap reports it."""
        return "Bleu"


class Rouge:
    """pycocoevalcap's ``Rouge``: ROUGE-L (beta 1.2) of already tokenized captions.

    Captions are split on single spaces, as there (see :mod:`sparsecider.metrics.rouge`).

    See Also
    --------
    sparsecider.rouge_l : The function doing the work, with more options.

    Examples
    --------
    >>> gts = {"a": ["a dog runs fast", "the dog runs"], "b": ["the red bus stops"]}
    >>> res = {"a": ["a dog runs"], "b": ["one green tram"]}
    >>> score, scores = Rouge().compute_score(gts, res)
    >>> round(float(score), 6), scores.round(6).tolist()
    (0.417808, [0.835616, 0.0])
    """

    def __init__(self) -> None:
        self.beta = 1.2

    def calc_score(self, candidate: list, refs: list) -> float:
        """ROUGE-L of one image: ``candidate`` a list of one caption, ``refs`` its references.

        Examples
        --------
        >>> Rouge().calc_score(["a dog runs"], ["a dog runs fast", "the dog runs"])
        0.8356164383561644
        """
        caption = _one_caption(candidate, "candidate")
        return float(rouge_l([caption], [refs], beta=self.beta, tokenizer="whitespace").score)

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[np.float64, np.ndarray]:
        """Score ``res`` against ``gts``, as pycocoevalcap's ``Rouge.compute_score``.

        Returns
        -------
        score : numpy.float64
            The mean ROUGE-L.
        scores : ndarray of shape (len(gts),)
            Per-image scores in the order of ``gts``'s keys.

        Raises
        ------
        TypeError, ValueError
            As :meth:`Cider.compute_score`.
        """
        result = rouge_l(_candidates(gts, res), gts, beta=self.beta, tokenizer="whitespace")
        return np.float64(result.score), np.array(result.scores)

    def method(self) -> str:
        """``"Rouge"``, as pycocoevalcap reports it."""
        return "Rouge"


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


# the table's columns, in pycocoevalcap's order; METEOR and SPICE are its Java programs
_METRICS = ("Bleu", "METEOR", "ROUGE_L", "CIDEr", "SPICE")
_JAVA = ("METEOR", "SPICE")
_WITHOUT_JAVA = ("Bleu", "ROUGE_L", "CIDEr")


class EvalScores(dict):
    """``COCOEvalCap.eval``: a dict of corpus scores whose missing entries say why.

    ``eval["METEOR"]`` when METEOR was not computed raises a ``KeyError``
    explaining why and how to have it computed (a plain dict would only
    name the key).  Otherwise a ``dict``.

    Examples
    --------
    >>> e = EvalScores({"CIDEr": 0.6}, missing={"SPICE": "SPICE was not computed: ..."})
    >>> e
    {'CIDEr': 0.6}
    >>> e["SPICE"]
    Traceback (most recent call last):
    ...
    KeyError: 'SPICE was not computed: ...'
    """

    def __init__(self, *args, missing: Mapping[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.missing: dict[str, str] = dict(missing or {})

    def __missing__(self, key: object):
        if key in self.missing:
            raise KeyError(self.missing[key])
        raise KeyError(key)


def _java_requirements() -> list[str]:
    """What running pycocoevalcap's METEOR and SPICE here lacks (empty: nothing)."""
    lacking = []
    if importlib.util.find_spec("pycocoevalcap") is None:
        lacking.append("pycocoevalcap is not installed (pip install pycocoevalcap)")
    if shutil.which("java") is None:
        lacking.append("java is not on PATH (install a Java runtime, version 8 or later)")
    return lacking


def _java_score(name: str, gts: dict, res: dict):
    """pycocoevalcap's own METEOR or SPICE of tokenized captions: ``(score, scores)``."""
    if name == "SPICE":
        from pycocoevalcap.spice.spice import Spice

        return Spice().compute_score(gts, res)
    from pycocoevalcap.meteor.meteor import Meteor

    meteor = Meteor()
    try:
        return meteor.compute_score(gts, res)
    finally:
        # end its Java process now, pipes closed (the reference leaves that to
        # the garbage collector, with a ResourceWarning)
        with meteor.lock:
            meteor.meteor_p.kill()
            meteor.meteor_p.communicate()


class COCOEvalCap:
    """pycocoevalcap's ``COCOEvalCap``: the COCO caption table, without Java.

    Parameters
    ----------
    coco : pycocotools ``COCO``, path, or dict
        The annotation file (references).
    cocoRes : pycocotools ``COCO`` (from ``coco.loadRes``), path, or list
        The results file (one caption per image).
    verbose : bool, default True
        Print progress as the reference does.
    metrics : sequence of str, optional
        The columns to compute, among ``"Bleu"`` (Bleu_1 .. Bleu_4),
        ``"METEOR"``, ``"ROUGE_L"``, ``"CIDEr"`` and ``"SPICE"``.  Default:
        ``("Bleu", "ROUGE_L", "CIDEr")``, every column sparsecider computes
        itself.  METEOR and SPICE are Java programs (METEOR 1.5 with its
        paraphrase tables, SPICE 1.0 with a Stanford CoreNLP parser):
        when asked for, and when pycocoevalcap is installed and ``java`` is
        on PATH, pycocoevalcap's own ``Meteor`` and ``Spice`` score the
        tokenized captions; otherwise they are left out with a warning that
        says what is missing.

    After :meth:`evaluate`: ``eval`` (``{"Bleu_1": ..., "Bleu_4": ...,
    "ROUGE_L": ..., "CIDEr": ...}``, in pycocoevalcap's order, an
    :class:`EvalScores` whose missing METEOR or SPICE entry raises a
    ``KeyError`` saying why), ``imgToEval`` (``{image_id: {"image_id": ...,
    "Bleu_1": ..., ...}}``), ``evalImgs`` (the same dicts as a list), with
    ``params["image_id"]`` the evaluated images (those of ``cocoRes``).
    The captions are tokenized by :class:`PTBTokenizer`; the numbers are
    pycocoevalcap's (its "CIDEr" is CIDEr-D).

    Raises
    ------
    ValueError
        A malformed annotation or results file, a result for an image the
        annotations do not have (see :func:`sparsecider.io.captions.load_results`),
        or an unknown metric.  A file that cannot be read raises
        :class:`sparsecider.io.text.CaptionFileError`, a ``ValueError``.

    Examples
    --------
    The coco-caption demo (its published table: Bleu_4 0.191, ROUGE_L 0.396,
    CIDEr 0.600):

    >>> from sparsecider.demo import load_demo
    >>> ids, cands, refs = load_demo(tokenized=False)
    >>> anns = [{"image_id": i, "caption": r} for i, rs in zip(ids, refs) for r in rs]
    >>> coco = {"images": [{"id": i} for i in ids], "annotations": anns}
    >>> res = [{"image_id": i, "caption": c} for i, c in zip(ids, cands)]
    >>> e = COCOEvalCap(coco, res, verbose=False)
    >>> e.evaluate()
    >>> {name: round(value, 3) for name, value in e.eval.items()}
    {'Bleu_1': 0.579, 'Bleu_2': 0.404, 'Bleu_3': 0.279, 'Bleu_4': 0.191,
     'ROUGE_L': 0.396, 'CIDEr': 0.6}
    >>> e.eval["CIDEr"]
    0.5997905185184199
    """

    def __init__(self, coco, cocoRes, verbose: bool = True, metrics=_WITHOUT_JAVA) -> None:
        if isinstance(metrics, str) or not all(m in _METRICS for m in metrics):
            raise ValueError(
                f"metrics={metrics!r:.80}: give a list of names among "
                + ", ".join(map(repr, _METRICS))
            )
        self.coco = load_annotations(coco)
        self.cocoRes = load_results(cocoRes, self.coco)
        self.verbose = verbose
        self.metrics = tuple(m for m in _METRICS if m in metrics)
        self.evalImgs: list[dict] = []
        self.eval: EvalScores = EvalScores()
        self.imgToEval: dict = {}
        self.params = {"image_id": self.cocoRes.getImgIds()}

    def _skipped_java(self) -> dict[str, str]:
        """Why each of METEOR and SPICE will be left out (none: both computed);
        warns once when some were asked for but cannot run."""
        asked = [m for m in _JAVA if m in self.metrics]
        lacking = _java_requirements() if asked else []
        skipped = {}
        if lacking:
            reason = (
                f"{' and '.join(asked)} {'was' if len(asked) == 1 else 'were'} asked for but "
                f"not computed: pycocoevalcap's Java programs compute them, and "
                + "; ".join(lacking)
            )
            warnings.warn(reason, UserWarning, stacklevel=3)
            skipped.update(dict.fromkeys(asked, reason))
        others = [m for m in _JAVA if m not in asked]
        if others:
            reason = (
                f"{' and '.join(others)} {'was' if len(others) == 1 else 'were'} not computed: "
                "sparsecider computes BLEU, ROUGE-L and CIDEr without Java; METEOR and SPICE "
                "are Java programs.  To add them, install pycocoevalcap and Java and pass "
                "metrics=('Bleu', 'METEOR', 'ROUGE_L', 'CIDEr', 'SPICE'): pycocoevalcap then "
                "scores the same tokenized captions (SPICE downloads Stanford CoreNLP models "
                "on its first run)"
            )
            skipped.update(dict.fromkeys(others, reason))
        return skipped

    def _set(self, method: str, score, scores, image_ids) -> None:
        """Record one column as pycocoevalcap's ``setEval`` and ``setImgToEvalImgs``."""
        self.eval[method] = score
        # as the reference's zip: SPICE's scores follow sorted ids, zipped all the same
        for image_id, value in zip(image_ids, scores, strict=True):
            self.imgToEval.setdefault(image_id, {"image_id": image_id})[method] = value

    def evaluate(self) -> None:
        """Tokenize, score, and fill ``eval``, ``imgToEval`` and ``evalImgs``.

        Examples
        --------
        A result identical to its image's only annotation once tokenized,
        and one sharing no word with it; image 3 has no result and is not
        evaluated.  The printout is the reference's, its BLEU totals
        included (the corpus BLEU grows with the order: "a cat" adds two
        unmatched words and one bigram to the totals, and nothing more):

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
        setting up scorers...
        computing Bleu score...
        {'testlen': 6, 'reflen': 8, 'guess': [6, 4, 2, 1], 'correct': [4, 3, 2, 1]}
        ratio: 0.7499999999062501
        Bleu_1: 0.478
        Bleu_2: 0.507
        Bleu_3: 0.569
        Bleu_4: 0.603
        computing Rouge score...
        ROUGE_L: 0.500
        computing CIDEr score...
        CIDEr: 5.000
        METEOR and SPICE were not computed: sparsecider computes BLEU, ROUGE-L and CIDEr ...
        >>> e.params["image_id"], e.eval["CIDEr"], e.eval["ROUGE_L"]
        ([1, 2], 5.0, 0.5)
        >>> {name: round(value, 6) for name, value in e.evalImgs[1].items()}
        {'image_id': 2, 'Bleu_1': 0.0, 'Bleu_2': 0.0, 'Bleu_3': 0.0, 'Bleu_4': 0.0,
         'ROUGE_L': 0.0, 'CIDEr': 0.0}

        (BLEU's smoothing leaves 1.8e-16 .. 9.8e-12 there, as in the reference.)
        """
        # imgToAnns once: on sparsecider's caption files it is built on each access
        references, results = self.coco.imgToAnns, self.cocoRes.imgToAnns
        gts = {i: references[i] for i in self.params["image_id"]}
        res = {i: results[i] for i in self.params["image_id"]}
        if self.verbose:
            print("tokenization...")
        tokenizer = PTBTokenizer()
        gts = tokenizer.tokenize(gts)
        res = tokenizer.tokenize(res)
        if self.verbose:
            print("setting up scorers...")
        skipped = self._skipped_java()
        self.eval = EvalScores(missing=skipped)
        for metric in self.metrics:
            if metric in skipped:
                continue
            if self.verbose:
                print(f"computing {'Rouge' if metric == 'ROUGE_L' else metric} score...")
            if metric == "Bleu":
                score, scores = Bleu(4).compute_score(gts, res, verbose=int(self.verbose))
                for k, (value, values) in enumerate(zip(score, scores, strict=True)):
                    self._set(f"Bleu_{k + 1}", value, values, gts)
                    if self.verbose:
                        print(f"Bleu_{k + 1}: {value:0.3f}")
                continue
            if metric in _JAVA:
                score, scores = _java_score(metric, gts, res)
            else:
                scorer = Rouge() if metric == "ROUGE_L" else Cider()
                score, scores = scorer.compute_score(gts, res)
                score, scores = float(score), [float(v) for v in scores]
            self._set(metric, score, scores, gts)
            if self.verbose:
                print(f"{metric}: {score:0.3f}")
        self.evalImgs = [self.imgToEval[i] for i in self.imgToEval]
        if self.verbose:
            for reason in dict.fromkeys(skipped.values()):
                print(reason)
