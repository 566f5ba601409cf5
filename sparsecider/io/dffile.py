"""The document-frequency file format: a versioned ``.npz``, never a pickle.

Version 1: an uncompressed NumPy ``.npz`` archive, read with
``allow_pickle=False``, holding

- ``metadata``: UTF-8 JSON (as a uint8 array) with ``format``
  (``"sparsecider.DocumentFrequencies"``), ``format_version`` (1), ``n``,
  ``n_images``, ``tokenizer``, ``hashing`` (the n-gram key scheme, see
  :mod:`sparsecider._kernels.hashing`), ``library_version`` and ``source``;
- for each order k = 1..n, ``keys_k`` (uint64, strictly increasing n-gram
  keys) and ``counts_k`` (uint32, the number of images whose references
  contain the n-gram, 1 <= count <= n_images).

:func:`write_df_file` and :func:`read_df_file` move arrays and metadata
between memory and that file; :class:`sparsecider.DocumentFrequencies`
checks the arrays (``save`` / ``load``).
"""

from __future__ import annotations

import json
import tokenize
import zipfile
from pathlib import Path
from typing import BinaryIO

import numpy as np

__all__ = ["FORMAT", "FORMAT_VERSION", "read_df_file", "write_df_file"]

FORMAT = "sparsecider.DocumentFrequencies"
FORMAT_VERSION = 1


def write_df_file(
    path: str | Path | BinaryIO, keys: list[np.ndarray], counts: list[np.ndarray], meta: dict
) -> Path | None:
    """Write the arrays of every order and ``meta`` (plus the format fields) to
    ``path``, or to an open binary file (left open; returns None)."""
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **meta}
    arrays = {"metadata": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)}
    for k, (order_keys, order_counts) in enumerate(zip(keys, counts, strict=True), start=1):
        arrays[f"keys_{k}"] = order_keys
        arrays[f"counts_{k}"] = order_counts
    if hasattr(path, "write"):
        np.savez(path, **arrays)
        return None
    path = Path(path)
    with open(path, "wb") as f:  # a file object: numpy adds no ".npz" suffix
        np.savez(f, **arrays)
    return path


#: The highest n-gram order a file may declare (as :data:`sparsecider._checks.MAX_N`).
MAX_N = 64

# what a damaged or foreign file can raise while numpy reads it
_READ_ERRORS = (
    ValueError, OSError, EOFError, KeyError, AttributeError, OverflowError, TypeError,
    RecursionError, zipfile.BadZipFile, UnicodeDecodeError, MemoryError,
    SyntaxError, tokenize.TokenError,  # a malformed .npy header (numpy parses it as Python)
)  # fmt: skip


def _check_meta(meta: object, path: Path, hashing: str) -> dict:
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: metadata must be a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{path}: format {meta.get('format')!r} "
            f"version {meta.get('format_version')!r}; "
            f"this library reads {FORMAT!r} version {FORMAT_VERSION}"
        )
    if meta.get("hashing") != hashing:
        raise ValueError(
            f"{path}: n-gram keys made with hashing scheme {meta.get('hashing')!r}; "
            f"this library uses {hashing!r}: refit the frequencies"
        )
    for field, low, high in (("n", 1, MAX_N), ("n_images", 1, 2**32 - 1), ("min_count", 1, None)):
        value = meta.get(field, 1 if field == "min_count" else None)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{path}: metadata '{field}' must be an integer, got {value!r:.40}")
        if value < low or (high is not None and value > high):
            raise ValueError(f"{path}: metadata '{field}' = {value} is out of range")
    for field in ("tokenizer", "source", "name"):
        value = meta.get(field)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{path}: metadata '{field}' must be a string, got {value!r:.40}")
    return meta


def _check_member(archive: zipfile.ZipFile, name: str, path: Path, kinds: str) -> int:
    """The header of an array member: 1-D, of the right kind, and no larger
    than the bytes the archive holds for it (checked before numpy allocates).
    Returns its length."""
    try:
        info = archive.getinfo(f"{name}.npy")
    except KeyError:
        raise ValueError(f"missing array {name!r}") from None
    if info.compress_size and info.file_size > 100 * info.compress_size + 2**20:
        raise ValueError(f"array {name!r} expands more than any df file would")
    with archive.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise ValueError(f"array {name!r} has .npy format version {version}")
    if len(shape) != 1 or dtype.kind not in kinds or dtype.hasobject:
        raise ValueError(f"array {name!r} is {dtype} of shape {shape}, not a 1-D table")
    if shape[0] * dtype.itemsize > info.file_size:
        raise ValueError(f"array {name!r} claims {shape[0]:,} entries, more than the file holds")
    return shape[0]


def read_df_file(
    path: str | Path, *, hashing: str
) -> tuple[list[np.ndarray], list[np.ndarray], dict]:
    """``(keys, counts, metadata)`` of a file written by :func:`write_df_file`.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Anything else, naming the file: not an ``.npz``, no or unreadable
        metadata, another format or version, another hashing scheme than
        ``hashing``, missing arrays.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise FileNotFoundError(f"document frequency file not found: {path}") from None
    except OSError as err:
        raise ValueError(f"{path}: cannot read it ({err})") from None
    if size == 0:
        raise ValueError(f"{path}: the file is empty; not a sparsecider document frequency file")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "metadata.npy" not in names:
                raise ValueError(f"{path}: no 'metadata' entry; not a sparsecider df file")
            _check_member(archive, "metadata", path, "u")
            with archive.open("metadata.npy") as f:
                raw = np.lib.format.read_array(f, allow_pickle=False)
            if raw.nbytes > 2**20:
                raise ValueError(f"{path}: metadata larger than 1 MiB")
            try:
                meta = json.loads(raw.tobytes().decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
                raise ValueError(f"{path}: unreadable metadata ({err})") from None
            meta = _check_meta(meta, path, hashing)
            n = meta["n"]
            keys, counts = [], []
            for k in range(1, n + 1):
                n_keys = _check_member(archive, f"keys_{k}", path, "u")
                n_counts = _check_member(archive, f"counts_{k}", path, "iu")
                if n_keys != n_counts:  # from the headers, before decompressing either
                    raise ValueError(
                        f"{path}: order {k} has {n_keys:,} keys but {n_counts:,} counts; "
                        "the file is damaged: refit or reconvert it"
                    )
                with archive.open(f"keys_{k}.npy") as f:
                    keys.append(np.lib.format.read_array(f, allow_pickle=False))
                with archive.open(f"counts_{k}.npy") as f:
                    counts.append(np.lib.format.read_array(f, allow_pickle=False))
    except _READ_ERRORS as err:
        if isinstance(err, ValueError) and str(err).startswith(str(path)):
            raise
        raise ValueError(
            f"{path}: not a sparsecider document frequency file ({str(err)[:200]}); such "
            "files are written by 'sparsecider df fit' (from captions) or 'df convert' (from "
            "a legacy pickle)"
        ) from None
    return keys, counts, meta
