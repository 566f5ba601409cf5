"""``Corpus`` and the one normaliser: every accepted input shape -> the same arrays.

Candidates and references arrive as aligned lists, nested lists (several
candidates per image), dicts keyed by image id, numpy arrays, or records
(``{"id", "candidate", "references"}`` from JSON-lines files, Python
iterables or Dask partitions).  They are checked here, item by item, once,
and flattened into a :class:`Corpus`; the engine downstream trusts it.
Nothing is ever dropped, reordered or realigned: output order is input
order, and any mismatch is an error that names the offending items.
Integer-id inputs (:func:`sparsecider.cider_d_ids`) are checked by
:func:`reference_id_rows` and :func:`check_id`.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from .._checks import (
    CaptionError,
    check_token_lists,
    describe_keys,
    id_kind_mismatch,
    int_array,
    is_sequence,
    type_name,
)

__all__ = [
    "Corpus",
    "as_candidate_sets",
    "as_corpus",
    "candidate_list",
    "check_id",
    "check_references",
    "check_same_index",
    "documents",
    "flatten",
    "reference_id_rows",
    "reference_list",
]


@dataclass(frozen=True, eq=False)
class Corpus:
    """Candidates and references, flattened and aligned by image.

    Attributes
    ----------
    candidates : list of str
        All candidates, image after image, in input order.
    candidate_image : ndarray of int64, shape (n_candidates,)
        Position of each candidate's image (0 .. n_images - 1).
    references : list of str
        All references, image after image, in input order.
    reference_offsets : ndarray of int64, shape (n_images + 1,)
        ``references[reference_offsets[i]:reference_offsets[i + 1]]`` belong
        to image i.
    ids : tuple or None
        Image ids, when the input was a mapping.
    """

    candidates: list[str]
    candidate_image: np.ndarray
    references: list[str]
    reference_offsets: np.ndarray
    ids: tuple | None

    @property
    def n_images(self) -> int:
        return int(self.reference_offsets.shape[0] - 1)

    def caption_name(self, side: str, index: int) -> str:
        """Flat caption ``index`` of ``side`` as the user gave it: ``candidates[k]``
        (``candidates[k][j]`` when image k has several), ``references[k][j]``.

        Examples
        --------
        >>> c = as_corpus({7: ["a dog", "a cat"], 9: "a bus"}, {7: ["x"], 9: ["y", "z"]})
        >>> c.caption_name("candidates", 1), c.caption_name("candidates", 2)
        ('candidates[7][1]', 'candidates[9]')
        >>> c.caption_name("references", 2)
        'references[9][1]'
        """
        if side == "references":
            offsets = self.reference_offsets
            image = int(np.searchsorted(offsets, index, side="right")) - 1
            j = index - int(offsets[image])
        else:
            image = int(self.candidate_image[index])
            first, stop = np.searchsorted(self.candidate_image, [image, image + 1]).tolist()
            j = None if stop - first == 1 else index - first
        key = image if self.ids is None else repr(self.ids[image])
        return f"{side}[{key}]" + ("" if j is None else f"[{j}]")

    @contextlib.contextmanager
    def naming(self, side: str, start: int = 0) -> Iterator[None]:
        """Name a caption a tokenizer cannot read (:class:`CaptionError`) as the user
        gave it, for the tokenization of ``side``'s captions from ``start`` on."""
        try:
            yield
        except CaptionError as err:
            at = err.index + start
            raise CaptionError(at, err.problem, self.caption_name(side, at)) from None


def _same(x: object, y: object) -> bool:
    """Equal labels, a missing label (NaN, NaT) matching a missing one."""
    try:
        return bool(x == y) or bool(x != x and y != y)
    except TypeError:  # pandas.NA has no truth value
        return x is y


def _label(x: object) -> str:
    """A label as the user wrote it: 3, not np.int64(3)."""
    return repr(x.item() if hasattr(x, "item") else x)


