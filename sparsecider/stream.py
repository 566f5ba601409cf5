"""Chunked, bounded-memory scoring of caption sets too large for memory.

Document frequencies need one pass over the references; once they are known,
every image scores on its own.  So a corpus of any size is scored in two
streaming passes over its records, a chunk of images at a time:

1. **fit** (skipped when ``df`` is given): each chunk's references give a
   partial :class:`~sparsecider.DocumentFrequencies`; partials are merged as
   they come (like a log-structured merge: equal-sized partials pairwise, so
   the cost stays O(total log chunks));
2. **score**: each chunk is scored against those frequencies, and its
   per-image scores are written out before the next chunk is read.

Memory is bounded by the chunk (tokens, n-gram counts and the pair join of
``chunk_size`` images, times ``n_jobs`` chunks in flight) plus the document
frequencies (12 bytes per distinct n-gram) plus 40 bytes per candidate for
the returned scores.  The results are bit-identical to the in-memory
:func:`sparsecider.cider_d` on the same images, whatever ``chunk_size`` and
``n_jobs``: columns follow n-gram key order in every chunk, so each sum adds
the same terms in the same order, and PTB tokenization of a chunk reads ahead
into the next captions exactly as the whole sequence would
(:func:`sparsecider.tokenize.tokenize_slice`).

Records
-------
Each record is one image: a dict ``{"id": ..., "candidate": str or list of
str, "references": [str, ...]}``.  ``records`` may be

- a path, or a list of paths, of JSON-lines files (one record per line,
  ``.gz`` decompressed; blank lines skipped);
- a list (or other sequence) of record dicts;
- a function returning a fresh iterable of records on each call;
- any other iterable (an iterator, a generator): it can be read once only,
  so it needs a precomputed ``df``.

Every record is checked; a problem is a ``ValueError`` or ``TypeError``
naming the file and line (or the record's position) and its id.  Ids must be
strings or integers, and unique.

Examples
--------
>>> from sparsecider import stream
>>> records = [
...     {"id": "a", "candidate": "a dog runs", "references": ["a dog runs", "a dog is running"]},
...     {"id": "b", "candidate": "a red bus", "references": ["a red bus on a road"]},
...     {"id": "c", "candidate": "two cats", "references": ["two cats sleeping", "cats"]},
... ]
>>> chunked = stream.cider_d(records, chunk_size=2, tokenizer="whitespace")
>>> import sparsecider
>>> whole = sparsecider.cider_d(
...     {r["id"]: r["candidate"] for r in records},
...     {r["id"]: r["references"] for r in records},
...     tokenizer="whitespace",
... )
>>> bool((chunked.scores == whole.scores).all()), chunked.score == whole.score, chunked.ids
(True, True, ('a', 'b', 'c'))
"""

from __future__ import annotations

import gzip
import json
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import atomic_write
from .frequencies import DocumentFrequencies, merge_all
from .inputs import _candidate_list, _reference_list
from .result import CiderResult
from .scoring import (
    _check_number,
    _no_reference_words,
    check_options,
    make_result,
    resolve_n_jobs,
    score_tokens,
    warn_single_image,
)
from .tokenize import TokenizerLike, lookahead_captions, resolve_tokenizer, tokenize_slice
from .tokenize import tokenizer_name as _tokenizer_name

__all__ = ["cider", "cider_d", "fit_df", "read_jsonl"]

DEFAULT_CHUNK_SIZE = 20_000

Records = str | os.PathLike | Sequence[str | os.PathLike] | Sequence[Mapping] | Callable | Iterable


# ---- records -----------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Record:
    """One checked record: ``single`` when the candidate was a bare string."""

    id: str | int
    candidates: list[str]
    references: list[str]
    single: bool


