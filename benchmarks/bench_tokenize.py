"""Tokenizing COCO val 2014: sparsecider.ptb_tokenize vs pycocoevalcap's Java PTBTokenizer.

202,654 references and 40,504 candidates (random-submission file), raw text,
tokenized as ``COCOEvalCap.evaluate`` does: references image after image as
one sequence, candidates as another.  Agreement is checked first (every
caption identical); then both are timed over repeated runs (the Java side
includes its JVM start and temporary file, as every user pays them) and the
medians compared.  Writes ``benchmarks/results/tokenize_coco_val.json``.

Usage (needs Java, ``pip install -e .[ref]`` and ``../shared/data``)::

    python -m benchmarks.bench_tokenize [--repeat 5] [--java-repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import subprocess

import sparsecider
from benchmarks import common, datasets


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of sparsecider")
    parser.add_argument(
        "--java-repeat", type=int, default=3, help="timed runs of the Java tokenizer"
    )
    args = parser.parse_args(argv)
    if shutil.which("java") is None:
        raise SystemExit("this benchmark compares with the Java tokenizer: java must be on PATH")
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    cands, refs = datasets.coco_val_raw()
    gts = {k: [{"caption": c} for c in v] for k, v in refs.items()}
    res = {k: [{"caption": c}] for k, c in cands.items()}
    flat_refs = [c for v in refs.values() for c in v]
    flat_cands = list(cands.values())
    sizes = {"references": len(flat_refs), "candidates": len(flat_cands)}
    common.log(f"COCO val raw captions: {sizes}")

    def ours():
        return sparsecider.ptb_tokenize(flat_refs), sparsecider.ptb_tokenize(flat_cands)

    def java():
        # the Java tool prints a line per run on stderr; keep the report readable
        with contextlib.redirect_stderr(io.StringIO()):
            return PTBTokenizer().tokenize(gts), PTBTokenizer().tokenize(res)

    mine_refs, mine_cands = ours()
    java_gts, java_res = java()
    want_refs = [c for v in java_gts.values() for c in v]
    want_cands = [v[0] for v in java_res.values()]
    differ = sum(a != b for a, b in zip(mine_refs, want_refs, strict=True))
    differ += sum(a != b for a, b in zip(mine_cands, want_cands, strict=True))
    common.log(f"agreement: {differ} of {len(flat_refs) + len(flat_cands)} captions differ")
    if differ:
        raise SystemExit("disagreement with the Java tokenizer")

    t_ours = common.timed(ours, args.repeat)
    t_java = common.timed(java, args.java_repeat)
    java_version = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    out = {
        "benchmark": "tokenize_coco_val",
        "machine": common.machine(),
        "versions": {
            **common.versions("sparsecider", "pycocoevalcap", "numpy"),
            "java": java_version.splitlines()[0] if java_version else "unknown",
        },
        "sizes": sizes,
        "agreement": {"captions": len(flat_refs) + len(flat_cands), "differ": differ},
        "sparsecider": common.summary(t_ours),
        "java_ptbtokenizer": common.summary(t_java),
    }
    out["speedup_median"] = out["java_ptbtokenizer"]["median_s"] / out["sparsecider"]["median_s"]
    path = common.write("tokenize_coco_val", out)
    common.log(
        f"sparsecider {out['sparsecider']['median_s']:.2f} s vs Java "
        f"{out['java_ptbtokenizer']['median_s']:.2f} s (medians): "
        f"{out['speedup_median']:.1f}x; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
