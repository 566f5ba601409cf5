"""METEOR's data, read from the user's installed pycocoevalcap (never shipped).

The jar ``pycocoevalcap/meteor/meteor-1.5.jar`` is a zip file: its word lists
are read with :mod:`zipfile`.  The paraphrase table ``meteor/data/paraphrase-en.gz``
beside it is compiled once into a compact index cached as a folder of ``.npy``
files (:mod:`~sparsecider.metrics.meteor.cache`).  Every failure names the file and
what to install.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "INSTALL_HINT",
    "REINSTALL_HINT",
    "MeteorDataError",
    "Sources",
    "locate",
    "read_jar_text",
]

#: What to install when METEOR's extra is missing (pycocoevalcap 1.2 and snowballstemmer 2.2.0).
INSTALL_HINT = 'pip install "sparsecider[meteor]"'
#: What to do when pycocoevalcap's METEOR files are damaged (installing the extra again would
#: leave them as they are).
REINSTALL_HINT = 'reinstall pycocoevalcap: pip install --force-reinstall "pycocoevalcap==1.2"'
JAR = "meteor-1.5.jar"
PARAPHRASE = os.path.join("data", "paraphrase-en.gz")
#: Resources of the jar that METEOR's English model uses.
JAR_FILES = (
    "function/english.words",
    "nonbreaking/english.prefixes",
    "synonym/english.synsets",
    "synonym/english.exceptions",
)


class MeteorDataError(RuntimeError):
    """METEOR's data is missing or damaged (the message names the file and the fix)."""


@dataclass(frozen=True)
class Sources:
    """Where METEOR's data lives.

    Attributes
    ----------
    jar : Path
        ``meteor-1.5.jar``.
    paraphrase : Path
        ``data/paraphrase-en.gz``.
    """

    jar: Path
    paraphrase: Path

    def checksums(self) -> dict[str, str]:
        """SHA-256 of both files (hex), keyed by file name."""
        return {p.name: file_sha256(p) for p in (self.jar, self.paraphrase)}


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, read in blocks."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            while block := f.read(1 << 22):
                h.update(block)
    except OSError as e:
        raise MeteorDataError(f"cannot read METEOR data file {path}: {e}; {REINSTALL_HINT}") from e
    return h.hexdigest()


def locate() -> Sources:
    """Find the installed pycocoevalcap's METEOR files.

    pycocoevalcap is a namespace package, so every entry of its
    ``submodule_search_locations`` is tried in order.  It is found through the
    path finder, not the import system: under the pycocoevalcap replacement
    (:mod:`sparsecider.compat.hook`) ``import pycocoevalcap`` is sparsecider's,
    which holds no data.

    Returns
    -------
    Sources

    Raises
    ------
    MeteorDataError
        pycocoevalcap is not installed, or has no METEOR files.
    """
    spec = importlib.machinery.PathFinder.find_spec("pycocoevalcap")
    if spec is None:
        raise MeteorDataError(
            f"METEOR reads its data from pycocoevalcap, which is not installed: {INSTALL_HINT}"
        )
    tried = []
    for loc in spec.submodule_search_locations or ():
        folder = Path(loc) / "meteor"
        jar, para = folder / JAR, folder / PARAPHRASE
        if jar.is_file() and para.is_file():
            return Sources(jar, para)
        tried.append(str(folder))
    raise MeteorDataError(
        "pycocoevalcap is installed but has no meteor/meteor-1.5.jar with "
        f"meteor/{PARAPHRASE} beside it (looked in {', '.join(tried) or 'nowhere'}); "
        f"{REINSTALL_HINT}"
    )


def read_jar_text(jar: Path, name: str) -> str:
    """One UTF-8 resource of the jar, read as a zip member (CRC-checked).

    Raises
    ------
    MeteorDataError
        The jar is not a readable zip, lacks the member, or the member is damaged.
    """
    try:
        with zipfile.ZipFile(jar) as z:
            return z.read(name).decode("utf-8")
    except KeyError:
        raise MeteorDataError(
            f"{jar} has no {name}; it is not METEOR 1.5's jar; {REINSTALL_HINT}"
        ) from None
    except (zipfile.BadZipFile, OSError, UnicodeDecodeError, EOFError) as e:
        raise MeteorDataError(
            f"{jar} is damaged or truncated ({type(e).__name__}: {e}) reading {name}; "
            f"{REINSTALL_HINT}"
        ) from e
