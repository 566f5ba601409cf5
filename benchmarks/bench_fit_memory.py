"""Memory of the streaming fit pass (``stream.fit_df``) against the size of the table it builds.

1. **Agreement first**: the streamed table (chunks of ``--chunk-size``
   images, 2 threads) must equal ``DocumentFrequencies.from_references`` on
   all the references at once (same keys, counts and ``n_images``).
2. **Memory**, in a fresh process per ``n_jobs`` in (1, 2): the peak of
   numpy's and Python's allocations (``tracemalloc``), and the process's
   peak resident memory (``VmHWM``) with the resident memory after the
   imports (the interpreter, numpy, scipy) as its baseline; both against
   the table's own size (``DocumentFrequencies.nbytes``).
3. With ``--repo PATH`` the same runs also use the sparsecider of another
   checkout (e.g. a ``git worktree`` of an older commit), interleaved, so
   before and after are measured in one session on one machine.

The corpus is ``benchmarks.make_synthetic`` (Zipf words, 5 references per
image), generated once into the temporary folder.  Writes
``benchmarks/results/fit_memory.json``.

Usage::

    python -m benchmarks.bench_fit_memory [--images 150000] [--repo /tmp/old-checkout]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import common, make_synthetic

ROOT = Path(__file__).resolve().parents[1]


# run with only the measured checkout on the path (no ``benchmarks`` import: an
# older checkout has its own), from a neutral folder
_CHILD = """
import json, sys, time, tracemalloc
from pathlib import Path

def status_mib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024

import sparsecider
from sparsecider import stream

path, n_jobs, chunk_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
trace = sys.argv[4] == "1"
baseline = status_mib("VmRSS")
if trace:
    tracemalloc.start()
start = time.perf_counter()
df = stream.fit_df(path, tokenizer="whitespace", chunk_size=chunk_size, n_jobs=n_jobs)
seconds = time.perf_counter() - start
traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
print(json.dumps({
    "sparsecider": str(Path(sparsecider.__file__).parents[1]),
    "n_grams": len(df), "table_mib": df.nbytes / 2**20, "seconds": seconds,
    "traced_peak_mib": traced, "rss_peak_mib": status_mib("VmHWM"),
    "rss_after_imports_mib": baseline,
}))
"""


def _child(path: Path, n_jobs: int, chunk_size: int, repo: Path, trace: bool) -> dict:
    """One fit in a fresh process importing sparsecider from ``repo``."""
    cmd = [sys.executable, "-c", _CHILD, str(path), str(n_jobs), str(chunk_size), str(int(trace))]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    out = subprocess.run(
        cmd, check=True, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir()
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if Path(got["sparsecider"]).resolve() != repo.resolve():
        raise SystemExit(f"the child imported {got['sparsecider']}, not {repo}")
    return got


def agreement(path: Path, chunk_size: int) -> dict:
    from sparsecider import DocumentFrequencies, stream

    with open(path, encoding="utf-8") as f:
        refs = [json.loads(line)["references"] for line in f]
    whole = DocumentFrequencies.from_references(refs, tokenizer="whitespace")
    streamed = stream.fit_df(path, tokenizer="whitespace", chunk_size=chunk_size, n_jobs=2)
    if streamed != whole:
        raise SystemExit("the streamed table differs from the one fitted in memory")
    return {"images": len(refs), "n_grams": len(whole), "equal": True}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=150_000)
    parser.add_argument("--chunk-size", type=int, default=5_000)
    parser.add_argument(
        "--repo",
        type=Path,
        action="append",
        default=[],
        help="another checkout to measure beside this one (repeatable)",
    )
    args = parser.parse_args(argv)
    folder = Path(tempfile.gettempdir()) / "sparsecider-bench"
    folder.mkdir(exist_ok=True)
    path = folder / f"synthetic-{args.images}.jsonl"
    if not path.exists():
        make_synthetic.write(path, args.images)
    common.log(f"corpus: {args.images:,} images, {path.stat().st_size / 2**20:.0f} MiB")
    checked = agreement(path, args.chunk_size)
    common.log(f"agreement: streamed table == in-memory table ({checked['n_grams']:,} n-grams)")
    runs = []
    for repo in [ROOT, *args.repo]:
        for n_jobs in (1, 2):
            for trace in (True, False):
                run = _child(path, n_jobs, args.chunk_size, repo, trace)
                run.update(n_jobs=n_jobs, traced=trace)
                runs.append(run)
                net = run["rss_peak_mib"] - run["rss_after_imports_mib"]
                common.log(
                    f"{repo}: n_jobs={n_jobs} {'traced' if trace else 'untraced'}: table "
                    f"{run['table_mib']:.1f} MiB; traced peak "
                    + (f"{run['traced_peak_mib']:.1f} MiB "
                       f"({run['traced_peak_mib'] / run['table_mib']:.2f}x); " if trace else "")
                    + f"resident peak {run['rss_peak_mib']:.0f} MiB ({net:.0f} MiB above the "
                    f"imports, {net / run['table_mib']:.2f}x); {run['seconds']:.1f} s"
                )  # fmt: skip
    result = {
        "benchmark": "fit_memory", "machine": common.machine(),
        "versions": common.versions("numpy", "scipy"), "images": args.images,
        "chunk_size": args.chunk_size, "agreement": checked, "runs": runs,
    }  # fmt: skip
    common.RESULTS.mkdir(exist_ok=True)
    out = common.RESULTS / "fit_memory.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    common.log(f"wrote {out}")
    return result


if __name__ == "__main__":
    main()
