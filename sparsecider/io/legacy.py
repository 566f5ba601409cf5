"""Reading the legacy document-frequency pickles, safely.

The CIDEr authors' code and the self-critical sequence training (SCST) code
derived from it store document frequencies as Python pickles.  Unpickling
can run arbitrary code, so these files are read only through
:class:`RestrictedUnpickler`, which admits dicts, lists, tuples, sets,
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
import pickle
import warnings
from pathlib import Path

__all__ = ["COCO_VAL_IMAGES", "RestrictedUnpickler", "read_legacy_df"]

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


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that only builds plain containers, strings and numbers.

    Parameters
    ----------
    file, **kwargs
        As :class:`pickle.Unpickler` (e.g. ``encoding="utf-8"`` for Python 2
        pickles).

    Raises
    ------
    pickle.UnpicklingError
        From :meth:`load`, when the pickle names any class or function other
        than ``collections.defaultdict``, ``float`` and ``int``.

    Examples
    --------
    >>> import io, pickle
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps({("a", "dog"): 1.0}))).load()
    {('a', 'dog'): 1.0}
    >>> RestrictedUnpickler(io.BytesIO(pickle.dumps(eval))).load()
    Traceback (most recent call last):
    ...
    _pickle.UnpicklingError: refusing to load builtins.eval: a document frequency pickle holds ...
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
        pickle.UnpicklingError
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
        _pickle.UnpicklingError: refusing to load os.system: ...
        """
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"refusing to load {module}.{name}: a document frequency pickle holds only "
            "dicts, tuples, strings and numbers"
        )


def _load(path: Path) -> object:
    try:
        with open(path, "rb") as f:
            # Python 2 pickles store words as byte strings: decode them as UTF-8
            return RestrictedUnpickler(f, encoding="utf-8").load()
    except FileNotFoundError:
        raise FileNotFoundError(f"legacy pickle not found: {path}") from None
    except pickle.UnpicklingError as err:
        raise ValueError(f"{path}: {err}") from None
    except (EOFError, UnicodeDecodeError, ValueError, TypeError, AttributeError) as err:
        raise ValueError(f"{path}: not a readable document frequency pickle ({err})") from None


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
    >>> import math, os, pickle, tempfile
    >>> table = {("a",): 2.0, ("a", "dog"): 1.0}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "df.p")
    ...     with open(path, "wb") as f:
    ...         pickle.dump({"df": table, "ref_len": math.log(2)}, f)
    ...     print(read_legacy_df(path))
    ...     with open(path, "wb") as f:
    ...         pickle.dump(table, f)
    ...     print(read_legacy_df(path)[1], read_legacy_df(path, n_images=3)[1])
    ({('a',): 2.0, ('a', 'dog'): 1.0}, 2)
    40504 3
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
            f"{path}: unknown layout (keys such as {list(data)[:3]!r}); expected "
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
        raise ValueError(f"{path}: ref_len must be a number, got {value!r:.40}")
    try:
        n = math.exp(value) if logged else float(value)
    except OverflowError:
        n = math.inf
    if not math.isfinite(n) or n < 1 or n >= 2**32 or abs(n - round(n)) > 1e-6 * n:
        what = "the log of a whole number" if logged else "a whole number"
        raise ValueError(f"{path}: ref_len {value!r} is not {what} of images")
    return round(n)
