"""``COCOEvalCap``: the COCO caption table (BLEU-1..4, ROUGE-L, CIDEr) without
Java; METEOR and SPICE delegated to pycocoevalcap on request."""

from __future__ import annotations

import importlib.util
import shutil
import warnings
from collections.abc import Mapping

from ..io.coco import load_annotations, load_results
from .bleu_rouge import Bleu, Rouge
from .cider import Cider
from .tokenizer import PTBTokenizer

__all__ = ["COCOEvalCap", "EvalScores"]


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