def read_jsonl(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
) -> Iterator[tuple[str, dict]]:
    """``(where, record)`` for every non-blank line of JSON-lines files, lazily.

    ``where`` is ``"file:line"``.  ``.gz`` files are decompressed; text must
    be UTF-8.  Lines are split on ``\\n`` only, so any other line separator
    inside a caption stays in the caption.

    Raises
    ------
    ValueError
        A missing or unreadable file, a line that is not JSON, or one that
        is not a JSON object.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "val.jsonl"
    ...     _ = path.write_text('{"id": 1}\\n\\n{"id": 2, "candidate": "a\\u2028dog"}\\n')
    ...     rows = [(where.split("/")[-1], r) for where, r in read_jsonl(path)]
    >>> rows
    [('val.jsonl:1', {'id': 1}), ('val.jsonl:3', {'id': 2, 'candidate': 'a\\u2028dog'})]
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    for path in paths:
        name = os.fspath(path)
        opener = gzip.open if name.endswith(".gz") else open
        try:
            f = opener(name, "rb")
        except FileNotFoundError:
            raise ValueError(f"{name}: no such file") from None
        except OSError as err:
            raise ValueError(f"{name}: cannot read it ({err})") from None
        with f:
            lines = iter(f)  # binary: split on b"\n" only
            lineno = 0
            while True:
                try:
                    raw = next(lines, None)
                except (OSError, EOFError) as err:
                    raise ValueError(f"{name}:{lineno + 1}: cannot read it ({err})") from None
                if raw is None:
                    break
                lineno += 1
                try:
                    line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as err:
                    where = f"{name}:{lineno}"
                    raise ValueError(f"{where}: not UTF-8 text ({err.reason})") from None
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ValueError(f"{name}:{lineno}: malformed JSON ({err.msg})") from None
                if not isinstance(row, dict):
                    raise ValueError(
                        f"{name}:{lineno}: expected a JSON object with 'id', 'candidate' and "
                        f"'references', got {type(row).__name__}"
                    )
                yield f"{name}:{lineno}", row


def check_record(row: object, where: str) -> Record:
    """Validate one record (see the module docstring); errors name ``where`` and the id."""
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
            f"got {type(row).__name__}"
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
        _candidate_list(candidate, f"{at}: 'candidate'"),
        _reference_list(row["references"], f"{at}: 'references'"),
        single,
    )


class _Source:
    """Opens ``records`` for one pass; knows whether a second pass is possible."""

    def __init__(self, records: Records) -> None:
        self._once: Iterator | None = None
        if isinstance(records, str | os.PathLike):
            self._open = lambda: read_jsonl(records)
            self.reusable = True
        elif (
            isinstance(records, Sequence)
            and records
            and all(isinstance(p, str | os.PathLike) for p in records)
        ):
            self._open = lambda: read_jsonl(list(records))
            self.reusable = True
        elif isinstance(records, Mapping):
            raise TypeError(
                "records must be an iterable of record dicts (one per image), not a single "
                "dict; for {id: caption} dicts use sparsecider.cider_d"
            )
        elif isinstance(records, Sequence) and not isinstance(records, bytes):
            self._open = lambda: ((f"records[{i}]", r) for i, r in enumerate(records))
            self.reusable = True
        elif callable(records):

            def fresh():
                it = records()
                if isinstance(it, str | bytes | Mapping) or not isinstance(it, Iterable):
                    raise TypeError(
                        f"records() must return an iterable of record dicts, "
                        f"got {type(it).__name__}"
                    )
                return ((f"record {i}", r) for i, r in enumerate(it))

            self._open = fresh
            self.reusable = True
        elif isinstance(records, Iterable) and not isinstance(records, bytes):
            self._once = iter(records)
            self._open = None
            self.reusable = False
        else:
            raise TypeError(
                "records must be a JSON-lines path (or a list of paths), a list of record "
                "dicts, a function returning an iterable of them, or an iterable, "
                f"got {type(records).__name__}"
            )

    def open(self) -> Iterator[Record]:
        if self._open is not None:
            rows = self._open()
        elif self._once is not None:
            rows = ((f"record {i}", r) for i, r in enumerate(self._once))
            self._once = None
        else:
            raise RuntimeError("records is a one-shot iterator and was already read")
        return (check_record(row, where) for where, row in rows)


@dataclass(eq=False)
class _Chunk:
    records: list[Record]
    ref_ahead: list[str]  # captions after the chunk that the PTB lexer may read
    cand_ahead: list[str]

    def references(self) -> tuple[list[str], np.ndarray]:
        flat = [r for rec in self.records for r in rec.references]
        offsets = np.zeros(len(self.records) + 1, dtype=np.int64)
        np.cumsum([len(rec.references) for rec in self.records], out=offsets[1:])
        return flat, offsets

    def candidates(self) -> tuple[list[str], np.ndarray]:
        flat = [c for rec in self.records for c in rec.candidates]
        n_cands = [len(rec.candidates) for rec in self.records]
        return flat, np.repeat(np.arange(len(self.records), dtype=np.int64), n_cands)

    def per_record(self, scores: np.ndarray) -> Iterator[tuple[Record, float | list[float]]]:
        """Each record with its score (a list of scores for a list of candidates)."""
        values = scores.tolist()
        pos = 0
        for rec in self.records:
            k = len(rec.candidates)
            yield rec, values[pos] if rec.single else values[pos : pos + k]
            pos += k


def _chunks(records: Iterator[Record], size: int, lookahead: bool) -> Iterator[_Chunk]:
    """Consecutive chunks of ``size`` records, with the following captions
    each chunk's PTB tokenization may look into (read ahead, kept buffered);
    ids are checked for uniqueness on the way."""
    buffer: deque[Record] = deque()
    seen: set = set()

    def pull() -> Record | None:
        try:
            rec = next(records)
        except StopIteration:
            return None
        if rec.id in seen:
            raise ValueError(f"duplicate id {rec.id!r}: every record needs its own id")
        seen.add(rec.id)
        return rec

    def ahead() -> Iterator[Record]:
        yield from list(buffer)
        while (rec := pull()) is not None:
            buffer.append(rec)
            yield rec

    while True:
        chunk = []
        while len(chunk) < size:
            rec = buffer.popleft() if buffer else pull()
            if rec is None:
                break
            chunk.append(rec)
        if not chunk:
            return
        ref_ahead = cand_ahead = []
        if lookahead:
            ref_ahead = lookahead_captions(r for rec in ahead() for r in rec.references)
            cand_ahead = lookahead_captions(c for rec in ahead() for c in rec.candidates)
        yield _Chunk(chunk, ref_ahead, cand_ahead)


def _ordered_map(
    pool: ThreadPoolExecutor | None, fn: Callable, items: Iterable, in_flight: int
) -> Iterator:
    """``map(fn, items)`` in order, with at most ``in_flight`` items submitted
    but not yet consumed (so memory stays bounded); serial without a pool."""
    if pool is None:
        yield from map(fn, items)
        return
    pending: deque[Future] = deque()
    for item in items:
        pending.append(pool.submit(fn, item))
        if len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _progress(iterable: Iterable, progress: bool, desc: str, total: int | None = None):
    if not progress:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("progress=True needs tqdm: pip install 'sparsecider[progress]'") from None
    return tqdm(iterable, desc=desc, total=total, unit="chunk")


# ---- pass 1: document frequencies --------------------------------------------------


class _MergeStack:
    """Partial frequencies merged pairwise by size class, so each n-gram is
    merged O(log chunks) times and at most O(log chunks) partials are held."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, DocumentFrequencies]] = []

    def push(self, df: DocumentFrequencies) -> None:
        level = 0
        while self._stack and self._stack[-1][0] == level:
            _, top = self._stack.pop()
            df = top.merge(df)  # older images first
            level += 1
        self._stack.append((level, df))

    def total(self) -> DocumentFrequencies | None:
        return merge_all([df for _, df in self._stack])


