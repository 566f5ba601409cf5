"""The on-disk cache of METEOR's compiled data (a folder of ``.npy`` files, no pickle).

Location: ``$SPARSECIDER_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/sparsecider``,
else ``~/.cache/sparsecider``.  The folder name carries a checksum of the source
files, so a changed pycocoevalcap gets a new cache.  The arrays are memory-mapped
(read-only), not read: a process pays only for the pages it touches, and processes
share them.  The loader trusts nothing: it checks every array's name, dtype and
shape, their consistency, and a SHA-256 of their bytes recorded in ``meta.json``;
a damaged or truncated cache is rebuilt with a message on standard error.  A build
removes the entries of earlier cache formats (named on standard error).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .data import Sources
from .matchers import english_stemmer
from .paraphrase import BUCKET_BITS, FILTER_BITS, MAX_PHRASE, build_arrays

__all__ = ["cache_dir", "cache_path", "load_cached", "load_or_build"]

FORMAT = 6
# A cache entry's name; formats 1-4 were one ``.npz`` file, 5 on a folder (``cache_path``).
_ENTRY = re.compile(r"meteor-1\.5-en-[0-9a-f]{16}(\.npz)?")
_SHAPES = {  # name -> (allowed dtypes, number of dimensions)
    "vocab": (("uint8",), 1),
    "stems": (("uint8",), 1),
    "phrase_hash": (("uint64",), 1),
    "phrase_rows": (("uint16", "uint32"), 2),
    "fwd_indptr": (("int64",), 1),
    "fwd_partner": (("uint32",), 1),
    "bwd_indptr": (("int64",), 1),
    "bwd_partner": (("uint32",), 1),
    "bucket_off": (("int64",), 1),
    "filter": (("uint8",), 1),
    "prefix_filter": (("uint8",), 1),
}


def cache_dir() -> Path:
    """Where the compiled data is cached (see the module docstring)."""
    env = os.environ.get("SPARSECIDER_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "sparsecider"


def source_key(checksums: dict[str, str]) -> str:
    """One checksum of the sources and of the cache format."""
    text = json.dumps({"format": FORMAT, "sources": checksums}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def cache_path(checksums: dict[str, str]) -> Path:
    """The cache folder for these source checksums."""
    return cache_dir() / f"meteor-1.5-en-{source_key(checksums)[:16]}"


def _array_digest(name: str, a: np.ndarray) -> bytes:
    h = hashlib.sha256(f"{name}:{a.dtype.str}:{a.shape}".encode())
    h.update(memoryview(np.ascontiguousarray(a)).cast("B"))
    return h.digest()


def _digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the arrays' SHA-256s (names, types, shapes, bytes), hashed two at a time
    (hashlib releases the interpreter lock on large buffers: the load takes half as long)."""
    names = sorted(_SHAPES)
    with ThreadPoolExecutor(max_workers=2) as pool:
        parts = list(pool.map(_array_digest, names, [arrays[n] for n in names]))
    return hashlib.sha256(b"".join(parts)).hexdigest()


def _validate(arrays: dict[str, np.ndarray], meta: dict, key: str) -> str | None:
    """Why the loaded arrays are unusable, or None."""
    if meta.get("key") != key or meta.get("format") != FORMAT:
        return "it was built from other source files"
    for name, (dtypes, ndim) in _SHAPES.items():
        a = arrays.get(name)
        if a is None or a.dtype.name not in dtypes or a.ndim != ndim:
            return f"array {name} is missing or has the wrong type"
    n = arrays["phrase_hash"].size
    m = arrays["fwd_partner"].size
    if arrays["phrase_rows"].shape != (n, MAX_PHRASE):
        return "phrase_rows has the wrong shape"
    for side in ("fwd", "bwd"):
        ip = arrays[f"{side}_indptr"]
        if ip.size != n + 1 or ip[0] != 0 or ip[-1] != m or np.any(ip[1:] < ip[:-1]):
            return f"{side}_indptr is inconsistent"
        if arrays[f"{side}_partner"].size != m:
            return f"{side}_partner has the wrong size"
        if m and int(arrays[f"{side}_partner"].max()) >= n:
            return f"{side}_partner points past the phrases"
    if np.count_nonzero(arrays["stems"] == 10) != np.count_nonzero(arrays["vocab"] == 10):
        return "stems and vocab differ in length"
    b = arrays["bucket_off"]
    if b.size != (1 << BUCKET_BITS) + 1 or b[0] != 0 or b[-1] != n or np.any(b[1:] < b[:-1]):
        return "bucket_off is inconsistent"
    if any(arrays[k].size != 1 << (FILTER_BITS - 3) for k in ("filter", "prefix_filter")):
        return "a filter has the wrong size"
    if meta.get("digest") != _digest(arrays):
        return "its checksum does not match its contents"
    return None


