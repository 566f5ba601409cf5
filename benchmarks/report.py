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
    rows += _bleu_rouge_rows()
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
    rows += _toolkit_rows(_load("toolkit"))
    r = _load("rl_rewards")
    for rl in (r, *_load_rl_sizes()):
        rows += _rl_rows(rl)
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
    text += _cjk_section()
    text += _variants_section()
    return text


def _toolkit_rows(k: dict | None) -> list[str]:
    """The toolkits' seven-column pattern through the pycocoevalcap replacement."""
    if not k:
        return []
    ours, java = k["replacement"], k["pycocoevalcap_java"]
    worst = max(a["max_abs_diff"] for a in k["agreement"].values())
    captions = sum(a["n_captions"] for a in k["agreement"].values())
    return [
        f"| Toolkit pattern (lmms-eval): {len(k['agreement'])} columns, each re-tokenizing, "
        f"through `SPARSECIDER_REPLACE_PYCOCOEVALCAP=1`; METEOR is Java on both sides | "
        f"{k['sizes']['images']:,} images, {k['sizes']['references']:,} references | "
        f"{ours['total']['median_s']:.1f} s | {java['total']['median_s']:.1f} s | "
        f"**{k['speedup_median']:.1f}x** | max abs diff {worst:.1e} over {captions:,} "
        f"captions x columns | |",
        f"| same, without the METEOR column | same | "
        f"{ours['total_without_meteor']['median_s']:.2f} s | "
        f"{java['total_without_meteor']['median_s']:.1f} s | "
        f"**{k['speedup_median_without_meteor']:.1f}x** | same | |",
    ]


def _load_rl_sizes() -> list[dict]:
    """The other training-set sizes of bench_rl (``rl_rewards_<images>.json``)."""
    return [_load(p.stem) for p in sorted((HERE / "results").glob("rl_rewards_*.json"))]


def _rl_rows(r: dict | None) -> list[str]:
    if not r:
        return []
    s, ref = r["sizes"], r["reference"]["median_ms"]
    size = (
        f"{s['batch_images']} images x {s['batch_candidates'] // s['batch_images']} "
        f"candidates x {s['references_per_image']} refs; df of {s['df_images']:,} images "
        f"({s['df_ngrams']:,} n-grams, {s['df_mib']:.0f} MiB)"
    )
    agreement = f"max abs diff {r['agreement_max_abs_diff']:.1e}"
    out = []
    if "cached" in r:  # the cached scorer (issue 29) and its string faces
        b = r["build"]
        out.append(
            f"| RL rewards per batch, `RewardScorer` (references cached once: "
            f"{b['cached_s']:.1f} s, {b['cached_mib']:.0f} MiB held) | {size} | "
            f"{r['cached']['median_ms']:.2f} ms | {ref:.0f} ms | "
            f"**{r['ratio_reference_over_cached']:.0f}x** | {agreement}; bit-identical to "
            f"`cider_d_ids` | {b['cached_peak_mib']:.0f} MiB to build |"
        )
        out.append(
            f"| same, `RewardScorer.from_texts` (decoding included) | same | "
            f"{r['cached_texts']['median_ms']:.2f} ms | {ref:.0f} ms | "
            f"**{r['ratio_reference_over_cached_texts']:.0f}x** | same | |"
        )
        out.append(
            f"| same, `compat.CiderD` called as SCST code calls it (references remembered) "
            f"| same | {r['compat']['median_ms']:.2f} ms | {ref:.0f} ms | "
            f"**{r['ratio_reference_over_compat']:.0f}x** | same | |"
        )
    out.append(
        f"| RL rewards per batch, `cider_d_ids` (references per call) | {size} | "
        f"{r['ids']['median_ms']:.1f} ms | {ref:.0f} ms | "
        f"**{r['ratio_reference_over_ids']:.1f}x** | {agreement} | |"
    )
    out.append(
        f"| RL rewards per batch, decoded strings (`cider_d`) | same | "
        f"{r['strings']['median_ms']:.1f} ms | {ref:.0f} ms | "
        f"**{ref / r['strings']['median_ms']:.1f}x** | same | |"
    )
    return out


def _bleu_rouge_rows() -> list[str]:
    """BLEU-4 and ROUGE-L on COCO val (``bench_bleu_rouge``): rows of the main table."""
    b = _load("bleu_rouge")
    if not b:
        return []
    agreement = b["agreement"]
    sets = ", ".join(
        f"{name} {a['captions']:,}" for name, a in agreement.items() if name != "coco_val_held_out"
    )
    rows = []
    for scenario, label in (
        ("coco_val", "random-submission candidates"),
        ("coco_val_held_out", "each image's first reference as its candidate"),
    ):
        timing = b[scenario]
        refs = timing.get("sizes", b["sizes"])["references"]
        for metric, name, reference in (
            ("bleu", "BLEU-1..4", "`Bleu(4)`"),
            ("rouge_l", "ROUGE-L", "`Rouge`"),
        ):
            t = timing[metric]
            worst = max(
                v for a in agreement.values() for k, v in a.items()
                if k.startswith(metric.split("_")[0]) and "diff" in k
            )  # fmt: skip
            rows.append(
                f"| COCO val, pre-tokenized, {name}, {label} (`n_jobs=-1`; one thread) | "
                f"{b['sizes']['images']:,} images, {refs:,} references | "
                f"{t['sparsecider']['median_s']:.2f} s ({t['sparsecider_n_jobs_1']['median_s']:.2f}"
                f" s) | {t['pycocoevalcap']['median_s']:.1f} s ({reference}) | "
                f"**{t['speedup_median']:.1f}x** ({t['speedup_median_n_jobs_1']:.1f}x) | "
                f"max abs diff {worst:.1e}, per caption and corpus ({sets} captions) | |"
            )
    return rows


