"""Every module of the package compiles under the running Python, warnings as errors.

Run on 3.11, 3.12 and 3.13 by CI (``.ci/run``).  What each Python rejects or
warns about in a source file: an invalid escape (``"\\d"``: a
DeprecationWarning on 3.11, a SyntaxWarning since 3.12, an error to come);
a lone surrogate in a docstring (3.13 cleans docstrings at compile time and
cannot encode one: ``import sparsecider`` failed there when
``tokenizers/ja.py``'s docstring held a non-raw ``"\\ud800"``).  The
docstring check also runs on the older Pythons, so that a surrogate is
caught before it reaches 3.13.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sparsecider"


def problems(source: str, filename: str) -> list[str]:
    """What keeps ``source`` from compiling cleanly on this Python (empty: nothing)."""
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            tree = compile(source, filename, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            compile(source, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, UnicodeError, Warning) as err:
            return [f"{filename}: {type(err).__name__}: {err}"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            try:
                (doc or "").encode("utf-8")
            except UnicodeEncodeError as err:
                where = getattr(node, "name", "module")
                found.append(f"{filename}: the docstring of {where} cannot be encoded: {err}")
    return found


def test_every_module_of_the_package_compiles_with_warnings_as_errors():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50  # the whole package, not an empty glob
    found = [p for path in modules for p in problems(path.read_text("utf-8"), str(path))]
    assert found == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # the old tokenizers/ja.py docstring, in short (a non-raw "\ud800")
        ('"""Lone surrogates (``"\\ud800"``, from text decoded with errors)."""\n', "encode"),
        ('def f():\n    """A docstring holding \\udfff."""\n', "encode"),
        ('PATTERN = "\\d+"\n', "escape"),
    ],
)
def test_the_check_finds_a_surrogate_docstring_and_an_invalid_escape(source, expected):
    found = problems(source, "synthetic.py")
    assert len(found) == 1 and expected in found[0]


def test_the_check_accepts_the_escaped_forms():
    assert problems('"""Lone surrogates (``"\\\\ud800"``)."""\nPATTERN = r"\\d+"\n', "ok.py") == []
