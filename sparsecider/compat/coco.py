"""``COCOEvalCap``: the COCO caption table (BLEU-1..4, METEOR, ROUGE-L, CIDEr)
without Java; SPICE delegated to pycocoevalcap on request."""

from __future__ import annotations

import importlib.util
import shutil
import warnings
from collections.abc import Mapping

from ..io.coco import load_annotations, load_results
from ..metrics.meteor.api import missing_extra
from .bleu_rouge import Bleu, Rouge
from .cider import Cider
from .meteor import Meteor
from .tokenizer import PTBTokenizer

__all__ = ["COCOEvalCap", "EvalScores"]


# the table's columns, in pycocoevalcap's order; SPICE is the one Java program left
_METRICS = ("Bleu", "METEOR", "ROUGE_L", "CIDEr", "SPICE")


_JAVA = ("SPICE",)


_WITHOUT_JAVA = ("Bleu", "METEOR", "ROUGE_L", "CIDEr")


class EvalScores(dict):
    """``COCOEvalCap.eval``: a dict of corpus scores whose missing entries say why.

    ``eval["SPICE"]`` when SPICE was not computed raises a ``KeyError``
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
    """What running pycocoevalcap's SPICE here lacks (empty: nothing)."""
    lacking = []
    if importlib.util.find_spec("pycocoevalcap") is None:
        lacking.append("pycocoevalcap is not installed (pip install pycocoevalcap)")
    if shutil.which("java") is None:
        lacking.append("java is not on PATH (install a Java runtime, version 8 or later)")
    return lacking


def _java_score(name: str, gts: dict, res: dict):
    """pycocoevalcap's own SPICE of tokenized captions: ``(score, scores)``."""
    from pycocoevalcap.spice.spice import Spice

    return Spice().compute_score(gts, res)


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
        ``("Bleu", "METEOR", "ROUGE_L", "CIDEr")``, every column sparsecider
        computes itself.  METEOR (:class:`Meteor`, no Java) needs the
        ``meteor`` extra: without it, the default leaves METEOR out (saying
        why when ``verbose``), and an explicit ``"METEOR"`` is an
        ``ImportError`` naming it.  SPICE is a Java program (SPICE 1.0 with
        a Stanford CoreNLP parser): when asked for, and when pycocoevalcap
        is installed and ``java`` is on PATH, pycocoevalcap's own ``Spice``
        scores the tokenized captions; otherwise it is left out with a
        warning that says what is missing.

    After :meth:`evaluate`: ``eval`` (``{"Bleu_1": ..., "Bleu_4": ...,
    "METEOR": ..., "ROUGE_L": ..., "CIDEr": ...}``, in pycocoevalcap's order,
    an :class:`EvalScores` whose missing METEOR or SPICE entry raises a
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
    ImportError
        ``"METEOR"`` given in ``metrics`` without the ``meteor`` extra.

    Examples
    --------
    The coco-caption demo (its published table: Bleu_4 0.191, METEOR 0.195,
    ROUGE_L 0.396, CIDEr 0.600):

    >>> from sparsecider.demo import load_demo
    >>> ids, cands, refs = load_demo(tokenized=False)
    >>> anns = [{"image_id": i, "caption": r} for i, rs in zip(ids, refs) for r in rs]
    >>> coco = {"images": [{"id": i} for i in ids], "annotations": anns}
    >>> res = [{"image_id": i, "caption": c} for i, c in zip(ids, cands)]
    >>> e = COCOEvalCap(coco, res, verbose=False)
    >>> e.evaluate()
    >>> {name: round(value, 3) for name, value in e.eval.items()}
    {'Bleu_1': 0.579, 'Bleu_2': 0.404, 'Bleu_3': 0.279, 'Bleu_4': 0.191,
     'METEOR': 0.195, 'ROUGE_L': 0.396, 'CIDEr': 0.6}
    >>> e.eval["CIDEr"]
    0.5997905185184199
    """

    def __init__(self, coco, cocoRes, verbose: bool = True, metrics=None) -> None:
        given = metrics is not None
        metrics = _WITHOUT_JAVA if metrics is None else metrics
        if isinstance(metrics, str) or not all(m in _METRICS for m in metrics):
            raise ValueError(
                f"metrics={metrics!r:.80}: give a list of names among "
                + ", ".join(map(repr, _METRICS))
            )
        # METEOR needs the meteor extra: asked for, its absence is an error now;
        # by default, METEOR is left out (evaluate says why)
        self._no_meteor = missing_extra() if "METEOR" in metrics else None
        if given and self._no_meteor is not None:
            raise ImportError(self._no_meteor)
        self.coco = load_annotations(coco)
        self.cocoRes = load_results(cocoRes, self.coco)
        self.verbose = verbose
        self.metrics = tuple(m for m in _METRICS if m in metrics)
        self.evalImgs: list[dict] = []
        self.eval: EvalScores = EvalScores()
        self.imgToEval: dict = {}
        self.params = {"image_id": self.cocoRes.getImgIds()}

    def _skipped(self) -> dict[str, str]:
        """Why METEOR or SPICE will be left out (none: both computed); warns
        once when SPICE was asked for but cannot run."""
        skipped = {}
        if self._no_meteor is not None:
            skipped["METEOR"] = f"METEOR was not computed: {self._no_meteor}"
        if "SPICE" not in self.metrics:
            skipped["SPICE"] = (
                "SPICE was not computed: sparsecider computes BLEU, METEOR, ROUGE-L and CIDEr "
                "without Java; SPICE is a Java program.  To add it, install pycocoevalcap and "
                "Java and pass metrics=('Bleu', 'METEOR', 'ROUGE_L', 'CIDEr', 'SPICE'): "
                "pycocoevalcap then scores the same tokenized captions (SPICE downloads "
                "Stanford CoreNLP models on its first run)"
            )
        elif lacking := _java_requirements():
            skipped["SPICE"] = (
                "SPICE was asked for but not computed: pycocoevalcap's Java program computes "
                "it, and " + "; ".join(lacking)
            )
            warnings.warn(skipped["SPICE"], UserWarning, stacklevel=3)
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
        computing METEOR score...
        METEOR: 0.524
        computing Rouge score...
        ROUGE_L: 0.500
        computing CIDEr score...
        CIDEr: 5.000
        SPICE was not computed: sparsecider computes BLEU, METEOR, ROUGE-L and CIDEr ...
        >>> e.params["image_id"], e.eval["CIDEr"], e.eval["ROUGE_L"], e.eval["METEOR"]
        ([1, 2], 5.0, 0.5, 0.5235602094240838)
        >>> {name: round(value, 6) for name, value in e.evalImgs[1].items()}
        {'image_id': 2, 'Bleu_1': 0.0, 'Bleu_2': 0.0, 'Bleu_3': 0.0, 'Bleu_4': 0.0,
         'METEOR': 0.0, 'ROUGE_L': 0.0, 'CIDEr': 0.0}

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
        skipped = self._skipped()
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
                scorer = {"METEOR": Meteor, "ROUGE_L": Rouge, "CIDEr": Cider}[metric]()
                score, scores = scorer.compute_score(gts, res)
                score, scores = float(score), [float(v) for v in scores]
            self._set(metric, score, scores, gts)
            if self.verbose:
                print(f"{metric}: {score:0.3f}")
        self.evalImgs = [self.imgToEval[i] for i in self.imgToEval]
        if self.verbose:
            for reason in dict.fromkeys(skipped.values()):
                print(reason)
