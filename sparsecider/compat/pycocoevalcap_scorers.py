"""The classes behind ``import pycocoevalcap...`` under the replacement (see
:mod:`.pycocoevalcap_modules` for the modules holding them).

pycocoevalcap 1.2's signatures and return types: ``Bleu``, ``Rouge`` and
``Cider`` are :mod:`sparsecider.compat`'s, with ``signature`` (the
:class:`sparsecider.Signature` of what they computed, marked as coming
through the replacement) set by ``compute_score``; ``Meteor`` is
``sparsecider.compat.Meteor`` (no Java); ``BleuScorer`` and ``CiderScorer``
take ``scorer += (candidate, references)``; ``COCOEvalCap`` computes the
reference's five columns: METEOR when the ``meteor`` extra is installed,
SPICE (a Java program, run by the real package) when it can.  Without Java
or the real package, ``java_stub`` stands for ``Spice``: a class whose
construction says why.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import math
import os
import shutil
import warnings

import numpy as np

from sparsecider import compat

from ..core.result import Signature
from ..metrics.cider import cider_d
from ..metrics.meteor.api import missing_extra

__all__ = ["TURN_OFF", "Bleu", "BleuScorer", "COCOEvalCap", "Cider", "CiderScorer", "Rouge",
           "java_lacking", "java_stub", "real_path"]  # fmt: skip

TURN_OFF = "unset SPARSECIDER_REPLACE_PYCOCOEVALCAP (or set it to 0) to use the real pycocoevalcap"
# what the real Spice() downloads (~400 MB) when absent
_SPICE_MODELS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")


def real_path(relative: str) -> str | None:
    """A file of the installed real pycocoevalcap (found on sys.path, not through
    the replacement), or None."""
    spec = importlib.machinery.PathFinder.find_spec("pycocoevalcap")
    for folder in (spec and spec.submodule_search_locations) or ():
        path = os.path.join(folder, relative)
        if os.path.isfile(path):
            return path
    return None


def java_lacking(metric: str) -> str | None:
    """Why the real pycocoevalcap cannot run ``metric`` here, or None."""
    lacking = []
    if real_path(f"{metric.lower()}/{metric.lower()}.py") is None:
        lacking.append("the real pycocoevalcap is not installed (pip install pycocoevalcap)")
    if shutil.which("java") is None:
        lacking.append("java is not on PATH (install a Java runtime, version 8 or later)")
    if not lacking:
        return None
    return (
        f"{metric} is a Java program that sparsecider does not replace; pycocoevalcap's own "
        f"runs it, but " + " and ".join(lacking)
    )


def java_stub(metric: str):
    """``Spice`` where Java or the real package is missing: a class
    whose construction says why (a module importing it still imports)."""

    class Stub:
        def __init__(self, *args, **kwargs) -> None:
            raise RuntimeError(f"{java_lacking(metric)}; {TURN_OFF} (it needs Java too)")

    Stub.__name__ = Stub.__qualname__ = metric.title()
    return Stub


def _signed(signature: Signature) -> Signature:
    """``signature`` marked as computed through the replacement."""
    return signature.replace(params=(*signature.params, ("pycocoevalcap_replacement", 1)))


class Bleu(compat.Bleu):
    """pycocoevalcap's ``Bleu(n)``; ``signature`` after :meth:`compute_score`."""

    def compute_score(self, gts, res, verbose: int = 1):
        score, scores = super().compute_score(gts, res, verbose=verbose)
        self.signature = _signed(Signature(
            f"BLEU-{self._n}", n=self._n, tokenizer="whitespace", scale=None
        ))  # fmt: skip
        return score, scores


class Rouge(compat.Rouge):
    """pycocoevalcap's ``Rouge``; ``signature`` after :meth:`compute_score`."""

    def compute_score(self, gts, res):
        score, scores = super().compute_score(gts, res)
        self.signature = _signed(
            Signature("ROUGE-L", beta=self.beta, tokenizer="whitespace", scale=None)
        )
        return score, scores


class Cider(compat.Cider):
    """pycocoevalcap's ``Cider`` (CIDEr-D, document frequencies of the references
    scored); ``signature`` after :meth:`compute_score`."""

    def __init__(self, test=None, refs=None, n: int = 4, sigma: float = 6.0) -> None:
        super().__init__(n=n, sigma=sigma)

    def compute_score(self, gts, res):
        score, scores = super().compute_score(gts, res)
        self.signature = _signed(Signature(
            "CIDEr-D", n=self._n, sigma=self._sigma, df=f"corpus(n_images={len(scores)})",
            tokenizer="whitespace",
        ))  # fmt: skip
        return score, scores