def _load(path: Path, key: str) -> tuple[dict[str, np.ndarray] | None, str]:
    try:
        meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "missing"
    except (OSError, ValueError) as e:
        return None, f"it is unreadable ({type(e).__name__})"
    try:
        # read-only maps of plain .npy files (a truncated one fails here: its header's shape
        # asks for more bytes than the file holds)
        arrays = {
            name: np.asarray(np.load(path / f"{name}.npy", mmap_mode="r", allow_pickle=False))
            for name in _SHAPES
        }
        why = _validate(arrays, meta if isinstance(meta, dict) else {}, key)
    except (OSError, ValueError, EOFError) as e:
        return None, f"it is unreadable ({type(e).__name__})"
    return (arrays, "") if why is None else (None, why)


def _say(message: str) -> None:
    print(f"sparsecider: {message}", file=sys.stderr, flush=True)


def _build(sources: Sources, key: str, path: Path) -> dict[str, np.ndarray]:
    total = sources.paraphrase.stat().st_size
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    t0 = time.perf_counter()
    if tqdm is not None:
        bar = tqdm(
            total=total, unit="B", unit_scale=True, desc="METEOR paraphrase index", file=sys.stderr
        )

        def progress(done: int) -> None:
            bar.update(done - bar.n)

    else:
        bar = None
        _say(
            f"building the METEOR paraphrase index from {sources.paraphrase} (once, about a minute)"
        )
        progress = None
    try:
        arrays = build_arrays(sources.paraphrase, english_stemmer().stemWord, progress)
    finally:
        if bar is not None:
            bar.close()
    meta = {"format": FORMAT, "key": key, "digest": _digest(arrays)}
    try:
        _write(path, arrays, meta)
    except OSError as e:
        _say(f"could not write the METEOR cache {path} ({e}); it will be rebuilt next time")
    else:
        _say(f"METEOR paraphrase index cached in {path} ({time.perf_counter() - t0:.0f} s)")
        _remove_old_formats(path.parent)
    return arrays


def _remove_old_formats(folder: Path) -> None:
    """Delete the cache entries of earlier formats, which no version of this code reads: the
    ``.npz`` files of formats 1-4 and folders whose ``meta.json`` names an older format.
    Entries of this format built from other sources (another pycocoevalcap) are kept."""
    gone = []
    for entry in sorted(folder.iterdir()):
        if not _ENTRY.fullmatch(entry.name):
            continue
        if entry.suffix == ".npz":
            if entry.is_file():
                entry.unlink(missing_ok=True)
                gone.append(entry.name)
            continue
        try:
            old = json.loads((entry / "meta.json").read_text(encoding="utf-8"))["format"] < FORMAT
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unfinished, or not ours to judge: kept
        if old:
            shutil.rmtree(entry, ignore_errors=True)
            gone.append(entry.name)
    if gone:
        _say(f"removed {len(gone)} METEOR cache entries of an older format from {folder}: {gone}")


def _write(path: Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    """Write the folder beside its place, then move it there (a reader sees the old folder, or
    none, or the whole new one); ``meta.json``, written last, marks it complete."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp"))
    old = None
    try:
        for name in _SHAPES:
            np.save(tmp / f"{name}.npy", arrays[name], allow_pickle=False)
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        if path.exists():  # unusable: set it aside (a process may still map its files)
            old = path.with_name(f"{path.name}.{os.getpid()}.old")
            os.rename(path, old)
        try:
            os.rename(tmp, path)
        except OSError:
            if not path.is_dir():
                raise
            # another process built the same entry at the same time and moved its whole
            # folder in first (several workers of one job start together): theirs is kept
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def load_cached(checksums: dict[str, str]) -> dict[str, np.ndarray] | None:
    """The cached paraphrase arrays for these source checksums, checked as
    :func:`load_or_build` checks them; None when missing or unusable (nothing built or said:
    :func:`load_or_build` does that)."""
    return _load(cache_path(checksums), source_key(checksums))[0]


def load_or_build(sources: Sources, checksums: dict[str, str]) -> dict[str, np.ndarray]:
    """The paraphrase arrays, from the cache or freshly built (then cached).

    Parameters
    ----------
    sources : Sources
    checksums : dict
        :meth:`Sources.checksums` of the same files.
    """
    key = source_key(checksums)
    path = cache_path(checksums)
    arrays, why = _load(path, key)
    if arrays is not None:
        return arrays
    if why != "missing":
        _say(f"the METEOR cache {path} is unusable ({why}); rebuilding it")
    return _build(sources, key, path)
