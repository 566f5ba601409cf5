"""CIDEr and CIDEr-D on a Dask cluster (``pip install 'sparsecider[dask]'``).

Document frequencies need one pass over the references; once they are known,
every image scores on its own.  So a corpus spread over the partitions of a
``dask.bag`` (or a dask dataframe, or JSON-lines files) is scored as:

1. per partition, a partial :class:`~sparsecider.DocumentFrequencies` of its
   references; the partials are summed in a tree (``split_every`` at a time)
   and the total comes back to the client;
2. the total is sent to every worker once (``Client.scatter(...,
   broadcast=True)`` when a ``distributed`` client is active; otherwise it
   is a single graph key);
3. per partition, its images are scored against it (pair statistics and
   their reduction, as everywhere), and the per-order values come back to
   the client with the ids: the result is a :class:`~sparsecider.CiderResult`
   like every other backend's.

What crosses the network: the partial frequencies once each on the way up,
the total once per worker on the way down, and 8 bytes per candidate and
order plus the ids on the way back; never the captions (JSON-lines paths
are read by the workers).  Each partition is scored exactly as the
single-machine :func:`sparsecider.cider_d` scores those images inside the
whole corpus (columns follow key order, PTB tokenization reads ahead into the
next partition's first captions), and the corpus mean is taken on the client
by the same reduction, so the scores and the mean are bit-identical.

To use a real cluster, create the client before calling::

    from distributed import Client
    client = Client("tcp://scheduler-address:8786")
    import dask.bag as db, sparsecider.dask
    records = db.read_text("s3://bucket/captions-*.jsonl").map(json.loads)
    result = sparsecider.dask.cider_d(records)
    result.score                    # float
    result.to_pandas().head()       # id, score per candidate

Records are dicts ``{"id", "candidate": str or list of str, "references":
[str, ...]}`` (the schema of :mod:`sparsecider.io.records`); each is checked, and an error
names the partition (or file and line) and the id.  Ids are not checked for
uniqueness across partitions (that would need a global pass).  With the
``"ptb"`` tokenizer the first captions of every partition are read once more
in an extra, short first pass.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence

try:
    import dask
    import dask.bag as db
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError("sparsecider.dask needs Dask: pip install 'sparsecider[dask]'") from err

import numpy as np

from ._checks import MAX_N, check_int
from .core.advice import advise, check_id_strings, sample, warn_small_corpus
from .core.df_fit import merge_all
from .core.frequencies import DocumentFrequencies
from .core.records import Record, check_record, duplicate_id
from .core.result import CiderResult
from .core.stages import no_reference_words
from .core.validate import Options, check_options
from .io.records import as_record, read_jsonl
from .scale.chunks import Chunk, fit_chunk, score_chunk
from .tokenizers import (
    Tokenizer,
    TokenizerLike,
    get_tokenizer,
    lookahead_captions,
    lookahead_complete,
)

__all__ = ["cider", "cider_d", "fit_df"]


# ---- partitions -------------------------------------------------------------------


def _partitions(records: object) -> list[tuple[object, str]]:
    """``[(part, origin), ...]``: a delayed list of raw rows and a label, or
    ``(None, path)`` for a JSON-lines file the worker reads itself."""
    if isinstance(records, str | os.PathLike):
        records = [records]
    if (
        isinstance(records, Sequence)
        and records
        and all(isinstance(p, str | os.PathLike) for p in records)
    ):
        return [(None, os.fspath(p)) for p in records]
    if hasattr(records, "to_bag") and hasattr(records, "columns"):  # a dask dataframe
        missing = {"id", "candidate", "references"} - set(records.columns)
        if missing:
            raise ValueError(f"the dataframe has no column(s) {sorted(missing)}")
        _check_references_column(records["references"].dtype)
        records = records[["id", "candidate", "references"]].to_bag(format="dict")
        parts = records.to_delayed()
        return [(part, f"dataframe partition {i}") for i, part in enumerate(parts)]
    if isinstance(records, db.Bag):
        return [(part, f"partition {i}") for i, part in enumerate(records.to_delayed())]
    raise TypeError(
        "records must be a dask.bag of record dicts, a dask dataframe with columns "
        "'id', 'candidate' and 'references', or JSON-lines path(s), "
        f"got {type(records).__name__}"
    )


def _check_references_column(dtype: object) -> None:
    """On the client, before any task: a 'references' column of strings means
    Dask has turned the lists into their text (``dataframe.convert-string``)."""
    import pandas as pd

    if isinstance(dtype, pd.StringDtype) or str(dtype).startswith("string"):
        raise TypeError(
            f"the dataframe's 'references' column has dtype {dtype}: Dask turns object "
            "columns (lists of references) into strings; create the dataframe under "
            "dask.config.set({'dataframe.convert-string': False}), or give the column a "
            "pyarrow list type"
        )


def _rows(part: list | None, origin: str) -> Iterator[Record]:
    """The checked records of a partition, lazily (a file is read as far as asked)."""
    if part is None:
        return (check_record(as_record(row), where) for where, row in read_jsonl(origin))
    return (_check_row(row, f"{origin}, record {j}") for j, row in enumerate(part))


def _check_row(row: object, where: str) -> Record:
    if isinstance(row, dict) and where.startswith("dataframe"):
        refs = row.get("references")
        if isinstance(refs, str):
            raise TypeError(
                f"{where}: 'references' arrived as a string ({refs[:40]!r}): Dask turns "
                "object columns into strings; create the dataframe under "
                "dask.config.set({'dataframe.convert-string': False}), or give the column "
                "a pyarrow list type"
            )
    return check_record(as_record(row) if isinstance(row, dict) else row, where)


def _head(part: list | None, origin: str) -> tuple[list[str], list[str], bool]:
    """The first captions of a partition (references, candidates) that the
    previous partition's PTB tokenization may read, and whether they are
    ``complete`` (enough of them; else the next partition's head follows)."""
    refs: list[str] = []
    cands: list[str] = []
    for rec in _rows(part, origin):
        refs += rec.references
        cands += rec.candidates
        if lookahead_complete(refs) and lookahead_complete(cands):
            return lookahead_captions(refs), lookahead_captions(cands), True
    return refs, cands, False


def _lookaheads(heads: list[tuple[list[str], list[str], bool]]) -> list[tuple[list, list]]:
    """For partition i, the captions after it: the heads of i+1, i+2, ... until one is complete."""
    out = []
    for i in range(len(heads)):
        refs: list[str] = []
        cands: list[str] = []
        for r, c, complete in heads[i + 1 :]:
            refs += r
            cands += c
            if complete:
                break
        out.append((lookahead_captions(refs), lookahead_captions(cands)))
    return out


def _fit_partition(part, origin, ahead, n: int, tokenizer: Tokenizer) -> DocumentFrequencies | None:
    records = list(_rows(part, origin))
    if not records:
        return None
    return fit_chunk(Chunk(records, *ahead), n=n, tokenizer=tokenizer)


def _sum(parts: list[DocumentFrequencies | None]) -> DocumentFrequencies | None:
    return merge_all([p for p in parts if p is not None])


def _score_partition(
    part, origin, ahead, df: DocumentFrequencies, options: Options
) -> tuple[list, list[int], np.ndarray | None, int, tuple[list[str], list[str]]]:
    """``(ids, candidates per record, per-order values, empty candidates,
    (a few candidates, a few references))`` of a partition; the captions are
    for the client's advice (:mod:`sparsecider.core.advice`)."""
    records = list(_rows(part, origin))
    if not records:
        return [], [], None, 0, ([], [])
    _, per_order, empty = score_chunk(Chunk(records, *ahead), options, df)
    looked_at = (
        sample([c for rec in records for c in rec.candidates], _LOOKED_AT),
        sample([r for rec in records for r in rec.references], _LOOKED_AT),
    )
    ids = [rec.id for rec in records]
    return ids, [len(rec.candidates) for rec in records], per_order, empty, looked_at


# captions per partition sent back to the client for advice
_LOOKED_AT = 16


def _tree_sum(partials: list, split_every: int):
    level = list(partials)
    while len(level) > 1:
        level = [
            dask.delayed(_sum)(level[i : i + split_every])
            for i in range(0, len(level), split_every)
        ]
    return level[0] if level else dask.delayed(_sum)([])


def _client():
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


# ---- public functions -------------------------------------------------------------


def _check_split_every(split_every: object) -> int:
    return check_int("split_every", split_every, minimum=2)


def _prepare_run(records, tokenizer: Tokenizer):
    parts = _partitions(records)
    if not parts:
        raise ValueError("records has no partitions: there are no images to score")
    if tokenizer.lookahead and len(parts) > 1:
        heads = dask.compute(*[dask.delayed(_head)(p, o) for p, o in parts])
        aheads = _lookaheads(list(heads))
    else:
        aheads = [([], [])] * len(parts)
    return parts, aheads


def _fit(parts, aheads, n, tokenizer: Tokenizer, split_every) -> DocumentFrequencies:
    partials = [
        dask.delayed(_fit_partition)(p, o, a, n, tokenizer)
        for (p, o), a in zip(parts, aheads, strict=True)
    ]
    (total,) = dask.compute(_tree_sum(partials, split_every))
    if total is None:
        raise ValueError("records is empty: there are no images to score")
    return total


def fit_df(
    records: object, *, n: int = 4, tokenizer: TokenizerLike = "ptb", split_every: int = 8
) -> DocumentFrequencies:
    """Document frequencies of the references of ``records``, fitted on the cluster.

    Equal to :meth:`DocumentFrequencies.from_references` on all references
    at once.  ``split_every`` partials are summed per reduction task.

    Examples
    --------
    >>> import dask.bag as db
    >>> import sparsecider, sparsecider.dask
    >>> rows = [{"id": i, "candidate": "a", "references": [f"a dog {i % 3}"]} for i in range(9)]
    >>> df = sparsecider.dask.fit_df(db.from_sequence(rows, npartitions=3), tokenizer="whitespace")
    >>> df == sparsecider.DocumentFrequencies.from_references(
    ...     [r["references"] for r in rows], tokenizer="whitespace")
    True
    """
    n = check_int("n", n, maximum=MAX_N)
    resolved = get_tokenizer(tokenizer)
    split_every = _check_split_every(split_every)
    parts, aheads = _prepare_run(records, resolved)
    return _fit(parts, aheads, n, resolved, split_every)


def _run(records, *, n, sigma, df, tokenizer, scale, split_every, plain=False) -> CiderResult:
    options = check_options(n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer, plain=plain)
    split_every = _check_split_every(split_every)
    parts, aheads = _prepare_run(records, options.tokenizer)
    if options.df is None:
        frequencies = _fit(parts, aheads, options.n, options.tokenizer, split_every)
        if len(frequencies) == 0:
            raise no_reference_words()
    else:
        frequencies = options.df
    client = _client()
    shared = (
        client.scatter(frequencies, broadcast=True)
        if client is not None
        else dask.delayed(frequencies, traverse=False)
    )
    score = functools.partial(_score_partition, options=options)
    scored = dask.compute(
        *[dask.delayed(score)(p, o, a, shared) for (p, o), a in zip(parts, aheads, strict=True)]
    )
    ids = [i for part_ids, *_ in scored for i in part_ids]
    _check_unique([part_ids for part_ids, *_ in scored], [origin for _, origin in parts])
    if not ids:
        raise ValueError("records is empty: there are no images to score")
    n_cands = [c for _, counts, *_ in scored for c in counts]
    n_images = len(ids)
    candidates = [c for *_, (cands, _) in scored for c in cands]
    references = [r for *_, (_, refs) in scored for r in refs]
    check_id_strings(candidates, options.df, references)
    warn_small_corpus(n_images, options.df, stacklevel=5)
    advise(candidates, references, options.tokenizer, options.df, stacklevel=3)
    return CiderResult.from_per_order(
        np.concatenate([values for _, _, values, *_ in scored if values is not None]),
        signature=options.signature(n_images),
        n_images=n_images,
        image_index=np.repeat(np.arange(n_images, dtype=np.int64), n_cands),
        ids=tuple(ids),
        df=frequencies,
        empty_candidates=sum(empty for _, _, _, empty, _ in scored),
    )


def _check_unique(ids_by_part: list[list], origins: list[str]) -> None:
    """Refuse an id given twice, in one partition or two, as the stream does
    (duplicates would count one image twice in the frequencies and the mean)."""
    seen: dict = {}
    for k, part_ids in enumerate(ids_by_part):
        for j, image_id in enumerate(part_ids):
            first = seen.setdefault(image_id, (k, j))
            if first != (k, j):
                raise duplicate_id(
                    image_id, f"{origins[first[0]]}, record {first[1]}", f"{origins[k]}, record {j}"
                )


def cider_d(
    records: object,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    split_every: int = 8,
) -> CiderResult:
    """CIDEr-D of records on a Dask cluster (see the module docstring).

    Parameters
    ----------
    records : dask.bag.Bag, dask dataframe, or path(s) of JSON-lines files
        One record per image: ``{"id", "candidate", "references"}``.  Each
        file is one partition.
    n, sigma, df, tokenizer, scale
        As in :func:`sparsecider.cider_d`.  ``df="corpus"`` fits the
        frequencies on the records' references first (one pass).
    split_every : int, default 8
        Partial frequencies summed per reduction task.

    Returns
    -------
    CiderResult
        As the in-memory :func:`sparsecider.cider_d` with dict input (``ids``
        holds the record ids, ``df`` the frequencies used); equal to it bit
        for bit.

    Examples
    --------
    >>> import dask.bag as db
    >>> import sparsecider, sparsecider.dask
    >>> rows = [{"id": i, "candidate": f"a dog {i % 4}", "references": [f"a dog {i % 3}", "a cat"]}
    ...         for i in range(12)]
    >>> r = sparsecider.dask.cider_d(db.from_sequence(rows, npartitions=3), tokenizer="whitespace")
    >>> single = sparsecider.cider_d([x["candidate"] for x in rows],
    ...                              [x["references"] for x in rows], tokenizer="whitespace")
    >>> r.score == single.score, r.ids[:2]
    (True, (0, 1))
    """
    return _run(
        records, n=n, sigma=sigma, df=df, tokenizer=tokenizer, scale=scale,
        split_every=split_every,
    )  # fmt: skip


def cider(
    records: object,
    *,
    n: int = 4,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    split_every: int = 8,
) -> CiderResult:
    """Plain CIDEr of records on a Dask cluster; as :func:`cider_d` without clip and penalty.

    Examples
    --------
    >>> import dask.bag as db
    >>> import sparsecider.dask
    >>> rows = [{"id": "a", "candidate": "a dog", "references": ["a dog"]},
    ...         {"id": "b", "candidate": "a cat", "references": ["a bird"]}]
    >>> sparsecider.dask.cider(db.from_sequence(rows), tokenizer="whitespace").signature
    'CIDEr|n:4|df:corpus(n_images=2)|tok:whitespace|version:0.1.0'
    """
    return _run(
        records, n=n, sigma=None, df=df, tokenizer=tokenizer, scale=scale,
        split_every=split_every, plain=True,
    )  # fmt: skip
