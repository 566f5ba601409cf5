"""The layering rules of DESIGN.md, checked on the source (ast), so they stay true.

- no import cycle between the package's modules (imports inside functions
  count; ``if TYPE_CHECKING:`` blocks do not, they never run);
- no module imports another module's ``_private`` name (a helper two modules
  need is public in a private module such as ``_checks`` or ``_kernels``);
- the kernels import nothing above them;
- each layer imports only its own layer and the layers below it
  (:data:`LAYERS`, lowest first: the folders show them);
- every module has at most 500 lines, and at most 15 modules sit directly in
  the package folder;
- no alias module (a module that only re-exports names of another);
- ``__version__`` lives in its own module.

The checker itself is tested on small synthetic packages, so a rule that
silently stopped matching would fail here too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "sparsecider"

#: The layers, lowest first; a module may import its own layer and those below.
#: A name is a module or a package (all of its modules).
LAYERS = (
    ("sparsecider._version", "sparsecider._kernels"),  # pure functions over arrays
    ("sparsecider._checks",),  # primitive checks of one value
    ("sparsecider.tokenizers", "sparsecider.io"),  # text -> tokens; files
    ("sparsecider.core",),  # validation, Corpus, engine, reduce, df, result
    ("sparsecider.metrics",),  # one module per metric
    ("sparsecider.training", "sparsecider.scale"),  # training loops; chunks of any size
    (  # the faces users import
        "sparsecider.compat", "sparsecider.vectorizer", "sparsecider.stream",
        "sparsecider.dask", "sparsecider.significance", "sparsecider.demo",
        "sparsecider._demo_cjk",
    ),
    ("sparsecider.cli", "sparsecider.__main__", "sparsecider"),  # the command line; the facade
)  # fmt: skip
MAX_LINES = 500
MAX_TOP_LEVEL_MODULES = 15


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_nodes(tree: ast.AST):
    """Every node except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.If)
                and isinstance(child.test, ast.Name)
                and child.test.id == "TYPE_CHECKING"
            ):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def imports(root: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph of the package under ``root`` and the private-name violations."""
    modules = {module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    private: list[str] = []
    for mod, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _runtime_nodes(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        graph[mod].add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".")
                    base = base if is_package else base[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != root.name:
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules:  # from package import module
                        graph[mod].add(sub)
                        continue
                    graph[mod].add(target)
                    name = alias.name
                    if name.startswith("_") and not name.startswith("__") and target != mod:
                        private.append(f"{mod} imports {target}.{name}")
    return graph, private


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (or a self-loop)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str, layers: tuple[tuple[str, ...], ...]) -> int:
    """The index of the layer holding ``module`` (the longest name that is the
    module or a package above it); a module in no layer is an error."""
    best, found = -1, None
    for i, names in enumerate(layers):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, found = len(name), i
    if found is None:
        raise ValueError(f"{module} is in no layer: add it to LAYERS")
    return found


def layer_violations(graph: dict[str, set[str]], layers) -> list[str]:
    """Every import of a module in a higher layer than the importer's."""
    return sorted(
        f"{mod} imports {target}"
        for mod, targets in graph.items()
        for target in targets
        if layer_of(target, layers) > layer_of(mod, layers)
    )


def alias_modules(root: Path) -> list[str]:
    """Modules (not package ``__init__``) whose body is only imports, ``__all__``
    and a docstring: they re-export names defined elsewhere."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        body = ast.parse(path.read_text(encoding="utf-8")).body
        imported = False
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                imported = imported or not (
                    isinstance(node, ast.ImportFrom) and node.module == "__future__"
                )
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                pass  # a docstring
            elif isinstance(node, ast.Assign) and [
                getattr(t, "id", None) for t in node.targets
            ] == ["__all__"]:
                pass
            else:
                break
        else:
            if imported:
                found.append(module_name(path, root))
    return found


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_finds_cycles_private_names_and_skips_type_checking(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "a.py": "def f():\n    from .b import g\n",  # a function-level import counts
        "b.py": "from .a import f\nfrom .c import _helper\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import g\n"
                "def _helper(): ...\n",
        "sub/__init__.py": "from .. import c\n",
        "sub/d.py": "from ..c import _helper as h\n",
    })  # fmt: skip
    graph, private = imports(root)
    assert graph["pkg.sub"] == {"pkg.c"} and graph["pkg.c"] == set()
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    assert sorted(private) == ["pkg.b imports pkg.c._helper", "pkg.sub.d imports pkg.c._helper"]


def test_the_checker_finds_imports_up_the_layers_and_alias_modules(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "from .faces import f\n",
        "low/__init__.py": "",
        "low/a.py": "def g():\n    from ..mid import b\n",  # up: a violation
        "low/c.py": "from .a import g\nh = g\n",  # its own layer: fine
        "mid.py": "from .low.a import g\n__all__ = ['g']\n",  # only re-exports: an alias
        "faces.py": "from .mid import g\ndef f(): ...\n",
    })  # fmt: skip
    layers = (("pkg.low",), ("pkg.mid",), ("pkg.faces", "pkg"))
    graph, _ = imports(root)
    assert layer_violations(graph, layers) == ["pkg.low.a imports pkg.mid"]
    assert alias_modules(root) == ["pkg.mid"]
    with pytest.raises(ValueError, match=r"pkg\.stray is in no layer"):
        layer_of("pkg.stray", (("pkg.low",),))


def test_each_layer_imports_only_itself_and_the_layers_below():
    graph, _ = imports(PACKAGE)
    assert layer_violations(graph, LAYERS) == []


def test_no_alias_module():
    assert alias_modules(PACKAGE) == []


def test_every_module_is_at_most_500_lines():
    long = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in PACKAGE.rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_at_most_15_modules_sit_directly_in_the_package():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_the_parser_offers_the_registered_tokenizers():
    # the parser reads the names without loading the tokenizers
    from sparsecider.tokenizers import registered
    from sparsecider.tokenizers.names import REGISTERED

    assert registered() == REGISTERED


def test_no_import_cycle():
    graph, _ = imports(PACKAGE)
    assert len(graph) > 30  # the walk found the package
    assert cycles(graph) == []


def test_no_module_imports_another_modules_private_name():
    _, private = imports(PACKAGE)
    assert private == []


def test_kernels_and_primitive_checks_import_nothing_above_them():
    graph, _ = imports(PACKAGE)
    low = ("sparsecider._kernels", "sparsecider._checks", "sparsecider._version")
    for mod, targets in graph.items():
        if mod.startswith(low):
            above = sorted(t for t in targets if not t.startswith(low))
            assert above == [], f"{mod} imports {above}"


@pytest.mark.parametrize(
    "module",
    ["sparsecider/__init__.py", "sparsecider/cli/__init__.py", "sparsecider/cli/parser.py"],
)
def test_version_lives_in_its_own_module(module):
    path = PACKAGE.parent / module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assigned = [
        t.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    ]
    assert "__version__" not in assigned
    assert '\n__version__ = "' in (PACKAGE / "_version.py").read_text()


@pytest.mark.parametrize("old", ["stats", "scoring", "tokenize", "ptb"])
def test_the_alias_modules_of_unreleased_versions_are_gone(old):
    # they were deprecated aliases of paths no release ever had (CHANGELOG.md)
    import importlib

    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"sparsecider.{old}")


def test_every_module_declares_its_public_names():
    """Each module (not the package markers) has an ``__all__`` of names it defines."""
    exempt = {"__init__.py", "__main__.py", "_version.py"}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in exempt:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declared = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        assert declared, f"{path.relative_to(PACKAGE.parent)} has no __all__"
        names = {elt.value for elt in declared[0].elts}
        defined = set()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                defined.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    elts = target.elts if isinstance(target, ast.Tuple) else [target]
                    defined.update(e.id for e in elts if isinstance(e, ast.Name))
            elif isinstance(node, ast.ImportFrom | ast.Import):
                defined.update(alias.asname or alias.name for alias in node.names)
        assert names <= defined, f"{path.name}: __all__ names {sorted(names - defined)} undefined"


def test_the_facade_documents_each_public_name():
    import sparsecider

    doc = sparsecider.__doc__
    for name in sparsecider.__all__:
        if name not in ("__version__", "SmallCorpusWarning", "Signature", "compat"):
            assert name in doc, f"sparsecider.{name} is not described in the package docstring"
