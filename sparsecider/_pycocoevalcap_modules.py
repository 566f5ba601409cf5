"""What ``import pycocoevalcap...`` gets under the replacement (see :mod:`._pycocoevalcap_hook`).

The modules and names of pycocoevalcap 1.2 that evaluation toolkits import,
with its signatures and return types:

- ``pycocoevalcap.eval``: ``COCOEvalCap`` and ``Bleu``, ``Meteor``,
  ``Rouge``, ``Cider``, ``Spice``, ``PTBTokenizer``;
- ``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer``;
- ``pycocoevalcap.bleu.bleu.Bleu``, ``pycocoevalcap.bleu.bleu_scorer.BleuScorer``,
  ``pycocoevalcap.rouge.rouge.Rouge``, ``pycocoevalcap.cider.cider.Cider``,
  ``pycocoevalcap.cider.cider_scorer.CiderScorer``: sparsecider's;
- ``pycocoevalcap.meteor.meteor.Meteor``: ``sparsecider.compat.Meteor`` once
  it exists; until then the real module (Java), loaded from the installed
  pycocoevalcap's own file so that its jar is found;
- ``pycocoevalcap.spice.spice.Spice``: the real module (Java) likewise.

Without Java (or without the real package) ``Meteor()`` and ``Spice()``
raise a ``RuntimeError`` saying so, and ``COCOEvalCap`` leaves their
columns out with a warning (its ``eval["SPICE"]`` raises a ``KeyError``
saying why), so that a Java-free run computes everything else.

After ``compute_score`` the scorers carry the :class:`sparsecider.Signature`
of what they computed, marked as coming through the replacement.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import math
import os
import shutil
import warnings

import numpy as np

import sparsecider
from sparsecider import compat

__all__ = ["COCOEvalCap", "Bleu", "BleuScorer", "Cider", "CiderScorer", "Rouge",
           "announcement", "fill", "is_package", "not_provided", "provides", "real_file"]  # fmt: skip

DESCRIPTION = f"sparsecider {sparsecider.__version__}: the Java-free replacement of pycocoevalcap 1.2"

_PACKAGES = ("pycocoevalcap", "pycocoevalcap.tokenizer", "pycocoevalcap.bleu",
             "pycocoevalcap.meteor", "pycocoevalcap.rouge", "pycocoevalcap.cider",
             "pycocoevalcap.spice")  # fmt: skip
# module -> the names it holds (from the module of each name, as eval.py imports them)
_NAMES = {
    "pycocoevalcap.eval": ("COCOEvalCap", "Bleu", "Meteor", "Rouge", "Cider", "Spice",
                           "PTBTokenizer"),  # fmt: skip
    "pycocoevalcap.tokenizer.ptbtokenizer": ("PTBTokenizer",),
    "pycocoevalcap.bleu.bleu": ("Bleu",),
    "pycocoevalcap.bleu.bleu_scorer": ("BleuScorer",),
    "pycocoevalcap.meteor.meteor": ("Meteor",),
    "pycocoevalcap.rouge.rouge": ("Rouge",),
    "pycocoevalcap.cider.cider": ("Cider",),
    "pycocoevalcap.cider.cider_scorer": ("CiderScorer",),
    "pycocoevalcap.spice.spice": ("Spice",),
}
_HOME = {attr: module for module, names in _NAMES.items() if module != "pycocoevalcap.eval"
         for attr in names}  # fmt: skip
# the real pycocoevalcap's files run as they are (Java): SPICE, and METEOR
# until sparsecider.compat has one; get_stanford_models is spice.py's import
_JAVA_MODULES = {
    "pycocoevalcap.spice.spice": "SPICE",
    "pycocoevalcap.spice.get_stanford_models": "SPICE",
    "pycocoevalcap.meteor.meteor": "METEOR",
}
# what the real Spice() downloads (~400 MB) when absent
_SPICE_MODELS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")
_TURN_OFF = "unset SPARSECIDER_REPLACE_PYCOCOEVALCAP (or set it to 0) to use the real pycocoevalcap"


def announcement(variable: str) -> str:
    """The one stderr line printed the first time the replacement acts."""
    return (
        f"{DESCRIPTION} serves `import pycocoevalcap` ({variable}={os.environ.get(variable)}; "
        f"{variable}=quiet silences this line, 0 turns the replacement off)"
    )


def _real_path(relative: str) -> str | None:
    """A file of the installed real pycocoevalcap (found on sys.path, not through
    the replacement), or None."""
    spec = importlib.machinery.PathFinder.find_spec("pycocoevalcap")
    for folder in (spec and spec.submodule_search_locations) or ():
        path = os.path.join(folder, relative)
        if os.path.isfile(path):
            return path
    return None


def _java_lacking(metric: str) -> str | None:
    """Why the real pycocoevalcap cannot run ``metric`` here, or None."""
    lacking = []
    if _real_path(f"{metric.lower()}/{metric.lower()}.py") is None:
        lacking.append("the real pycocoevalcap is not installed (pip install pycocoevalcap)")
    if shutil.which("java") is None:
        lacking.append("java is not on PATH (install a Java runtime, version 8 or later)")
    if not lacking:
        return None
    return (
        f"{metric} is a Java program that sparsecider does not replace; pycocoevalcap's own "
        f"runs it, but " + " and ".join(lacking)
    )


def real_file(fullname: str) -> str | None:
    """The real pycocoevalcap file serving ``fullname``, or None (ours serves it)."""
    metric = _JAVA_MODULES.get(fullname)
    if metric is None or (metric == "METEOR" and hasattr(compat, "Meteor")):
        return None
    if _java_lacking(metric) is not None:
        return None
    return _real_path(fullname.split(".", 1)[1].replace(".", "/") + ".py")


def provides(fullname: str) -> bool:
    return fullname in _PACKAGES or fullname in _NAMES


def is_package(fullname: str) -> bool:
    return fullname in _PACKAGES


def not_provided(fullname: str) -> str:
    """The message of the ImportError for a module the replacement does not have."""
    return (
        f"{fullname} is not part of sparsecider's replacement of pycocoevalcap, which provides "
        f"{', '.join(_NAMES)}; {_TURN_OFF}"
    )


def _missing_names(module_name: str):
    """A module ``__getattr__``: a name we lack is an ImportError saying so."""

    def __getattr__(name: str):
        if name.startswith("_") or f"{module_name}.{name}" in _NAMES or (
            f"{module_name}.{name}" in _PACKAGES
        ):
            # dunders, and submodules (the import system then imports them)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise ImportError(
            f"{module_name}.{name} is not part of sparsecider's replacement of pycocoevalcap "
            f"({module_name} has {', '.join(_NAMES.get(module_name, ())) or 'no names'}); "
            f"{_TURN_OFF}",
            name=module_name,
        )

    return __getattr__


def fill(module) -> None:
    """Give one of our pycocoevalcap modules its names."""
    name = module.__name__
    module.__sparsecider__ = DESCRIPTION
    names = _NAMES.get(name, ())
    for attr in names:
        # eval's names from the modules defining them, through the import
        # system (so eval.Meteor is whatever pycocoevalcap.meteor.meteor serves)
        home = _HOME.get(attr, name)
        value = _LOCAL[attr]() if home == name else getattr(importlib.import_module(home), attr)
        setattr(module, attr, value)
    module.__all__ = list(names)
    module.__getattr__ = _missing_names(name)


def _java_stub(metric: str):
    """``Meteor`` or ``Spice`` where Java or the real package is missing: a class
    whose construction says why (a module importing it still imports)."""

    class Stub:
        def __init__(self, *args, **kwargs) -> None:
            raise RuntimeError(f"{_java_lacking(metric)}; {_TURN_OFF} (it needs Java too)")

    Stub.__name__ = Stub.__qualname__ = metric.title()
    return Stub


def _meteor():
    return compat.Meteor if hasattr(compat, "Meteor") else _java_stub("METEOR")


_LOCAL = {
    "COCOEvalCap": lambda: COCOEvalCap,
    "PTBTokenizer": lambda: compat.PTBTokenizer,
    "Bleu": lambda: Bleu,
    "BleuScorer": lambda: BleuScorer,
    "Meteor": _meteor,
    "Rouge": lambda: Rouge,
    "Cider": lambda: Cider,
    "CiderScorer": lambda: CiderScorer,
    "Spice": lambda: _java_stub("SPICE"),
}


def _signed(signature: sparsecider.Signature) -> sparsecider.Signature:
    """``signature`` marked as computed through the replacement."""
    return signature.replace(params=(*signature.params, ("pycocoevalcap_replacement", 1)))


class Bleu(compat.Bleu):
    """pycocoevalcap's ``Bleu(n)``; ``signature`` after :meth:`compute_score`."""

    def compute_score(self, gts, res, verbose: int = 1):
        score, scores = super().compute_score(gts, res, verbose=verbose)
        self.signature = _signed(sparsecider.Signature(
            f"BLEU-{self._n}", n=self._n, tokenizer="whitespace", scale=None
        ))  # fmt: skip
        return score, scores


