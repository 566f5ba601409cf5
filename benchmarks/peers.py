"""Other CIDEr-D implementations to compare with, loaded only when installed.

aac-metrics (Labbé et al., audio captioning) ships a pure-Python CIDEr-D
(``aac_metrics.functional.cider_d``, a port of pycocoevalcap's scorer
returning torch tensors).  Its package ``__init__`` imports every metric it
offers, and one of them (CLAP, through ``msclap``) pins ``numpy<2`` and an old
numba, which cannot be installed beside this project's numpy.  So the
benchmarks load only the CIDEr-D module, after installing the package without
its dependencies::

    pip install "torch==2.13.0" pythonwrench typing_extensions
    pip install --no-deps aac-metrics

:func:`aac_cider_d` returns None when that is not available.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import time
import types
from collections.abc import Callable

import numpy as np


def aac_cider_d() -> Callable | None:
    """aac-metrics' functional ``cider_d``, or None when it is not installed."""
    try:
        if "aac_metrics" not in sys.modules:
            spec = importlib.util.find_spec("aac_metrics")
            if spec is None or spec.submodule_search_locations is None:
                return None
            # bare package objects: their submodules import, their __init__ does not run
            paths = list(spec.submodule_search_locations)
            for name, path in (
                ("aac_metrics", paths),
                ("aac_metrics.functional", [p + "/functional" for p in paths]),
            ):
                package = types.ModuleType(name)
                package.__path__ = path
                sys.modules[name] = package
        return importlib.import_module("aac_metrics.functional.cider_d").cider_d
    except ImportError:
        return None


def aac_agreement(
    cider_d: Callable, candidates: list[str], references: list[list[str]], scores, where: str
) -> tuple[float, float]:
    """Run aac-metrics' ``cider_d`` once: (max abs difference from ``scores``, seconds).

    Stops the benchmark (``SystemExit``) when the difference exceeds 1e-12.
    """
    start = time.perf_counter()
    _, per_caption = cider_d(candidates, references)
    seconds = time.perf_counter() - start
    diff = float(np.abs(np.asarray(scores) - per_caption["cider_d"].numpy()).max())
    if diff > 1e-12:
        raise SystemExit(f"disagreement with aac-metrics {where}: max abs diff {diff}")
    return diff, seconds


def aac_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("aac-metrics")
    except PackageNotFoundError:
        return "not installed"