def _fit_chunk(chunk: _Chunk, *, n: int, tokenizer: TokenizerLike) -> DocumentFrequencies:
    flat, offsets = chunk.references()
    tokens = tokenize_slice(flat, tokenizer, chunk.ref_ahead)
    return DocumentFrequencies.from_tokens(
        tokens, offsets, n=n, tokenizer=_tokenizer_name(tokenizer)
    )


def _fit(
    source: _Source, *, n: int, tokenizer: TokenizerLike, chunk_size: int,
    pool: ThreadPoolExecutor | None, in_flight: int, progress: bool,
) -> DocumentFrequencies:  # fmt: skip
    """Fit chunk by chunk; each thread merges its own partials (so merging
    runs in the workers, not in the thread reading the input), and the
    threads' totals are merged at the end.  Counts are exact integer sums, so
    the order of merging does not matter."""
    local = threading.local()
    stacks: list[_MergeStack] = []
    lock = threading.Lock()

    def fit(chunk: _Chunk) -> None:
        stack = getattr(local, "stack", None)
        if stack is None:
            stack = local.stack = _MergeStack()
            with lock:
                stacks.append(stack)
        stack.push(_fit_chunk(chunk, n=n, tokenizer=tokenizer))

    chunks = _chunks(source.open(), chunk_size, tokenizer == "ptb")
    for _ in _progress(_ordered_map(pool, fit, chunks, in_flight), progress, "df"):
        pass
    total = merge_all([t for t in (stack.total() for stack in stacks) if t is not None])
    if total is None:
        raise ValueError("records is empty: there are no images to score")
    return total


