"""Reading the legacy document-frequency pickles, safely.

The CIDEr authors' code and the self-critical sequence training (SCST) code
derived from it store document frequencies as Python pickles.  Unpickling
can run arbitrary code, so these files are read only through
:class:`RestrictedUnpickler`, which admits dicts, lists, flat tuples,
strings, bytes, numbers and ``collections.defaultdict`` (with ``float`` or
``int`` as its factory) and refuses everything else.  sparsecider never
writes pickles; convert once with ``DocumentFrequencies.from_pickle(...).save(...)``.

Examples
--------
Bare ``{ngram: df}`` files do not record their number of images; unless told
otherwise, it is taken to be that of COCO val 2014:

>>> COCO_VAL_IMAGES
40504
"""

from __future__ import annotations

import math
import os
import pickle
import struct
import warnings
from pathlib import Path
from typing import ClassVar

__all__ = [
    "COCO_VAL_IMAGES",
    "MAX_CONTAINERS",
    "MAX_DEPTH",
    "MAX_PICKLE_BYTES",
    "RestrictedUnpickler",
    "UnsafePickleError",
    "read_legacy_df",
]

#: The number of images the bare ``{ngram: df}`` files were counted over (COCO val 2014).
COCO_VAL_IMAGES = 40504

_ALLOWED = {
    ("collections", "defaultdict"),
    ("builtins", "float"),
    ("builtins", "int"),
    ("__builtin__", "float"),  # Python 2 names, mapped by the unpickler
    ("__builtin__", "int"),
    ("__builtin__", "long"),
}


class UnsafePickleError(pickle.UnpicklingError):
    """A pickle holding what a document frequency pickle cannot (a class or
    function other than the allowed ones, a tuple holding a container).

    A subclass of ``pickle.UnpicklingError``.
    """


class RestrictedUnpickler(pickle._Unpickler):
    """An unpickler that only builds plain containers, strings and numbers.

    It is the pure-Python unpickler of the standard library (about 8x
    slower than the C one: some 3 s per million n-grams, once per
    conversion) because only it lets each tuple be checked as it is built:
    a tuple may hold only strings, numbers and None, so no pickle can make
    a structure whose hashing takes exponential time (a dict key of
    tuples of shared tuples doubles the work per level: 52 s at depth 26).
    Lists and dicts may nest (a top-level dict holding the table), never
    deeper than :data:`MAX_DEPTH`; :func:`read_legacy_df` bounds the file
    size (:data:`MAX_PICKLE_BYTES`) before reading.

    Parameters
    ----------
    file, **kwargs
        As :class:`pickle.Unpickler` (e.g. ``encoding="utf-8"`` for Python 2
        pickles).

    Raises
    ------
    pickle.UnpicklingError
        :class:`UnsafePickleError` from :meth:`load`, when the pickle names
        any class or function other than ``collections.defaultdict``,
        ``float`` and ``int``, or builds a tuple holding a container.

    Examples
    --------
    >>> import io, pickle
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps({("a", "dog"): 1.0}))).load()
    {('a', 'dog'): 1.0}
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps(eval))).load()
    Traceback (most recent call last):
    ...
    sparsecider.io.legacy.UnsafePickleError: refusing to load builtins.eval: ...
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps({(("a",), "dog"): 1.0}))).load()
    Traceback (most recent call last):
    ...
    sparsecider.io.legacy.UnsafePickleError: a tuple holds a tuple: ...
    """

    def find_class(self, module: str, name: str):
        """Return an allowed global; refuse every other one.

        Parameters
        ----------
        module, name : str
            The global the pickle refers to.

        Returns
        -------
        type
            ``collections.defaultdict``, ``float`` or ``int``.

        Raises
        ------
        UnsafePickleError
            For any other global.

        Examples
        --------
        >>> import io
        >>> unpickler = RestrictedUnpickler(io.BytesIO(b""))
        >>> unpickler.find_class("collections", "defaultdict")
        <class 'collections.defaultdict'>
        >>> unpickler.find_class("os", "system")
        Traceback (most recent call last):
        ...
        sparsecider.io.legacy.UnsafePickleError: refusing to load os.system: ...
        """
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise UnsafePickleError(
            f"refusing to load {module}.{name}: a document frequency pickle holds only "
            "dicts, tuples, strings and numbers"
        )

    dispatch: ClassVar[dict] = dict(pickle._Unpickler.dispatch)

    def _flat_tuple(self) -> None:
        """Refuse the tuple just built (on top of the stack) if it holds a container."""
        for item in self.stack[-1]:
            # float and int: defaultdict(float)'s arguments, (float,)
            if not isinstance(item, _ATOMS) and item not in (float, int):
                raise UnsafePickleError(
                    f"a tuple holds a {type(item).__name__}: n-gram tuples hold only words "
                    "(strings), so this is not a document frequency pickle"
                )


