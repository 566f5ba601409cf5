"""Shared benchmark plumbing: environment report, timing, memory, JSON output."""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def versions(*packages: str) -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in packages:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def machine() -> dict[str, object]:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
    }


def traced(fn: Callable[[], object]) -> tuple[object, float]:
    """Run once under tracemalloc; return the result and the peak MiB allocated."""
    gc.collect()
    tracemalloc.start()
    try:
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, peak / 2**20


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall-clock seconds of ``repeat`` runs (after a collection before each)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def summary(times: list[float]) -> dict[str, object]:
    return {"median_s": statistics.median(times), "min_s": min(times), "runs_s": times}


def write(name: str, payload: dict) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)