def check_same_index(candidates: object, references: object) -> None:
    """Refuse two pandas Series (or anything with an ``index``) whose indexes
    differ: lists pair by position, and two Series with the same labels in
    another order would pair the wrong captions without a word.

    Series with equal indexes pair by position, which is then also by label.

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.Series(["a dog", "a cat"], index=[1, 2])
    >>> check_same_index(c, pd.Series([["a dog"], ["a cat"]], index=[1, 2]))
    >>> check_same_index(c, pd.Series([["a cat"], ["a dog"]], index=[2, 1]))
    Traceback (most recent call last):
    ...
    ValueError: candidates and references are pandas objects with different indexes ...
    """
    a, b = getattr(candidates, "index", None), getattr(references, "index", None)
    if not (hasattr(a, "equals") and hasattr(b, "equals")) or a.equals(b):
        return  # a list's .index is a method: only two indexed objects are compared
    common = min(len(a), len(b))
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if not _same(x, y)), common)
    first = f"label {_label(a[at]):.40} vs {_label(b[at]):.40}" if at < common else "length"
    raise ValueError(
        f"candidates and references are pandas objects with different indexes (they first "
        f"differ at position {at}: {first}); they would be paired by position, not by label. "
        "Align them first (references.reindex(candidates.index)), or pass "
        "candidates.to_dict() and references.to_dict() to pair by label"
    )


def _strings(value: object, where: str, *, expected: str, if_empty: str) -> list[str]:
    """The items of a non-empty list-like of strings, each checked; the
    messages name ``where`` and the item."""
    if not is_sequence(value):
        raise TypeError(f"{where} must be {expected}, got {type_name(value)}")
    items = list(value)
    if not items:
        raise ValueError(f"{where} {if_empty}")
    for j, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{where}[{j}] must be a string, got {type_name(item)}")
    return items


def candidate_list(value: object, where: str) -> list[str]:
    """One image's candidates: a string, or a non-empty sequence of strings."""
    if isinstance(value, str):
        return [value]
    return _strings(
        value, where, expected="a string or a list of strings",
        if_empty="is an empty list; give at least one candidate per image",
    )  # fmt: skip


def reference_list(value: object, where: str) -> list[str]:
    """One image's references: a non-empty sequence of strings."""
    if isinstance(value, str):
        raise TypeError(
            f"{where} is a string; references must be a list of strings per image "
            f"(wrap a single reference as [{value[:30]!r}])"
        )
    return _strings(
        value, where, expected="a list of strings",
        if_empty="is empty; every candidate needs at least one reference",
    )  # fmt: skip


def documents(value: object) -> list[list[str]]:
    """Training documents: a list of reference lists (one per image), or a
    list of strings (each its own document).

    Examples
    --------
    >>> documents(["a dog", "a cat"]), documents([["a dog", "the dog"]])
    ([['a dog'], ['a cat']], [['a dog', 'the dog']])
    """
    if isinstance(value, str) or not is_sequence(value):
        raise TypeError(
            "fit takes a list of reference lists (one per image) or a list of captions, "
            f"got {type_name(value)}"
        )
    docs = list(value)
    if docs and all(isinstance(d, str) for d in docs):
        return [[d] for d in docs]
    return docs


def _plain_lists(values: list) -> bool:
    """True when every value is a non-empty list of exact ``str`` (checked with
    C-level passes); anything else goes through the item-by-item checks,
    which name the offending item."""
    if set(map(type, values)) - {list} or not all(map(len, values)):
        return False
    return set(map(type, chain.from_iterable(values))) <= {str}


def check_references(
    references: object, name: str = "references"
) -> tuple[list[list[str]], tuple | None]:
    """Validate references alone: a sequence of reference lists, or a mapping
    from image id to reference list.  Returns the lists and the ids (or None)."""
    if isinstance(references, str | bytes):
        raise TypeError(
            f"{name} must be a list of reference lists (one per image) or a dict "
            f"from image id to a list of references, got {type_name(references)}"
        )
    if isinstance(references, Mapping):
        ids = tuple(references.keys())
        values = list(references.values())
        if _plain_lists(values):
            return values, ids
        return [reference_list(references[k], f"{name}[{k!r}]") for k in ids], ids
    if not is_sequence(references):
        raise TypeError(
            f"{name} must be a list of reference lists (one per image) or a dict "
            f"from image id to a list of references, got {type_name(references)}"
        )
    values = list(references)
    if _plain_lists(values):
        return values, None
    return [reference_list(r, f"{name}[{i}]") for i, r in enumerate(values)], None


def _reorder_references(ref_lists: list, ref_ids: Sequence, cand_keys: list) -> list:
    """The reference lists in the candidates' id order; a ValueError naming
    the ids found on one side only."""
    ref_keys = set(ref_ids)
    only_c = [k for k in cand_keys if k not in ref_keys]
    cand_key_set = set(cand_keys)
    only_r = [k for k in ref_ids if k not in cand_key_set]
    if only_c or only_r:
        parts = []
        if only_c:
            parts.append(f"{len(only_c)} id(s) only in candidates: {describe_keys(only_c)}")
        if only_r:
            parts.append(f"{len(only_r)} id(s) only in references: {describe_keys(only_r)}")
        kinds = id_kind_mismatch(cand_keys, ref_ids, "candidates", "references")
        raise ValueError(
            (kinds + "; " if kinds else "")
            + "candidates and references must have the same image ids; "
            + "; ".join(parts)
        )
    # output follows the candidates' order; references are looked up by id
    position = {k: i for i, k in enumerate(ref_ids)}
    return [ref_lists[position[k]] for k in cand_keys]


