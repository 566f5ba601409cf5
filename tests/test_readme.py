"""The README as a user meets it: its commands run as written, its examples
print what it shows, and nothing it does not show.

- Every shell command of a ``bash`` or ``console`` block runs, in order, in
  a fresh folder where ``sparsecider demo --write .`` has put the example
  files (the README says so before its first command); a ``console`` block
  also shows the output, which must be exactly what the command prints
  (standard output and error together).
- The Python examples (``>>>``, run by pytest's doctest of README.md) emit
  no warning: a warning reaches a user on standard error, and the README
  would not show it.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"

# Commands the README shows that this test leaves to others, and why: the
# install commands are what CI itself runs first (.ci/run), the test command
# is this suite, and the developers' commands need the lint extra, Java or the
# developers' data folder (benchmarks/README.md).
NOT_RUN_HERE = {
    "pip install": "CI runs the install command itself (.ci/run)",
    "python -m pytest": "the test command runs this suite",
    "ruff": "the lint extra, for developers",
    "python -m benchmarks": "benchmarks need Java and ../shared/data (benchmarks/README.md)",
}


def _blocks() -> list[tuple[str, int, list[str]]]:
    """``(kind, line number, lines)`` of every bash and console block, in order."""
    blocks, kind, start, body = [], None, 0, []
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), start=1):
        if kind is None:
            fence = re.fullmatch(r"```(bash|console|sh|shell)\s*", line)
            if fence:
                kind, start, body = fence.group(1), number, []
        elif line.startswith("```"):
            blocks.append((kind, start, body))
            kind = None
        else:
            body.append(line)
    return blocks


def _commands() -> list[tuple[str, str | None, int]]:
    """``(command, expected output or None, README line)`` in README order."""
    out = []
    for kind, start, body in _blocks():
        if kind == "console":
            command, expected, at = None, [], start
            for offset, line in enumerate(body, start=1):
                if line.startswith("$ "):
                    if command is not None:
                        out.append((command, "\n".join(expected), at))
                    command, expected, at = line[2:], [], start + offset
                else:
                    expected.append(line)
            if command is not None:
                out.append((command, "\n".join(expected), at))
        else:
            for offset, line in enumerate(body, start=1):
                if line.strip() and not line.lstrip().startswith("#"):
                    out.append((line, None, start + offset))
    return out


def _left_out(command: str) -> str | None:
    return next((why for prefix, why in NOT_RUN_HERE.items() if command.startswith(prefix)), None)


def test_the_readme_says_where_the_example_files_come_from():
    commands = [c for c, _, _ in _commands()]
    assert commands[0].startswith("pip install . && sparsecider --demo ")
    assert next(c for c in commands if not _left_out(c)).startswith("sparsecider demo --write .")


def test_every_command_runs_as_written(tmp_path):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    ran, left = 0, []
    for command, expected, line in _commands():
        why = _left_out(command)
        if why:
            left.append(why)
            continue
        run = subprocess.run(
            ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        shown = (run.stdout + run.stderr).rstrip("\n")
        where = f"README.md:{line}: {command}"
        if expected is None:
            assert run.returncode == 0, f"{where}\nexit {run.returncode}\n{shown}"
        else:
            assert shown == expected.rstrip("\n"), f"{where}\nprinted:\n{shown}"
            error = expected.startswith("sparsecider: error:")
            assert (run.returncode == 1) if error else (run.returncode == 0), where
        ran += 1
    assert ran >= 15
    assert sorted(set(left)) == sorted(set(NOT_RUN_HERE.values()))


def test_the_python_examples_warn_nothing_they_do_not_show():
    text = README.read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = runner.run(test, out=lambda _: None)
    assert result.failed == 0
    shown = [f"{w.category.__name__}: {w.message}" for w in caught]
    assert shown == [], "README examples warn without showing it:\n" + "\n".join(shown)
