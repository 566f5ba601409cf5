"""A chunk of records: the unit of work of the streaming and Dask backends.

A :class:`Chunk` holds consecutive checked records plus the captions after
them that the PTB lexer may read (:func:`sparsecider.tokenizers.lookahead_captions`),
so a chunk tokenizes exactly as inside the whole sequence.  :func:`fit_chunk`
gives its references' partial document frequencies, :func:`score_chunk` its
per-order values against fitted ones: both are the same corpus -> engine ->
reduce steps as the in-memory functions, on a slice.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..core import reduce
from ..core.engine import token_statistics
from ..core.frequencies import DocumentFrequencies
from ..core.records import Record, corpus_from_records
from ..core.validate import Options
from ..tokenizers import Tokenizer, lookahead_captions, tokenize_slice

__all__ = ["Chunk", "chunks", "fit_chunk", "score_chunk"]


@dataclass(eq=False)
class Chunk:
    """Consecutive records and the captions after them that tokenization may read."""

    records: list[Record]
    ref_ahead: list[str]
    cand_ahead: list[str]

    def per_record(self, scores: np.ndarray) -> Iterator[tuple[Record, float | list[float]]]:
        """Each record with its score (a list of scores for a list of candidates)."""
        values = scores.tolist()
        pos = 0
        for rec in self.records:
            k = len(rec.candidates)
            yield rec, values[pos] if rec.single else values[pos : pos + k]
            pos += k


def chunks(records: Iterator[Record], size: int, lookahead: bool) -> Iterator[Chunk]:
    """Consecutive chunks of ``size`` records, each with the following captions
    its tokenization may look into (read ahead, kept buffered)."""
    buffer: deque[Record] = deque()

    def ahead() -> Iterator[Record]:
        yield from list(buffer)
        for rec in records:
            buffer.append(rec)
            yield rec

    while True:
        chunk = []
        while len(chunk) < size:
            rec = buffer.popleft() if buffer else next(records, None)
            if rec is None:
                break
            chunk.append(rec)
        if not chunk:
            return
        ref_ahead = cand_ahead = []
        if lookahead:
            ref_ahead = lookahead_captions(r for rec in ahead() for r in rec.references)
            cand_ahead = lookahead_captions(c for rec in ahead() for c in rec.candidates)
        yield Chunk(chunk, ref_ahead, cand_ahead)


def fit_chunk(chunk: Chunk, *, n: int, tokenizer: Tokenizer) -> DocumentFrequencies:
    """The document frequencies of the chunk's references."""
    corpus = corpus_from_records(chunk.records)
    tokens = tokenize_slice(corpus.references, tokenizer, chunk.ref_ahead)
    return DocumentFrequencies.from_tokens(
        tokens, corpus.reference_offsets, n=n, tokenizer=tokenizer.name
    )


def score_chunk(
    chunk: Chunk, options: Options, df: DocumentFrequencies
) -> tuple[Chunk, np.ndarray, int]:
    """The chunk, its per-order values (n_candidates, n) against ``df``, and
    its number of empty candidates (no token)."""
    corpus = corpus_from_records(chunk.records)
    stats = token_statistics(
        tokenize_slice(corpus.references, options.tokenizer, chunk.ref_ahead),
        tokenize_slice(corpus.candidates, options.tokenizer, chunk.cand_ahead),
        corpus.candidate_image, corpus.reference_offsets,
        n=options.n, clip=options.clip, df=df,
    )  # fmt: skip
    values = reduce.per_order_values(stats, options.sigma, options.scale)
    return chunk, values, stats.empty_candidates
