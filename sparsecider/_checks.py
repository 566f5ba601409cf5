"""The primitive checks and the one message style every validation uses.

The exception policy of the whole package: a value of the wrong *type* is a
``TypeError``, a value of the right type out of range a ``ValueError``; each
message names the argument (or the item: ``references[17]``,
``records.jsonl:12``), the value received and what is expected.  These are
the bricks; :mod:`sparsecider.core.validate` checks the options of the public
functions with them, :mod:`sparsecider.core.corpus` the captions.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

__all__ = [
    "MAX_N",
    "SIGMA_RANGE",
    "caption_list",
    "check_bool",
    "check_int",
    "check_real",
    "describe_keys",
    "int_array",
    "is_sequence",
    "type_name",
]

#: The highest n-gram order accepted anywhere (CIDEr uses 4; cost and memory
#: grow linearly with n, so a typo such as n=10**6 must not start the work).
MAX_N = 64


#: The range of CIDEr-D's ``sigma``: beyond it ``sigma**2`` under- or overflows
#: (here, not in the validator, so that the command line's parser can read it
#: without importing the core).
SIGMA_RANGE = (1e-150, 1e150)


def type_name(x: object) -> str:
    """``type(x).__name__``, for messages."""
    return type(x).__name__


def describe_keys(keys: Sequence[Hashable], limit: int = 5) -> str:
    """``[1, 2, 3] and 7 more``: a short listing of offending keys.

    Examples
    --------
    >>> describe_keys(list(range(8)))
    '[0, 1, 2, 3, 4] and 3 more'
    """
    shown = ", ".join(repr(k) for k in list(keys)[:limit])
    more = len(keys) - limit
    return f"[{shown}]" + (f" and {more} more" if more > 0 else "")


def check_bool(name: str, value: object) -> bool:
    """A bool (or a numpy bool), as a Python ``bool``: no truthy strings or numbers.

    Examples
    --------
    >>> check_bool("include_eos", np.True_)
    True
    >>> check_bool("include_eos", "no")
    Traceback (most recent call last):
    ...
    TypeError: include_eos must be True or False, got str 'no'
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {type_name(value)} {value!r:.60}")
    return bool(value)


def check_int(name: str, value: object, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer (not a bool) >= ``minimum``, as a Python ``int``.

    Examples
    --------
    >>> check_int("n", np.int64(4))
    4
    >>> check_int("n", "4")
    Traceback (most recent call last):
    ...
    TypeError: n must be an integer, got str '4'
    >>> check_int("n", 0)
    Traceback (most recent call last):
    ...
    ValueError: n must be >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type_name(value)} {value!r:.60}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {value}")
    return int(value)


def check_real(name: str, value: object, *, low: float = 0.0, high: float = float("inf")) -> float:
    """A finite real number > 0 (not a bool), as a Python ``float``, within
    ``[low, high]`` when given (the range where the arithmetic stays finite).

    Examples
    --------
    >>> check_real("sigma", 6)
    6.0
    >>> check_real("sigma", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: sigma must be a finite number > 0, got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type_name(value)} {value!r:.60}")
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    if not low <= value <= high:
        raise ValueError(
            f"{name} must lie in [{low:g}, {high:g}] (outside it the arithmetic overflows "
            f"or underflows to nan), got {value}"
        )
    return float(value)


def _read_array(value: object) -> np.ndarray:
    if isinstance(value, np.ndarray) or not hasattr(value, "__dlpack__"):
        return np.asarray(value)
    try:
        return np.from_dlpack(value)
    except (BufferError, RuntimeError, TypeError, ValueError):
        # a device or dtype numpy cannot take over: __array__ (if any) says why
        if not hasattr(value, "__array__"):
            raise
        return np.asarray(value)


def int_array(value: object, where: str, ndim: int) -> np.ndarray:
    """``value`` as an int64 array of ``ndim`` dimensions (token ids, indices).

    Arrays of other libraries are read through DLPack when they offer it
    (``__dlpack__``: CPU tensors of torch, jax, ...; no copy), else through
    ``__array__``; nothing is imported for them.

    Examples
    --------
    >>> int_array([[1, 2]], "candidates", 2).dtype
    dtype('int64')
    >>> int_array([1.5], "image_index", 1)
    Traceback (most recent call last):
    ...
    TypeError: image_index must hold integer token ids, got dtype float64
    """
    try:
        arr = _read_array(value)
    except Exception as err:  # objects whose __array__ fails (a GPU tensor, ...)
        raise TypeError(
            f"{where} could not be read as an integer array ({err}); pass a numpy array or "
            "a tensor on the CPU (tensor.cpu())"
        ) from None
    if arr.ndim != ndim:
        raise ValueError(f"{where} must be a {ndim}-D integer array, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{where} must hold integer token ids, got dtype {arr.dtype}")
    if arr.size and arr.dtype == np.uint64 and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{where} holds ids above 2**63 - 1, got {int(arr.max())}")
    return arr.astype(np.int64, copy=False)


def is_sequence(x: object) -> bool:
    """A list-like of items: a sequence, a numpy array, or a 1-D pandas
    Series/Index (recognised by duck typing; pandas is not a dependency)."""
    if isinstance(x, str | bytes):
        return False
    if isinstance(x, Sequence | np.ndarray):
        return True
    return hasattr(x, "to_numpy") and getattr(x, "ndim", None) == 1 and not isinstance(x, Mapping)


def caption_list(value: object, name: str) -> list[str]:
    """A flat list of caption strings, checked item by item.

    Examples
    --------
    >>> caption_list("a dog", "X")
    Traceback (most recent call last):
    ...
    TypeError: X must be a list of caption strings, got str; wrap a single caption as [caption]
    """
    if isinstance(value, str) or not is_sequence(value):
        raise TypeError(
            f"{name} must be a list of caption strings, got {type_name(value)}; "
            "wrap a single caption as [caption]"
        )
    out = list(value)
    for i, item in enumerate(out):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be a string, got {type_name(item)}")
    return out
