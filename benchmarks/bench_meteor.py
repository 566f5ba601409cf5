"""METEOR 1.5: sparsecider's Java-free METEOR vs pycocoevalcap's ``Meteor`` (the jar), one run.

Data: COCO val 2014 with the last caption of every image held out as the candidate against
the others (40,504 segments, raw captions; line breaks read as spaces, since a line break
hangs pycocoevalcap's wrapper).  Agreement first: the 23 statistics and the segment score of
every segment, and the corpus score.  Then the times:

- the jar as pycocoevalcap runs it: ``Meteor()`` (start-up and data load) and
  ``compute_score`` (scoring), in this process;
- ours with a warm cache: data load (checksums, word lists, paraphrase index) and scoring, in
  this process, then again with ``n_jobs=2`` (two worker processes, each loading the cached data:
  the machine's two cores), checked equal to the one-process statistics;
- the CPU time of each side beside its wall time (the jar's Java process, reaped when it ends, and
  ours), so a ratio can be read per core used;
- peak memory (VmHWM) of a fresh process that loads the cached data and scores the segments
  (``--memory-images``), and of a fresh process building the cache from scratch (cold first
  use, with its time).

Needs Java and the ``ref`` and ``meteor`` extras; without Java it says so and stops.
Writes ``benchmarks/results/meteor.json``.

Usage::

    python -m benchmarks.bench_meteor [--images N] [--no-cold]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import common, datasets

_CHILD = """
import json, sys, time
def hwm():  # peak resident memory of this process, MiB (reset by exec, unlike ru_maxrss)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
t0 = time.perf_counter()
from sparsecider.metrics.meteor.resources import load
res = load()
t1 = time.perf_counter()
out = {"load_s": t1 - t0, "peak_rss_after_load_mib": hwm()}
if len(sys.argv) > 1:
    from sparsecider.metrics.meteor import segment_statistics
    d = json.load(open(sys.argv[1]))
    segment_statistics(d["hyps"], d["refs"], resources=res)
    out["score_s"] = time.perf_counter() - t1
    out["segments"] = len(d["hyps"])