def _checked(load):
    def load_then_check(self: RestrictedUnpickler) -> None:
        load(self)
        self._flat_tuple()

    return load_then_check


for _opcode in (pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3):
    RestrictedUnpickler.dispatch[_opcode[0]] = _checked(RestrictedUnpickler.dispatch[_opcode[0]])


def _refuse_sets(self: RestrictedUnpickler) -> None:
    # a set of shared frozensets is a dict key whose comparison (and print)
    # doubles per level; document frequency pickles hold no set
    raise UnsafePickleError(
        "a set or frozenset: a document frequency pickle holds only dicts, tuples, strings "
        "and numbers"
    )


for _opcode in (pickle.EMPTY_SET, pickle.ADDITEMS, pickle.FROZENSET):
    RestrictedUnpickler.dispatch[_opcode[0]] = _refuse_sets


def _counted(load):
    """Count the containers (and calls) built: a df pickle has a few; millions
    of empty lists would take 30 times the file in memory."""

    def load_and_count(self: RestrictedUnpickler) -> None:
        self.containers = getattr(self, "containers", 0) + 1
        if self.containers > MAX_CONTAINERS:
            raise UnsafePickleError(
                f"more than {MAX_CONTAINERS} lists, dicts or calls: a document frequency pickle "
                "is one dict of n-grams (perhaps inside another)"
            )
        load(self)

    return load_and_count


# every opcode that makes a container or calls a class (NEWOBJ makes an empty
# defaultdict per call: 4 million of them from a 16 MB file)
for _opcode in (
    pickle.EMPTY_LIST, pickle.LIST, pickle.EMPTY_DICT, pickle.DICT, pickle.REDUCE,
    pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.OBJ, pickle.INST,
):  # fmt: skip
    RestrictedUnpickler.dispatch[_opcode[0]] = _counted(RestrictedUnpickler.dispatch[_opcode[0]])


def _check_key(key: object) -> None:
    """Refuse a dict key that is neither a string nor a tuple of strings.

    Runs before the key is hashed: strings hash with a per-process salt, but
    numbers (and tuples of them) do not, so 60,000 keys such as
    ``(i * (2**61 - 1),)`` would all collide and take minutes to insert.
    """
    if isinstance(key, str | bytes):
        return
    if isinstance(key, tuple) and all(isinstance(word, str | bytes) for word in key):
        return
    if isinstance(key, tuple):
        found = "a tuple of " + next(
            type(w).__name__ for w in key if not isinstance(w, str | bytes)
        )
    else:
        kind = type(key).__name__
        found = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
    raise UnsafePickleError(
        f"keys must be non-empty tuples of strings, found {found} (checked before any dict "
        "is built: the keys of a document frequency pickle are n-gram tuples of words, or "
        "the names 'df', 'document_frequency', 'ref_len')"
    )