def as_corpus(candidates: object, references: object) -> Corpus:
    """Validate and flatten candidates and references.

    See :func:`sparsecider.cider_d` for the accepted layouts.

    Raises
    ------
    TypeError
        A bare string where a list is expected, a non-string caption, or a
        mapping on one side and a sequence on the other.
    ValueError
        Different numbers of images, ids present on one side only, or an
        image with no references or no candidates.
    """
    if isinstance(candidates, str | bytes):
        raise TypeError(
            f"candidates must be a list of strings (one per image), a list of lists of "
            f"strings, or a dict from image id to a string, got {type_name(candidates)}; "
            "wrap a single caption as [caption]"
        )
    cand_is_map = isinstance(candidates, Mapping)
    ref_is_map = isinstance(references, Mapping)
    if cand_is_map != ref_is_map:
        raise TypeError(
            f"candidates is a {type_name(candidates)} but references is a {type_name(references)}; "
            "pass both as dicts keyed by image id, or both as aligned lists"
        )
    if not cand_is_map and not is_sequence(candidates):
        raise TypeError(
            f"candidates must be a list of strings (one per image), a list of lists of "
            f"strings, or a dict from image id to a string, got {type_name(candidates)}"
        )
    check_same_index(candidates, references)
    ref_lists, ids = check_references(references)
    if cand_is_map:
        cand_keys = list(candidates.keys())
        if cand_keys != list(ids or ()):  # same ids in the same order: nothing to do
            ref_lists = _reorder_references(ref_lists, ids or (), cand_keys)
        ids = tuple(cand_keys)
        values = list(candidates.values())
        if set(map(type, values)) <= {str}:
            cand_lists = values  # one caption per image
        else:
            cand_lists = [candidate_list(candidates[k], f"candidates[{k!r}]") for k in cand_keys]
    else:
        cand_seq = list(candidates)
        if len(cand_seq) != len(ref_lists):
            raise ValueError(
                f"candidates has {len(cand_seq)} images but references has {len(ref_lists)}; "
                "they must be aligned, one entry per image"
            )
        if set(map(type, cand_seq)) <= {str}:
            cand_lists = cand_seq  # one caption per image
        else:
            cand_lists = [candidate_list(c, f"candidates[{i}]") for i, c in enumerate(cand_seq)]
    if not ref_lists:
        raise ValueError("there are no images to score: candidates and references are empty")
    check_token_lists(cand_lists, ref_lists, ids)
    return flatten(cand_lists, ref_lists, ids)


def _candidate_set(value: object, where: str) -> list[str]:
    """One image's set of candidates: a non-empty sequence of strings."""
    if isinstance(value, str):
        raise TypeError(
            f"{where} is a string; give each image a list of its candidates "
            f"(a set of one is [{value[:30]!r}])"
        )
    return _strings(
        value, where, expected="a list of strings",
        if_empty="is empty; every image needs at least one candidate",
    )  # fmt: skip