out["peak_rss_mib"] = hwm()
print(json.dumps(out))
"""


def coco_images() -> list[list[str]]:
    """COCO val 2014's captions (raw), grouped by image in file order; line breaks read as
    spaces (a line break hangs pycocoevalcap's wrapper)."""
    path = datasets.coco_dir() / "captions_val2014_reconstructed.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        ann = json.load(f)["annotations"]
    by: dict[int, list[str]] = {}
    for a in ann:
        by.setdefault(a["image_id"], []).append(a["caption"].replace("\n", " "))
    return list(by.values())


def heldout(n: int | None) -> tuple[list[str], list[list[str]]]:
    """The last caption of each image (raw) against the others, in file order."""
    items = coco_images()[:n]
    return [v[-1] for v in items], [v[:-1] for v in items]


def jar(hyps: list[str], refs: list[list[str]]) -> dict:
    """The jar's times, corpus and segment scores, and statistics (of the same run)."""
    from pycocoevalcap.meteor.meteor import Meteor

    t0 = time.perf_counter()
    m = Meteor()
    # Meteor() only starts the Java process: the JVM start and the jar's data load end when it
    # first answers.  One throwaway SCORE line waits for that, so start-up is start-up and the
    # scoring time below is scoring (without it start-up read ~0 s and scoring held both).
    m._stat("a", ["a"])
    t1 = time.perf_counter()
    gts = {i: r for i, r in enumerate(refs)}
    res = {i: [h] for i, h in enumerate(hyps)}
    # the statistics themselves: the lines the jar answers to compute_score's own SCORE
    # requests, recorded on their way (a pass-through, so the jar is driven unchanged)
    lines: list[str] = []
    stat = m._stat

    def recorded(hypothesis: str, references: list[str]) -> str:
        lines.append(stat(hypothesis, references))
        return lines[-1]

    m._stat = recorded
    try:
        corpus, scores = m.compute_score(gts, res)
        t2 = time.perf_counter()
    finally:  # end its Java process now (communicate closes the pipes Meteor leaves open)
        with m.lock:
            m.meteor_p.kill()
            m.meteor_p.communicate()
    stats = np.array([[float(x) for x in line.split()] for line in lines])
    return {
        "startup_s": t1 - t0,
        "score_s": t2 - t1,
        "corpus": corpus,
        "scores": scores,
        "stats": stats,
    }


def _children_cpu() -> float:
    """User + system CPU seconds of this process's reaped children (the jar's Java process,
    the worker processes of ``n_jobs``)."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def child(args: list[str], env: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, env=env
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--images", type=int, default=None)
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--memory-images", type=int, default=40504)
    a = ap.parse_args()
    if shutil.which("java") is None:
        print("bench_meteor: Java is not installed; the jar comparison needs it. Skipped.")
        return
    import os

    from sparsecider.metrics.meteor import corpus_score, segment_scores, segment_statistics, summed
    from sparsecider.metrics.meteor.resources import load

    load_before = os.getloadavg()  # the machine may be shared: say how busy it was
    hyps, refs = heldout(a.images)
    common.log(f"{len(hyps)} segments; running the jar (start-up, load, scoring)")
    java_cpu, driver_cpu = _children_cpu(), time.process_time()
    j = jar(hyps, refs)
    # its Java process (killed and reaped in jar()) and pycocoevalcap's Python side, here
    java_cpu = _children_cpu() - java_cpu + (time.process_time() - driver_cpu)
    common.log(f"jar: start-up {j['startup_s']:.1f} s, scoring {j['score_s']:.1f} s")

    c0, t0 = time.process_time(), time.perf_counter()
    res = load()  # warm if the cache exists (built once otherwise: see the cold run below)
    t1 = time.perf_counter()
    stats = segment_statistics(hyps, refs, resources=res)
    scores = segment_scores(stats)
    corpus = corpus_score(summed(stats))
    t2, c2 = time.perf_counter(), time.process_time()
    # the same on two worker processes (each loads the cached data itself)
    w0, p3, t3 = _children_cpu(), time.process_time(), time.perf_counter()
    stats2 = segment_statistics(hyps, refs, resources=res, n_jobs=2)
    t4, p4, w4 = time.perf_counter(), time.process_time(), _children_cpu()
    if not np.array_equal(stats2, stats):
        raise SystemExit("bench_meteor: n_jobs=2 gave other statistics than one process")
    differ = np.flatnonzero((stats != j["stats"]).any(axis=1) | (scores != np.array(j["scores"])))
    common.log(
        f"ours: load {t1 - t0:.2f} s, scoring {t2 - t1:.1f} s (two processes {t4 - t3:.1f} s); "
        f"{differ.size} segments differ"
    )

    out = {
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "pycocoevalcap", "snowballstemmer", "numpy"),
        "segments": len(hyps),
        "agreement": {
            "differing_segments": int(differ.size),
            "corpus_jar": j["corpus"],
            "corpus_ours": corpus,
            "corpus_abs_diff": abs(corpus - j["corpus"]),
            "first_differing": differ[:20].tolist(),
        },
        "jar": {"startup_s": j["startup_s"], "score_s": j["score_s"], "cpu_s": java_cpu},
        "ours_warm": {"load_s": t1 - t0, "score_s": t2 - t1, "cpu_s": c2 - c0},
        # (one chunk, at most 2,048 segments: n_jobs=2 runs in this process, no workers)
        "ours_two_processes": {
            "wall_s": t4 - t3,
            "cpu_s": (w4 - w0) + (p4 - p3),
            "worker_cpu_s": w4 - w0,
        },
        "load_average_at_start": load_before,
    }
    total_jar = j["startup_s"] + j["score_s"]
    out["speedup_total"] = total_jar / (t2 - t0)
    out["speedup_scoring"] = j["score_s"] / (t2 - t1)
    # (None when no worker ran: at most one chunk, 2,048 segments, is scored in this process with
    # the data already loaded, so the ratio would compare the jar's total with our scoring alone)
    out["speedup_total_two_processes"] = total_jar / (t4 - t3) if w4 > w0 else None
    out["speedup_cpu"] = java_cpu / (c2 - c0)
    out["load_average_after_scoring"] = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ)
        # warm memory: a fresh process loads the cached data and scores the first segments
        path = Path(d) / "in.json"
        with open(path, "w") as f:
            json.dump({"hyps": hyps[: a.memory_images], "refs": refs[: a.memory_images]}, f)
        out["warm_process"] = child([str(path)], env)
        if not a.no_cold:
            env["SPARSECIDER_CACHE_DIR"] = str(Path(d) / "cache")
            out["cold_process"] = child([], env)
            files = (Path(d) / "cache").rglob("*")
            out["cache_bytes"] = sum(p.stat().st_size for p in files if p.is_file())
    print(json.dumps(out, indent=1))
    common.write("meteor", out)


if __name__ == "__main__":
    main()
