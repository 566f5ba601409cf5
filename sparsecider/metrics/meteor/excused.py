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
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from .batch import Candidates, rows_of_pairs
from .matchers import EXACT
from .paths import held_rows

__all__ = ["excused_final", "excused_rows", "excused_squares"]

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
    # the one-word readings of the words of the squares: per test word its (r, exact), per
    # reference word its (t, exact)
    words = {t for k in squares for t in range(objs[k][0], objs[k][0] + objs[k][1])}
    by_t: dict[int, list] = defaultdict(list)
    by_r: dict[int, list] = defaultdict(list)
    for ts, tl, rs, rl, st in objs:
        if tl == 1 and rl == 1 and (ts in words or rs in words):
            by_t[ts].append((rs, st == EXACT))
            by_r[rs].append((ts, st == EXACT))
    spans = Counter(o[:4] for o in objs if o[1] > 1)
    out = {}
    for k in squares:
        ts, tl, rs, rl, _ = objs[k]
        cells = [
            (t, r)
            for t in range(ts, ts + tl)
            for r in range(rs, rs + rl)
            if (r, True) in by_t.get(t, ())
        ]
        once = spans[objs[k][:4]] == 1  # readings of every stage count, else exact ones

        def sole(t: int, r: int, nbr: bool, once: bool = once) -> bool:
            return not any(
                (e or once) and r2 != r and not (nbr and r2 < r) for r2, e in by_t[t]
            ) and not any((e or once) and t2 > t for t2, e in by_r[r])

        if not cells or any(sole(t, r, False) for t, r in cells):
            continue  # counted already (diagonal.py), or never
        if any(sole(t, r, True) for t, r in cells):
            need_r = need_t = 0
            for t, r in cells:
                for r2, _ in by_t[t]:
                    need_r |= (r2 < r) << r2
                for t2, _ in by_r[r]:
                    need_t |= (t2 < t) << t2
            out[k] = (need_r, need_t)
    return out


def excused_final(states: list, ranks: list[int], objs: list[Match]) -> tuple[list, list]:
    """The per-pair search's final states (``states``, sorted by packed ``ranks``; a state's
    last item its match list node) with the rule's fifth-key change, re-sorted (stably)."""
    exc = excused_squares(objs)
    if not exc:
        return ranks, states
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
    if not any(adj):
        return ranks, states
    order = sorted(range(len(states)), key=lambda i: ranks[i] - adj[i])
    return [ranks[i] - adj[i] for i in order], [states[i] for i in order]


def excused_rows(c: Candidates, sel: np.ndarray, slot_of: np.ndarray, final: tuple) -> np.ndarray:
    """:func:`excused_final` for the array search: per final state, how much its packed rank
    drops.  ``sel``: the searched objects (whole pairs, at most 64 tokens); ``slot_of``: each
    pair's slot; ``final``: per final state its slot and last node, the node table's objects
    (rows of ``c``) and parents (:func:`~.paths.held_rows`)."""
    owner, node, w_obj, nc_arr, np_arr = final
    adj = np.zeros(owner.size, dtype=np.int64)
    is_sq = (c.tl[sel] == c.rl[sel]) & (c.tl[sel] > 1) & (c.ts[sel] == c.rs[sel])
    cand = sel[is_sq & (c.stage[sel] != EXACT)]
    if cand.size == 0:
        return adj  # the common case
    # the static part per pair holding a diagonal square (few pairs: their objects as tuples)
    _, mine = rows_of_pairs(c, np.sort(cand))
    cuts = np.flatnonzero(np.diff(c.pair[mine])) + 1
    rows, need = [], []
    for grp in np.split(mine, cuts):
        objs = list(zip(*(x[grp].tolist() for x in (c.ts, c.tl, c.rs, c.rl, c.stage)), strict=True))
        for k, masks in excused_squares(objs).items():
            rows.append(int(grp[k]))
            need.append(masks)
    if not rows:
        return adj
    m_rows = np.array(rows, dtype=np.int64)
    order = np.argsort(m_rows)
    m_rows = m_rows[order]
    need_r, need_t = (np.array([n[i] for n in need], dtype=np.uint64)[order] for i in (0, 1))
    # the final states of those pairs, their matches' covered reference and test positions
    st = np.flatnonzero(np.isin(owner, slot_of[c.pair[m_rows]]))
    state, k = held_rows(node[st], nc_arr, np_arr)
    obj = w_obj[k]
    one = np.uint64(1)
    cov_r = np.zeros(st.size, dtype=np.uint64)
    cov_t = np.zeros(st.size, dtype=np.uint64)
    for cov, start, size in ((cov_r, c.rs, c.rl), (cov_t, c.ts, c.tl)):
        span = ((one << size[obj].astype(np.uint64)) - one) << start[obj].astype(np.uint64)
        np.bitwise_or.at(cov, state, span)
    at = np.minimum(np.searchsorted(m_rows, obj), m_rows.size - 1)
    hit = np.flatnonzero(m_rows[at] == obj)
    s, a = state[hit], at[hit]
    ok = ((need_r[a] & ~cov_r[s]) == 0) & ((need_t[a] & ~cov_t[s]) == 0)
    np.add.at(adj, st[s[ok]], 1)
    return adj
