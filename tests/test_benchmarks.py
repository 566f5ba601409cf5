"""Smoke tests of the benchmark code at tiny sizes: agreement only, no timing."""

from __future__ import annotations

import json
import shutil

import pytest

from benchmarks import bench_coco, bench_raw, bench_rl, bench_tokenize


@pytest.fixture(autouse=True)
def _results_elsewhere(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARSECIDER_BENCHMARK_RESULTS", str(tmp_path))
    return tmp_path


def test_rl_rewards_benchmark_agrees(capsys, tmp_path):
    pytest.importorskip("pycocoevalcap", reason="the benchmarks compare with the `ref` extra")
    out = bench_rl.main(["--images", "300", "--batches", "2"])
    assert out["agreement_max_abs_diff"] <= 1e-12
    assert json.loads((tmp_path / "rl_rewards.json").read_text())["sizes"]["df_images"] == 300


def test_coco_benchmark_agrees(shared_data, tmp_path):
    pytest.importorskip("pycocoevalcap", reason="the benchmarks compare with the `ref` extra")
    out = bench_coco.main(["--images", "300", "--repeat", "1", "--ref-repeat", "1", "--no-memory"])
    assert out["agreement"]["max_abs_diff"] <= 1e-12 and out["sizes"]["images"] == 300


def test_tokenizer_benchmark_code_runs(shared_data, monkeypatch):
    if shutil.which("java") is None:
        pytest.skip("this benchmark compares with the Java tokenizer; java is not on PATH")
    pytest.importorskip("pycocoevalcap", reason="the benchmarks compare with the `ref` extra")
    out = bench_tokenize.main(["--repeat", "1", "--java-repeat", "1"])
    assert out["agreement"]["differ"] == 0


def test_ptb_fuzz_benchmark_code_runs(shared_data, tmp_path):
    from benchmarks import bench_ptb_fuzz

    strings, kinds = bench_ptb_fuzz.generate(300, 26)
    assert (strings, kinds) == bench_ptb_fuzz.generate(300, 26)  # one seeded run
    assert len(strings) == 300 and all(kinds)
    if shutil.which("java") is None:
        pytest.skip("the fuzz compares with the Java tokenizer; java is not on PATH")
    pytest.importorskip("pycocoevalcap", reason="the benchmarks compare with the `ref` extra")
    out = bench_ptb_fuzz.main(["--n", "300", "--batch", "150"])
    assert out["strings"] == 300 and (tmp_path / "ptb_fuzz.json").is_file()


def test_meteor_fuzz_benchmark_code_runs(tmp_path):
    # the generators are tested in tests/test_meteor_fuzz.py; here the jar run, at 2 pairs a class
    if shutil.which("java") is None:
        pytest.skip("the fuzz compares with METEOR's jar; java is not on PATH")
    pytest.importorskip("pycocoevalcap", reason="the benchmarks compare with the `ref` extra")
    pytest.importorskip("snowballstemmer", reason="METEOR needs the `meteor` extra")
    from benchmarks import bench_meteor_fuzz

    out = bench_meteor_fuzz.main(["--n", "24"])
    assert out["status"] == "ran" and out["sizes"]["pairs"] == 24
    assert all(v["pairs"] == 2 for v in out["per_class"].values())
    # a pair differs or not; the counts add up whatever the current agreement is
    assert out["mismatches"] == sum(v["mismatches"] for v in out["per_class"].values())
    assert out["errors_ours"] == 0 and (tmp_path / "meteor_fuzz.json").is_file()


def test_ptb_long_benchmark_code_runs(tmp_path):
    from benchmarks import bench_ptb_long

    out = bench_ptb_long.main(["--sizes", "0.001", "0.002"])
    assert len(out["shapes"]) == len(bench_ptb_long.SHAPES)
    assert (tmp_path / "ptb_long.json").is_file()


def test_stream_benchmark_code_runs(tmp_path):
    from benchmarks import bench_stream, make_synthetic

    data = make_synthetic.write(tmp_path / "synthetic.jsonl", 3000, seed=1)
    first = data.read_text().splitlines()[0]
    assert set(json.loads(first)) == {"id", "candidate", "references"}
    # the generator is reproducible: same seed, same bytes
    again = make_synthetic.write(tmp_path / "again.jsonl", 3000, seed=1)
    assert again.read_bytes() == data.read_bytes()
    assert bench_stream.agreement(data, 3000)["bit_identical"]
    out = bench_stream.main(
        ["--data", str(data), "--images", "3000", "--chunk-size", "700", "--no-coco"]
    )
    assert out["sizes"]["images"] == 3000
    assert out["stream_n_jobs_1"]["score"] == out["stream_n_jobs_2"]["score"]
    assert out["stream_n_jobs_1"]["peak_mib"] > 0


def test_raw_text_benchmark_agrees(shared_data):
    if shutil.which("java") is None:
        pytest.skip("this benchmark compares with the Java tokenizer; java is not on PATH")
    pytest.importorskip("pycocoevalcap", reason="the benchmarks compare with the `ref` extra")
    out = bench_raw.main(["--images", "200", "--repeat", "1", "--ref-repeat", "1"])
    assert out["agreement"]["max_abs_diff"] <= 1e-12 and out["sizes"]["images"] == 200


def test_long_inputs_benchmark_code_runs(tmp_path):
    from benchmarks import bench_long_inputs

    argv = ["--sizes", "0.001", "--repeat", "1", "--cases", "whitespace:token"]
    out = bench_long_inputs.main(argv)
    assert [(r["tokenizer"], r["input"], r["mb"]) for r in out["rows"]] == [
        ("whitespace", "token", 0.001)
    ]
    assert (tmp_path / "long_inputs.json").is_file()


def test_meteor_long_benchmark_code_runs(tmp_path):
    pytest.importorskip("pycocoevalcap", reason="METEOR reads its data from the `meteor` extra")
    pytest.importorskip("snowballstemmer", reason="METEOR needs the `meteor` extra")
    from benchmarks import bench_meteor_long

    out = bench_meteor_long.main(["--sizes", "0.001", "0.002"])
    assert len(out["rows"]) == 2 * len(bench_meteor_long.SHAPES)
    assert (tmp_path / "meteor_long.json").is_file()


def test_toolkit_benchmark_agrees(tmp_path):
    if shutil.which("java") is None:
        pytest.skip("this benchmark compares with the Java tokenizer; java is not on PATH")
    pytest.importorskip("pycocotools", reason="the benchmarks compare with the `ref` extra")
    from benchmarks import bench_toolkit

    out = bench_toolkit.main(["--images", "40", "--repeat", "1", "--ref-repeat", "1",
                              "--skip-meteor"])  # fmt: skip
    assert max(a["max_abs_diff"] for a in out["agreement"].values()) <= 1e-12
    assert len(out["agreement"]) == 6 and (tmp_path / "toolkit.json").is_file()
