"""``import pycocoevalcap`` served by sparsecider's Java-free classes, on request.

For code one does not edit (evaluation toolkits: lmms-eval, LAVIS, ...):
with ``SPARSECIDER_REPLACE_PYCOCOEVALCAP=1`` in the environment, every
``import pycocoevalcap...`` of the process, and of the processes it starts,
gets the modules of :mod:`sparsecider.compat.pycocoevalcap_modules` instead of the
real package, which stays installed and untouched.  :func:`install` does
the same from code, :func:`uninstall` gives the real package back.

How: the package installs a one-line start-up file,
``sparsecider-replace-pycocoevalcap.pth`` (:data:`PTH_LINE`), as setuptools
installs ``distutils-precedence.pth``.  With the variable unset or empty it
reads the variable and does nothing else.  Otherwise it loads this module
by its file, without importing sparsecider (numpy, scipy: a second of
start-up), and puts a finder first on ``sys.meta_path``; sparsecider is
imported at the first ``import pycocoevalcap``.  So this module imports the
standard library only, at its top and everywhere else but
:meth:`_Finder.exec_module`.

Values of the variable (case and surrounding spaces ignored): ``1``,
``true``, ``yes``, ``on`` turn the replacement on and print one line on
stderr the first time it acts; ``quiet`` turns it on silently; ``0``,
``false``, ``no``, ``off`` or empty leave pycocoevalcap alone.  Any other
value makes ``import pycocoevalcap`` fail with an ``ImportError`` saying so
(not the interpreter's start).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

__all__ = ["ENV", "PTH_LINE", "PTH_NAME", "install", "uninstall"]

ENV = "SPARSECIDER_REPLACE_PYCOCOEVALCAP"
_ON = ("1", "true", "yes", "on")
_QUIET = ("quiet",)
_OFF = ("", "0", "false", "no", "off")
_ACCEPTED = "1, true, yes, on (on); quiet (on, silently); 0, false, no, off or empty (off)"

# this module's import name and the modules it serves from: the .pth line
# loads this file by these names (a test checks they match the package)
_HOOK = "sparsecider.compat.hook"
_MODULES = "sparsecider.compat.pycocoevalcap_modules"

#: The name of the start-up file: after ``_``-prefixed editable-install files
#: (site reads them in sorted order), which must have run for the line to
#: find an editable sparsecider.
PTH_NAME = "sparsecider-replace-pycocoevalcap.pth"

# Run only when the variable is non-empty.  find_spec locates the package
# without importing it; the module registered under its own name is the one
# a later ``import sparsecider.compat.hook`` returns.
_BOOT = f"""\
import importlib.util as u, os, sys
if {_HOOK!r} not in sys.modules:
    s = u.find_spec("sparsecider")
    f = s and s.submodule_search_locations and os.path.join(
        s.submodule_search_locations[0], {"/".join(_HOOK.split(".")[1:]) + ".py"!r})
    if f and os.path.isfile(f):
        h = u.spec_from_file_location({_HOOK!r}, f)
        m = sys.modules[h.name] = u.module_from_spec(h)
        h.loader.exec_module(m)
{_HOOK!r} in sys.modules and sys.modules[{_HOOK!r}]._start()
"""

#: The one line of the start-up file: site executes a ``.pth`` line that
#: starts with ``import``.  ``os`` is imported before site reads any ``.pth``;
#: unset, empty or off, the variable costs one look-up.
PTH_LINE = (
    f"import os; os.environ.get({ENV!r}, '').strip().lower() not in {_OFF!r} "
    f"and exec({_BOOT!r}, {{}})\n"
)


def _mode(value: str) -> str:
    """``"on"``, ``"quiet"``, ``"off"`` or ``"invalid"`` for a value of the variable."""
    value = value.strip().lower()
    for mode, values in (("on", _ON), ("quiet", _QUIET), ("off", _OFF)):
        if value in values:
            return mode
    return "invalid"


def _is_pycocoevalcap(name: str) -> bool:
    return name == "pycocoevalcap" or name.startswith("pycocoevalcap.")


class _Finder:
    """First on ``sys.meta_path``: finds every ``pycocoevalcap`` name, loads ours.

    A meta path finder and loader (duck-typed: ``importlib.abc`` costs
    start-up time).  ``served`` lists the names it has loaded, for
    :func:`uninstall`.
    """

    sparsecider_replacement = True  # how install() and uninstall() recognise it

    def __init__(self, mode: str, value: str) -> None:
        self.mode = mode
        self.value = value
        self.announced = False
        self.served: list[str] = []

    def find_spec(self, fullname: str, path=None, target=None):
        if not _is_pycocoevalcap(fullname):
            return None
        if self.mode == "invalid":
            raise ImportError(
                f"{ENV}={self.value!r} is not a value it takes ({_ACCEPTED}); "
                f"unset it to import the real pycocoevalcap",
                name=fullname,
            )
        from importlib import import_module

        modules = import_module(_MODULES)
        real = modules.real_file(fullname)
        if real is not None:
            # the real module itself, from its own file: its jar paths work
            spec = importlib.util.spec_from_file_location(fullname, real)
        elif modules.provides(fullname):
            spec = importlib.machinery.ModuleSpec(
                fullname, self, origin=modules.__file__, is_package=modules.is_package(fullname)
            )
            spec.has_location = True  # __file__ says which implementation this is
        else:
            raise ModuleNotFoundError(modules.not_provided(fullname), name=fullname)
        self._announce()
        self.served.append(fullname)
        return spec

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module) -> None:
        from importlib import import_module

        import_module(_MODULES).fill(module)
        package = sys.modules.get("sparsecider.compat")
        if package is not None and not hasattr(package, "hook"):
            # loaded by the .pth line before its package: bind it as an import would
            package.hook = sys.modules[_HOOK]

    def _announce(self) -> None:
        if self.announced or self.mode == "quiet":
            return
        self.announced = True
        from importlib import import_module

        print(import_module(_MODULES).announcement(ENV), file=sys.stderr)


def _finders() -> list:
    return [f for f in sys.meta_path if getattr(f, "sparsecider_replacement", False)]


def _activate(mode: str, value: str) -> None:
    if not _finders():
        sys.meta_path.insert(0, _Finder(mode, value))


def _start() -> None:
    """Called by the start-up line (maybe twice: site may read a ``.pth`` twice)."""
    value = os.environ.get(ENV, "")
    mode = _mode(value)
    if mode != "off":
        _activate(mode, value)


# the real package's modules imported before install(), given back by uninstall()
_stashed: dict[str, object] = {}


def install(*, quiet: bool = False) -> None:
    """Serve ``import pycocoevalcap...`` with sparsecider's classes from now on.

    Also sets ``SPARSECIDER_REPLACE_PYCOCOEVALCAP`` so that the processes
    this one starts (``multiprocessing``, ``subprocess``) do the same.
    Calling it again does nothing.  Modules of the real package imported
    before are set aside (names already bound to them keep them).

    Parameters
    ----------
    quiet : bool, default False
        Do not print the line announcing the replacement on stderr.

    Examples
    --------
    >>> from sparsecider.compat.hook import install, uninstall
    >>> install(quiet=True)
    >>> from pycocoevalcap.eval import Cider
    >>> gts = {1: ["a dog runs fast"], 2: ["the red bus stops"]}
    >>> Cider().compute_score(gts, {1: ["a dog runs fast"], 2: ["a cat"]})[1].tolist()
    [10.0, 0.0]
    >>> import pycocoevalcap
    >>> pycocoevalcap.__sparsecider__
    'sparsecider ...: the Java-free replacement of pycocoevalcap 1.2'
    >>> uninstall()
    """
    if _finders():
        return
    value = os.environ.get(ENV, "")
    if _mode(value) not in ("on", "quiet") or (quiet and _mode(value) == "on"):
        value = os.environ[ENV] = "quiet" if quiet else "1"
    for name in [n for n in sys.modules if _is_pycocoevalcap(n)]:
        _stashed[name] = sys.modules.pop(name)
    _activate(_mode(value), value)


def uninstall() -> None:
    """Give ``import pycocoevalcap`` back to the real package (undo :func:`install`).

    Removes the finder, the modules it served and the variable (so that
    processes started from now on get the real package too), and puts back
    the real modules :func:`install` set aside.  Names already bound to the
    replacement's classes keep them.  Does nothing when not installed.
    """
    for finder in _finders():
        sys.meta_path.remove(finder)
        for name in finder.served:
            sys.modules.pop(name, None)
    os.environ.pop(ENV, None)
    sys.modules.update(_stashed)
    _stashed.clear()
