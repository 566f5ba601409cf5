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


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def peak_mib(fn: Callable[[], object]) -> float:
    """Peak memory of one run of ``fn`` above what the process already holds, MiB.

    On Linux: the kernel's peak-RSS counter is reset (``/proc/self/clear_refs``)
    just before the run, so data loading does not count and the run itself is
    not slowed; the peak minus the RSS at the start is reported.  Elsewhere,
    tracemalloc's peak (much slower for pure-Python code).  Meant to run in a
    fresh process per implementation (see :func:`peak_in_subprocess`).
    """
    gc.collect()
    try:
        import ctypes

        # hand freed heap pages back to the kernel, so that the run's own
        # allocations show up as RSS growth instead of reusing them unseen
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        base = _status_kib("VmRSS")
        fn()
        return (_status_kib("VmHWM") - base) / 1024
    except OSError:
        tracemalloc.start()
        try:
            fn()
            return tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()


def peak_in_subprocess(module: str, which: str, *args: str) -> float:
    """Run ``python -m module --peak-only which *args`` and read the MiB it prints."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-m", module, "--peak-only", which, *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


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
    """Write ``results/<name>.json`` (or under $SPARSECIDER_BENCHMARK_RESULTS)
    and print the same JSON to stdout."""
    folder = Path(os.environ.get("SPARSECIDER_BENCHMARK_RESULTS", RESULTS))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    text = json.dumps(payload, indent=2)
    path.write_text(text + "\n")
    print(text)
    return path


def agreement(max_diff: float, n_captions: int, mine_score: float, ref_score: float) -> dict:
    """The agreement record of a corpus benchmark."""
    return {
        "max_abs_diff": max_diff,
        "n_captions": n_captions,
        "score_sparsecider": mine_score,
        "score_reference": float(ref_score),
    }


def add_speedups(out: dict, reference: str) -> float:
    """Set ``speedup_median`` (defaults) and ``speedup_median_n_jobs_1`` of
    ``out`` against ``out[reference]``; return the reference's median."""
    ref_median = out[reference]["median_s"]
    out["speedup_median"] = ref_median / out["sparsecider"]["median_s"]
    out["speedup_median_n_jobs_1"] = ref_median / out["sparsecider_n_jobs_1"]["median_s"]
    return ref_median


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)
