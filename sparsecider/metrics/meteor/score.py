"""The functional entry: captions -> per-segment statistics -> scores.

:func:`segment_statistics` returns the 23 statistics of every segment as an
integer array, the form the accumulator can sum exactly across processes;
:func:`~.stats.segment_scores` and :func:`~.stats.corpus_score` (over
:func:`~.stats.summed`) turn them into scores.  :func:`meteor_scores` does all
three.

Segments go in chunks (at most 2,048 segments and 20,480 pairs).  In a chunk every distinct
caption is normalised and typed once (:mod:`.batch`), the candidates of all its (hypothesis,
reference) pairs come from array joins (:mod:`.batch`), the alignment search runs for many
pairs at once (:mod:`.beam`: first each segment's most promising reference, then the references
that can still be chosen; the searches of a few consecutive chunks in one call) and the
statistics follow (:mod:`.pairstats`).  Pairs with a caption
over 64 tokens take the per-pair code instead (:mod:`.longpairs`: :mod:`.segment`,
:mod:`.align`, the same model, linear in the caption's length).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, pairwise

import numpy as np

from .batch import MAX_FAST, Candidates, candidates_of_pairs, caption_table, heads
from .beam import align_pairs
from .longpairs import slow_pairs
from .normalize import normalize_ids
from .pairstats import alignment_statistics, score_bounds, tight_bounds
from .resources import Resources, load
from .stats import N_STATS, corpus_score, segment_scores, summed
from .wordtypes import Words

__all__ = ["jar_fields", "meteor_scores", "segment_statistics"]

# Segments scored together.  Each chunk has fixed costs (hundreds of numpy calls, the synonym
# product, the search's rounds); 2,048 costs ~0.35 s less CPU than 1,024 on COCO's 40,504
# segments, for ~25 MB more peak memory (361 MB warm).
_CHUNK = 2048
# ... and at most this many (hypothesis, reference) pairs, since a chunk's arrays grow with its
# pairs: 2,048 segments of 50 references (PASCAL-50S) took ~210 MB more peak memory than 1,024,
# and more CPU.  COCO's 5 references a segment stay below it.
_CHUNK_PAIRS = 20_480
# Chunks whose searches run together: each search round of up to this many consecutive chunks
# is one :func:`~.beam.align_pairs` call (:func:`_together`), of at most _SEARCH_PAIRS pairs (a
# larger round of one chunk runs alone, as before), since the search's memory grows with its
# pairs (~11 KB a COCO pair).  The search has fixed costs per call and per step (~0.3 ms a step,
# ~15 steps a call), which the chunks share; the other stages stay per chunk (their joins and sorts
# grow faster than linearly).  A chunk waiting for its search holds ~19 MB (COCO).
# 2, not 4: 4 gained ~4% more CPU for ~80 MiB more peak memory on COCO (N85).
_SEARCH_CHUNKS = 2
_SEARCH_PAIRS = 8192
_JTRIM = "".join(chr(i) for i in range(33))


def jar_fields(hypothesis: str, references: Sequence[str]) -> tuple[str, list[str]]:
    """The hypothesis and references as the jar receives them from pycocoevalcap.

    pycocoevalcap removes ``|||`` from the hypothesis (then one double space),
    joins everything into one ``SCORE ||| ref ||| ... ||| hyp`` line, and the
    jar splits that line on ``|||`` and trims each field: a ``|||`` inside a
    reference therefore makes two references (specification 1.2-1.3).  Line
    breaks, which would break that line protocol (pycocoevalcap then hangs),
    are read as spaces, as pycocoevalcap's tokenizer does.
    """
    hyp = hypothesis.replace("\r", " ").replace("\n", " ")
    hyp = hyp.replace("|||", "").replace("  ", " ")
    refs = []
    for r in references:
        refs.extend(f.strip(_JTRIM) for f in r.replace("\r", " ").replace("\n", " ").split("|||"))
    return hyp.strip(_JTRIM), refs


def _check(candidates: Sequence[str], references: Sequence[Sequence[str]]) -> bool:
    """Refuse malformed input, naming the offending item; return whether no caption can hold
    ``|||`` or a line break (then :func:`_fields` need not look again, chunk by chunk)."""
    if isinstance(candidates, str) or isinstance(references, str):
        raise TypeError("candidates and references must be sequences (lists), not a single str")
    if len(candidates) != len(references):
        raise ValueError(
            f"{len(candidates)} candidates but {len(references)} reference lists; "
            "give one list of references per candidate"
        )
    # The common case checked at C speed; anything else is walked to name the offending item.
    try:
        if (
            set(map(type, candidates)) <= {str}
            and not any(issubclass(t, str) for t in set(map(type, references)))
            and (not references or min(map(len, references)) > 0)
        ):
            flat = list(chain.from_iterable(references))  # once, for both checks below
            if set(map(type, flat)) <= {str}:
                return _check_encodable(candidates, references, flat)
    except TypeError:  # something without a length, or not iterable: named below
        pass
    for i, c in enumerate(candidates):
        if not isinstance(c, str):
            raise TypeError(f"candidates[{i}] is {type(c).__name__}, not str")
    for i, refs in enumerate(references):
        if isinstance(refs, str):
            raise TypeError(f"references[{i}] is a str; give a list of reference captions")
        if len(refs) == 0:
            raise ValueError(
                f"references[{i}] is empty; every candidate needs at least one reference"
            )
        for j, r in enumerate(refs):
            if not isinstance(r, str):
                raise TypeError(f"references[{i}][{j}] is {type(r).__name__}, not str")
    return _check_encodable(candidates, references, list(chain.from_iterable(references)))


def _check_encodable(
    candidates: Sequence[str], references: Sequence[Sequence[str]], flat: list[str]
) -> bool:
    """Refuse a lone surrogate (text decoded with ``errors="surrogateescape"``): it has no
    UTF-8 form, so the jar's wrapper cannot send it either; named, not raised from deep inside
    normalisation.  One join of all captions (``flat``: the references in a row); an ASCII
    join (a flag of the string: no scan) cannot hold one, else it is encoded; the caption is
    looked for only on failure.

    Returns whether the join holds neither ``|||`` nor a line break: then no caption does
    (a ``|||`` across two captions' boundary only makes this answer False, the safe side), and
    :func:`_fields` skips its own search.
    """
    joined = "".join(candidates) + "".join(flat)
    try:
        if not joined.isascii():
            joined.encode("utf-8")
        return not _special(joined)
    except UnicodeEncodeError:
        pass
    named = chain(
        ((f"candidates[{i}]", c) for i, c in enumerate(candidates)),
        ((f"references[{i}][{j}]", r) for i, rs in enumerate(references) for j, r in enumerate(rs)),
    )
    for where, text in named:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise ValueError(
                f"{where} ({text[:40]!r}) holds a lone surrogate, U+{ord(text[err.start]):04X} at "
                f"character {err.start}, which METEOR cannot read (nor can the jar): remove it, "
                "or decode the text with errors='replace' instead of 'surrogateescape'"
            ) from None


def segment_statistics(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    resources: Resources | None = None,
    n_jobs: int = 1,
) -> np.ndarray:
    """METEOR 1.5's 23 statistics for each candidate against its references.

    Parameters
    ----------
    candidates : sequence of str
        One hypothesis per segment.
    references : sequence of sequence of str
        The references of each segment (at least one each).
    resources : Resources, optional
        Loaded data (:func:`~.resources.load`); loaded on first use by default.
    n_jobs : int, default 1
        Worker processes (spawned; each starts in about 1.5 s: imports and the cached data),
        one block of whole chunks each.  Worth it for large inputs on idle cores only.  The
        result does not depend on it.  As with any spawned pool, a script calling this with
        ``n_jobs > 1`` needs an ``if __name__ == "__main__":`` guard.

    Returns
    -------
    ndarray of shape (n_segments, 23), int64
        The jar's statistics (specification 4.1), in input order.
    """
    plain = _check(candidates, references)
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive int, got {n_jobs!r}")
    res = load() if resources is None else resources
    if n_jobs > 1:
        ends = _chunk_ends(np.fromiter(map(len, references), np.int64, len(references)))
        if len(ends) > 1:
            return _in_processes(candidates, references, res, n_jobs, ends)
    return _statistics(candidates, references, res, 0, plain)


def _statistics(
    candidates, references, res: Resources, start: int, plain: bool = False
) -> np.ndarray:
    """Chunk by chunk; ``start`` is the first segment's index in the caller's input (errors
    name segments by it); ``plain``: no caption holds ``|||`` or a line break (:func:`_check`)."""
    out = np.zeros((len(candidates), N_STATS), dtype=np.int64)
    words = Words(res)
    # Segments go in chunks, so memory holds one chunk's captions, not the corpus's; the
    # searches of a few consecutive chunks run together.
    ends = _chunk_ends(np.fromiter(map(len, references), np.int64, len(references)))
    for g in range(0, len(ends), _SEARCH_CHUNKS):
        bounds = list(pairwise([ends[g - 1] if g else 0, *ends[g : g + _SEARCH_CHUNKS]]))
        # generators: each runs to its first search when _together starts it, the chunks in
        # turn (their new words typed in input order, as chunk by chunk)
        jobs = [
            _chunk(candidates[lo:hi], references[lo:hi], res, words, start + lo, plain)
            for lo, hi in bounds
        ]
        for (lo, hi), got in zip(bounds, _together(jobs), strict=True):
            out[lo:hi] = got
    return out


def _together(jobs: list) -> list:
    """Run chunk generators (:func:`_chunk`) in lockstep; each round's searches as one call.

    A generator yields (candidates, number of pairs) when it needs :func:`~.beam.align_pairs`
    and is sent the chosen rows; it returns its statistics.  The pairs of the jobs are
    renumbered after one another (job i's pair p becomes p plus the pairs of jobs before it)
    and their rows concatenated: the search treats every pair on its own (pair numbers are
    group labels and an order), so each job's chosen rows, shifted back, are those of a call
    of its own, in the same order (by pair, then test start: job by job).
    """
    out: list = [None] * len(jobs)
    asked: dict[int, tuple] = {}

    def advance(i: int, chosen: np.ndarray | None) -> None:
        try:
            asked[i] = jobs[i].send(chosen)
        except StopIteration as done:
            out[i] = done.value

    try:
        for i in range(len(jobs)):
            advance(i, None)
        while asked:
            # the waiting searches in chunk order, as many as fit _SEARCH_PAIRS (one at least)
            ids, total = [], 0
            for i in sorted(asked):
                total += asked[i][1]
                if ids and total > _SEARCH_PAIRS:
                    break
                ids.append(i)
            got = [asked.pop(i) for i in ids]
            n = np.cumsum([0] + [k for _, k in got])
            rows = np.cumsum([0] + [c.pair.size for c, _ in got])
            merged = Candidates(*(np.concatenate([getattr(c, f) for c, _ in got]) for f in _FIELDS))
            merged.pair += np.repeat(n[:-1], np.diff(rows))
            chosen = align_pairs(merged, int(n[-1]))
            # a job's chosen rows are consecutive (its pairs are): cut where the jobs' rows end
            job = np.searchsorted(rows, chosen, side="right") - 1
            ends = np.searchsorted(job, np.arange(1, len(ids)))
            for i, c, r in zip(ids, np.split(chosen, ends), rows[:-1], strict=True):
                advance(i, c - r)
    finally:
        for job in jobs:  # on an error, the waiting chunks' arrays are let go at once
            job.close()
    return out


def _chunk_ends(n_refs: np.ndarray) -> list[int]:
    """Ends of consecutive chunks of at most :data:`_CHUNK` segments and
    :data:`_CHUNK_PAIRS` pairs (``n_refs``: references of each segment), one segment at least."""
    cum = np.cumsum(n_refs)
    ends, lo = [], 0
    while lo < n_refs.size:
        most = (cum[lo - 1] if lo else 0) + _CHUNK_PAIRS
        hi = min(max(int(np.searchsorted(cum, most, side="right")), lo + 1), lo + _CHUNK)
        ends.append(hi)  # lo + 1 <= hi <= n_refs.size: searchsorted cannot pass the end
        lo = ends[-1]
    return ends


def _in_processes(
    candidates, references, res: Resources, n_jobs: int, ends: list[int]
) -> np.ndarray:
    """Contiguous blocks of whole chunks (``ends``: :func:`_chunk_ends`, so a block is cut
    where its chunks end, whether a chunk ended on segments or on pairs), one task each;
    results put back in input order."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = _blocks(ends, n_jobs)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(n_jobs, len(bounds)), mp_context=ctx) as pool:
        parts = pool.map(
            _block,
            [
                (list(candidates[lo:hi]), [list(r) for r in references[lo:hi]], res.sources, lo)
                for lo, hi in bounds
            ],
        )
        return np.concatenate(list(parts))


def _blocks(ends: list[int], n_jobs: int) -> list[tuple[int, int]]:
    """(start, end) of at most ``n_jobs`` contiguous blocks of the chunks ending at ``ends``,
    as many chunks each (the last fewer): one task per worker, since start-up is dear."""
    per = -(-len(ends) // n_jobs)
    cuts = [0, *ends[per - 1 :: per]]
    if cuts[-1] != ends[-1]:
        cuts.append(ends[-1])
    return list(pairwise(cuts))


def _block(task) -> np.ndarray:
    candidates, references, sources, start = task
    return _statistics(candidates, references, load(sources), start)


def _chunk(
    candidates: Sequence[str],
    references: Sequence[Sequence[str]],
    res: Resources,
    words: Words,
    start: int,
    plain: bool = False,
):
    """The statistics of one chunk's segments, as a generator driven by :func:`_together`
    (it yields the searches of :func:`_fast_pairs` and returns the statistics)."""
    hyps, flat, n_refs = _fields(candidates, references, plain)
    # each distinct raw text normalised once, each distinct normalised text typed once
    texts, ids = normalize_ids(hyps + flat, res.prefixes)
    seg = np.repeat(np.arange(len(hyps)), n_refs)
    hyp = ids[: len(hyps)][seg]
    ref = ids[len(hyps) :]
    tab = caption_table(texts, res, words)
    lens = tab.lengths()
    fast = (lens[hyp] <= MAX_FAST) & (lens[ref] <= MAX_FAST)
    stats = np.zeros((seg.size, N_STATS), dtype=np.int64)
    fp = np.flatnonzero(fast)
    scores = np.full(seg.size, -1.0)  # pairs never aligned: they cannot be chosen
    # (the long pairs first: a chunk's errors are raised before the next chunk starts)
    slow = np.flatnonzero(~fast)
    if slow.size:
        # which reference of its segment each pair is, for errors
        nth = np.arange(seg.size) - np.repeat(np.cumsum(n_refs) - n_refs, n_refs)
        where = list(zip((seg[slow] + start).tolist(), nth[slow].tolist(), strict=True))
        stats[slow] = slow_pairs(texts, hyp[slow], ref[slow], res, where)
        scores[slow] = segment_scores(stats[slow])
    if fp.size:
        stats[fp], scores[fp] = yield from _fast_pairs(tab, hyp[fp], ref[fp], seg[fp], res)
    # Each segment keeps its best reference: the highest score, then the earliest (every
    # segment has a pair).
    return stats[_first_best(scores, seg, np.cumsum(n_refs) - n_refs)]


def _first_best(value: np.ndarray, seg: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per run of equal ``seg`` (non-decreasing; runs starting at ``starts``), the first index
    of its highest ``value``, ascending (by a maximum per run, not a sort; a NaN: sorted)."""
    if np.isnan(value).any():
        order = np.lexsort((np.arange(seg.size), -value, seg))
        return order[heads(seg[order])]
    top = np.maximum.reduceat(value, starts)
    at = np.flatnonzero(value == top.repeat(np.diff(starts, append=seg.size)))
    return at[heads(seg[at])]


def _special(joined: str) -> bool:
    """Whether a text holds ``|||`` or a line break (``"|"`` is found at memchr speed, ``"|||"``
    ~100 times slower: looked for only after a ``"|"``)."""
    return ("|" in joined and "|||" in joined) or "\n" in joined or "\r" in joined


def _fields(
    candidates: Sequence[str], references: Sequence[Sequence[str]], plain: bool = False
) -> tuple[list[str], list[str], np.ndarray]:
    """:func:`jar_fields` of every segment: hypotheses, all references in a row, and how many
    each segment has.

    Without ``|||`` or a line break anywhere, :func:`jar_fields` only trims the fields (which
    normalisation does first anyway) and halves the hypothesis' double spaces: done so here.
    ``plain``: :func:`_check` found neither in the whole input (no need to look again).
    """
    flat = list(chain.from_iterable(references))
    if not plain and _special("\x00".join(flat) + "\x00" + "\x00".join(candidates)):
        fields = [jar_fields(c, r) for c, r in zip(candidates, references, strict=True)]
        flat = [r for _, rs in fields for r in rs]
        n_refs = np.fromiter((len(rs) for _, rs in fields), np.int64, len(fields))
        return [h for h, _ in fields], flat, n_refs
    n_refs = np.fromiter(map(len, references), np.int64, len(references))
    # no caption holds a line break: all halved in one string, cut back at the breaks
    hyps = "\n".join(candidates).replace("  ", " ").split("\n") if len(candidates) else []
    return hyps, flat, n_refs


def _fast_pairs(tab, hyp: np.ndarray, ref: np.ndarray, seg: np.ndarray, res: Resources):
    """Statistics and scores of pairs of short captions, on arrays.

    The search is the dear part, so each segment first aligns its most promising pair (the
    highest score bound, :func:`~.pairstats.score_bounds`), then only the pairs whose bound
    reaches the best score found; the others cannot be chosen (their score is left at -1).
    A generator: it yields each round's search (candidates renumbered, number of pairs), is
    sent the chosen rows (:func:`_together`) and returns (statistics, scores).
    """
    cands = candidates_of_pairs(tab, hyp, ref, seg, res)
    bound = score_bounds(tab, hyp, ref, cands)
    n = hyp.size
    stats = np.zeros((n, N_STATS), dtype=np.int64)
    scores = np.full(n, -1.0)
    best = np.full(int(seg.max()) + 1, -1.0)
    done = np.zeros(n, dtype=bool)
    for last in (False, True):
        # Each segment's most promising pair, then every pair that can still be chosen.
        todo = ~done & (bound >= best[seg])
        if not last:
            o = np.flatnonzero(todo)  # per segment, its highest bound among them
            todo = np.zeros(n, dtype=bool)
            todo[o[_first_best(bound[o], seg[o], np.flatnonzero(heads(seg[o])))]] = True
        else:
            # a tighter bound for the pairs still in the running (dearer: only for them)
            maybe = np.flatnonzero(todo)
            tight = tight_bounds(tab, hyp, ref, cands, maybe)
            bound[maybe] = np.minimum(bound[maybe], tight)
            todo = ~done & (bound >= best[seg])
        done |= todo
        rows = np.flatnonzero(todo[cands.pair])
        # the pairs renumbered 0, 1, ... in order: the search's tables by pair (64 words a pair)
        # then cover only the pairs searched (round one: a quarter of the chunk's; round two fewer)
        sub = Candidates(*(getattr(cands, f).take(rows) for f in _FIELDS))
        new = heads(sub.pair)
        sub.pair = np.cumsum(new) - 1
        # the search (:func:`_together` runs it for several chunks at once)
        chosen = rows[(yield sub, int(np.count_nonzero(new)))]
        got = alignment_statistics(tab, hyp, ref, cands, chosen)
        now = np.flatnonzero(todo)  # indexes: boolean indexing of rows is slower
        stats[now] = got[now]
        scores[now] = segment_scores(got[now])
        np.maximum.at(best, seg[now], scores[now])
    return stats, scores


_FIELDS = ("pair", "ts", "tl", "rs", "rl", "stage", "tw")


def meteor_scores(
    candidates: Sequence[str], references: Sequence[Sequence[str]]
) -> tuple[float, np.ndarray, np.ndarray]:
    """Corpus score, segment scores and statistics, as pycocoevalcap's Meteor gives.

    Returns
    -------
    corpus : float
        From the summed statistics (not the mean of the segment scores).
    scores : ndarray of shape (n_segments,)
    stats : ndarray of shape (n_segments, 23), int64
    """
    stats = segment_statistics(candidates, references)
    return corpus_score(summed(stats)), segment_scores(stats), stats