def as_candidate_sets(candidate_sets: object, name: str = "candidate_sets") -> Corpus:
    """Validate sets of candidates (several per image) and flatten them into a
    :class:`Corpus` whose references are its candidates.

    Image i's candidates are also image i's references (the very same list,
    which :func:`sparsecider.core.engine.statistics` tokenizes once), so the
    engine's pairs are every (a, b) of each set, ``a`` and ``b`` in input
    order, each set's m candidates giving m * m pairs: the kernel matrices of
    Self-CIDEr and the agreement scores of consensus selection.

    Parameters
    ----------
    candidate_sets : list of list of str, or dict
        One list of captions per image, or a dict from image id to such a list.
    name : str, default "candidate_sets"
        The argument's name, for messages.

    Raises
    ------
    TypeError
        A bare string where a list is expected, or a caption that is not a string.
    ValueError
        No image, or an image with an empty set.

    Examples
    --------
    >>> c = as_candidate_sets([["a dog", "one dog"], ["a bus"]])
    >>> c.candidate_image.tolist(), c.reference_offsets.tolist(), c.references is c.candidates
    ([0, 0, 1], [0, 2, 3], True)
    >>> as_candidate_sets([["a dog"], "a bus"])
    Traceback (most recent call last):
    ...
    TypeError: candidate_sets[1] is a string; give each image a list of its candidates ...
    """
    if isinstance(candidate_sets, str | bytes) or not (
        isinstance(candidate_sets, Mapping) or is_sequence(candidate_sets)
    ):
        raise TypeError(
            f"{name} must be a list of caption lists (one per image) or a dict from image id "
            f"to a list of captions, got {type_name(candidate_sets)}"
        )
    if isinstance(candidate_sets, Mapping):
        ids: tuple | None = tuple(candidate_sets.keys())
        values = list(candidate_sets.values())
    else:
        ids, values = None, list(candidate_sets)
    if not values:
        raise ValueError(f"{name} is empty: there are no images to score")
    if not _plain_lists(values):  # item by item, naming the offending one
        keys = [repr(k) for k in ids] if ids is not None else range(len(values))
        values = [_candidate_set(v, f"{name}[{k}]") for v, k in zip(values, keys, strict=True)]
    sizes = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    captions = list(chain.from_iterable(values))
    return Corpus(
        candidates=captions,
        candidate_image=np.repeat(np.arange(len(values), dtype=np.int64), sizes),
        references=captions,
        reference_offsets=offsets,
        ids=ids,
    )


def flatten(cand_lists: list, ref_lists: list, ids: tuple | None) -> Corpus:
    """A :class:`Corpus` from checked per-image lists (``cand_lists[i]`` a
    string or a list of strings, ``ref_lists[i]`` a list of strings)."""
    n_refs = np.fromiter(map(len, ref_lists), dtype=np.int64, count=len(ref_lists))
    offsets = np.zeros(len(ref_lists) + 1, dtype=np.int64)
    np.cumsum(n_refs, out=offsets[1:])
    images = np.arange(len(cand_lists), dtype=np.int64)
    if all(isinstance(c, str) for c in cand_lists[:1]) and set(map(type, cand_lists)) <= {str}:
        flat_cands, candidate_image = list(cand_lists), images  # one string per image
    else:
        n_cands = np.fromiter(
            (1 if isinstance(c, str) else len(c) for c in cand_lists),
            dtype=np.int64,
            count=len(cand_lists),
        )
        flat_cands = [c for cs in cand_lists for c in ([cs] if isinstance(cs, str) else cs)]
        candidate_image = np.repeat(images, n_cands)
    return Corpus(
        candidates=flat_cands,
        candidate_image=candidate_image,
        references=list(chain.from_iterable(ref_lists)),
        reference_offsets=offsets,
        ids=ids,
    )


# ---- records: {"id", "candidate", "references"} ------------------------------------


# ---- integer token ids ------------------------------------------------------------------


def check_id(name: str, value: object) -> int:
    """A token id (``eos``, ``pad``): an integer.

    Examples
    --------
    >>> check_id("eos", None)
    Traceback (most recent call last):
    ...
    TypeError: eos must be an integer id, got None
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer id, got {value!r}")
    if not -(2**63) <= value < 2**63:
        raise ValueError(f"{name} must fit in a signed 64-bit integer, got {value}")
    return int(value)


def reference_id_rows(
    references: object, keys: Sequence | None = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """Each image's reference id sequences as 1-D int64 arrays, and the per-image counts.

    ``references``: one entry per image, a padded 2-D integer array or a
    list of 1-D integer arrays (or a 3-D array).  ``keys``: the image ids
    that messages name (``references[391895]``; default: positions).
    """
    if isinstance(references, np.ndarray) and references.ndim == 3:
        references = list(references)
    if not isinstance(references, Sequence) or isinstance(references, str):
        raise TypeError(
            "references must be a list with one entry per image: a padded 2-D array or a "
            f"list of 1-D arrays, got {type_name(references)}"
        )
    rows: list[np.ndarray] = []
    counts = np.zeros(len(references), dtype=np.int64)
    for i, entry in enumerate(references):
        at = f"references[{i if keys is None else repr(keys[i])}]"
        if isinstance(entry, Sequence) and not isinstance(entry, str | bytes):
            seqs = [int_array(s, f"{at}[{j}]", 1) for j, s in enumerate(entry)]
        else:
            seqs = list(int_array(entry, at, 2))
        if not seqs:
            raise ValueError(f"{at} is empty; every image needs at least one reference")
        counts[i] = len(seqs)
        rows.extend(seqs)
    return rows, counts
