"""Records (``{"id", "candidate", "references"}``, one image each) checked and
gathered into a :class:`~sparsecider.core.corpus.Corpus`: what streaming
chunks and Dask partitions are made of."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import type_name
from .corpus import Corpus, candidate_list, flatten, reference_list

__all__ = ["Record", "check_record", "corpus_from_records", "duplicate_id", "unique_ids"]


@dataclass(slots=True, eq=False)
class Record:
    """One checked record: ``single`` when the candidate was a bare string."""

    id: str | int
    candidates: list[str]
    references: list[str]
    single: bool


def check_record(row: object, where: str) -> Record:
    """Validate one record ``{"id", "candidate", "references"}``.

    ``id`` is a string or an integer; ``candidate`` a string or a non-empty
    list of strings; ``references`` a non-empty list of strings (lists may be
    numpy arrays, as in dataframe rows).  Errors name ``where`` and the id.

    Examples
    --------
    >>> check_record({"id": 3, "candidate": "a dog", "references": ["a dog"]}, "line 1")
    Record(id=3, candidates=['a dog'], references=['a dog'], single=True)
    >>> check_record({"id": 3, "candidate": "a dog", "references": []}, "line 1")
    Traceback (most recent call last):
    ...
    ValueError: line 1 (id 3): 'references' is empty; every candidate needs at least one reference
    """
    if type(row) is dict:  # the common case, checked with C-level passes
        image_id, candidate, refs = row.get("id"), row.get("candidate"), row.get("references")
        if (
            type(image_id) in (str, int)
            and type(candidate) is str
            and type(refs) is list
            and refs
            and set(map(type, refs)) == {str}
        ):
            return Record(image_id, [candidate], refs, True)
    if not isinstance(row, Mapping):
        raise TypeError(
            f"{where}: a record must be a dict with 'id', 'candidate' and 'references', "
            f"got {type_name(row)}"
        )
    missing = [k for k in ("id", "candidate", "references") if k not in row]
    if missing:
        raise ValueError(f"{where}: the record has no {' or '.join(map(repr, missing))}")
    image_id = row["id"]
    if isinstance(image_id, bool) or not isinstance(image_id, str | int | np.integer):
        raise TypeError(f"{where}: 'id' must be a string or an integer, got {image_id!r:.60}")
    if isinstance(image_id, np.integer):
        image_id = int(image_id)
    at = f"{where} (id {image_id!r})"
    candidate = row["candidate"]
    single = isinstance(candidate, str)
    return Record(
        image_id,
        [str(c) for c in candidate_list(candidate, f"{at}: 'candidate'")],
        [str(r) for r in reference_list(row["references"], f"{at}: 'references'")],
        single,
    )


def unique_ids(records: Iterable[tuple[str, Record]]) -> Iterator[Record]:
    """The records of ``(where, record)`` pairs, with a ``ValueError`` at the
    first id seen twice, naming it and both places (:func:`duplicate_id`)."""
    seen: dict = {}
    for where, rec in records:
        first = seen.get(rec.id)
        if first is not None:
            raise duplicate_id(rec.id, first, where)
        seen[rec.id] = where
        yield rec


def duplicate_id(image_id: object, first: str, again: str) -> ValueError:
    """The one message for an id given twice, for every reader and backend."""
    return ValueError(
        f"duplicate id {image_id!r:.60} at {first} and {again}: every record needs its own "
        "id (merge their references into one record, or give them distinct ids)"
    )


def corpus_from_records(records: Sequence[Record]) -> Corpus:
    """A :class:`Corpus` of checked records (ids from the records).

    Examples
    --------
    >>> c = corpus_from_records([
    ...     check_record({"id": "a", "candidate": ["x", "y"], "references": ["x"]}, "r0"),
    ...     check_record({"id": "b", "candidate": "z", "references": ["z", "w"]}, "r1"),
    ... ])
    >>> c.candidates, c.candidate_image.tolist(), c.reference_offsets.tolist(), c.ids
    (['x', 'y', 'z'], [0, 0, 1], [0, 1, 3], ('a', 'b'))
    """
    return flatten(
        [rec.candidates for rec in records],
        [rec.references for rec in records],
        tuple(rec.id for rec in records),
    )
