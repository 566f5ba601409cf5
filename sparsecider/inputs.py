"""Checking and flattening the user's candidates and references.

Everything public validates here, once; the kernels downstream trust the
result.  Nothing is ever dropped, reordered or realigned: output order is
input order, and any mismatch is an error that names the offending items.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

__all__ = ["Corpus", "as_corpus", "check_references", "describe_keys"]


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


def describe_keys(keys: Sequence[Hashable], limit: int = 5) -> str:
    """``[1, 2, 3] and 7 more``: a short listing of offending keys."""
    shown = ", ".join(repr(k) for k in list(keys)[:limit])
    more = len(keys) - limit
    return f"[{shown}]" + (f" and {more} more" if more > 0 else "")


def _type(x: object) -> str:
    return type(x).__name__


def _is_sequence(x: object) -> bool:
    return isinstance(x, Sequence | np.ndarray) and not isinstance(x, str | bytes)


def _candidate_list(value: object, where: str) -> list[str]:
    """One image's candidates: a string, or a non-empty sequence of strings."""
    if isinstance(value, str):
        return [value]
    if not _is_sequence(value):
        raise TypeError(f"{where} must be a string or a list of strings, got {_type(value)}")
    items = list(value)
    if not items:
        raise ValueError(f"{where} is an empty list; give at least one candidate per image")
    for j, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{where}[{j}] must be a string, got {_type(item)}")
    return items


def _reference_list(value: object, where: str) -> list[str]:
    """One image's references: a non-empty sequence of strings."""
    if isinstance(value, str):
        raise TypeError(
            f"{where} is a string; references must be a list of strings per image "
            f"(wrap a single reference as [{value[:30]!r}])"
        )
    if not _is_sequence(value):
        raise TypeError(f"{where} must be a list of strings, got {_type(value)}")
    items = list(value)
    if not items:
        raise ValueError(f"{where} is empty; every candidate needs at least one reference")
    for j, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{where}[{j}] must be a string, got {_type(item)}")
    return items


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
            f"from image id to a list of references, got {_type(references)}"
        )
    if isinstance(references, Mapping):
        ids = tuple(references.keys())
        values = list(references.values())
        if _plain_lists(values):
            return values, ids
        return [_reference_list(references[k], f"{name}[{k!r}]") for k in ids], ids
    if not _is_sequence(references):
        raise TypeError(
            f"{name} must be a list of reference lists (one per image) or a dict "
            f"from image id to a list of references, got {_type(references)}"
        )
    values = list(references)
    if _plain_lists(values):
        return values, None
    return [_reference_list(r, f"{name}[{i}]") for i, r in enumerate(values)], None


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
        raise ValueError(
            "candidates and references must have the same image ids; " + "; ".join(parts)
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
            f"strings, or a dict from image id to a string, got {_type(candidates)}; "
            "wrap a single caption as [caption]"
        )
    cand_is_map = isinstance(candidates, Mapping)
    ref_is_map = isinstance(references, Mapping)
    if cand_is_map != ref_is_map:
        raise TypeError(
            f"candidates is a {_type(candidates)} but references is a {_type(references)}; "
            "pass both as dicts keyed by image id, or both as aligned lists"
        )
    if not cand_is_map and not _is_sequence(candidates):
        raise TypeError(
            f"candidates must be a list of strings (one per image), a list of lists of "
            f"strings, or a dict from image id to a string, got {_type(candidates)}"
        )
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
            cand_lists = [_candidate_list(candidates[k], f"candidates[{k!r}]") for k in cand_keys]
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
            cand_lists = [_candidate_list(c, f"candidates[{i}]") for i, c in enumerate(cand_seq)]
    if not ref_lists:
        raise ValueError("there are no images to score: candidates and references are empty")

    n_refs = np.fromiter(map(len, ref_lists), dtype=np.int64, count=len(ref_lists))
    offsets = np.zeros(len(ref_lists) + 1, dtype=np.int64)
    np.cumsum(n_refs, out=offsets[1:])
    images = np.arange(len(cand_lists), dtype=np.int64)
    if cand_lists and isinstance(cand_lists[0], str):  # one string per image
        flat_cands, candidate_image = cand_lists, images
    else:
        n_cands = np.fromiter(map(len, cand_lists), dtype=np.int64, count=len(cand_lists))
        flat_cands = list(chain.from_iterable(cand_lists))
        candidate_image = np.repeat(images, n_cands)
    return Corpus(
        candidates=flat_cands,
        candidate_image=candidate_image,
        references=list(chain.from_iterable(ref_lists)),
        reference_offsets=offsets,
        ids=ids,
    )