class CiderScorer:
    """pycocoevalcap's ``CiderScorer``: ``scorer += (candidate, references)``, then
    ``compute_score()``; each entry is its own document."""

    def __init__(self, test=None, refs=None, n: int = 4, sigma: float = 6.0) -> None:
        self.n, self.sigma = n, sigma
        self.crefs: list = []
        self.ctest: list = []
        self.cook_append(test, refs)

    def cook_append(self, test, refs) -> None:
        if refs is not None:
            self.crefs.append(refs)
            self.ctest.append(test)

    def __iadd__(self, other):
        if isinstance(other, tuple):
            self.cook_append(*other)
        elif isinstance(other, CiderScorer):
            self.ctest.extend(other.ctest)
            self.crefs.extend(other.crefs)
        else:
            raise TypeError(f"add a (candidate, references) tuple, got {type(other).__name__}")
        return self

    def size(self) -> int:
        return len(self.crefs)

    def compute_score(self, option=None, verbose: int = 0):
        """``(mean, scores)`` of every entry added, in order."""
        missing = [i for i, test in enumerate(self.ctest) if test is None]
        if missing:
            raise ValueError(f"entries {missing[:5]} have references but no candidate")
        result = cider_d(self.ctest, self.crefs, n=self.n, sigma=self.sigma, tokenizer="whitespace")
        self.signature = _signed(result.signature)
        scores = np.asarray(result.scores, dtype=np.float64)
        return np.mean(scores), scores


def _brevity(testlen: float, reflen: float) -> float:
    """BLEU's brevity penalty with pycocoevalcap's smoothing constants."""
    ratio = (testlen + 1e-15) / (reflen + 1e-9)
    return math.exp(1 - 1 / ratio) if ratio < 1 else 1.0


class BleuScorer:
    """pycocoevalcap's ``BleuScorer``: ``scorer += (candidate, references)``, then
    ``compute_score(option)``; ``option`` ``"closest"`` (the default with two
    entries or more), ``"average"`` (the default with one) or ``"shortest"``
    chooses each entry's reference length."""

    def __init__(self, test=None, refs=None, n: int = 4, special_reflen=None) -> None:
        if special_reflen is not None:
            raise ValueError("special_reflen is not supported by sparsecider's BleuScorer")
        self.n = n
        self.crefs: list = []
        self.ctest: list = []
        self.cook_append(test, refs)

    cook_append = CiderScorer.cook_append
    size = CiderScorer.size

    def __iadd__(self, other):
        if isinstance(other, tuple):
            self.cook_append(*other)
        elif isinstance(other, BleuScorer) and other.n == self.n:
            self.ctest.extend(other.ctest)
            self.crefs.extend(other.crefs)
        else:
            raise TypeError(
                f"add a (candidate, references) tuple or a BleuScorer of n={self.n}, "
                f"got {other!r:.80}"
            )
        return self

    def compute_score(self, option=None, verbose: int = 0):
        """``(score, scores)``: corpus BLEU-1..n and per order the per-entry BLEU."""
        if option is None:
            option = "average" if len(self.crefs) == 1 else "closest"
        if option not in ("closest", "average", "shortest"):
            raise ValueError(f"option={option!r}: 'closest', 'average' or 'shortest'")
        gts = dict(enumerate(self.crefs))
        res = {i: [test] for i, test in enumerate(self.ctest)}
        scorer = Bleu(self.n)
        score, scores = scorer.compute_score(
            gts, res, verbose=verbose if option == "closest" else 0
        )
        self.signature = scorer.signature
        if option == "closest":
            return score, scores
        # sparsecider measures against the closest reference length: move each
        # brevity penalty to the length the option chooses
        total_test = total_closest = total_chosen = 0
        for i, (test, refs) in enumerate(zip(self.ctest, self.crefs, strict=True)):
            t, lengths = len(test.split()), [len(r.split()) for r in refs]
            closest = min((abs(length - t), length) for length in lengths)[1]
            chosen = min(lengths) if option == "shortest" else sum(lengths) / len(lengths)
            factor = _brevity(t, chosen) / _brevity(t, closest)
            for order in scores:
                order[i] *= factor
            total_test, total_closest, total_chosen = (
                total_test + t,
                total_closest + closest,
                total_chosen + chosen,
            )
        factor = _brevity(total_test, total_chosen) / _brevity(total_test, total_closest)
        return [s * factor for s in score], scores


