"""spec48c's limit on spec39a's diagonal exception in the final tie order (METEOR_BEHAVIOUR.md
6.3 "A diagonal exact match against a crossing reading of the same word", N84).

Two final states equal on every key are ordered by their choices along the reference
(:mod:`.paths`); where one of the two choices at the first differing reference position ``i``
is a one-word match on the diagonal, the two compare equal and the last sort's order stands
(spec39a).  Not so when that diagonal choice is EXACT (test = reference position ``i``) and the
other state's choice there is an exact one-word match from another test word ``t'`` while
that state also reads the same word from an EARLIER test word ``t'' < t'`` at a LATER
reference position ``r'' > i`` (an exact one-word match ``(t'', r'')`` it holds, and an exact
one-word candidate ``(t'', i)`` exists: its two readings of the word cross).  Then the option
order decides as for any other choice (both exact one-word objects at ``i``: the smaller test
start first).

The rule reads the two states' objects only through two kind bits :mod:`.paths` compares:
:data:`XDIAG` (an exact one-word object on the diagonal, whatever state holds it) and
:data:`TWICE` (an exact one-word object off the diagonal that ITS state reads crossing as
above; so it depends on the state, unlike the other kind bits, and paths compare objects by
reference start and option place only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .batch import exact_one_rows, expand_ranges
from .matchers import exact_one

if TYPE_CHECKING:
    from .batch import Candidates

__all__ = [
    "TWICE",
    "XDIAG",
    "paths_with_bits",
    "skips_diagonal",
    "skips_diagonal_rows",
    "twice_bits",
    "twice_rows",
]

#: Kind bits (beside :mod:`.paths`'s 1, 2, 4): an exact one-word object on the diagonal; an
#: exact one-word object off it whose state reads its word crossing (module docstring).
XDIAG, TWICE = 8, 16


def skips_diagonal(kx: int, ky: int) -> bool:
    """Do two objects of the kinds ``kx``, ``ky`` at one reference position escape spec39a's
    diagonal exception (one :data:`XDIAG`, the other :data:`TWICE`)."""
    return bool((kx & XDIAG and ky & TWICE) or (ky & XDIAG and kx & TWICE))


def skips_diagonal_rows(ku: np.ndarray, kv: np.ndarray) -> np.ndarray:
    """:func:`skips_diagonal` on arrays of kinds."""
    return (((ku & XDIAG) != 0) & ((kv & TWICE) != 0)) | (((kv & XDIAG) != 0) & ((ku & TWICE) != 0))


def twice_bits(objs: list, ks: list[int], by_r: dict, ex_at: dict | None = None) -> dict[int, int]:
    """The :data:`XDIAG` / :data:`TWICE` bits of the objects ``ks`` one state of a pair holds
    (``objs`` its objects ``(t_start, t_len, r_start, r_len, stage)``, ``by_r`` their numbers
    by reference start), by object number (objects with neither are left out).  ``ex_at``
    (optional, filled as asked, shared by the states of one pair): the test starts of the
    exact one-word objects per reference start, ascending (a long caption repeating a word has
    that word's readings at every reference start, and ties of many states)."""
    ex_at = {} if ex_at is None else ex_at
    # the state's exact one-word readings, reference position by test word (a state covers a
    # test word at most once); looked up per candidate below, so the work is linear in the
    # candidates at the state's reference starts, not quadratic in the state's size
    reads = {objs[k][0]: objs[k][2] for k in ks if exact_one(objs[k])}
    out = {}
    for k in ks:
        t, _, i, _, _ = o = objs[k]
        if not exact_one(o):
            continue
        if t == i:
            out[k] = XDIAG
            continue
        # the same word (an exact candidate at reference i) read earlier in the test, later in
        # the reference
        if (at := ex_at.get(i)) is None:
            at = ex_at[i] = sorted(objs[m][0] for m in by_r[i] if exact_one(objs[m]))
        for t2 in at:  # ascending: the earlier test words first
            if t2 >= t:
                break
            if reads.get(t2, -1) > i:
                out[k] = TWICE
                break
    return out


def paths_with_bits(objs: list, chains: list, by_r: dict, place: dict, kind: Callable) -> list:
    """The paths of :func:`.paths.first_by_path` of one pair's tied states (``chains``: the
    objects each holds, in reference order; ``place``: each object's place among those starting
    at its reference start; ``kind``: :func:`.paths.kind_of`), with :func:`twice_bits` added."""
    out, ex_at = [], {}
    for ks in chains:
        bits = twice_bits(objs, ks, by_r, ex_at)
        out.append([(objs[k][2], place[k], kind(objs, k, by_r) | bits.get(k, 0)) for k in ks])
    return out


def twice_rows(
    c: Candidates, sel: np.ndarray, obj: np.ndarray, state: np.ndarray, n: int
) -> np.ndarray:
    """:func:`twice_bits` on arrays: the bits of the objects ``obj`` (rows of ``c``) the ``n``
    tied states hold (``state``: each object's state).  ``sel``: the searched objects (whole
    pairs, captions of at most 64 tokens).  The objects every final state of a pair takes after
    the walk (:mod:`.beam`'s tail, left out of ``obj``) cannot matter: a reading (t'', r'') that
    makes TWICE has another candidate (t'', i) on its test word, and a tail object shares no word
    with any other candidate."""
    ts, rs = c.ts[obj].astype(np.int64), c.rs[obj].astype(np.int64)
    ex = exact_one_rows(c, obj)
    bits = np.where(ex & (ts == rs), XDIAG, 0).astype(np.int8)
    w = np.flatnonzero(ex & (ts != rs))
    if w.size == 0:
        return bits
    # per state and reference position r, the test bit of the exact one-word match it holds
    # starting there (one object per start); then OR-ed over r' > r
    held = np.zeros((n, 65), dtype=np.uint64)
    e = np.flatnonzero(ex)
    held[state[e], rs[e]] = np.left_shift(np.uint64(1), ts[e].astype(np.uint64))
    later = np.bitwise_or.accumulate(held[:, ::-1], axis=1)[:, ::-1]  # later[s, r]: r' >= r
    # the exact one-word candidates (t'', i) with t'' < t' of each w, against its state's
    # readings at r' > i
    e = sel[exact_one_rows(c, sel)]
    table = np.sort((c.pair[e].astype(np.int64) * 64 + c.rs[e]) * 64 + c.ts[e])
    key = (c.pair[obj[w]].astype(np.int64) * 64 + rs[w]) * 64
    lo = np.searchsorted(table, key)
    n, g = expand_ranges(lo, np.searchsorted(table, key + ts[w]) - lo)
    t2 = (table[g] % 64).astype(np.uint64)
    hit = ((later[state[w[n]], rs[w[n]] + 1] >> t2) & np.uint64(1)) != 0
    fire = np.bincount(n[hit], minlength=w.size) > 0
    bits[w[fire]] = TWICE
    return bits
