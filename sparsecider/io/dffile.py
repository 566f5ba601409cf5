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
from pathlib import Path

import numpy as np

__all__ = ["FORMAT", "FORMAT_VERSION", "read_df_file", "write_df_file"]

FORMAT = "sparsecider.DocumentFrequencies"
FORMAT_VERSION = 1


def write_df_file(
    path: str | Path, keys: list[np.ndarray], counts: list[np.ndarray], meta: dict
) -> Path:
    """Write the arrays of every order and ``meta`` (plus the format fields) to ``path``."""
    path = Path(path)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, **meta}
    arrays = {"metadata": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)}
    for k, (order_keys, order_counts) in enumerate(zip(keys, counts, strict=True), start=1):
        arrays[f"keys_{k}"] = order_keys
        arrays[f"counts_{k}"] = order_counts
    with open(path, "wb") as f:  # a file object: numpy adds no ".npz" suffix
        np.savez(f, **arrays)
    return path


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
        archive = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise FileNotFoundError(f"document frequency file not found: {path}") from None
    except (ValueError, OSError) as err:
        raise ValueError(f"{path}: not a sparsecider document frequency file ({err})") from None
    try:
        with archive:
            if "metadata" not in archive.files:
                raise ValueError(f"{path}: no 'metadata' entry; not a sparsecider df file")
            try:
                meta = json.loads(archive["metadata"].tobytes().decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as err:
                raise ValueError(f"{path}: unreadable metadata ({err})") from None
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
            n = int(meta["n"])
            missing = [f"keys_{k}" for k in range(1, n + 1) if f"keys_{k}" not in archive.files]
            if missing:
                raise ValueError(f"{path}: missing arrays {missing}")
            keys = [archive[f"keys_{k}"] for k in range(1, n + 1)]
            counts = [archive[f"counts_{k}"] for k in range(1, n + 1)]
    except ValueError as err:
        if str(err).startswith(str(path)):
            raise
        raise ValueError(f"{path}: not a sparsecider document frequency file ({err})") from None
    return keys, counts, meta