def _keys_checked(load, stack_keys):
    def check_keys_then_load(self: RestrictedUnpickler) -> None:
        for key in stack_keys(self.stack):
            _check_key(key)
        load(self)

    return check_keys_then_load


# SETITEMS and DICT take the items above the mark (the current stack, key
# first); SETITEM the last two items
for _opcode, _keys in (
    (pickle.SETITEMS, lambda stack: stack[0::2]),
    (pickle.DICT, lambda stack: stack[0::2]),
    (pickle.SETITEM, lambda stack: stack[-2:-1]),
):
    RestrictedUnpickler.dispatch[_opcode[0]] = _keys_checked(
        RestrictedUnpickler.dispatch[_opcode[0]], _keys
    )

#: What a tuple may hold.
_ATOMS = (str, bytes, int, float, type(None))

#: The largest legacy pickle read: 1 GiB (COCO val's table takes 63 MB, COCO
#: train's about five times that).  Strings and flat tuples take up to about
#: 15 times their bytes in memory once unpickled.
MAX_PICKLE_BYTES = 1 << 30

#: The most lists, dicts and calls (``defaultdict(float)``) a pickle may build.
MAX_CONTAINERS = 64

#: How deeply lists and dicts may nest (a top-level dict holding the table: 2).
MAX_DEPTH = 4

# what a damaged or hostile pickle can raise inside the pure-Python unpickler
_LOAD_ERRORS = (
    EOFError, UnicodeDecodeError, ValueError, TypeError, AttributeError, IndexError, KeyError,
    struct.error, OverflowError, MemoryError, RecursionError,
)  # fmt: skip


def _check_depth(data: object, path: Path) -> None:
    """Refuse lists, dicts and sets nested deeper than :data:`MAX_DEPTH`
    (each container visited once, so shared ones cost nothing extra)."""
    containers = list | dict | set | frozenset
    seen: set[int] = set()
    level = [data] if isinstance(data, containers) else []
    for _ in range(MAX_DEPTH):
        below = []
        for obj in level:
            if id(obj) not in seen:
                seen.add(id(obj))
                items = obj.values() if isinstance(obj, dict) else obj
                below.extend(x for x in items if isinstance(x, containers))
        if not below:
            return
        level = below
    raise ValueError(
        f"{path}: containers nested more than {MAX_DEPTH} deep; a document frequency pickle "
        "is a dict of n-gram tuples (perhaps inside one dict)"
    )


def _load(path: Path) -> object:
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_PICKLE_BYTES:
                raise ValueError(
                    f"{path}: {size >> 20} MiB, more than a document frequency pickle "
                    f"({MAX_PICKLE_BYTES >> 30} GiB at most); is it the right file?"
                )
            # Python 2 pickles store words as byte strings: decode them as UTF-8
            data = RestrictedUnpickler(f, encoding="utf-8").load()
    except FileNotFoundError:
        raise FileNotFoundError(f"legacy pickle not found: {path}") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a pickle") from None
    except UnsafePickleError as err:
        raise ValueError(f"{path}: {err}") from None
    except ValueError as err:
        if str(err).startswith(f"{path}: "):
            raise
        raise ValueError(f"{path}: not a readable document frequency pickle ({err})") from None
    except (pickle.UnpicklingError, *_LOAD_ERRORS) as err:
        what = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        raise ValueError(
            f"{path}: not a readable document frequency pickle ({what:.200})"
        ) from None
    _check_depth(data, path)
    return data


