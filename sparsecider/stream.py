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
frequencies (12 bytes per distinct n-gram; while partial tables are merged,
one order at a time, each order released once merged, the fit pass holds
up to about 2.4 times that: 262 MiB of arrays for a 110 MiB table of 9.6
million n-grams) plus 40 bytes per candidate for the returned scores.  The
process's resident memory adds the interpreter (about 50 MB) and what the
allocator keeps after frees: 361 MB in all for that table with one thread,
559 MB with two (glibc keeps freed arrays in per-thread arenas; with
``MALLOC_MMAP_THRESHOLD_=1048576`` in the environment, 362 MB).  The
results are bit-identical to the in-memory
:func:`sparsecider.cider_d` on the same images, whatever ``chunk_size`` and
``n_jobs``: columns follow n-gram key order in every chunk, so each sum adds
the same terms in the same order, and PTB tokenization of a chunk reads ahead
into the next captions exactly as the whole sequence would
(:func:`sparsecider.tokenizers.tokenize_slice`).

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

import functools
import json
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ._checks import MAX_N, check_int
from .core.advice import advise, check_id_strings, sample, warn_small_corpus
from .core.df_fit import merge_all
from .core.frequencies import DocumentFrequencies
from .core.progress import check_progress, iterate
from .core.records import Record, check_record, unique_ids
from .core.result import CiderResult
from .core.stages import no_reference_words
from .core.validate import check_n_jobs, check_options
from .io.records import as_record, read_jsonl
from .io.text import check_output, open_output
from .scale.chunks import Chunk, chunks, fit_chunk, score_chunk
from .tokenizers import Tokenizer, TokenizerLike, get_tokenizer

__all__ = ["cider", "cider_d", "fit_df", "read_jsonl"]  # read_jsonl: sparsecider.io.records

DEFAULT_CHUNK_SIZE = 20_000

Records = str | os.PathLike | Sequence[str | os.PathLike] | Sequence[Mapping] | Callable | Iterable


# ---- records -----------------------------------------------------------------------


class _Source:
    """Opens ``records`` for one pass; knows whether a second pass is possible."""

    def __init__(self, records: Records) -> None:
        self._once: Iterator | None = None
        self.paths: list[str] = []  # the files read, when records are files
        if isinstance(records, str | os.PathLike) or (
            isinstance(records, Sequence)
            and records
            and all(isinstance(p, str | os.PathLike) for p in records)
        ):
            paths = [records] if isinstance(records, str | os.PathLike) else list(records)
            self.paths = [os.fspath(p) for p in paths]
            if self.paths.count("-") > 1:
                raise ValueError("'-' (standard input) is given twice; it can be read only once")
            self._open = lambda: read_jsonl(paths)
            # standard input can be read only once
            self.reusable = "-" not in self.paths
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
        return unique_ids((where, check_record(as_record(row), where)) for where, row in rows)


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


def _progress(iterable: Iterable, progress: bool, desc: str) -> Iterable:
    return iterate(iterable, check_progress(progress), desc, unit="chunk")


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
            # older images first; both partials are the stack's own: each order's
            # arrays are released as soon as it is merged
            df = merge_all([top, df], consume=True)
            level += 1
        self._stack.append((level, df))

    def parts(self) -> list[DocumentFrequencies]:
        """The partials, handed over (the stack is emptied)."""
        parts = [df for _, df in self._stack]
        self._stack.clear()
        return parts


def _fit(
    source: _Source, *, n: int, tokenizer: Tokenizer, chunk_size: int,
    pool: ThreadPoolExecutor | None, in_flight: int, progress: bool,
) -> DocumentFrequencies:  # fmt: skip
    """Fit chunk by chunk; each thread merges its own partials (so merging
    runs in the workers, not in the thread reading the input), and the
    threads' totals are merged at the end.  Counts are exact integer sums, so
    the order of merging does not matter."""
    local = threading.local()
    stacks: list[_MergeStack] = []
    lock = threading.Lock()

    def fit(chunk: Chunk) -> None:
        stack = getattr(local, "stack", None)
        if stack is None:
            stack = local.stack = _MergeStack()
            with lock:
                stacks.append(stack)
        stack.push(fit_chunk(chunk, n=n, tokenizer=tokenizer))

    parts = chunks(source.open(), chunk_size, tokenizer.lookahead)
    for _ in _progress(_ordered_map(pool, fit, parts, in_flight), progress, "df"):
        pass
    # every thread's partials in one merge that drops each as it is merged in
    total = merge_all([part for stack in stacks for part in stack.parts()], consume=True)
    if total is None:
        raise ValueError("records is empty: there are no images to score")
    return total


