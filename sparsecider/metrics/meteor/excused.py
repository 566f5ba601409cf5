"""The fifth key's diagonal squares with an excused earlier reading, in the FINAL sort only
(``spec50b``, 6.5 and N99: ``s50b_tb="cov2f"``, adopted at stop 50).

:mod:`.diagonal` counts a non-exact square object M (longer than one word, on the diagonal, a
one-word candidate at its two starts) in the search's fifth key when an exact one-word object p
inside it on both sides is a *sole* reading (``spec38a``): no other one-word reading of p's test
word, none of p's reference word from a LATER test word.  The jar keeps such a 2:2 (``a
black``/``a white`` after ``a bicycle ...``/``a bicycle ...``) although p's TEST word is also
read from an EARLIER reference word, but only in a state that already uses that earlier
reference word: there the earlier reading is excused too.  So an M that fails spec38a's test
but passes it once readings of p's test word by earlier reference words are excused counts -1
more in the final sort (after the last reference position; every sort during the search keeps
the plain count), in a state holding M whose matches cover every reference position of those
earlier readings (``need_r``) and every test position of the one-word readings of p's reference
word from an earlier test word (``need_t``; spec38a's own excuse), p ranging over M's exact
one-word objects.  The comparison of two final states stays a function of the two states (a
per-state key change), as :mod:`.tiesort` needs.  Static per pair; only pairs with such an M
are looked at, then only their final states.

The model (``align_model2``) sorts the WHOLE final list, in the last search sort's order, with
its final comparison (not transitive: :mod:`.paths`); with unchanged ranks only the states tied
at the best rank (or spec47a's group) decide the first, a prefix of that order.  A lifted state
can sit behind a state of its old rank that is not lifted, so where a state is lifted the
searches sort all final states of the pair, in the last sort's order, with the new ranks
(:func:`.paths.first_by_path` with ``unit``, :func:`.paths.lex_rows`): the model's sort by
construction.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..._kernels.arrays import span_bits
from .batch import Candidates, rows_of_pairs
from .diagonal import sole_readings
from .matchers import EXACT
from .tiesort import held_rows

__all__ = ["drops_rows", "excused_drops", "excused_rows", "excused_squares", "excused_static_rows"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def excused_squares(objs: list[Match]) -> dict[int, tuple[int, int]]:
    """Per pair: the objects M (numbers into ``objs``, every proposal of the pair) the rule can
    excuse, each with its (need_r, need_t) position bit masks (module docstring)."""
    one = {(o[0], o[2]) for o in objs if o[1] == 1 and o[3] == 1}
    squares = [
        k
        for k, (ts, tl, rs, rl, st) in enumerate(objs)
        if st != EXACT and tl == rl and tl > 1 and ts == rs and (ts, rs) in one
    ]
    if not squares:
        return {}  # the common case
    ex = {(o[0], o[2]) for o in objs if o[1] == 1 and o[3] == 1 and o[4] == EXACT}
    inside = {}  # the exact one-word pairs p inside each square on both sides
    for k in squares:
        ts, tl, rs, rl, _ = objs[k]
        cells = [(t, r) for t in range(ts, ts + tl) for r in range(rs, rs + rl) if (t, r) in ex]
        if cells:
            inside[k] = cells
    if not inside:
        return {}
    sole = sole_readings(objs, {cell for cells in inside.values() for cell in cells})
    spans = Counter(o[:4] for o in objs if o[1] > 1)
    out = {}
    for k, cells in inside.items():
        once = spans[objs[k][:4]] == 1  # readings of every stage count, else exact ones
        if any(sole(t, r, once) for t, r in cells) or not any(
            sole(t, r, once, True) for t, r in cells
        ):
            continue  # counted already (diagonal.py), or never
        need_r = need_t = 0
        for ts, tl, rs, rl, _ in objs:
            if tl == 1 and rl == 1:
                for t, r in cells:
                    need_r |= (ts == t and rs < r) << rs
                    need_t |= (rs == r and ts < t) << ts
        out[k] = (need_r, need_t)
    return out


def excused_drops(states: list, objs: list[Match]) -> list[int] | None:
    """The per-pair search's final states (a state's last item its match list node): how much
    each one's packed rank drops by the rule, or None where none drops."""
    exc = excused_squares(objs)
    if not exc:
        return None
    adj = []
    for st in states:
        node, cov_r, cov_t, held = st[5], 0, 0, []
        while node is not None:
            ts, tl, rs, rl, _ = objs[node[0]]
            cov_r |= ((1 << rl) - 1) << rs
            cov_t |= ((1 << tl) - 1) << ts
            if node[0] in exc:
                held.append(exc[node[0]])
            node = node[1]
        adj.append(sum(not (nr & ~cov_r or nt & ~cov_t) for nr, nt in held))
    return adj if any(adj) else None


