"""The search's answer among final states equal on every key: their paths through the walk
(``spec39a``, METEOR_BEHAVIOUR.md 6.3 "Ties at the end follow the reference walk's tree
order", N56).

States equal on every key are ordered by their choices read along the REFERENCE: at the first
reference position where the two states hold different objects starting there (one may hold
none: left unmatched, or inside an earlier multi-word match), the object earlier in option
order (6.1) comes first, none last -- unless one of the two objects there is a one-word match
on the diagonal (test start == reference start): then the two compare equal and the order of
the last sort stands.  That exception makes the comparison intransitive (a diagonal state can
be "equal" to two states that are ordered), so the answer depends on how the sort proceeds:
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

import numpy as np

__all__ = ["first_by_path", "first_by_path_rows"]

#: A state's path: per object it holds, in reference order, (reference start, the object's
#: place among the objects starting there in option order, is it one-word on the diagonal).
Path = list[tuple[int, int, bool]]

_NONE = 1 << 14  # the place code of "no object starts here" (after every option)


def _less(a: Path, b: Path) -> bool:
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
    if (x is not None and x[2]) or (y is not None and y[2]):
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


def first_by_path(paths: list[Path]) -> int:
    """Which of the tied states of one pair the final sort puts first (module docstring).

    Parameters
    ----------
    paths : list of Path
        The two or more states equal on every key, in the order of the search's last sort.

    Returns
    -------
    int
        Index into ``paths`` of the answer.
    """
    return _sort_first(len(paths), lambda i, k: _less(paths[i], paths[k]))


def first_by_path_rows(
    held: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], size: np.ndarray
) -> np.ndarray:
    """:func:`first_by_path` for many pairs at once, on arrays.

    Parameters
    ----------
    held : tuple of four ndarrays
        One entry per object a tied state holds: the state's number (states grouped by pair,
        each pair's in the last sort's order), the object's reference start, its place among
        the objects starting there in option order, is it one-word on the diagonal.
    size : ndarray of int
        Tied states per pair (each two or more).

    Returns
    -------
    ndarray of int
        Per pair, the number of its answer's state.
    """
    state, pos, place, one = held
    width = int(pos.max()) + 1 if pos.size else 1
    code = np.full((int(size.sum()), width), _NONE, dtype=np.int64)
    code[state, pos] = place
    diag = np.zeros(code.shape, dtype=bool)
    diag[state, pos] = one
    start = np.cumsum(size) - size
    arr = np.arange(code.shape[0])  # each pair's states, in their current order

    def less(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        j = np.argmax(code[u] != code[v], axis=1)  # distinct paths: a difference exists
        eq = diag[u, j] | diag[v, j]
        return ~eq & (code[u, j] < code[v, j])

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