def _variants_section() -> str:
    v = _load("variants")
    if not v:
        return ""
    sc, cr, mb = v["self_cider"], v["cider_r"], v["mbr"]
    a, s = sc["agreement"], sc["sizes"]
    text = (
        "\n### Self-CIDEr, CIDEr-R, consensus selection (`python -m benchmarks.bench_variants`)"
        "\n\n| scenario | size | sparsecider (median) | reference (median) | ratio | agreement |"
        "\n|---|---|---:|---:|---:|---|\n"
        "| Self-CIDEr (`df='coco-val2014'`, kernels returned) | "
        f"{s['images']:,} Karpathy test images x {s['candidates_per_image']} captions "
        f"({s['pairs']:,} pairs) | {sc['sparsecider']['median_s']:.2f} s | "
        f"{sc['reference']['median_s']:.1f} s (port of the authors' code) | "
        f"**{sc['speedup_median']:.0f}x** | kernels {a['kernel_max_abs_diff']:.1e}, "
        f"diversity {a['max_abs_diff']:.1e}; {a['n_singular_sets']} sets with identical captions: "
        f"{a['singular_max_abs_diff_exact_oracle']:.1e} (exact zero eigenvalues), "
        f"{a['singular_max_abs_diff_raw_oracle']:.1e} (the oracle's rounding noise) |\n"
    )
    reference = f"{cr['port']['median_s']:.1f} s (port)"
    ratio = f"**{cr['speedup_over_port']:.0f}x**"
    agreement = f"max abs diff {cr['agreement']['max_abs_diff_port']:.1e}"
    if "sacreeos" in cr:
        reference += f", {cr['sacreeos']['median_s']:.1f} s (SacreEOS)"
        ratio += f", **{cr['speedup_over_sacreeos']:.0f}x**"
        agreement += f" ({cr['agreement']['max_abs_diff_sacreeos']:.1e} against SacreEOS)"
    text += (
        f"| CIDEr-R, pre-tokenized | {cr['sizes']['images']:,} COCO val images | "
        f"{cr['sparsecider']['median_s']:.2f} s (one thread: "
        f"{cr['sparsecider_n_jobs_1']['median_s']:.2f} s) | {reference} | {ratio} | {agreement} |\n"
        f"| consensus (MBR) selection | {mb['sizes']['images']:,} images x "
        f"{mb['sizes']['candidates_per_image']} captions | {mb['sparsecider']['median_s']:.2f} s | "
        f"{mb['cider_d_loop_extrapolated_s']:.0f} s (a `cider_d` call per candidate, "
        f"extrapolated) | **{mb['speedup_over_cider_d_loop']:.0f}x** | max abs diff "
        f"{mb['agreement']['max_abs_diff']:.1e} over {mb['agreement']['cider_d_calls']:,} calls |\n"
        f"\nMedians of {len(sc['sparsecider']['runs_s'])} runs of sparsecider and "
        f"{len(sc['reference']['runs_s'])} of each port"
        + (", one of SacreEOS" if "sacreeos" in cr else "")
        + "; the ports are checked against the reference code in `tests/` (SacreEOS: bit "
        "for bit on all of COCO val when installed).\n"
    )
    return text


def _cjk_section() -> str:
    cj = _load("cjk_tokenizers")
    if not cj:
        return ""
    text = (
        "\n### CJK tokenizers (`python -m benchmarks.bench_cjk`)\n\n"
        f"Generated captions ({cj['sizes']['images_per_language']:,} images per language, 3 to 6 "
        "references each, `sparsecider/_demo_cjk.py`). Agreement first: `cider_d` with "
        "the tokenizer against pycocoevalcap's `Cider` on the library's own output joined with "
        "spaces. Then `get_tokenizer(name).split` over all captions against the library loop "
        "users write (for `char`, a Python loop over characters), and `cider_d` end to end "
        "against that loop plus pycocoevalcap.\n\n"
        "| tokenizer | language | captions | captions/s (library loop) | `cider_d` end to end "
        "| loop + pycocoevalcap | ratio | agreement |\n|---|---|---:|---:|---:|---:|---:|---|\n"
    )
    for row in cj["rows"]:
        text += (
            f"| `{row['tokenizer']}` | {row['language']} | {row['captions']:,} | "
            f"{row['captions_per_s']:,.0f} ({row['library_loop_captions_per_s']:,.0f}) | "
            f"{row['cider_d_end_to_end']['median_s']:.2f} s | "
            f"{row['library_loop_plus_pycocoevalcap']['median_s']:.2f} s | "
            f"**{row['end_to_end_ratio']:.1f}x** | "
            f"max abs diff {row['agreement']['max_abs_diff']:.1e} |\n"
        )
    alt = cj.get("alternatives")
    if alt:
        j, m, k = alt["jieba"], alt["mecab"], alt["kiwi"]
        text += (
            f"\nBatching and threads, measured (captions/s): jieba one call per caption "
            f"{j['one_call_per_caption_per_s']:,.0f}, all captions joined in one call "
            f"{j['all_joined_in_one_call_per_s']:,.0f}; MeCab (fugashi) one thread "
            f"{m['one_thread_per_s']:,.0f}, two threads {m['two_threads_per_s']:,.0f} (it holds "
            f"the GIL); Kiwi one call per caption {k['one_call_per_caption_per_s']:,.0f}, the "
            f"whole batch on its {k['threads']} worker threads {k['whole_batch_per_s']:,.0f}.\n"
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