def fit_df(
    records: Records,
    *,
    n: int = 4,
    tokenizer: TokenizerLike = "ptb",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs: int | None = -1,
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
    n_jobs : int or None, default -1
        Threads fitting chunks side by side: -1 one per CPU (as everywhere
        in sparsecider), None or 1 a single thread.
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
    n = check_int("n", n, maximum=MAX_N)
    chunk_size = check_int("chunk_size", chunk_size)
    resolved = get_tokenizer(tokenizer)
    jobs = check_n_jobs(n_jobs)
    source = _Source(records)
    with _pool(jobs) as pool:
        return _fit(
            source, n=n, tokenizer=resolved, chunk_size=chunk_size, pool=pool,
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


def _write_lines(f, chunk: Chunk, per_order: np.ndarray) -> None:
    lines = [
        json.dumps({"id": rec.id, "score" if rec.single else "scores": value})
        for rec, value in chunk.per_record(per_order.mean(axis=1))
    ]
    f.write("\n".join(lines) + "\n")
    f.flush()  # a pipe's reader gets each chunk as it is scored


def _score_stream(
    records: Records, *, n: int, sigma: float | None, df: object, tokenizer: TokenizerLike,
    scale: float, chunk_size: int, n_jobs: int | None, output: str | os.PathLike | None,
    progress: bool, plain: bool = False,
) -> CiderResult:  # fmt: skip
    options = check_options(n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer, plain=plain)
    chunk_size = check_int("chunk_size", chunk_size)
    jobs = check_n_jobs(n_jobs)
    source = _Source(records)
    if output is not None:
        check_output(os.fspath(output), source.paths)
    if options.df is None and "-" in source.paths:
        raise ValueError(
            "records come from standard input ('-'), which can be read only once, but "
            "df='corpus' reads the records twice (document frequencies, then scores); "
            "give a precomputed df (--df NAME or FILE, e.g. --df coco-val2014) or a file"
        )
    if options.df is None and not source.reusable:
        raise TypeError(
            "records is a one-shot iterator, but df='corpus' reads the records twice "
            "(document frequencies, then scores); pass a JSON-lines path, a list, or a "
            "function returning a fresh iterator, or a precomputed df "
            "(sparsecider.stream.fit_df or DocumentFrequencies.load)"
        )
    with _pool(jobs) as pool:
        if options.df is None:
            frequencies = _fit(
                source, n=options.n, tokenizer=options.tokenizer, chunk_size=chunk_size,
                pool=pool, in_flight=jobs + 1, progress=progress,
            )  # fmt: skip
            if len(frequencies) == 0:
                raise no_reference_words()
        else:
            frequencies = options.df
        parts = chunks(source.open(), chunk_size, options.tokenizer.lookahead)
        score = functools.partial(score_chunk, options=options, df=frequencies)
        scored = _progress(_ordered_map(pool, score, parts, jobs + 1), progress, "scores")
        per_order: list[np.ndarray] = []
        ids: list = []
        n_cands: list[int] = []
        looked_at: list[list[str]] = []  # a sample of the first chunk, for advice

        empty = 0

        def consume(f=None) -> None:
            nonlocal empty
            for chunk, values, chunk_empty in scored:
                if not per_order:  # what the captions say, from the first chunk
                    looked_at.append(sample([c for r in chunk.records for c in r.candidates]))
                    looked_at.append(sample([c for r in chunk.records for c in r.references]))
                    check_id_strings(looked_at[0], options.df, looked_at[1])
                per_order.append(values)
                empty += chunk_empty
                ids.extend(rec.id for rec in chunk.records)
                n_cands.extend(len(rec.candidates) for rec in chunk.records)
                if f is not None:
                    _write_lines(f, chunk, values)

        if output is None:
            consume()
        else:
            with open_output(os.fspath(output), text=True) as f:
                consume(f)
    if not per_order:
        raise ValueError("records is empty: there are no images to score")
    n_images = len(ids)
    warn_small_corpus(n_images, options.df, stacklevel=5)
    advise(*looked_at, options.tokenizer, options.df, stacklevel=3)
    return CiderResult.from_per_order(
        np.concatenate(per_order),
        signature=options.signature(n_images),
        n_images=n_images,
        image_index=np.repeat(np.arange(n_images, dtype=np.int64), n_cands),
        ids=tuple(ids),
        df=frequencies,
        empty_candidates=empty,
    )


def cider_d(
    records: Records,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    n_jobs: int | None = -1,
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
    df : "corpus", a name, a path, or DocumentFrequencies, default "corpus"
        ``"corpus"``: fitted on the records' references in a first pass
        (the records must then be readable twice: not a one-shot iterator).
        A name (``"coco-val2014"``) or a :class:`~sparsecider.DocumentFrequencies`:
        one pass only.
    chunk_size : int, default 20000
        Images per chunk; memory grows with ``chunk_size * n_jobs``.
    n_jobs : int or None, default -1
        Threads scoring chunks side by side: -1 one per CPU (as everywhere
        in sparsecider), None or 1 a single thread; memory grows with
        ``chunk_size * n_jobs``.
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
    n_jobs: int | None = -1,
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
        chunk_size=chunk_size, n_jobs=n_jobs, output=output, progress=progress, plain=True,
    )  # fmt: skip
