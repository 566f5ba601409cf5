from __future__ import annotations

import json
import subprocess
import sys

import sparsecider
from sparsecider.cli import main
from sparsecider.demo import PUBLISHED_CIDER_D


def test_demo_reproduces_the_published_number(capsys):
    assert main(["--demo", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == PUBLISHED_CIDER_D == 0.5997905185184199
    assert out["matches_published"] is True
    assert out["n_images"] == 1000 and out["signature"].startswith("CIDEr-D|n:4|sigma:6|df:corpus|")


def test_demo_text_as_a_module():
    run = subprocess.run(
        [sys.executable, "-m", "sparsecider", "--demo"], capture_output=True, text=True, check=True
    )
    assert run.stdout.startswith(
        "CIDEr-D = 0.5997905185184199 | "
        f"CIDEr-D|n:4|sigma:6|df:corpus|tok:ptb|version:{sparsecider.__version__}"
    )


def test_no_arguments_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage: sparsecider" in capsys.readouterr().err
