from __future__ import annotations

import os
import warnings

import pytest

from benchmarks import datasets
from sparsecider import SmallCorpusWarning

# the fixture generators need Java and the `ref` extra; they are scripts, not tests
collect_ignore = ["fixtures"]


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "realdata: needs ../shared/data beside the repository (or SPARSECIDER_DATA=DIR)",
    )


@pytest.fixture(scope="session")
def shared_data():
    if not datasets.available():
        if os.environ.get("CI"):
            pytest.fail(
                f"CI must have the real caption data at {datasets.DATA} "
                "(set SPARSECIDER_DATA=DIR to read it from elsewhere)"
            )
        pytest.skip(
            f"real caption data not found at {datasets.DATA} (CI always has it); "
            "set SPARSECIDER_DATA=DIR to where it is"
        )
    return datasets


@pytest.fixture(scope="session")
def coco_data():
    """The COCO val files: from ../shared/data, or the copy kept in tests/data
    (so a fresh clone runs the COCO parity tests)."""
    if not datasets.coco_available():
        pytest.fail(f"the COCO files are missing from {datasets.VENDORED_COCO}")
    return datasets


@pytest.fixture(autouse=True)
def _no_stray_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # most tests score a handful of images on purpose; the small-corpus
        # advice has its own tests (test_named_df.py)
        warnings.filterwarnings("ignore", category=SmallCorpusWarning)
        yield


@pytest.fixture(scope="session")
def fifty_s_data():
    """PASCAL-50S and ABSTRACT-50S: from ../shared/data, or the copy in tests/data."""
    if not datasets.fifty_s_available():
        pytest.fail(f"the 50S files are missing from {datasets.VENDORED}")
    return datasets


@pytest.fixture
def tqdm_bars(monkeypatch):
    """Every ``tqdm.auto.tqdm`` bar made during the test (for its total and count)."""
    tqdm_auto = pytest.importorskip("tqdm.auto", reason="progress bars need the progress extra")
    bars = []

    class Recorder(tqdm_auto.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(self)

    monkeypatch.setattr(tqdm_auto, "tqdm", Recorder)
    return bars
