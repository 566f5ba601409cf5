"""The objects of the search's fifth key that are square paraphrases on the diagonal
(``spec36a``, 6.3 "Square paraphrases on and off the diagonal"; ``spec38a``, "A diagonal square
paraphrase is preferred only over a sole reading").

A non-exact square object longer than one word, starting on the diagonal (test start ==
reference start, absolute token indices), counts when a one-word candidate (any stage) sits at
its two starts and an exact object inside it on both sides is a *sole* reading: no other
one-word object reads its test word, and none reads its reference word from a LATER test word
(an earlier one does not count).  Readings of every stage count when the square object's span
pair is proposed once, exact ones only when it is proposed twice or more.  Fixed per pair,
computed once; only pairs holding such a square object are looked at.

Also (``spec48a``, 6.3 "A duplicated diagonal 1:1 paraphrase after a diagonal exact word"):
the contestable one-word objects P on the diagonal, proposed twice or more, that keep their
``spec36e`` count (they join ``spec46a``'s set): an exact one-word candidate X at
``(P.t - 1, P.r - 1)``, X's test word read exactly at a LATER reference position too, and
either a non-exact candidate reading X's and P's test words against P's reference word (2:1,
``a female``/``woman``), or X's reference word read exactly from a LATER test word and from
no EARLIER one.  Static per pair; only pairs holding such a P are looked at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from .batch import (
    Candidates,
    exact_one_rows,
    expand_ranges,
    find_sorted,
    readings_after,
    rows_of_pairs,
)
from .matchers import EXACT, exact_one

__all__ = [
    "diagonal_keep_rows",
    "diagonal_keeps",
    "diagonal_square_rows",
    "diagonal_squares",
    "sole_readings",
]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def diagonal_squares(objs: list[Match]) -> list[bool]:
    """Per object of one pair: does it count in the search's fifth key (module docstring).

    Parameters
    ----------
    objs : list of (t_start, t_len, r_start, r_len, stage)
        Every proposal of the pair (a span pair proposed twice is two objects).

    Returns
    -------
    list of bool
    """
    out = [False] * len(objs)
    one = {(o[0], o[2]) for o in objs if o[1] == 1 and o[3] == 1}
    squares = [
        k
        for k, (ts, tl, rs, rl, st) in enumerate(objs)
        if st != EXACT and tl == rl and tl > 1 and ts == rs and (ts, rs) in one
    ]
    if not squares:
        return out  # the common case
    ex = {(o[0], o[2]) for o in objs if o[4] == EXACT}
    # the exact cells inside each square on both sides (spans are short: cell by cell)
    inside = {}
    for k in squares:
        ts, tl, rs, rl, _ = objs[k]
        cells = [(t, r) for t in range(ts, ts + tl) for r in range(rs, rs + rl) if (t, r) in ex]
        if cells:
            inside[k] = cells
    if not inside:
        return out
    # only the words of those cells and the squares' span pairs are read (a long caption
    # repeating a word has hundreds of thousands of one-word objects)
    sole = sole_readings(objs, {c for cells in inside.values() for c in cells})
    wanted = {objs[k][:4] for k in inside}
    spans = Counter(o[:4] for o in objs if o[1] > 1 and o[:4] in wanted)
    for k, cells in inside.items():
        once = spans[objs[k][:4]] == 1
        out[k] = any(sole(t, r, once) for t, r in cells)
    return out


def sole_readings(objs: list[Match], cells: set[tuple[int, int]]) -> Callable[..., bool]:
    """``sole(t, r, once, nbr=False)`` for the exact pairs ``cells``: is (t, r) a sole reading
    (module docstring; ``once``: the square object is proposed once, so readings of every
    stage count; ``nbr``: readings of test word t from an EARLIER reference word are excused
    too, :mod:`.excused`'s variant)."""
    words_t, words_r = {t for t, _ in cells}, {r for _, r in cells}
    # [exact?] per test word: one reference word, or -1 once it has two, and the last one; per
    # reference word: its last test word
    read_r: tuple[dict, dict] = ({}, {})
    last_r: tuple[dict, dict] = ({}, {})
    last_t: tuple[dict, dict] = ({}, {})
    for ts, _, rs, _, st in [
        o for o in objs if o[1] == 1 and o[3] == 1 and (o[0] in words_t or o[2] in words_r)
    ]:
        e = int(st == EXACT)
        if ts in words_t:
            if read_r[e].setdefault(ts, rs) != rs:
                read_r[e][ts] = -1
            if last_r[e].get(ts, -1) < rs:
                last_r[e][ts] = rs
        if rs in words_r and last_t[e].get(rs, -1) < ts:
            last_t[e][rs] = ts

    def other(e: int, t: int, r: int, nbr: bool) -> bool:
        if nbr:
            return last_r[e].get(t, -1) > r or last_t[e].get(r, -1) > t
        return read_r[e].get(t, r) != r or last_t[e].get(r, -1) > t

    def sole(t: int, r: int, once: bool, nbr: bool = False) -> bool:
        return not other(1, t, r, nbr) and not (once and other(0, t, r, nbr))

    return sole


def diagonal_square_rows(c: Candidates, sel: np.ndarray) -> np.ndarray:
    """:func:`diagonal_squares` for the objects ``sel`` of many pairs (whole pairs, at most 64
    tokens); one bool per row of ``sel``."""
    # (a test on the rows of c, then gathered: cheaper than gathering five fields of sel)
    is_sq = (c.tl == c.rl) & (c.tl > 1) & (c.ts == c.rs) & (c.stage != EXACT)
    out = np.zeros(sel.size, dtype=bool)
    cand = np.flatnonzero(is_sq[sel])
    if cand.size == 0:
        return out  # the common case: no square paraphrase on the diagonal
    rows = sel[cand]
    # the rows of their pairs only (c is sorted by pair; sel holds whole pairs)
    _, mine = rows_of_pairs(c, rows)
    key = (c.pair[mine] * 64 + c.ts[mine]) * 64 + c.rs[mine]
    rkey = (c.pair[rows] * 64 + c.ts[rows]) * 64 + c.rs[rows]
    ck = np.unique(rkey)
    found = np.zeros(ck.size, dtype=bool)
    at, hit = find_sorted(ck, key[(c.tl[mine] == 1) & (c.rl[mine] == 1)])
    found[at[hit]] = True  # a one-word candidate at the same two starts
    keep = found[np.searchsorted(ck, rkey)]
    cand, rows, rkey = cand[keep], rows[keep], rkey[keep]
    if cand.size:
        # only the pairs of the squares kept (the rest cannot count)
        _, mine = rows_of_pairs(c, rows)
        n = c.rl[rows]
        own, i = expand_ranges(np.zeros(cand.size, dtype=np.int64), c.tl[rows] * n)
        cell = rkey[own] + (i // n[own]) * 64 + i % n[own]
        # an exact object inside on both sides that is a sole reading: readings of every
        # stage count against it when the square object is proposed once
        once = _span_counts(c, mine, rows) == 1
        sole_exact, sole_any = _sole_rows(c, mine)
        hit = np.where(once[own], find_sorted(sole_any, cell)[1], find_sorted(sole_exact, cell)[1])
        out[cand[np.unique(own[hit])]] = True
    return out


def _span_counts(c: Candidates, among: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per row of ``rows``: how many rows of ``among`` (whole pairs, ascending) have its span
    pair."""

    def key(r: np.ndarray) -> np.ndarray:
        # (c's own order, so that the keys of ascending rows come sorted)
        t = (c.pair[r].astype(np.int64) * 64 + c.ts[r]) * 64 + c.tl[r]
        return (t * 64 + c.rs[r]) * 64 + c.rl[r]

    table, q = key(among), key(rows)
    return np.searchsorted(table, q, "right") - np.searchsorted(table, q)


def _sole_rows(c: Candidates, among: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`sole_readings` on rows (``among``: whole pairs, ascending): the sorted keys
    ``(pair * 64 + t) * 64 + r`` of the exact objects that are sole readings, counting exact
    readings only, and readings of every stage."""
    one = among[(c.tl[among] == 1) & (c.rl[among] == 1)]
    p = c.pair[one].astype(np.int64)
    t, tk, rk = c.ts[one], p * 64 + c.ts[one], p * 64 + c.rs[one]
    cell, e = tk * 64 + c.rs[one], c.stage[one] == EXACT
    # (c is by (pair, t_start, t_len, r_start, ...): the one-word rows come sorted by cell)
    out = []
    for by in (e, np.ones(e.size, dtype=bool)):
        # another reference word for its test word: more readings of t than of the cell
        tab_t, tab_c = tk[by], cell[by]
        other = np.searchsorted(tab_t, tk[e], "right") - np.searchsorted(tab_t, tk[e])
        other -= np.searchsorted(tab_c, cell[e], "right") - np.searchsorted(tab_c, cell[e])
        # a later test word for its reference word: readings of r by test words after t
        tab_r = np.sort(rk[by] * 64 + t[by])
        later = readings_after(tab_r, rk[e], t[e]) > 0
        out.append(cell[e][(other == 0) & ~later])
    return out[0], out[1]


def diagonal_keeps(objs: list[Match], twice: set[int]) -> set[int]:
    """The objects of ``twice`` (contestable, span pair proposed twice or more) that keep their
    ``spec36e`` count by ``spec48a`` (module docstring); ``objs``: every proposal of one pair."""
    ps = [k for k in twice if objs[k][0] == objs[k][2] > 0]
    if not ps:
        return set()  # the common case
    words = {objs[k][0] - 1 for k in ps}  # X's test word == X's reference word (diagonal)
    # per word d of ``words``: the exact one-word readings of test word d (their reference
    # positions) and of reference word d (their test positions), reduced to what the rule asks,
    # so that the work stays linear in the proposals however long the captions are
    r_of_t: dict[int, int] = {}  # largest reference position test word d is read at
    t_of_r: dict[int, tuple[int, int]] = {}  # smallest and largest test word reading d
    diag = set()
    for t, _, r, _, _ in (o for o in objs if exact_one(o) and (o[0] in words or o[2] in words)):
        if t == r:
            diag.add(t)
        if t in words:
            r_of_t[t] = max(r_of_t.get(t, r), r)
        if r in words:
            lo, hi = t_of_r.get(r, (t, t))
            t_of_r[r] = (min(lo, t), max(hi, t))
    r21 = {o[0] for o in objs if o[4] != EXACT and o[1] == 2 and o[3] == 1 and o[2] == o[0] + 1}
    out = set()
    for k in ps:
        d = objs[k][0] - 1
        if d not in diag or r_of_t.get(d, -1) <= d:
            continue
        lo, hi = t_of_r[d]  # (d, d) is among them
        later = hi > d and not lo < d
        if d in r21 or later:
            out.add(k)
    return out


def diagonal_keep_rows(c: Candidates, sel: np.ndarray, twice: np.ndarray) -> np.ndarray:
    """:func:`diagonal_keeps` for the objects ``sel`` of many pairs (whole pairs, at most 64
    tokens; ``twice``: a mask over ``sel``); one bool per row of ``sel``."""
    out = np.zeros(sel.size, dtype=bool)
    cand = np.flatnonzero(twice & (c.ts[sel] == c.rs[sel]) & (c.ts[sel] > 0))
    if cand.size == 0:
        return out  # the common case
    rows = sel[cand]
    _, mine = rows_of_pairs(c, rows)
    p, d = c.pair[rows].astype(np.int64), c.ts[rows].astype(np.int64) - 1
    one = mine[exact_one_rows(c, mine)]
    q = c.pair[one].astype(np.int64)
    by_t = np.sort((q * 64 + c.ts[one]) * 64 + c.rs[one])  # exact readings by (pair, t, r)
    by_r = np.sort((q * 64 + c.rs[one]) * 64 + c.ts[one])  # and by (pair, r, t)
    cell = (p * 64 + d) * 64 + d
    x = find_sorted(by_t, cell)[1]
    # X's test word read at a later reference position; X's reference word from a later /
    # an earlier test word (the same counts on the two tables)
    y = readings_after(by_t, p * 64 + d, d) > 0
    after = readings_after(by_r, p * 64 + d, d) > 0
    before = np.searchsorted(by_r, cell) - np.searchsorted(by_r, cell - d) > 0
    two = mine[(c.stage[mine] != EXACT) & (c.tl[mine] == 2) & (c.rl[mine] == 1)]
    two = two[c.rs[two] == c.ts[two] + 1]
    r21 = find_sorted(np.sort(c.pair[two].astype(np.int64) * 64 + c.ts[two]), p * 64 + d)[1]
    out[cand] = x & y & (r21 | (after & ~before))
    return out