class Rouge(compat.Rouge):
    """pycocoevalcap's ``Rouge``; ``signature`` after :meth:`compute_score`."""

    def compute_score(self, gts, res):
        score, scores = super().compute_score(gts, res)
        self.signature = _signed(
            sparsecider.Signature("ROUGE-L", beta=self.beta, tokenizer="whitespace", scale=None)
        )
        return score, scores


class Cider(compat.Cider):
    """pycocoevalcap's ``Cider`` (CIDEr-D, document frequencies of the references
    scored); ``signature`` after :meth:`compute_score`."""

    def __init__(self, test=None, refs=None, n: int = 4, sigma: float = 6.0) -> None:
        super().__init__(n=n, sigma=sigma)

    def compute_score(self, gts, res):
        score, scores = super().compute_score(gts, res)
        self.signature = _signed(sparsecider.Signature(
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
        result = sparsecider.cider_d(
            self.ctest, self.crefs, n=self.n, sigma=self.sigma, tokenizer="whitespace"
        )
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
        if isinstance(other, BleuScorer) and other.n != self.n:
            raise ValueError(f"cannot add a BleuScorer of n={other.n} to one of n={self.n}")
        return CiderScorer.__iadd__(self, other) if isinstance(other, tuple) else (
            self._extend(other)
        )

    def _extend(self, other):
        if not isinstance(other, BleuScorer):
            raise TypeError(f"add a (candidate, references) tuple, got {type(other).__name__}")
        self.ctest.extend(other.ctest)
        self.crefs.extend(other.crefs)
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
        score, scores = scorer.compute_score(gts, res, verbose=verbose if option == "closest" else 0)
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
                total_test + t, total_closest + closest, total_chosen + chosen
            )
        factor = _brevity(total_test, total_chosen) / _brevity(total_test, total_closest)
        return [s * factor for s in score], scores


def _skip_reason(metric: str) -> str | None:
    """Why ``COCOEvalCap`` leaves ``metric`` out, or None."""
    if metric == "METEOR" and hasattr(compat, "Meteor"):
        return None
    lacking = _java_lacking(metric)
    if lacking is not None:
        return f"{metric} was not computed: {lacking}"
    spice_lib = os.path.join(os.path.dirname(_real_path("spice/spice.py")), "lib")
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
    ROUGE_L, CIDEr and SPICE, as the reference computes them, each of
    METEOR and SPICE when it can run (see the module's description).

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
                self.signatures[metric] = scorer.signature
            for sc, scs, m in zip(score, scores, method, strict=True) if (
                isinstance(method, list)
            ) else [(score, scores, method)]:
                self.eval[m] = sc
                # as the reference: zipped with gts's order (SPICE's follow sorted ids)
                for image_id, value in zip(gts, scs, strict=False):
                    self.imgToEval.setdefault(image_id, {"image_id": image_id})[m] = value
                print(f"{m}: {sc:0.3f}")
        self.evalImgs = list(self.imgToEval.values())