def read_legacy_df(path: str | Path, *, n_images: int | None = None) -> tuple[dict, int]:
    """Return ``({ngram_tuple: count}, n_images)`` from any of the three layouts.

    Parameters
    ----------
    path : str or pathlib.Path
        The pickle: ``{'document_frequency': {ngram: df}, 'ref_len': N}``
        (self-critical training code), ``{'df': {ngram: df}, 'ref_len': log N}``
        (the CIDEr authors' code), or a bare ``{ngram: df}``, where ``ngram``
        is a tuple of words.
    n_images : int, optional
        Number of images the frequencies were counted over: required to
        differ from :data:`COCO_VAL_IMAGES` for a bare file; for the others
        it must agree with the file.

    Returns
    -------
    table : dict
        ``{ngram_tuple: count}``, as in the file.
    n_images : int

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        Not a readable pickle, a pickle naming anything but plain data, an
        unknown layout, a ``ref_len`` that is not (the log of) a whole
        number, or a count disagreeing with ``n_images``.

    Examples
    --------
    >>> import math, os, pickle, tempfile, warnings
    >>> table = {("a",): 2.0, ("a", "dog"): 1.0}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "df.p")
    ...     with open(path, "wb") as f:
    ...         pickle.dump({"df": table, "ref_len": math.log(2)}, f)
    ...     print(read_legacy_df(path))
    ...     with open(path, "wb") as f:
    ...         pickle.dump(table, f)
    ...     with warnings.catch_warnings(record=True) as caught:  # a bare table: n_images assumed
    ...         warnings.simplefilter("always")
    ...         assumed = read_legacy_df(path)[1]
    ...     print(assumed, caught[0].category.__name__, read_legacy_df(path, n_images=3)[1])
    ({('a',): 2.0, ('a', 'dog'): 1.0}, 2)
    40504 UserWarning 3
    """
    path = Path(path)
    data = _load(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a dict, found {type(data).__name__}")
    if "document_frequency" in data and "ref_len" in data:
        table, found = data["document_frequency"], _whole(data["ref_len"], path, logged=False)
    elif "df" in data and "ref_len" in data:
        table, found = data["df"], _whole(data["ref_len"], path, logged=True)
    elif all(isinstance(k, tuple) for k in data):
        if n_images is None:
            warnings.warn(
                f"{path}: a bare {{ngram: df}} pickle does not record how many images it "
                f"was counted over; taking {COCO_VAL_IMAGES} (COCO val 2014, what the code "
                "that wrote such files assumed). Pass n_images (--n-images) if it is another "
                "corpus.",
                UserWarning,
                stacklevel=3,
            )
        table, found = data, n_images if n_images is not None else COCO_VAL_IMAGES
    else:
        raise ValueError(
            f"{path}: unknown layout (keys such as {[_brief(k) for k in list(data)[:3]]}); "
            "expected "
            "{ngram: df}, {'document_frequency': ..., 'ref_len': N} "
            "or {'df': ..., 'ref_len': log N}"
        )
    if n_images is not None and n_images != found:
        raise ValueError(f"{path}: the file says {found} images, but n_images={n_images} was given")
    if not isinstance(table, dict):
        raise ValueError(f"{path}: the frequencies are a {type(table).__name__}, not a dict")
    return dict(table), found


def _whole(value: object, path: Path, *, logged: bool) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{path}: ref_len must be a number, got {_brief(value)}")
    try:
        n = math.exp(value) if logged else float(value)
    except OverflowError:
        n = math.inf
    if not math.isfinite(n) or n < 1 or n >= 2**32 or abs(n - round(n)) > 1e-6 * n:
        what = "the log of a whole number" if logged else "a whole number"
        raise ValueError(f"{path}: ref_len {_brief(value)} is not {what} of images")
    return round(n)


def _brief(value: object) -> str:
    """A short description that costs O(1) (a container's repr may not: shared
    or deep structure)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        # repr of an integer over 4,300 digits raises ValueError
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, tuple):
        more = ", ..." if len(value) > 2 else ("," if len(value) == 1 else "")
        return f"the tuple ({', '.join(_brief(v) for v in value[:2])}{more})"
    if isinstance(value, str | bytes | int | float | type(None)):
        text = repr(value[:40] if isinstance(value, str | bytes) else value)
        return text if len(text) <= 60 else text[:57] + "..."
    return f"a {type(value).__name__}"