def _skip_reason(metric: str) -> str | None:
    """Why ``COCOEvalCap`` leaves ``metric`` out, or None."""
    if metric == "METEOR":
        missing = missing_extra()
        return None if missing is None else f"METEOR was not computed: {missing}"
    lacking = java_lacking(metric)
    if lacking is not None:
        return f"{metric} was not computed: {lacking}"
    spice_lib = os.path.join(os.path.dirname(real_path("spice/spice.py")), "lib")
    if metric == "SPICE" and not all(
        os.path.isfile(os.path.join(spice_lib, jar)) for jar in _SPICE_MODELS
    ):
        return (
            "SPICE was not computed: its Stanford CoreNLP models are not in "
            f"{spice_lib} (the real COCOEvalCap downloads them, ~400 MB, on its first "
            "run; to do that once: python -c 'from pycocoevalcap.spice.get_stanford_models "
            "import get_stanford_models as g; g()' with SPARSECIDER_REPLACE_PYCOCOEVALCAP "
            "unset)"
        )
    return None


def _close(scorer) -> None:
    """End the real Meteor's Java process now (the reference leaves it to the
    garbage collector, with a ResourceWarning)."""
    process = getattr(scorer, "meteor_p", None)
    if process is not None:
        with scorer.lock:
            process.kill()
            process.communicate()


class COCOEvalCap(compat.COCOEvalCap):
    """pycocoevalcap's ``COCOEvalCap(coco, cocoRes)``: Bleu_1..4, METEOR,
    ROUGE_L, CIDEr and SPICE, as the reference computes them, METEOR and
    SPICE when they can run (see the module's description).

    ``signatures`` maps each column computed by sparsecider to its signature.
    """

    def __init__(self, coco, cocoRes) -> None:
        super().__init__(coco, cocoRes)
        self.signatures: dict = {}

    def evaluate(self) -> None:
        """Tokenize, score and fill ``eval``, ``imgToEval`` and ``evalImgs``, as the reference."""
        references, results = self.coco.imgToAnns, self.cocoRes.imgToAnns
        gts = {i: references[i] for i in self.params["image_id"]}
        res = {i: results[i] for i in self.params["image_id"]}
        print("tokenization...")
        tokenizer = compat.PTBTokenizer()
        gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
        print("setting up scorers...")
        eval_module = importlib.import_module("pycocoevalcap.eval")
        scorers = [
            ("Bleu", ["Bleu_1", "Bleu_2", "Bleu_3", "Bleu_4"]), ("METEOR", "METEOR"),
            ("ROUGE_L", "ROUGE_L"), ("CIDEr", "CIDEr"), ("SPICE", "SPICE"),
        ]  # fmt: skip
        classes = {"Bleu": lambda: Bleu(4), "METEOR": eval_module.Meteor, "ROUGE_L": Rouge,
                   "CIDEr": Cider, "SPICE": eval_module.Spice}  # fmt: skip
        skipped = {}
        for metric, _ in scorers:
            reason = _skip_reason(metric) if metric in ("METEOR", "SPICE") else None
            if reason is not None:
                skipped[metric] = reason
                warnings.warn(reason, UserWarning, stacklevel=2)
        self.eval = compat.EvalScores(missing=skipped)
        for metric, method in scorers:
            if metric in skipped:
                continue
            scorer = classes[metric]()
            print(f"computing {scorer.method()} score...")
            try:
                score, scores = scorer.compute_score(gts, res)
            finally:
                _close(scorer)
            if hasattr(scorer, "signature"):
                signature = scorer.signature
                if "pycocoevalcap_replacement" not in dict(signature.params):
                    signature = _signed(signature)  # compat.Meteor's, served as it is
                self.signatures[metric] = signature
            for sc, scs, m in (
                zip(score, scores, method, strict=True)
                if (isinstance(method, list))
                else [(score, scores, method)]
            ):
                self.eval[m] = sc
                # as the reference: zipped with gts's order (SPICE's follow sorted ids)
                for image_id, value in zip(gts, scs, strict=False):
                    self.imgToEval.setdefault(image_id, {"image_id": image_id})[m] = value
                print(f"{m}: {sc:0.3f}")
        self.evalImgs = list(self.imgToEval.values())
