"""The start-up hook of the pycocoevalcap replacement: fresh processes, as users start them.

Each test starts a Python process with a given ``SPARSECIDER_REPLACE_PYCOCOEVALCAP``.
The start-up file is the installed one when the package was installed with
it (CI's virtual environments); otherwise (an editable install made before
the hatchling build) a ``sitecustomize`` hands the same line to
``site.addsitedir``, the function site reads ``.pth`` files with, so that
the processes those processes start get it too.  ``.ci/run`` checks the
wheel and editable installs themselves.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sparsecider.compat.hook import ENV, PTH_LINE, PTH_NAME

ROOT = Path(__file__).resolve().parents[1]
REAL = "site-packages/pycocoevalcap/eval.py"


def installed_startup_file() -> Path | None:
    for folder in [*site.getsitepackages(), site.getusersitepackages()]:
        path = Path(folder) / PTH_NAME
        if path.is_file():
            return path
    return None


@pytest.fixture(scope="module")
def child_env(tmp_path_factory):
    """``env(value)``: the environment of a child process with the variable at ``value``
    (None: unset) and the repository's sparsecider first on its path."""
    paths = [str(ROOT)]
    if installed_startup_file() is None:
        folder = tmp_path_factory.mktemp("startup")
        (folder / "site").mkdir()
        (folder / "site" / PTH_NAME).write_text(PTH_LINE, encoding="utf-8")
        (folder / "sitecustomize.py").write_text(
            f"import site\nsite.addsitedir({str(folder / 'site')!r})\n", encoding="utf-8"
        )
        paths.insert(0, str(folder))

    def env(value: str | None) -> dict:
        result = {k: v for k, v in os.environ.items() if k not in (ENV, "PYTHONPATH")}
        result["PYTHONPATH"] = os.pathsep.join(paths)
        if value is not None:
            result[ENV] = value
        return result

    return env


def run(env: dict, code: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


WHICH = """
import sys
before = sorted(m for m in sys.modules if m.split(".")[0] in ("sparsecider", "pycocoevalcap"))
import pycocoevalcap.eval as e, pycocoevalcap
print(e.__file__)
print(getattr(pycocoevalcap, "__sparsecider__", "real"))
print(before)
"""


def test_the_startup_line_is_one_line_that_reads_the_variable_first():
    assert PTH_LINE.count("\n") == 1 and PTH_LINE.endswith("\n")
    assert PTH_LINE.startswith(f"import os; os.environ.get({ENV!r}, '').strip().lower() not in ")
    # after the editable installs' start-up files (site reads them sorted)
    assert sorted([PTH_NAME, "__editable__.sparsecider-0.1.0.pth", "_sparsecider.pth"])[-1] == (
        PTH_NAME
    )


def test_the_hook_module_is_where_the_startup_line_loads_it_from():
    import sparsecider.compat.hook as hook

    assert hook._HOOK == hook.__name__
    assert Path(hook.__file__).as_posix().endswith(hook._HOOK.replace(".", "/") + ".py")
    assert hook._MODULES == "sparsecider.compat.pycocoevalcap_modules"


@pytest.mark.parametrize("value", [None, "", "0", "false", "No", " off "])
def test_unset_or_off_imports_the_real_package_and_loads_nothing(child_env, value):
    out = run(child_env(value), WHICH)
    assert out.returncode == 0, out.stderr
    file, which, before = out.stdout.splitlines()
    assert file.endswith(REAL) and which == "real"
    assert before == "[]"  # sparsecider was not imported at start-up
    assert "sparsecider" not in out.stderr


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_on_serves_sparsecider_and_says_so_once_on_stderr(child_env, value):
    code = WHICH + "import pycocoevalcap.cider.cider, pycocoevalcap.bleu.bleu_scorer\n"
    out = run(child_env(value), code)
    assert out.returncode == 0, out.stderr
    file, which, before = out.stdout.splitlines()
    assert file.endswith("sparsecider/compat/pycocoevalcap_modules.py")
    assert which.startswith("sparsecider ") and "replacement of pycocoevalcap 1.2" in which
    # the start-up line loaded its module alone (not the package: numpy, scipy),
    # which put a finder in place; sparsecider came with pycocoevalcap
    assert before == "['sparsecider.compat.hook']"
    lines = [line for line in out.stderr.splitlines() if "pycocoevalcap" in line]
    assert len(lines) == 1 and f"{ENV}=quiet silences this line" in lines[0]


def test_quiet_serves_sparsecider_silently(child_env):
    out = run(child_env("quiet"), WHICH)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].startswith("sparsecider ")
    assert out.stderr == ""