def excused_static_rows(c: Candidates, sel: np.ndarray) -> tuple:
    """:func:`excused_squares` for the array search (``sel``: the searched objects, whole pairs
    of at most 64 tokens): the rows M, ascending, and their ``need_r``, ``need_t`` masks."""
    none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64), np.zeros(0, np.uint64)
    is_sq = (c.tl[sel] == c.rl[sel]) & (c.tl[sel] > 1) & (c.ts[sel] == c.rs[sel])
    cand = sel[is_sq & (c.stage[sel] != EXACT)]
    if cand.size == 0:
        return none  # the common case
    # prefilter: the rule needs an exact one-word pair p inside a square on both sides whose
    # test word is also read (one-word) from an EARLIER reference word
    pairs, mine = rows_of_pairs(c, np.sort(cand))
    one = mine[(c.tl[mine] == 1) & (c.rl[mine] == 1)]
    tk = c.pair[one].astype(np.int64) * 64 + c.ts[one]
    # (the one-word rows of a pair come sorted by test start: tk ascending)
    keys, at = np.unique(tk, return_index=True)
    first_r = np.minimum.reduceat(c.rs[one].astype(np.int64), at)[np.searchsorted(keys, tk)]
    span = np.zeros(pairs[-1] + 1, dtype=np.uint64)
    np.bitwise_or.at(span, c.pair[cand], span_bits(c.ts[cand], c.tl[cand]))
    one_b = span_bits(c.ts[one], 1), span_bits(c.rs[one], 1)
    inside = ((span[c.pair[one]] & one_b[0]) != 0) & ((span[c.pair[one]] & one_b[1]) != 0)
    p = one[(c.stage[one] == EXACT) & inside & (first_r < c.rs[one])]
    if p.size == 0:
        return none
    _, mine = rows_of_pairs(c, p)
    cuts = np.flatnonzero(np.diff(c.pair[mine])) + 1
    rows, need = [], []
    for grp in np.split(mine, cuts):  # (the few pairs left, their objects as tuples)
        objs = list(zip(*(x[grp].tolist() for x in (c.ts, c.tl, c.rs, c.rl, c.stage)), strict=True))
        for k, masks in excused_squares(objs).items():
            rows.append(int(grp[k]))
            need.append(masks)
    if not rows:
        return none
    m_rows = np.array(rows, dtype=np.int64)
    order = np.argsort(m_rows)
    need_r, need_t = (np.array([n[i] for n in need], dtype=np.uint64)[order] for i in (0, 1))
    return m_rows[order], need_r, need_t


def drops_rows(c: Candidates, static: tuple, n: int, state: np.ndarray, obj: np.ndarray):
    """Per state (``0 .. n - 1``), how much its packed rank drops by the rule, from what the
    states hold (``state``, ``obj``: (state number, object) entries, objects as rows of ``c``)
    and :func:`excused_static_rows`'s ``static``."""
    m_rows, need_r, need_t = static
    adj = np.zeros(n, dtype=np.int64)
    cov_r = np.zeros(n, dtype=np.uint64)
    cov_t = np.zeros(n, dtype=np.uint64)
    np.bitwise_or.at(cov_r, state, span_bits(c.rs[obj], c.rl[obj]))
    np.bitwise_or.at(cov_t, state, span_bits(c.ts[obj], c.tl[obj]))
    at = np.minimum(np.searchsorted(m_rows, obj), m_rows.size - 1)
    hit = np.flatnonzero(m_rows[at] == obj)
    s, a = state[hit], at[hit]
    ok = ((need_r[a] & ~cov_r[s]) == 0) & ((need_t[a] & ~cov_t[s]) == 0)
    np.add.at(adj, s[ok], 1)
    return adj


def excused_rows(c: Candidates, sel: np.ndarray, slot_of: np.ndarray, final: tuple) -> np.ndarray:
    """:func:`excused_drops` for the array search: per final state, how much its packed rank
    drops.  ``sel``: the searched objects (whole pairs, at most 64 tokens); ``slot_of``: each
    pair's slot; ``final``: per final state its slot and last node, the node table's objects
    (rows of ``c``) and parents (:func:`~.tiesort.held_rows`)."""
    owner, node, w_obj, nc_arr, np_arr = final
    adj = np.zeros(owner.size, dtype=np.int64)
    static = excused_static_rows(c, sel)
    if static[0].size == 0:
        return adj  # the common case
    # the final states of those pairs, the objects they hold
    st = np.flatnonzero(np.isin(owner, slot_of[c.pair[static[0]]]))
    state, k = held_rows(node[st], nc_arr, np_arr)
    adj[st] = drops_rows(c, static, st.size, state, w_obj[k])
    return adj
