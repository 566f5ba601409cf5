"""Build hook (hatchling): puts the pycocoevalcap replacement's start-up file in the wheel.

``sparsecider-replace-pycocoevalcap.pth`` goes to the root of site-packages
in wheel *and* editable installs (``force_include_editable``: setuptools'
editable wheels cannot carry such a file).  Its one line is
``sparsecider.compat.hook.PTH_LINE``, read from that module's file
(it imports the standard library only).  This file is excluded from the
wheel; hatchling finds the hook through :func:`get_build_hook`, which keeps
hatchling out of the module's imports (pytest imports every module of the
package to collect its doctests).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile

__all__ = ["get_build_hook"]


def _startup_file(folder: str) -> tuple[str, str]:
    """Write the start-up file into ``folder``: (its path, its name in site-packages)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "_sparsecider_pth_source", os.path.join(here, "compat", "hook.py")
    )
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    path = os.path.join(folder, hook.PTH_NAME)
    with open(path, "w", encoding="utf-8") as f:
        f.write(hook.PTH_LINE)
    return path, hook.PTH_NAME


def get_build_hook():
    """The hook class (hatchling calls this when it loads the file)."""
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface

    class StartupFileHook(BuildHookInterface):
        def initialize(self, version: str, build_data: dict) -> None:
            self._folder = tempfile.mkdtemp(prefix="sparsecider-pth-")
            path, name = _startup_file(self._folder)
            key = "force_include_editable" if version == "editable" else "force_include"
            build_data[key][path] = name

        def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
            shutil.rmtree(self._folder, ignore_errors=True)

    return StartupFileHook
