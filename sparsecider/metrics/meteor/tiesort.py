"""The sort that orders the tied final states of many pairs at once (:mod:`.paths`), with the
comparisons made up front.

:func:`~.paths.first_by_path_rows` sorts each pair's tied states the way the specification's model
does (Python's ``list.sort`` on fewer than 64 items: the first run, reversed if strictly
descending, then a binary insertion of each later state), because its comparison is not transitive
and the answer depends on the comparisons the sort makes.  :func:`sorted_first` is that sort.  It
reads the same answers as a sort that asks the comparison as it goes, but asks for a superset of
them (each pair's lower triangle, n (n - 1) / 2 against some n log2 n) in a few calls: every
comparison the insertions can make is ``less(i, y)`` for a state ``i`` being inserted (it sits at
place ``i`` of its pair's original order, past the first run) and a state ``y`` placed before it
(``y < i``), so the table of those pairs, one lower triangle per pair, holds every answer the
insertions look up.  The comparison must be a pure function of the two states, element by element
(it is: it reads fixed per-state tables only), so a table entry is exactly what the insertion would
have asked.  Why: the insertions advance in lockstep over the pairs, one place per round, up to the
largest pair (up to 40 tied states) with a few binary-search rounds each, and a round that calls
the comparison costs ~0.1 ms whatever its size; the table costs a triangle per pair (~n * n / 2
comparisons) but a handful of calls, and a round then costs a few array lookups.
:func:`held_rows` reads what the states to sort hold (moved here from :mod:`.paths`, which
:mod:`.excused` could not import back)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .batch import expand_ranges

__all__ = ["held_rows", "sorted_first"]

#: comparisons asked per call of the comparison when building the table (bounds its temporaries:
#: the comparison gathers a row of up to 64 positions per state)
BLOCK = 16384


def sorted_first(
    less: Callable[[np.ndarray, np.ndarray], np.ndarray], size: np.ndarray
) -> np.ndarray:
    """Per pair, the state the sort puts first.

    Parameters
    ----------
    less : callable
        ``less(u, v)``: per element, does state ``u`` sort before state ``v`` (arrays of state
        numbers; a pure function of the two states).
    size : ndarray of int
        States per pair (each two or more); pair ``q``'s states are numbered ``start[q] ..
        start[q] + size[q] - 1`` in their current order (``start``: the running sum).

    Returns
    -------
    ndarray of int
        Per pair, the number of the state first after the sort.
    """
    start = np.cumsum(size) - size
    arr = np.arange(int(size.sum()))  # each pair's states, in their current order
    # the first run: per state after the second, does it extend its pair's run
    first = np.repeat(start, size)
    at = np.arange(arr.size) - first
    down = np.repeat(less(start + 1, start), size)
    nxt = np.flatnonzero(at >= 2)
    breaks = np.zeros(arr.size, dtype=bool)
    if nxt.size:
        breaks[nxt] = less(nxt, nxt - 1) != down[nxt]
    run = np.minimum.reduceat(np.where(breaks & (at >= 2), at, size.max()), start)
    run = np.maximum(np.minimum(run, size), 2)
    rev = np.flatnonzero(down & (at < np.repeat(run, size)))
    arr[rev] = first[rev] + np.repeat(run, size)[rev] - 1 - at[rev]
    # the table: for each state i inserted (places run .. size - 1 of its pair, untouched by the
    # reversal) and each place y < i, less(start + i, start + y), at base[i's entry] + y
    ins = size - run
    owner, piv = expand_ranges(np.zeros_like(size), ins)
    piv += run[owner]  # the place being inserted
    base = np.cumsum(piv) - piv
    u_of = np.repeat(start[owner] + piv, piv)
    _, y = expand_ranges(np.zeros_like(piv), piv)
    v_of = np.repeat(start[owner], piv) + y
    table = np.zeros(u_of.size, dtype=bool)
    for b in range(0, u_of.size, BLOCK):
        table[b : b + BLOCK] = less(u_of[b : b + BLOCK], v_of[b : b + BLOCK])
    first_ins = np.cumsum(ins) - ins  # each pair's first inserted entry
    # binary insertion of the rest, pair by pair in lockstep
    for i in range(2, int(size.max())):
        q = np.flatnonzero((run <= i) & (i < size))
        if q.size == 0:
            continue
        s = start[q]
        piv_state = arr[s + i]
        row = base[first_ins[q] + i - run[q]]
        lo, hi = np.zeros(q.size, dtype=np.int64), np.full(q.size, i)
        while True:
            w = np.flatnonzero(lo < hi)
            if w.size == 0:
                break
            p = (lo[w] + hi[w]) >> 1
            lt = table[row[w] + arr[s[w] + p] - s[w]]  # less(pivot, the state at place p)
            hi[w] = np.where(lt, p, hi[w])
            lo[w] = np.where(lt, lo[w], p + 1)
        # shift each pair's places lo .. i - 1 up by one and put the pivot at lo
        n = i - lo
        dst = np.repeat(s + i, n) - (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
        arr[dst] = arr[dst - 1]
        arr[s + lo] = piv_state
    return arr[start]


def held_rows(node: np.ndarray, obj: np.ndarray, parent: np.ndarray) -> tuple:
    """The objects final states hold, as (state number, object) entries: ``node``, each state's
    last node in the search's table of chosen objects (``obj``, ``parent``: each node's object
    and previous node, -1 none)."""
    state, held = np.arange(node.size), []
    while (node >= 0).any():
        state, node = state[node >= 0], node[node >= 0]
        held.append((state, obj[node]))
        node = parent[node]
    if not held:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    state, k = (np.concatenate(x) for x in zip(*held, strict=True))
    return state, k
