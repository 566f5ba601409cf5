"""Render the results table of benchmarks/README.md from benchmarks/results/*.json.

Usage: ``python -m benchmarks.report`` (rewrites the README's table section).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARK = "## Latest results"


def _load(name: str) -> dict | None:
    path = HERE / "results" / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def table() -> str:
    rows = []
    c = _load("coco_val")
    if c:
        rows.append(
            f"| COCO val, pre-tokenized, CIDEr-D (defaults: `n_jobs=-1`, "
            f"{c['machine']['cpus']} threads) | {c['sizes']['images']:,} images, "
            f"{c['sizes']['references']:,} references | {c['sparsecider']['median_s']:.2f} s | "
            f"{c['pycocoevalcap']['median_s']:.1f} s | **{c['speedup_median']:.1f}x** | "
            f"max abs diff {c['agreement']['max_abs_diff']:.1e} over "
            f"{c['agreement']['n_captions']:,} captions | {c['sparsecider']['peak_mib']:.0f} MiB / "
            f"{c['pycocoevalcap']['peak_mib']:.0f} MiB |"
        )
        single = c.get("sparsecider_n_jobs_1")
        if single:
            rows.append(
                f"| same, one thread (`n_jobs=1`) | same | {single['median_s']:.2f} s | "
                f"{c['pycocoevalcap']['median_s']:.1f} s | "
                f"**{c['speedup_median_n_jobs_1']:.1f}x** | same | |"
            )
        aac = c.get("aac_metrics")
        if aac:
            rows.append(
                f"| same, against aac-metrics {c['versions'].get('aac-metrics', '')} `cider_d` "
                f"| same | {c['sparsecider']['median_s']:.2f} s | {aac['median_s']:.1f} s "
                f"(aac-metrics) | **{c['speedup_over_aac_metrics']:.1f}x** | max abs diff "
                f"{c['agreement']['max_abs_diff_aac_metrics']:.1e} | |"
            )
    raw = _load("coco_val_raw")
    if raw:
        rows.append(
            f"| COCO val from raw text (PTB tokenizer + CIDEr-D) | {raw['sizes']['images']:,} "
            f"images, {raw['sizes']['references']:,} references | "
            f"{raw['sparsecider']['median_s']:.2f} s (one thread: "
            f"{raw['sparsecider_n_jobs_1']['median_s']:.2f} s) | "
            f"{raw['pycocoevalcap']['median_s']:.1f} s (Java `PTBTokenizer` + `Cider`) | "
            f"**{raw['speedup_median']:.1f}x** ({raw['speedup_median_n_jobs_1']:.1f}x) | "
            f"max abs diff {raw['agreement']['max_abs_diff']:.1e} over "
            f"{raw['agreement']['n_captions']:,} captions | |"
        )
    t = _load("tokenize_coco_val")
    if t:
        rows.append(
            f"| COCO val, PTB tokenization | {t['sizes']['references']:,} + "
            f"{t['sizes']['candidates']:,} captions | {t['sparsecider']['median_s']:.2f} s | "
            f"{t['java_ptbtokenizer']['median_s']:.2f} s (Java) | **{t['speedup_median']:.1f}x** | "
            f"{t['agreement']['differ']} of {t['agreement']['captions']:,} captions differ | |"
        )
    r = _load("rl_rewards")
    if r:
        s = r["sizes"]
        rows.append(
            f"| RL rewards per batch (ids) | {s['batch_images']} images x "
            f"{s['batch_candidates'] // s['batch_images']} candidates x "
            f"{s['references_per_image']} refs; df of {s['df_images']:,} images "
            f"({s['df_ngrams']:,} n-grams, {s['df_mib']:.0f} MiB) | "
            f"{r['ids']['median_ms']:.1f} ms | "
            f"{r['reference']['median_ms']:.0f} ms | **{r['ratio_reference_over_ids']:.1f}x** | "
            f"max abs diff {r['agreement_max_abs_diff']:.1e} | |"
        )
        rows.append(
            f"| RL rewards per batch (decoded strings) | same | "
            f"{r['strings']['median_ms']:.1f} ms | "
            f"{r['reference']['median_ms']:.0f} ms | "
            f"**{r['reference']['median_ms'] / r['strings']['median_ms']:.1f}x** | same | |"
        )
    any_result = c or raw or t or r
    machine = ""
    if any_result:
        m, v = any_result["machine"], any_result["versions"]
        machine = (
            f"Machine: {m['cpus']} cores, {m['platform']}; Python {v['python']}, "
            f"numpy {v.get('numpy', '?')}, pycocoevalcap {v.get('pycocoevalcap', '?')}.\n\n"
        )
    header = (
        "| scenario | size | sparsecider (median) | reference (median) | ratio | agreement "
        "| peak memory (sparsecider / reference) |\n|---|---|---:|---:|---:|---|---|\n"
    )
    text = f"{MARK}\n\n{machine}{header}" + "\n".join(rows) + "\n"
    scaling = _load("scaling")
    if scaling:
        text += (
            "\n### Scaling (`python -m benchmarks.bench_scaling`)\n\n"
            "| images | data | sparsecider | peak memory | pycocoevalcap | ratio "
            "| aac-metrics | ratio |\n|---:|---|---:|---:|---:|---:|---:|---:|\n"
        )
        for row in scaling["rows"]:
            ref, aac = row.get("reference_s"), row.get("aac_metrics_s")
            text += (
                f"| {row['images']:,} | {row['data']} | {row['sparsecider_s']:.2f} s | "
                f"{row.get('sparsecider_peak_mib', float('nan')):.0f} MiB | "
                + (f"{ref:.1f} s | {ref / row['sparsecider_s']:.1f}x |" if ref else "not run | |")
                + (f" {aac:.1f} s | {aac / row['sparsecider_s']:.1f}x |" if aac else " | |")
                + "\n"
            )
        text += "\n![time and memory against corpus size](results/scaling.png)\n"
    st = _load("stream")
    if st:
        one, two = st["stream_n_jobs_1"], st["stream_n_jobs_2"]
        text += (
            "\n### Streaming and threads (`python -m benchmarks.bench_stream`)\n\n"
            f"{st['sizes']['images']:,} synthetic images x {st['sizes']['references_per_image']} "
            f"references ({st['sizes']['input_mib']:.0f} MiB of JSON lines, "
            f"`benchmarks/make_synthetic.py`), `sparsecider.stream.cider_d` with "
            f'`df="corpus"` (both passes) in chunks of {st["sizes"]["chunk_size"]:,} images, '
            "writing one JSON line per image; peak memory is the whole process's peak RSS. "
            f"Agreement first: the first {st['agreement']['records']:,} records streamed equal "
            "the in-memory `cider_d` bit for bit.\n\n"
            "| run | wall time | throughput | peak memory (target < 4,096 MiB) |\n"
            "|---|---:|---:|---:|\n"
        )
        for name, run in (("n_jobs=1", one), ("n_jobs=2", two)):
            text += (
                f"| stream, {name} | {run['seconds']:.1f} s | "
                f"{run['images_per_second']:,.0f} images/s | {run['peak_mib']:,.0f} MiB |\n"
            )
        text += f"\nSpeed-up of 2 threads: **{st['stream_speedup']:.2f}x**.\n"
        coco = st.get("coco_val_in_memory")
        if coco:
            text += (
                f"\nCOCO val in memory ({coco['images']:,} images, pre-tokenized), "
                f"`cider_d(..., n_jobs=2)`: {coco['n_jobs_2']['median_s']:.2f} s against "
                f"{coco['n_jobs_1']['median_s']:.2f} s with one thread, "
                f"**{coco['speedup_median']:.2f}x**, bit-identical results.\n"
            )
    return text


def main() -> None:
    readme = HERE / "README.md"
    text = readme.read_text()
    head, _, tail = text.partition(MARK)
    rest = tail.split("\n\n", 3)[-1] if "Timings on" in tail else ""
    keep = rest[rest.index("Timings on") :] if "Timings on" in rest else ""
    readme.write_text(head + table() + ("\n" + keep if keep else ""))


if __name__ == "__main__":
    main()
