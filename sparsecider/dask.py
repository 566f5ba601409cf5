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
3. per partition, its images are scored against it; the per-image scores
   stay on the cluster (persisted) as a ``dask.bag`` of ``(id, score)``
   pairs, and only per-partition sums come back for the corpus mean.

What crosses the network: the partial frequencies once each on the way up,
the total once per worker on the way down, the scores' sums; never the
captions (JSON-lines paths are read by the workers).  Each partition is
scored exactly as the single-machine :func:`sparsecider.cider_d` scores those
images inside the whole corpus (columns follow key order, PTB tokenization
reads ahead into the next partition's first captions), so per-image scores
are bit-identical; the corpus mean agrees to float64 round-off.

To use a real cluster, create the client before calling::

    from distributed import Client
    client = Client("tcp://scheduler-address:8786")
    import dask.bag as db, sparsecider.dask
    records = db.read_text("s3://bucket/captions-*.jsonl").map(json.loads)
    result = sparsecider.dask.cider_d(records)
    result.score                    # float, computed
    result.scores.take(5)           # (id, score) pairs, still on the cluster

Records are dicts ``{"id", "candidate": str or list of str, "references":
[str, ...]}`` as in :mod:`sparsecider.stream`; each is checked, and an error
names the partition (or file and line) and the id.  Ids are not checked for
uniqueness across partitions (that would need a global pass).  With the
``"ptb"`` tokenizer the first captions of every partition are read once more
in an extra, short first pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

try:
    import dask
    import dask.bag as db
except ImportError as err:  # pragma: no cover - exercised only without the extra
    raise ImportError("sparsecider.dask needs Dask: pip install 'sparsecider[dask]'") from err

import numpy as np

from .frequencies import DocumentFrequencies, merge_all
from .result import make_signature
from .scoring import (
    _check_number,
    _no_reference_words,
    check_options,
    warn_single_image,
)
from .stream import Record, _Chunk, _fit_chunk, _score_chunk, check_record, read_jsonl
from .tokenize import (
    TokenizerLike,
    lookahead_captions,
    lookahead_complete,
    resolve_tokenizer,
)
from .tokenize import tokenizer_name as _tokenizer_name

__all__ = ["DaskCiderResult", "cider", "cider_d", "fit_df"]


@dataclass(frozen=True, eq=False)
class DaskCiderResult:
    """Result of :func:`cider_d` / :func:`cider` on a cluster.

    Attributes
    ----------
    score : float
        Corpus score: the mean over all candidates.
    scores : dask.bag.Bag
        ``(id, score)`` per image, in input order (``(id, [scores])`` for
        records with a list of candidates); persisted on the cluster.
    n_images, n_candidates : int
    df : DocumentFrequencies
        The frequencies every image was scored against.
    signature : str
        As :attr:`sparsecider.CiderResult.signature`.
    metric : str
    """

    score: float
    scores: db.Bag
    n_images: int
    n_candidates: int
    df: DocumentFrequencies
    signature: str
    metric: str

    def to_dataframe(self):
        """The scores as a dask dataframe with columns ``id`` and ``score``
        (records with several candidates get one row per candidate).

        Examples
        --------
        >>> import dask.bag as db
        >>> import sparsecider.dask
        >>> rows = [{"id": "a", "candidate": ["a dog", "a cat"], "references": ["a dog"]},
        ...         {"id": "b", "candidate": "a bus", "references": ["a red bus"]}]
        >>> r = sparsecider.dask.cider_d(db.from_sequence(rows), tokenizer="whitespace")
        >>> frame = r.to_dataframe().compute()
        >>> frame["id"].tolist(), frame.shape
        (['a', 'a', 'b'], (3, 2))
        """

        def rows(pairs):
            for image_id, value in pairs:
                for s in value if isinstance(value, list) else [value]:
                    yield {"id": image_id, "score": s}

        return self.scores.map_partitions(lambda part: list(rows(part))).to_dataframe()

    def __float__(self) -> float:
        return self.score

    def __str__(self) -> str:
        return f"{self.metric} = {self.score:.4f} | {self.signature}"


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


def _rows(part: list | None, origin: str) -> Iterator[Record]:
    """The checked records of a partition, lazily (a file is read as far as asked)."""
    if part is None:
        return (check_record(row, where) for where, row in read_jsonl(origin))
    return (_check_row(row, f"{origin}, record {j}") for j, row in enumerate(part))


def _check_row(row: object, where: str) -> Record:
    return check_record(_plain(row, where), where)


def _load(part: list | None, origin: str) -> list[Record]:
    return list(_rows(part, origin))


def _plain(row: object, where: str) -> object:
    """A dataframe row as a record: numpy arrays of list columns become lists."""
    if not isinstance(row, dict):
        return row
    refs, cand = row.get("references"), row.get("candidate")
    if isinstance(refs, str) and where.startswith("dataframe"):
        raise TypeError(
            f"{where}: 'references' arrived as a string ({refs[:40]!r}): Dask turns "
            "object columns into strings; create the dataframe under "
            "dask.config.set({'dataframe.convert-string': False}), or give the column "
            "a pyarrow list type"
        )
    if isinstance(refs, np.ndarray):
        row = {**row, "references": refs.tolist()}
    if isinstance(cand, np.ndarray):
        row = {**row, "candidate": cand.tolist()}
    return row


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


def _fit_partition(
    part, origin, ahead, n: int, tokenizer: TokenizerLike
) -> DocumentFrequencies | None:
    records = _load(part, origin)
    if not records:
        return None
    return _fit_chunk(_Chunk(records, *ahead), n=n, tokenizer=tokenizer)


def _sum(parts: list[DocumentFrequencies | None]) -> DocumentFrequencies | None:
    return merge_all([p for p in parts if p is not None])


def _score_partition(
    part, origin, ahead, df: DocumentFrequencies, n: int, sigma: float | None,
    tokenizer: TokenizerLike, scale: float,
) -> tuple[list, float, int, int]:  # fmt: skip
    """``(pairs, sum of scores, number of candidates, number of images)``."""
    records = _load(part, origin)
    if not records:
        return [], 0.0, 0, 0
    chunk, per_order = _score_chunk(
        _Chunk(records, *ahead), df=df, n=n, sigma=sigma, tokenizer=tokenizer, scale=scale
    )
    scores = per_order.mean(axis=1)
    pairs = [(rec.id, value) for rec, value in chunk.per_record(scores)]
    return pairs, float(scores.sum()), int(scores.shape[0]), len(records)


def _pairs_of(scored: tuple) -> list:
    return scored[0]


def _totals_of(scored: tuple) -> tuple[float, int, int]:
    return scored[1:]


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
    _check_number("split_every", split_every, integer=True)
    if split_every < 2:
        raise ValueError(f"split_every must be >= 2, got {split_every}")
    return int(split_every)


def _prepare_run(records, tokenizer, n):
    parts = _partitions(records)
    if not parts:
        raise ValueError("records has no partitions: there are no images to score")
    if tokenizer == "ptb" and len(parts) > 1:
        heads = dask.compute(*[dask.delayed(_head)(p, o) for p, o in parts])
        aheads = _lookaheads(list(heads))
    else:
        aheads = [([], [])] * len(parts)
    return parts, aheads


def _fit(parts, aheads, n, tokenizer, split_every) -> DocumentFrequencies:
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
    _check_number("n", n, integer=True)
    resolve_tokenizer(tokenizer)
    split_every = _check_split_every(split_every)
    parts, aheads = _prepare_run(records, tokenizer, n)
    return _fit(parts, aheads, int(n), tokenizer, split_every)


def _run(records, *, n, sigma, df, tokenizer, scale, split_every) -> DaskCiderResult:
    n, sigma, scale, given = check_options(
        n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer
    )
    split_every = _check_split_every(split_every)
    parts, aheads = _prepare_run(records, tokenizer, n)
    if given is None:
        frequencies = _fit(parts, aheads, n, tokenizer, split_every)
        if len(frequencies) == 0:
            raise _no_reference_words()
    else:
        frequencies = given
    client = _client()
    shared = (
        client.scatter(frequencies, broadcast=True)
        if client is not None
        else dask.delayed(frequencies, traverse=False)
    )
    scored = [
        dask.delayed(_score_partition)(p, o, a, shared, n, sigma, tokenizer, scale)
        for (p, o), a in zip(parts, aheads, strict=True)
    ]
    scored = dask.persist(*scored)
    sums = dask.compute(*[dask.delayed(_totals_of)(s) for s in scored])
    n_candidates = sum(count for _, count, _ in sums)
    if n_candidates == 0:
        raise ValueError("records is empty: there are no images to score")
    pairs = db.from_delayed([dask.delayed(_pairs_of)(s) for s in scored])
    n_images = sum(images for _, _, images in sums)
    warn_single_image(n_images, given)
    metric = "CIDEr-D" if sigma is not None else "CIDEr"
    signature = make_signature(
        metric, n=n, sigma=sigma,
        df=f"corpus(n_images={n_images})" if given is None else given.describe(),
        tokenizer=_tokenizer_name(tokenizer), scale=scale, version=_version(),
    )  # fmt: skip
    return DaskCiderResult(
        score=sum(total for total, _, _ in sums) / n_candidates,
        scores=pairs,
        n_images=n_images,
        n_candidates=n_candidates,
        df=frequencies,
        signature=signature,
        metric=metric,
    )


def _version() -> str:
    from . import __version__

    return __version__


def cider_d(
    records: object,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    split_every: int = 8,
) -> DaskCiderResult:
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
    DaskCiderResult
        ``score`` (a float), ``scores`` (a persisted bag of ``(id, score)``).

    Examples
    --------
    >>> import dask.bag as db
    >>> import sparsecider, sparsecider.dask
    >>> rows = [{"id": i, "candidate": f"a dog {i % 4}", "references": [f"a dog {i % 3}", "a cat"]}
    ...         for i in range(12)]
    >>> r = sparsecider.dask.cider_d(db.from_sequence(rows, npartitions=3), tokenizer="whitespace")
    >>> single = sparsecider.cider_d([x["candidate"] for x in rows],
    ...                              [x["references"] for x in rows], tokenizer="whitespace")
    >>> abs(r.score - single.score) < 1e-12, r.scores.take(2)[0][0]
    (True, 0)
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
) -> DaskCiderResult:
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
        split_every=split_every,
    )  # fmt: skip