def fit_df(
    records: Records,
    *,
    n: int = 4,
    tokenizer: TokenizerLike = "ptb",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs: int | None = 1,
    progress: bool = False,
) -> DocumentFrequencies:
    """Document frequencies of the references of ``records``, in one streaming pass.

    Equal to :meth:`DocumentFrequencies.from_references` on all the
    references at once (same keys, counts and ``n_images``), with memory
    bounded by ``chunk_size`` and the result.  Candidates are not read
    (but each record is checked).

    Parameters
    ----------
    records : path(s), list of dicts, function or iterable
        See the module docstring.
    n : int, default 4
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
    chunk_size : int, default 20000
        Images per chunk.
    n_jobs : int or None, default 1
        Threads fitting chunks side by side (-1: one per CPU).
    progress : bool, default False
        A tqdm progress bar (``pip install 'sparsecider[progress]'``).

    Returns
    -------
    DocumentFrequencies

    Examples
    --------
    >>> from sparsecider import DocumentFrequencies, stream
    >>> records = [{"id": i, "candidate": "x", "references": [f"a dog {i}", "a cat"]}
    ...            for i in range(5)]
    >>> df = stream.fit_df(records, chunk_size=2, tokenizer="whitespace")
    >>> df == DocumentFrequencies.from_references(
    ...     [r["references"] for r in records], tokenizer="whitespace")
    True
    >>> df.n_images
    5
    """
    _check_number("n", n, integer=True)
    _check_number("chunk_size", chunk_size, integer=True)
    resolve_tokenizer(tokenizer)
    jobs = resolve_n_jobs(n_jobs)
    source = _Source(records)
    with _pool(jobs) as pool:
        return _fit(
            source, n=int(n), tokenizer=tokenizer, chunk_size=int(chunk_size), pool=pool,
            in_flight=jobs + 1, progress=progress,
        )  # fmt: skip


class _pool:
    """A thread pool for ``jobs > 1``, else None (serial), as a context manager."""

    def __init__(self, jobs: int) -> None:
        self._pool = ThreadPoolExecutor(jobs, "sparsecider") if jobs > 1 else None

    def __enter__(self) -> ThreadPoolExecutor | None:
        return self._pool

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


# ---- pass 2: scores -----------------------------------------------------------------


def _score_chunk(
    chunk: _Chunk, *, df: DocumentFrequencies, n: int, sigma: float | None,
    tokenizer: TokenizerLike, scale: float,
) -> tuple[_Chunk, np.ndarray]:  # fmt: skip
    refs, offsets = chunk.references()
    cands, cand_image = chunk.candidates()
    per_order = score_tokens(
        tokenize_slice(refs, tokenizer, chunk.ref_ahead),
        tokenize_slice(cands, tokenizer, chunk.cand_ahead),
        cand_image, offsets, n=n, sigma=sigma, df=df, scale=scale,
    )  # fmt: skip
    return chunk, per_order


def _write_lines(f, chunk: _Chunk, per_order: np.ndarray) -> None:
    lines = [
        json.dumps({"id": rec.id, "score" if rec.single else "scores": value})
        for rec, value in chunk.per_record(per_order.mean(axis=1))
    ]
    f.write("\n".join(lines) + "\n")


def _score_stream(
    records: Records, *, n: int, sigma: float | None, df: object, tokenizer: TokenizerLike,
    scale: float, chunk_size: int, n_jobs: int | None, output: str | os.PathLike | None,
    progress: bool,
) -> CiderResult:  # fmt: skip
    n, sigma, scale, given = check_options(
        n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer
    )
    _check_number("chunk_size", chunk_size, integer=True)
    jobs = resolve_n_jobs(n_jobs)
    source = _Source(records)
    if given is None and not source.reusable:
        raise TypeError(
            "records is a one-shot iterator, but df='corpus' reads the records twice "
            "(document frequencies, then scores); pass a JSON-lines path, a list, or a "
            "function returning a fresh iterator, or a precomputed df "
            "(sparsecider.stream.fit_df or DocumentFrequencies.load)"
        )
    chunk_size = int(chunk_size)
    with _pool(jobs) as pool:
        if given is None:
            frequencies = _fit(
                source, n=n, tokenizer=tokenizer, chunk_size=chunk_size, pool=pool,
                in_flight=jobs + 1, progress=progress,
            )  # fmt: skip
            if len(frequencies) == 0:
                raise _no_reference_words()
        else:
            frequencies = given
        score = lambda c: _score_chunk(  # noqa: E731
            c, df=frequencies, n=n, sigma=sigma, tokenizer=tokenizer, scale=scale
        )
        chunks = _chunks(source.open(), chunk_size, tokenizer == "ptb")
        scored = _progress(_ordered_map(pool, score, chunks, jobs + 1), progress, "scores")
        parts: list[np.ndarray] = []
        ids: list = []
        n_cands: list[int] = []

        def consume(f=None) -> None:
            for chunk, per_order in scored:
                parts.append(per_order)
                ids.extend(rec.id for rec in chunk.records)
                n_cands.extend(len(rec.candidates) for rec in chunk.records)
                if f is not None:
                    _write_lines(f, chunk, per_order)

        if output is None:
            consume()
        else:

            def write(tmp: Path) -> None:
                with open(tmp, "w", encoding="utf-8", newline="\n") as f:
                    consume(f)

            atomic_write(os.fspath(output), write)
    if not parts:
        raise ValueError("records is empty: there are no images to score")
    n_images = len(ids)
    warn_single_image(n_images, given)
    return make_result(
        np.concatenate(parts), n=n, sigma=sigma, df=given, tokenizer=_tokenizer_name(tokenizer),
        scale=scale, n_images=n_images,
        candidate_image=np.repeat(np.arange(n_images, dtype=np.int64), n_cands),
        ids=tuple(ids),
    )  # fmt: skip


