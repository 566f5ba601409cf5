"""Every notebook runs from top to bottom (outputs are not committed)."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert [p.stem for p in NOTEBOOKS] == [
        "01_quickstart", "02_human_judgments", "03_rl_rewards", "04_sklearn", "05_cjk",
        "06_command_line", "07_pycocoevalcap", "08_document_frequencies", "09_large_corpora",
        "10_significance",
    ]  # fmt: skip


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat", reason="notebooks run with the `test` extra")
    nbclient = pytest.importorskip("nbclient", reason="notebooks run with the `test` extra")
    book = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in book.cells if cell.cell_type == "code"), (
        f"{path.name} was committed with outputs; strip them"
    )
    client = nbclient.NotebookClient(
        book, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