def test_an_unknown_value_fails_at_the_first_import_not_at_start_up(child_env):
    code = "print('started')\nimport pycocoevalcap.eval\n"
    out = run(child_env("maybe"), code)
    assert out.stdout == "started\n"
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        f"ImportError: {ENV}='maybe' is not a value it takes (1, true, yes, on (on); quiet "
        "(on, silently); 0, false, no, off or empty (off)); unset it to import the real "
        "pycocoevalcap"
    )


def test_a_name_the_replacement_lacks_is_an_import_error_naming_it(child_env):
    code = """
    for statement in ("from pycocoevalcap.eval import Scorer",
                      "import pycocoevalcap.example.coco_eval_example",
                      "from pycocoevalcap.rouge.rouge import my_lcs"):
        try:
            exec(statement)
        except ImportError as err:
            print(type(err).__name__, "|", err)
    """
    out = run(child_env("quiet"), code)
    assert out.returncode == 0, out.stderr
    first, second, third = out.stdout.splitlines()
    off = f"unset {ENV} (or set it to 0) to use the real pycocoevalcap"
    assert first.startswith("ImportError | pycocoevalcap.eval.Scorer is not part of sparsecider")
    # the import system asks for the parent package first
    assert second.startswith("ModuleNotFoundError | pycocoevalcap.example is not part of")
    assert third.startswith("ImportError | pycocoevalcap.rouge.rouge.my_lcs is not part of")
    assert all(line.endswith(off) for line in (first, second, third))


def test_the_startup_line_may_run_twice(child_env, tmp_path):
    # site reads a .pth twice when two site directories are one (a venv's lib64)
    code = f"""
    import sys
    exec({PTH_LINE!r})
    exec({PTH_LINE!r})
    print(sum(getattr(f, "sparsecider_replacement", False) for f in sys.meta_path))
    """
    out = run(child_env("quiet"), code)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "1\n"


SPAWNED = """
import json
import multiprocessing
import sys

sys.path.insert(0, {root!r})


def score(metric):
    # a spawned child: a fresh interpreter with the parent's environment, nothing more
    import pycocoevalcap
    from pycocoevalcap.eval import Bleu, Cider, PTBTokenizer

    from tests.fixtures.make_pycocoevalcap_toolkit import toolkit_inputs

    dataset, results = toolkit_inputs()
    gts = {{r["image_id"]: [] for r in results}}
    for a in dataset["annotations"]:
        gts[a["image_id"]].append(a)
    res = {{r["image_id"]: [r] for r in results}}
    tokenizer = PTBTokenizer()
    gts, res = tokenizer.tokenize(gts), tokenizer.tokenize(res)
    if metric == "CIDEr":
        scores = Cider().compute_score(gts, res)[1].tolist()
    else:
        scores = Bleu(4).compute_score(gts, res, verbose=0)[1][3]
    return pycocoevalcap.__sparsecider__, metric, list(gts), scores


if __name__ == "__main__":
    assert "pycocoevalcap" not in sys.modules
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print(json.dumps(pool.map(score, ["CIDEr", "Bleu_4"])))
"""


def test_spawned_children_get_the_replacement_from_the_variable_alone(child_env, tmp_path):
    from tests.test_pycocoevalcap_replacement import fixture

    script = tmp_path / "spawned.py"
    script.write_text(SPAWNED.format(root=str(ROOT)), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, str(script)], env=child_env("quiet"), capture_output=True, text=True,
        timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    expected = fixture()
    (which_c, cider, ids_c, c), (which_b, bleu, ids_b, b) = json.loads(out.stdout)
    assert which_c.startswith("sparsecider ") and which_b == which_c
    assert (cider, bleu) == ("CIDEr", "Bleu_4")
    assert ids_c == ids_b == expected["image_ids"]
    assert max(abs(x - y) for x, y in zip(c, expected["per_image"]["CIDEr"], strict=True)) <= 1e-12
    assert max(abs(x - y) for x, y in zip(b, expected["per_image"]["Bleu_4"], strict=True)) <= 1e-12


def test_the_installed_startup_file_is_the_line(child_env):
    path = installed_startup_file()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the package with its start-up file ({PTH_NAME})")
        pytest.skip("sparsecider was installed without its start-up file (before hatchling)")
    assert path.read_text(encoding="utf-8") == PTH_LINE
