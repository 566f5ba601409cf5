"""The search's answer among final states equal on every key: their paths through the walk
(``spec39a``, METEOR_BEHAVIOUR.md 6.3 "Ties at the end follow the reference walk's tree
order", N56).

States equal on every key are ordered by their choices read along the REFERENCE: at the first
reference position where the two states hold different objects starting there (one may hold
none: left unmatched, or inside an earlier multi-word match), the object earlier in option
order (6.1) comes first, none last -- unless one of the two objects there is a one-word match
on the diagonal (test start == reference start): then the two compare equal and the order of
the last sort stands -- unless (``spec48c``, :mod:`.twice`, N84) that diagonal match is exact
and the other object an exact one-word match whose state also reads the same word from an
earlier test word at a later reference position (the readings cross): then the option order
decides.  Before that exception (``spec46b``, 6.3 "A diagonal exact match against
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
and moves none of them.  Only pairs whose best key is held by two states or more get here --
but where ``spec50b`` can lift a state's rank in the final sort (:mod:`.excused`), every final
state of the pair is sorted, as the model sorts its whole list (a lifted state may sit behind
one of its old rank that was not lifted).
Where the first difference is two non-exact siblings (``spec48b``), :mod:`.siblings` may put the
longer one's state first, after spec46b's test and before the diagonal exception.

``spec47a`` (6.5 "A contested one-word match near the diagonal against an exact word read from
an earlier test word", N75) reaches one step further: two final states equal on the key's first
FOUR terms (uncontested matches, chunks, spec36e's count, the certain count) but not on the
rest, that differ in their contested non-exact one-word matches, each differing one on the
diagonal or one test word after it (``t - r`` in {0, 1}), neither state holding a multi-word
match and the state without such a match X reading X's test word with no match of its own,
are ordered by their matches in TEST order, compared lexicographically ((test start, reference
start) in turn, the shorter list last), before the later key terms.  The comparison then
covers the states equal with the best on those four terms (a worse one on them is still
placed by its key and moves none of them); the searches pass them only where a contested
non-exact one-word match near the diagonal is held (:func:`lex_order`, :func:`lex_less_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .batch import exact_one_rows, readings_after
from .matchers import exact_one
from .tiesort import held_rows, sorted_first
from .twice import skips_diagonal, skips_diagonal_rows

if TYPE_CHECKING:
    from .batch import Candidates

__all__ = [
    "CROSS",
    "DIAGONAL",
    "SQUARE",
    "first_by_path",
    "first_by_path_rows",
    "held_rows",
    "kind_of",
    "kinds_rows",
    "lex_finals",
    "lex_less_rows",
    "lex_order",
    "lex_rows",
    "lex_states",
    "lex_tables",
]

#: A state's path: per object it holds, in reference order, (reference start, the object's
#: place among the objects starting there in option order, its kind: bits of
#: :data:`DIAGONAL`, :data:`CROSS`, :data:`SQUARE`).
Path = list[tuple[int, int, int]]

#: Kind bits: one-word on the diagonal (N56's exception); EXACT one-word on the diagonal whose
#: word does not occur later in the test (spec46b's, with :data:`DIAGONAL`); square multi-word.
DIAGONAL, CROSS, SQUARE = 1, 2, 4

_NONE = 1 << 14  # the place code of "no object starts here" (after every option)


def _less(a: Path, b: Path, read_a: int, read_b: int, sib: Callable | None = None) -> bool:
    # read_a, read_b: bit sets of the test positions each state reads with exact one-word matches;
    # sib: spec48b's sibling rule for the two states (:mod:`.siblings`)
    for x, y in zip(a, b, strict=False):
        if x[:2] != y[:2]:  # (spec48c's kind bits depend on the state)
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
        if sib is not None and (won := sib(x, y)):
            return won < 0
    if ((x is not None and x[2] & DIAGONAL) or (y is not None and y[2] & DIAGONAL)) and not (
        x is not None and y is not None and skips_diagonal(x[2], y[2])  # spec48c (.twice)
    ):
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


def lex_order(a: tuple, b: tuple) -> int:
    """spec47a's comparison of two final states (module docstring): -1 (``a`` first), 1 or 0
    (the rule does not apply).

    ``a``, ``b``: per state (its matches, its contested non-exact one-word matches), sets of
    ``(t_start, t_len, r_start, r_len, stage)``; their keys differ, their first four terms do not.
    """
    (ma, ca), (mb, cb) = a, b
    if ca == cb or any(m[0] - m[2] not in (0, 1) for m in ca ^ cb):
        return 0
    if any(m[1] > 1 or m[3] > 1 for m in ma | mb):
        return 0  # a multi-word match in either state
    for xs, ys, cx in ((ma, mb, ca - cb), (mb, ma, cb - ca)):
        # the state without X reads X's test word with a match the X state lacks
        only = ys - xs
        if any(y[0] <= x[0] < y[0] + y[1] for x in cx for y in only):
            return 0
    # test order, then reference start; a list that ends first is the larger
    la = [*sorted((m[0], m[2], m[1], m[3]) for m in ma), (math.inf,)]
    lb = [*sorted((m[0], m[2], m[1], m[3]) for m in mb), (math.inf,)]
    if la == lb:
        return 0
    return -1 if la < lb else 1


def lex_states(ranks: list[int], unit: int, held: list, objs: list, flagged: set, can: list):
    """How many of one pair's final states (sorted by packed rank) the final sort orders: those
    tied with the best on every key, or (spec47a) those equal with it on the key's first four
    terms (``rank // unit``) where one of them holds (``held``: each state's tracked objects) a
    contested non-exact one-word object near the diagonal (``t - r`` in {0, 1}).  Returns that
    count and, in the second case, the test "object ``k`` is contested and non-exact one-word"
    (else None)."""
    n = 1
    while n < len(ranks) and ranks[n] == ranks[0]:
        n += 1
    g = n
    while g < len(ranks) and ranks[g] // unit == ranks[0] // unit:
        g += 1

    def contested(k: int) -> bool:
        return k in flagged and can[k]

    if g > n and any(
        contested(k) and objs[k][0] - objs[k][2] in (0, 1) for h in held[:g] for k in h
    ):
        return g, contested
    return n, None


def lex_finals(chains: list, ranks: list[int], objs: list, contested: Callable) -> list[tuple]:
    """:func:`first_by_path`'s ``finals`` of the states holding the objects ``chains``."""
    return [
        (
            ranks[i],
            frozenset(objs[k] for k in ks),
            frozenset(objs[k] for k in ks if contested(k)),
        )
        for i, ks in enumerate(chains)
    ]


def first_by_path(
    paths: list[Path],
    reads: list[int] | None = None,
    finals: list[tuple] | None = None,
    sib: Callable | None = None,
    unit: int | None = None,
    cov: Callable | None = None,
) -> int:
    """Which of the tied states of one pair the final sort puts first (module docstring).

    Parameters
    ----------
    paths : list of Path
        The two or more states equal on every key, in the order of the search's last sort.
    reads : list of int, optional
        Per state, the bit set of the test positions it reads with exact one-word matches
        (spec46b; none if not given).
    finals : list of tuple, optional
        Per state, (its packed rank, its matches, its contested non-exact one-word matches):
        the states then are those equal with the best on the key's first four terms, in the
        last sort's order, and spec47a's :func:`lex_order` orders those of different ranks
        where it applies, the ranks where not (none given: all tied on every key).
    sib : callable, optional
        spec48b's sibling rule (:func:`.siblings.sibling_order`), if it can act.
    unit : int, optional
        The packed rank's unit of the key's fifth term: given, spec47a's order acts only
        between states equal on the first four terms (``rank // unit``), so that ``finals``
        may hold every final state (:mod:`.excused`); none, all are.
    cov : callable, optional
        spec54b's order (:func:`.cover.cov_states`), asked first for any two states.

    Returns
    -------
    int
        Index into ``paths`` of the answer.
    """
    r = reads or [0] * len(paths)

    def tied(i: int, k: int) -> bool:
        s = None if sib is None else lambda x, y: sib(i, k, x, y)
        return _less(paths[i], paths[k], r[i], r[k], s)

    def less(i: int, k: int) -> bool:
        if cov is not None and (x := cov(i, k)):  # spec54b (.cover)
            return x < 0
        if finals is None:
            return tied(i, k)
        (ri, *si), (rk, *sk) = finals[i], finals[k]
        if ri == rk:
            return tied(i, k)
        x = lex_order(si, sk) if unit is None or ri // unit == rk // unit else 0
        return x < 0 if x else ri < rk

    return _sort_first(len(paths), less)


def first_by_path_rows(
    held: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    size: np.ndarray,
    reads: tuple[np.ndarray, np.ndarray] | None = None,
    finals: tuple | None = None,
    sibs: Callable | None = None,
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
    finals : tuple, optional
        (packed rank per state, :func:`lex_tables` of their matches, the rank's first four
        terms, None or the order to sort them in): the states are then those equal with the
        best on the key's first four terms, or every final state of the pair (spec50b:
        :mod:`.excused`, numbered in the order of the last search step and sorted in
        ``order``), and spec47a's order (:func:`lex_less_rows`) orders those of different ranks
        and the same first four terms where it applies, the ranks where not (as
        :func:`first_by_path`'s ``finals``).
    sibs : callable, optional
        spec48b's sibling rule (:func:`.siblings.sibling_rows`), if it can act.

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

    def less(u: np.ndarray, v: np.ndarray) -> np.ndarray:
        j = np.argmax(code[u] != code[v], axis=1)  # distinct paths: a difference exists
        ku, kv = kind[u, j], kind[v, j]
        eq = (((ku | kv) & DIAGONAL) != 0) & ~skips_diagonal_rows(ku, kv)  # spec48c (.twice)
        # spec46b: v's diagonal exact match loses to u's crossing square (the mirror, u's
        # loss, is already "not less": u's object is diagonal)
        cross = ((kv & CROSS) != 0) & ((ku & SQUARE) != 0) & read[u, j]
        out = (~eq & (code[u, j] < code[v, j])) | cross
        if sibs is not None:  # spec48b (never where spec46b's cross acts: exact vs non-exact)
            fire, first = sibs(u, v, j)
            out = np.where(fire, first, out)
        if finals is None:
            return out
        rank, tables, four, _ = finals
        d = np.flatnonzero(rank[u] != rank[v])  # (spec47a reads only states of different ranks)
        fire, lt = lex_less_rows(tables, u[d], v[d])
        fire &= four[u[d]] == four[v[d]]
        out[d] = np.where(fire, lt, rank[u[d]] < rank[v[d]])
        return out

    # (the sort, its comparisons asked up front: less must stay a function of (u, v) alone)
    if finals is None or finals[3] is None:
        return sorted_first(less, size)
    order = finals[3]
    return order[sorted_first(lambda u, v: less(order[u], order[v]), size)]


def lex_tables(n: int, held: tuple) -> tuple:
    """The tables :func:`lex_less_rows` reads, per state and test position (at most 64).

    ``held``: one entry per match a state holds (its tail's left out: those are shared by
    all): the state's number, test start, reference start, an identity of the match among
    those starting there (reference start and stage), whether it is a contested non-exact
    one-word match, whether it is multi-word.  Returns (identity + 1 or 0, reference start or
    64 where none starts, contested one-word there, such and not ``t - r`` in {0, 1}, the
    state holds a multi-word match).
    """
    state, ts, rs, ident, contested, multi = held
    shape = (n, int(ts.max()) + 1 if ts.size else 1)  # (test positions beyond: none held)
    ident_t = np.zeros(shape, dtype=np.int64)
    ident_t[state, ts] = ident + 1
    r_t = np.full(shape, 64, dtype=np.int64)
    r_t[state, ts] = rs
    c_t = np.zeros(shape, dtype=bool)
    c_t[state, ts] = contested
    far = np.zeros(shape, dtype=bool)
    far[state, ts] = contested & ((ts - rs < 0) | (ts - rs > 1))
    mw = np.zeros(n, dtype=bool)
    mw[state[multi]] = True
    return ident_t, r_t, c_t, far, mw


def lex_rows(c: Candidates, sel, slot, marks: tuple, tail: tuple, ranked: tuple, unit: int):
    """:func:`lex_states` for the array search: which final states the final sort orders.

    ``sel``: the searched objects (rows of ``c``), ``slot``: their pairs' slots; ``marks``: the
    contest bits of ``sel``, each slot's final contested bits, the presence and contest bits of
    every row of ``c``; ``tail``: the objects every final state takes after the walk (rows of
    ``c``) and their slots; ``ranked``: per final state its packed rank and slot, the states
    tied with their pair's best, per final state its presence bits and how much ``spec50b``
    lowered its rank (:func:`.excused.excused_rows`).  Returns the states to
    order, grouped by slot, each slot's in the order of a last stable sort by rank (the tail's
    chunk changes ranks), and None or, where spec47a can act (a contested non-exact one-word
    object near the diagonal held by a state equal with the best on the key's first four terms,
    one such state not equal with it on all, no multi-word object in the tail), the function
    ``(states, their held (state, object) entries) -> finals`` for :func:`first_by_path_rows`.
    A pair where ``spec50b`` lifted a state has every final state ordered, in the last search
    step's order; ``finals`` then carries the order to sort them in (the last sort's: by rank
    before the rule's change, the tail's chunk in).  Where no state of a pair is lifted, the
    tied prefix decides the first as the whole sort would (as :func:`first_by_path`'s callers).
    """
    cbit, flagged, obit, ocbit = marks
    rank, owner, tied, sbits, lift = ranked
    # spec50b (.excused): the pairs where a state was lifted are sorted whole
    whole = np.zeros(flagged.size, dtype=bool)
    whole[owner[lift > 0]] = True
    d = c.ts[sel].astype(np.int64) - c.rs[sel]
    near = (d >= 0) & (d <= 1)
    bits = np.zeros(flagged.size, dtype=np.uint64)
    np.bitwise_or.at(bits, slot[near], cbit[near])
    bits &= flagged
    t_obj, t_slot = tail
    t_mw = np.zeros(flagged.size, dtype=bool)
    t_mw[t_slot[(c.tl[t_obj] > 1) | (c.rl[t_obj] > 1)]] = True
    bits[t_mw | whole] = 0
    low = np.zeros(flagged.size, dtype=np.int64)
    low[owner[tied]] = rank[tied]
    grp = np.flatnonzero((rank // unit == low[owner] // unit) & (bits[owner] != 0))
    n = flagged.size
    # (and a state of them holds such an object)
    on = np.bincount(owner[grp], weights=(sbits[grp] & bits[owner[grp]]) != 0, minlength=n) > 0
    on &= np.bincount(owner[grp], minlength=n) > np.bincount(owner[tied], minlength=n)
    if not on.any() and not whole.any():
        return tied, None
    every = np.flatnonzero(whole[owner])  # (all their final states, in the last sort's order)
    tied = np.concatenate((tied[~(on | whole)[owner[tied]]], grp[on[owner[grp]]], every))
    tied = tied[np.lexsort((tied, np.where(whole[owner[tied]], 0, rank[tied]), owner[tied]))]

    def lex(states: np.ndarray, state: np.ndarray, obj: np.ndarray) -> tuple:
        contested = (obit[obj] & ocbit[obj] & flagged[owner[states[state]]]) != 0
        ts, rs = c.ts[obj].astype(np.int64), c.rs[obj].astype(np.int64)
        multi = (c.tl[obj] > 1) | (c.rl[obj] > 1)
        held = (state, ts, rs, rs * 8 + c.stage[obj], contested, multi)
        tables = lex_tables(states.size, held)
        q, order = owner[states], None
        if whole.any():
            tables[4][t_mw[q]] = True  # (a multi-word tail: spec47a never acts)
            # the last sort's order: by the ranks before the rule's change (the tail's chunk in)
            pre = rank[states] + lift[states]
            order = np.lexsort((np.arange(q.size), np.where(whole[q], pre, 0), q))
        return rank[states], tables, rank[states] // unit, order

    return tied, lex


def lex_less_rows(tables: tuple, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`lex_order` on arrays for the states ``u`` against ``v`` (:func:`lex_tables`):
    whether the rule applies (ranks aside), and whether ``u`` comes first where it does."""
    ident_t, r_t, c_t, far, mw = tables
    diff = ident_t[u] != ident_t[v]
    du, dv = c_t[u] & diff, c_t[v] & diff  # the contested matches the other state lacks
    fire = (du | dv).any(axis=1) & ~mw[u] & ~mw[v]
    fire &= ~((du & far[u]) | (dv & far[v])).any(axis=1)
    # (one-word matches only: the other state reads X's test word iff a match starts there)
    fire &= ~((du & (ident_t[v] != 0)) | (dv & (ident_t[u] != 0))).any(axis=1)
    # test order: at the first test position where the reference starts read differ (none:
    # 64), the smaller comes first
    rd = r_t[u] != r_t[v]
    j = np.argmax(rd, axis=1)
    fire &= rd.any(axis=1)
    return fire, r_t[u, j] < r_t[v, j]


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
    ex = exact_one_rows(c, obj)
    kind = diag.astype(np.int8) * DIAGONAL
    kind[(c.tl[obj] == c.rl[obj]) & (c.tl[obj] > 1)] = SQUARE
    xd = np.flatnonzero(diag & ex)
    if xd.size:
        e = sel[exact_one_rows(c, sel)]
        table = np.sort((c.pair[e] * 64 + c.rs[e]) * 64 + c.ts[e])
        o = obj[xd]
        later = readings_after(table, c.pair[o].astype(np.int64) * 64 + c.rs[o], c.ts[o]) > 0
        kind[xd[~later]] |= CROSS
    return kind, (state[ex], c.ts[obj[ex]])