def cider_d(
    records: Records,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs: int | None = 1,
    output: str | os.PathLike | None = None,
    progress: bool = False,
) -> CiderResult:
    """CIDEr-D of a stream of records, a chunk at a time (see the module docstring).

    Parameters
    ----------
    records : path(s), list of dicts, function or iterable
        One record per image: ``{"id", "candidate", "references"}``.
    n, sigma, tokenizer, scale
        As in :func:`sparsecider.cider_d`.
    df : "corpus" or DocumentFrequencies, default "corpus"
        ``"corpus"``: fitted on the records' references in a first pass
        (the records must then be readable twice: not a one-shot iterator).
        A :class:`~sparsecider.DocumentFrequencies`: one pass only.
    chunk_size : int, default 20000
        Images per chunk; memory grows with ``chunk_size * n_jobs``.
    n_jobs : int or None, default 1
        Threads scoring chunks side by side (-1: one per CPU).
    output : path, optional
        Write one JSON line per image as chunks finish: ``{"id": ..., "score":
        ...}`` (or ``"scores": [...]`` for a list of candidates), in input
        order, to a temporary file renamed to ``output`` when everything has
        been scored (an error leaves no partial file).
    progress : bool, default False
        tqdm progress bars (``pip install 'sparsecider[progress]'``).

    Returns
    -------
    CiderResult
        As :func:`sparsecider.cider_d` with dict input (``ids`` holds the
        record ids): equal, bit for bit, to scoring all records at once.

    Raises
    ------
    TypeError, ValueError
        A malformed record (named by file and line, or position, and id), a
        duplicate id, an empty input, a one-shot iterator with
        ``df="corpus"``, or an invalid parameter.

    Examples
    --------
    >>> from sparsecider import stream
    >>> records = [{"id": 7, "candidate": "A man rides a horse.",
    ...             "references": ["A man riding a horse.", "A horse and its rider."]},
    ...            {"id": 9, "candidate": ["A cat.", "Two cats sleep."],
    ...             "references": ["Two cats sleeping on a bed."]}]
    >>> r = stream.cider_d(records, chunk_size=1)
    >>> r.ids, r.scores.shape, r.signature
    ((7, 9), (3,), 'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0')
    """
    return _score_stream(
        records, n=n, sigma=sigma, df=df, tokenizer=tokenizer, scale=scale,
        chunk_size=chunk_size, n_jobs=n_jobs, output=output, progress=progress,
    )  # fmt: skip


def cider(
    records: Records,
    *,
    n: int = 4,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs: int | None = 1,
    output: str | os.PathLike | None = None,
    progress: bool = False,
) -> CiderResult:
    """Plain CIDEr of a stream of records; as :func:`cider_d` without clip and penalty.

    Examples
    --------
    >>> from sparsecider import stream
    >>> records = [{"id": "x", "candidate": "a dog", "references": ["a dog"]},
    ...            {"id": "y", "candidate": "a cat", "references": ["a bird"]}]
    >>> stream.cider(records, tokenizer="whitespace").signature
    'CIDEr|n:4|df:corpus(n_images=2)|tok:whitespace|version:0.1.0'
    """
    return _score_stream(
        records, n=n, sigma=None, df=df, tokenizer=tokenizer, scale=scale,
        chunk_size=chunk_size, n_jobs=n_jobs, output=output, progress=progress,
    )  # fmt: skip
