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
    "CaptionError",
    "caption_list",
    "check_bool",
    "check_int",
    "check_int64_ids",
    "check_real",
    "check_token_lists",
    "describe_keys",
    "id_kind_mismatch",
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


class CaptionError(ValueError):
    """A caption a tokenizer cannot read, at ``index`` of the list it was given.

    The message names it ``captions[index]`` until an entry point that knows
    where the list came from names it as the user gave it
    (``candidates[391895]``, ``references[391895][2]``: ``where``).
    """

    def __init__(self, index: int, problem: str, where: str | None = None) -> None:
        self.index, self.problem = index, problem
        super().__init__(f"{where or f'captions[{index}]'} {problem}")


def id_kind_mismatch(a: Sequence, b: Sequence, a_name: str, b_name: str) -> str:
    """The sentence saying that one side's ids are strings and the other's
    integers (a JSON file's ``"391895"`` against ``391895``), or ``""``.

    Examples
    --------
    >>> id_kind_mismatch(["1", "2"], [1, 2], "candidates", "references")
    "the image ids of candidates are strings (e.g. '1') while those of references are ..."
    >>> id_kind_mismatch([1], [2], "candidates", "references")
    ''
    """

    def kind(ids: Sequence) -> str | None:
        if ids and all(isinstance(i, str) for i in ids):
            return "strings"
        if ids and all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in ids):
            return "integers"
        return None

    ka, kb = kind(list(a)), kind(list(b))
    if ka is None or kb is None or ka == kb:
        return ""
    return (
        f"the image ids of {a_name} are {ka} (e.g. {next(iter(a))!r}) while those of {b_name} "
        f"are {kb} (e.g. {next(iter(b))!r}): no id can match; give both the same kind "
        "(int(id) for ids read as text, or str(id))"
    )


def check_int64_ids(ids: list, where: str) -> None:
    """Refuse Python integer image ids that int64 cannot hold (``where``: a format
    string naming one by its position ``i`` and value ``v``, ``"ids[{i}] = {v}"``).

    Examples
    --------
    >>> check_int64_ids([7, 2**63], "ids[{i}] = {v}")
    Traceback (most recent call last):
    ...
    ValueError: ids[1] = 9223372036854775808 does not fit in 64 bits: integer image ids ...
    """
    low, high = -(2**63), 2**63 - 1
    for i, v in enumerate(ids):
        if not low <= v <= high:
            raise ValueError(
                f"{where.format(i=i, v=v)} does not fit in 64 bits: integer image ids must lie "
                "in -2**63 .. 2**63 - 1 (they travel in int64 arrays); pass larger ids as strings"
            )


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
    if isinstance(value, np.ma.MaskedArray):
        # np.asarray drops the mask: the hidden entries would be read as ids
        hidden = int(np.ma.count_masked(value))
        if hidden:
            raise ValueError(
                f"{where} is a numpy masked array with {hidden} masked "
                f"entr{'y' if hidden == 1 else 'ies'}: its mask would be ignored; fill them "
                f"with the end or padding id ({where.split('[')[0]}.filled(eos)), or pass "
                ".data if the mask means nothing"
            )
        value = value.data
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


#: Images looked at by :func:`check_token_lists` (evenly spaced).
TOKEN_LIST_SAMPLE = 64


def check_token_lists(cand_lists: list, ref_lists: list, ids: tuple | None) -> None:
    """Refuse candidates that are almost certainly one caption's tokens given as a list.

    A list is an image's candidates.  When every image's list looked at holds
    single words only, one at least holds several (four or more when there is
    one image), and most references looked at are sentences, the lists are
    tokenized captions: each token would be
    scored as a candidate (a plausible, wrong, number).  Several whole
    captions per image, or words against words, pass.
    """
    step = max(len(cand_lists) // TOKEN_LIST_SAMPLE, 1)
    looked_at = range(0, len(cand_lists), step)
    if all(isinstance(cand_lists[i], str) for i in looked_at):
        return  # one caption per image (the lists of candidate_list are lists)
    several = [i for i in looked_at if len(cand_lists[i]) > 1]
    if not several or any(len(c.split()) != 1 for i in looked_at for c in cand_lists[i]):
        return
    # two or three one-word candidates of a single image are plausible input
    # (an n-best list of labels): alone, an image needs a list of four or more
    if len(looked_at) == 1 and len(cand_lists[looked_at[0]]) < 4:
        return
    refs = [r for i in looked_at for r in ref_lists[i]]
    if 2 * sum(len(r.split()) > 1 for r in refs) <= len(refs):
        return
    i = several[0]
    tokens = cand_lists[i]
    shown = ", ".join(map(repr, tokens[:5])) + (", ..." if len(tokens) > 5 else "")
    raise ValueError(
        f"candidates[{i if ids is None else repr(ids[i])}] is a list of {len(tokens)} single "
        f"words ({shown}), as is every image's list looked at, while the references are "
        "sentences: a list holds an image's candidates, so each word would be scored as a "
        "caption; give each caption as one string (' '.join(tokens)); several candidates "
        "per image are whole captions"
    )
