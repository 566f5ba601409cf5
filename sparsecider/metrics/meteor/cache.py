"""The on-disk cache of METEOR's compiled data (one ``.npz``, no pickle).

Location: ``$SPARSECIDER_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/sparsecider``,
else ``~/.cache/sparsecider``.  The file name carries a checksum of the source
files, so a changed pycocoevalcap gets a new cache.  The loader trusts nothing:
it checks every array's name, dtype and shape and a SHA-256 of their bytes; a
damaged or truncated cache is rebuilt with a message on standard error.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from .data import Sources
from .matchers import english_stemmer
from .paraphrase import BUCKET_BITS, MAX_PHRASE, build_arrays

__all__ = ["cache_dir", "cache_path", "load_or_build"]

FORMAT = 4
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
    """The cache file for these source checksums."""
    return cache_dir() / f"meteor-1.5-en-{source_key(checksums)[:16]}.npz"


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(_SHAPES):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()


def _validate(arrays: dict[str, np.ndarray], key: str) -> str | None:
    """Why the loaded arrays are unusable, or None."""
    meta = json.loads(arrays["meta"].tobytes().decode())
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
    if meta.get("digest") != _digest(arrays):
        return "its checksum does not match its contents"
    return None


def _load(path: Path, key: str) -> tuple[dict[str, np.ndarray] | None, str]:
    try:
        # our own handle: np.load leaks it when the zip is truncated
        with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
            arrays = {name: z[name] for name in z.files}
        why = _validate(arrays, key)
    except FileNotFoundError:
        return None, "missing"
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError, UnicodeDecodeError) as e:
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
    arrays["meta"] = np.frombuffer(
        json.dumps({"format": FORMAT, "key": key, "digest": _digest(arrays)}).encode(),
        dtype=np.uint8,
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)  # atomic: a reader sees the old file or the whole new one
    except OSError as e:
        _say(f"could not write the METEOR cache {path} ({e}); it will be rebuilt next time")
    else:
        _say(f"METEOR paraphrase index cached in {path} ({time.perf_counter() - t0:.0f} s)")
    return arrays


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
