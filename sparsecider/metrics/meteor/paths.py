"""The search's answer among final states equal on every key: their paths through the walk
(``spec39a``, METEOR_BEHAVIOUR.md 6.3 "Ties at the end follow the reference walk's tree
order", N56).

States equal on every key are ordered by their choices read along the REFERENCE: at the first
reference position where the two states hold different objects starting there (one may hold
none: left unmatched, or inside an earlier multi-word match), the object earlier in option
order (6.1) comes first, none last -- unless one of the two objects there is a one-word match
on the diagonal (test start == reference start): then the two compare equal and the order of
the last sort stands.  Before that exception (``spec46b``, 6.3 "A diagonal exact match against
a crossing square paraphrase in the final tie", N68): where one object is an EXACT one-word
match on the diagonal (at test = reference position j) whose word does not occur again later
in the test (no exact one-word candidate of reference word j at a later test position), and
the other a square multi-word object (as long on both sides, two words or more) whose state
reads test word j with an exact one-word match elsewhere (the readings cross), the square's
state comes first.  The diagonal exception makes the comparison intransitive (a diagonal state
can be "equal" to two states that are ordered), so the answer depends on how the sort proceeds:
the specification's model sorts with Python's ``list.sort``, which for fewer than 64 items is
a binary insertion sort after the first run (a strictly descending run reversed).  Both
searches run that sort explicitly (:func:`first_by_path` on one pair, :func:`first_by_path_rows`
on many at once), so they agree with each other on every Python and with the model where its
``list.sort`` is that one (3.11, 3.12; 3.13 extends descending runs differently).  The tied
states are sorted alone, in the last sort's order: a worse-keyed state is placed by its key
and moves none of them.  Only pairs whose best key is held by two states or more get here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .matchers import EXACT

if TYPE_CHECKING:
    from .batch import Candidates

__all__ = [
    "CROSS",
    "DIAGONAL",
    "SQUARE",
    "exact_one",
    "first_by_path",
    "first_by_path_rows",
    "kind_of",
    "kinds_rows",
]

#: A state's path: per object it holds, in reference order, (reference start, the object's
#: place among the objects starting there in option order, its kind: bits of
#: :data:`DIAGONAL`, :data:`CROSS`, :data:`SQUARE`).
Path = list[tuple[int, int, int]]

#: Kind bits: one-word on the diagonal (N56's exception); EXACT one-word on the diagonal whose
#: word does not occur later in the test (spec46b's, with :data:`DIAGONAL`); square multi-word.
DIAGONAL, CROSS, SQUARE = 1, 2, 4

_NONE = 1 << 14  # the place code of "no object starts here" (after every option)


def _less(a: Path, b: Path, read_a: int, read_b: int) -> bool:
    # read_a, read_b: bit sets of the test positions each state reads with exact one-word matches
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
    else:
        x = a[len(b)] if len(a) > len(b) else None
        y = b[len(a)] if len(b) > len(a) else None
    # the first reference position where they differ: the earlier start holds an object there,
    # the other state none
    if x is not None and y is not None and x[0] != y[0]:
        x, y = (x, None) if x[0] < y[0] else (None, y)
    elif x is not None and y is not None:
        # spec46b: a diagonal exact match at j against a square whose state reads test word j
        if x[2] & CROSS and y[2] & SQUARE and read_b >> x[0] & 1:
            return False
        if y[2] & CROSS and x[2] & SQUARE and read_a >> y[0] & 1:
            return True
    if (x is not None and x[2] & DIAGONAL) or (y is not None and y[2] & DIAGONAL):
        return False  # a diagonal one-word choice: "equal", the last sort's order stands
    return x is not None and (y is None or x[1] < y[1])


def _sort_first(n: int, less: Callable[[int, int], bool]) -> int:
    # CPython's list.sort (3.11, 3.12) for n < 64 items, of which only the first is needed
    a = list(range(n))
    k = 2
    if less(1, 0):  # a strictly descending first run, reversed
        while k < n and less(a[k], a[k - 1]):
            k += 1
        a[:k] = a[k - 1 :: -1]
    else:
        while k < n and not less(a[k], a[k - 1]):
            k += 1
    for i in range(k, n):
        lo, hi = 0, i
        while lo < hi:
            p = (lo + hi) >> 1
            if less(a[i], a[p]):
                hi = p
            else:
                lo = p + 1
        a.insert(lo, a.pop(i))
    return a[0]


def first_by_path(paths: list[Path], reads: list[int] | None = None) -> int:
    """Which of the tied states of one pair the final sort puts first (module docstring).

    Parameters
    ----------
    paths : list of Path
        The two or more states equal on every key, in the order of the search's last sort.
    reads : list of int, optional
        Per state, the bit set of the test positions it reads with exact one-word matches
        (spec46b; none if not given).

    Returns
    -------
    int
        Index into ``paths`` of the answer.
    """
    r = reads or [0] * len(paths)
    return _sort_first(len(paths), lambda i, k: _less(paths[i], paths[k], r[i], r[k]))


def first_by_path_rows(
    held: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    size: np.ndarray,
    reads: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """:func:`first_by_path` for many pairs at once, on arrays.

    Parameters
    ----------
    held : tuple of four ndarrays
        One entry per object a tied state holds: the state's number (states grouped by pair,
        each pair's in the last sort's order), the object's reference start, its place among
        the objects starting there in option order, its kind (:data:`DIAGONAL`... bits).
    size : ndarray of int
        Tied states per pair (each two or more).
    reads : tuple of two ndarrays, optional
        One entry per exact one-word match a tied state holds: the state's number, the match's
        test position (spec46b; none if not given).

    Returns
    -------
    ndarray of int
        Per pair, the number of its answer's state.
    """
    state, pos, place, kinds = held
    width = int(pos.max()) + 1 if pos.size else 1
    code = np.full((int(size.sum()), width), _NONE, dtype=np.int64)
    code[state, pos] = place
    kind = np.zeros(code.shape, dtype=np.int8)
    kind[state, pos] = kinds
    read = np.zeros(code.shape, dtype=bool)  # (only positions of the table can be crossed)
    if reads is not None:
        rs, rt = reads
        inside = rt < width
        read[rs[inside], rt[inside]] = True
    start = np.cumsum(size) - size
    arr = np.arange(code.shape[0])  # each pair's states, in their current order

    def less(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        j = np.argmax(code[u] != code[v], axis=1)  # distinct paths: a difference exists
        ku, kv = kind[u, j], kind[v, j]
        eq = ((ku | kv) & DIAGONAL) != 0
        # spec46b: v's diagonal exact match loses to u's crossing square (the mirror, u's
        # loss, is already "not less": u's object is diagonal)
        cross = ((kv & CROSS) != 0) & ((ku & SQUARE) != 0) & read[u, j]
        return (~eq & (code[u, j] < code[v, j])) | cross

    # the first run: per state after the second, does it extend its pair's run
    first = np.repeat(start, size)
    at = np.arange(arr.size) - first
    down = np.repeat(less(start + 1, start), size)
    nxt = np.flatnonzero(at >= 2)
    breaks = np.zeros(arr.size, dtype=bool)
    breaks[nxt] = less(nxt, nxt - 1) != down[nxt]
    run = np.minimum.reduceat(np.where(breaks & (at >= 2), at, size.max()), start)
    run = np.maximum(np.minimum(run, size), 2)
    rev = np.flatnonzero(down & (at < np.repeat(run, size)))
    arr[rev] = first[rev] + np.repeat(run, size)[rev] - 1 - at[rev]
    # binary insertion of the rest, pair by pair in lockstep
    for i in range(2, int(size.max())):
        q = np.flatnonzero((run <= i) & (i < size))
        if q.size == 0:
            continue
        s = start[q]
        piv = arr[s + i]
        lo, hi = np.zeros(q.size, dtype=np.int64), np.full(q.size, i)
        while True:
            w = np.flatnonzero(lo < hi)
            if w.size == 0:
                break
            p = (lo[w] + hi[w]) >> 1
            lt = less(piv[w], arr[s[w] + p])
            hi[w] = np.where(lt, p, hi[w])
            lo[w] = np.where(lt, lo[w], p + 1)
        # shift each pair's places lo .. i - 1 up by one and put the pivot at lo
        n = i - lo
        dst = np.repeat(s + i, n) - (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
        arr[dst] = arr[dst - 1]
        arr[s + lo] = piv
    return arr[start]


def exact_one(o: tuple) -> bool:
    """Is the object ``(t_start, t_len, r_start, r_len, stage)`` an exact one-word match."""
    return o[4] == EXACT and o[1] == o[3] == 1


def kind_of(objs: list, k: int, by_r: dict) -> int:
    """The kind bits of object ``k`` of one pair (``objs`` in option order, ``by_r``: their
    numbers by reference start): one-word on the diagonal; exact so, its word not occurring
    later in the test (no exact one-word candidate of its reference word at a later test
    position: spec46b); square multi-word."""
    ts, tl, rs, rl, _ = o = objs[k]
    if tl == rl == 1:
        if ts != rs:
            return 0
        if exact_one(o) and not any(objs[m][0] > ts and exact_one(objs[m]) for m in by_r[rs]):
            return DIAGONAL | CROSS
        return DIAGONAL
    return SQUARE if tl == rl else 0


def kinds_rows(c: Candidates, sel: np.ndarray, obj: np.ndarray, diag: np.ndarray, state):
    """:func:`kind_of` on arrays: the kind bits of the candidates ``obj`` (rows of ``c``) the
    tied states ``state`` hold (``diag``: one-word on the diagonal), and (spec46b) each exact
    one-word one as (state, test position) for :func:`first_by_path_rows`'s ``reads``.  An
    exact diagonal one is :data:`CROSS` unless its pair has an exact one-word candidate of
    its reference word at a later test position (among ``sel``: whole pairs, in the array
    search's 64-token captions)."""
    ex = (c.stage[obj] == EXACT) & (c.tl[obj] == 1) & (c.rl[obj] == 1)
    kind = diag.astype(np.int8) * DIAGONAL
    kind[(c.tl[obj] == c.rl[obj]) & (c.tl[obj] > 1)] = SQUARE
    xd = np.flatnonzero(diag & ex)
    if xd.size:
        e = sel[(c.stage[sel] == EXACT) & (c.tl[sel] == 1) & (c.rl[sel] == 1)]
        table = np.sort((c.pair[e] * 64 + c.rs[e]) * 64 + c.ts[e])
        o = obj[xd]
        cell = (c.pair[o] * 64 + c.rs[o]) * 64
        later = np.searchsorted(table, cell + c.ts[o], "right") < np.searchsorted(table, cell + 64)
        kind[xd[~later]] |= CROSS
    return kind, (state[ex], c.ts[obj[ex]])
