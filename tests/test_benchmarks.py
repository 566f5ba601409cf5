"""Smoke tests of the benchmark code at tiny sizes: agreement only, no timing."""

from __future__ import annotations

import json
import shutil

import pytest

from benchmarks import bench_coco, bench_rl, bench_tokenize


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
