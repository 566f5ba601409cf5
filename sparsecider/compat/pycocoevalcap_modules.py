"""What ``import pycocoevalcap...`` gets under the replacement (see :mod:`.hook`).

The modules and names of pycocoevalcap 1.2 that evaluation toolkits import:

- ``pycocoevalcap.eval``: ``COCOEvalCap`` and ``Bleu``, ``Meteor``,
  ``Rouge``, ``Cider``, ``Spice``, ``PTBTokenizer``;
- ``pycocoevalcap.tokenizer.ptbtokenizer.PTBTokenizer``;
- ``pycocoevalcap.bleu.bleu.Bleu``, ``pycocoevalcap.bleu.bleu_scorer.BleuScorer``,
  ``pycocoevalcap.rouge.rouge.Rouge``, ``pycocoevalcap.cider.cider.Cider``,
  ``pycocoevalcap.cider.cider_scorer.CiderScorer``: sparsecider's
  (:mod:`.pycocoevalcap_scorers`);
- ``pycocoevalcap.meteor.meteor``: ``sparsecider.compat.Meteor`` (no Java;
  it reads its data from the real package, the ``meteor`` extra);
- ``pycocoevalcap.spice.spice``: the real module (Java), loaded from the
  installed pycocoevalcap's own file so that its jars are found.

Without Java or the real package, ``Spice`` is a class whose construction
raises a ``RuntimeError`` saying why: the modules still import.
Every module has ``__sparsecider__`` (the real package's have not) and its
``__file__`` is this file.
"""

from __future__ import annotations

import importlib
import os

from sparsecider import compat

from .._version import __version__
from . import pycocoevalcap_scorers as scorers

__all__ = ["DESCRIPTION", "announcement", "fill", "is_package", "not_provided", "provides",
           "real_file"]  # fmt: skip

DESCRIPTION = f"sparsecider {__version__}: the Java-free replacement of pycocoevalcap 1.2"

_PACKAGES = ("pycocoevalcap", "pycocoevalcap.tokenizer", "pycocoevalcap.bleu",
             "pycocoevalcap.meteor", "pycocoevalcap.rouge", "pycocoevalcap.cider",
             "pycocoevalcap.spice")  # fmt: skip
# module -> the names it holds
_NAMES = {
    "pycocoevalcap.eval": (
        "COCOEvalCap", "Bleu", "Meteor", "Rouge", "Cider", "Spice", "PTBTokenizer",
    ),
    "pycocoevalcap.tokenizer.ptbtokenizer": ("PTBTokenizer",),
    "pycocoevalcap.bleu.bleu": ("Bleu",),
    "pycocoevalcap.bleu.bleu_scorer": ("BleuScorer",),
    "pycocoevalcap.meteor.meteor": ("Meteor",),
    "pycocoevalcap.rouge.rouge": ("Rouge",),
    "pycocoevalcap.cider.cider": ("Cider",),
    "pycocoevalcap.cider.cider_scorer": ("CiderScorer",),
    "pycocoevalcap.spice.spice": ("Spice",),
}  # fmt: skip
# eval.py imports its names from their modules: so does ours, through the
# import system (eval.Meteor is whatever pycocoevalcap.meteor.meteor serves)
_HOME = {name: module for module, names in _NAMES.items() if module != "pycocoevalcap.eval"
         for name in names}  # fmt: skip
_OWN = {
    "COCOEvalCap": lambda: scorers.COCOEvalCap,
    "PTBTokenizer": lambda: compat.PTBTokenizer,
    "Bleu": lambda: scorers.Bleu,
    "BleuScorer": lambda: scorers.BleuScorer,
    "Meteor": lambda: compat.Meteor,
    "Rouge": lambda: scorers.Rouge,
    "Cider": lambda: scorers.Cider,
    "CiderScorer": lambda: scorers.CiderScorer,
    "Spice": lambda: scorers.java_stub("SPICE"),
}
# the real pycocoevalcap's files that run as they are (Java), when they can:
# SPICE's (spice.py imports get_stanford_models)
_JAVA_MODULES = {
    "pycocoevalcap.spice.spice": "SPICE",
    "pycocoevalcap.spice.get_stanford_models": "SPICE",
}


def announcement(variable: str) -> str:
    """The one stderr line printed the first time the replacement acts."""
    return (
        f"{DESCRIPTION} serves `import pycocoevalcap` ({variable}={os.environ.get(variable)}; "
        f"{variable}=quiet silences this line, 0 turns the replacement off)"
    )


def real_file(fullname: str) -> str | None:
    """The real pycocoevalcap file serving ``fullname``, or None (ours serves it)."""
    metric = _JAVA_MODULES.get(fullname)
    if metric is None:
        return None
    if scorers.java_lacking(metric) is not None:
        return None
    return scorers.real_path(fullname.split(".", 1)[1].replace(".", "/") + ".py")


def provides(fullname: str) -> bool:
    return fullname in _PACKAGES or fullname in _NAMES


def is_package(fullname: str) -> bool:
    return fullname in _PACKAGES


def not_provided(fullname: str) -> str:
    """The message of the ImportError for a module the replacement does not have."""
    return (
        f"{fullname} is not part of sparsecider's replacement of pycocoevalcap, which provides "
        f"{', '.join(_NAMES)}; {scorers.TURN_OFF}"
    )


def _missing_names(module_name: str):
    """A module ``__getattr__``: a name we lack is an ImportError saying so (an
    AttributeError would become ``from ... import``'s generic message)."""

    def __getattr__(name: str):
        child = f"{module_name}.{name}"
        if name.startswith("_") or child in _NAMES or child in _PACKAGES:
            # dunders (hasattr probes), and submodules: the import system imports them
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise ImportError(
            f"{child} is not part of sparsecider's replacement of pycocoevalcap "
            f"({module_name} has {', '.join(_NAMES.get(module_name, ())) or 'no names'}); "
            f"{scorers.TURN_OFF}",
            name=module_name,
        )

    return __getattr__


def fill(module) -> None:
    """Give one of our pycocoevalcap modules its names."""
    name = module.__name__
    module.__sparsecider__ = DESCRIPTION
    names = _NAMES.get(name, ())
    for attr in names:
        home = _HOME.get(attr, name)
        value = _OWN[attr]() if home == name else getattr(importlib.import_module(home), attr)
        setattr(module, attr, value)
    module.__all__ = list(names)
    module.__getattr__ = _missing_names(name)
