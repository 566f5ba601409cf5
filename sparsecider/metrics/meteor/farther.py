"""``spec53a`` (METEOR_BEHAVIOUR.md 6.5, N122, N127): in the FINAL sort, a contested one-word
match against an exact reading of its neighbour's reference word from an earlier test word, the
state farther from the diagonal first.

Two final states equal on the key's first THREE terms (uncontested matches, chunks, ``spec36e``'s
count) and different on the fourth (the certain count) are ordered by this rule, before their
keys, where all of these hold:

* one state (the X state) holds contested non-exact one-word matches X the other lacks, and the
  other holds none the X state lacks;
* every match of the other state that the X state lacks is an exact one-word match (t', r) and
  the X state reads r with an exact one-word match from a LATER test word t > t'; every other
  match of the X state that the other lacks is such a later reading (``rw``);
* neither state holds a multi-word match (``nomw``); the other state reads no test word of an X
  (``nx``); the beam is larger than the number of proposals of each X's span pair (``bp``: the
  jar keeps the state without X alive only from that beam on);
* the sums of ``|t - r|`` over the two states' matches differ: the larger sum comes first
  (``dist``; equal sums: the keys decide).

Jar toys ``AW1``-``AW8`` (``a b hit a`` / ``x y z w hits a`` at ``-x 3``: {``hit``/``hits``,
``a`` t3-r5}, sum 4, against {``a`` t0-r5}, sum 5: the second first, as the jar answers).
The comparison reads only the two states' own matches (and the pair's proposals), so the array
search's final sort may still ask its comparisons up front (:mod:`.tiesort`).

:func:`far_order` and :func:`far_rule` serve the per-pair search (:func:`.paths.first_by_path`'s
``far``); :class:`FarRows` the array search (:func:`.paths.lex_rows`, whose ``finals`` then
carry :meth:`FarRows.less` for :func:`.paths.first_by_path_rows`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .batch import or_by
from .matchers import EXACT, exact_one

if TYPE_CHECKING:
    from .batch import Candidates

__all__ = ["FarRows", "far_order", "far_rule", "far_states"]


def far_order(a: tuple, b: tuple, beam: int, props: dict) -> int:
    """The rule (module docstring) for two final states of one pair: -1 (``a`` first), 1, or 0
    (it does not apply).  ``a``, ``b``: (its matches, its contested non-exact one-word
    matches), sets of ``(t_start, t_len, r_start, r_len, stage)``; ``props``: the pair's
    proposals by span pair (:func:`.align.align`)."""
    (ma, ca), (mb, cb) = a, b
    if ca - cb and not cb - ca:
        mx, mo, cx = ma, mb, ca - cb
    elif cb - ca and not ca - cb:
        mx, mo, cx = mb, ma, cb - ca
    else:
        return 0
    only_o, only_x = mo - mx, mx - mo - cx
    if not only_o or any(m[1] > 1 or m[3] > 1 for m in ma | mb):
        return 0  # (nomw)
    if not all(exact_one(m) for m in only_o | only_x):
        return 0
    # (rw; one-word matches: each state reads a reference word at most once)
    if {m[2] for m in only_o} != {m[2] for m in only_x}:
        return 0
    if any(not any(w[2] == y[2] and w[0] > y[0] for w in only_x) for y in only_o):
        return 0
    if any(len(props[m[:4]]) >= beam for m in cx) or any(y[0] == m[0] for m in cx for y in only_o):
        return 0  # (bp, nx)
    da, db = (sum(abs(m[0] - m[2]) for m in s) for s in (ma, mb))
    return 0 if da == db else (-1 if da > db else 1)


def far_states(ranks: list[int], n: int, held: list, flagged: set, can: list, unit: int) -> int:
    """How many of one pair's final states (sorted by packed rank, ``n`` of them ordered so far)
    the final sort orders with the rule: those equal with the best on the key's first three
    terms (``rank // unit``) where one of them holds (``held``: each state's tracked objects) a
    contested (``flagged``) non-exact one-word (``can``) object (else ``n``)."""
    g = n
    while g < len(ranks) and ranks[g] // unit == ranks[0] // unit:
        g += 1
    return g if g > n and any(k in flagged and can[k] for h in held[:g] for k in h) else n


def far_rule(beam: int, props: dict, units: tuple[int, int]) -> Callable:
    """:func:`.paths.first_by_path`'s ``far``: ``(a, b, rank_a, rank_b) -> -1 / 1 / 0`` for two
    states equal on the first three terms (``units``: the packed rank's weights of the third and
    the fourth term) and different on the fourth."""
    third, fourth = units

    def far(a: tuple, b: tuple, ra: int, rb: int) -> int:
        if ra // third != rb // third or ra // fourth == rb // fourth:
            return 0
        return far_order(a, b, beam, props)

    return far


class FarRows:
    """The rule in the array search.  ``units``: the packed rank's weights of the third and the
    fourth term; ``beam``: the beam size."""

    def __init__(self, units: tuple[int, int], beam: int) -> None:
        self.third, self.fourth = units
        self.beam = beam

    def group(self, c: Candidates, sel, slot, marks: tuple, ranked: tuple, off: tuple, grp, on):
        """Extend :func:`.paths.lex_rows`'s selection (its states ``grp`` where ``on`` per slot)
        with the states equal with their pair's best on three terms, where one holds a contested
        non-exact one-word object and some are not equal with it on four.  ``marks``: the
        contest bits of ``sel`` and each slot's contested bits; ``ranked``: each final state's
        rank, slot, presence bits, and per slot its best rank; ``off``: per slot a multi-word
        tail (the rule cannot act), every state sorted anyway (``spec50b``)."""
        cbit, flagged = marks
        rank, owner, sbits, low = ranked
        t_mw, whole = off
        n = flagged.size
        bits = or_by(slot, cbit, n) & flagged  # (slot: non-decreasing, the pairs in order)
        bits[t_mw] = 0
        # the rule needs a reference word read exactly (one word) from two test words (``rw``):
        # elsewhere it never fires and the order is the last sort's
        one = (c.stage[sel] == EXACT) & (c.tl[sel] == 1) & (c.rl[sel] == 1)
        key = np.sort(slot[one].astype(np.int64) * 64 + c.rs[sel[one]])
        twice = np.zeros(n, dtype=bool)
        twice[key[1:][key[1:] == key[:-1]] // 64] = True
        bits[~twice] = 0
        g3 = np.flatnonzero((rank // self.third == low[owner] // self.third) & (bits[owner] != 0))
        on3 = np.bincount(owner[g3], weights=(sbits[g3] & bits[owner[g3]]) != 0, minlength=n) > 0
        same = rank[g3] // self.fourth == low[owner[g3]] // self.fourth
        on3 &= (
            np.bincount(owner[g3], minlength=n) > np.bincount(owner[g3], weights=same, minlength=n)
        ) & ~whole
        self.props = (c, sel) if on3.any() or whole.any() else None
        self.on3 = on3  # (the slots where the rule can act: tables() reads only their states)
        return np.concatenate((grp[~on3[owner[grp]]], g3[on3[owner[g3]]])), on | on3

    def tables(self, n: int, state, obj, contested, per_state: tuple) -> Callable | None:
        """The per-state tables of the states to order (``n`` of them, ``state``/``obj``: the
        objects each holds, its tail left out: shared by all; ``contested`` per entry;
        ``per_state``: rank, a multi-word tail, slot); returns ``less(u, v) -> (applies, u first)``
        (for states of different ranks) or None."""
        if self.props is None:
            return None
        c, sel = self.props
        # only the states of the slots where the rule can act (per_state[2]: each state's slot),
        # renumbered 0 .. n - 1; the comparison of any other two states does not fire
        use = self.on3[per_state[2]]
        at = np.full(n, -1, dtype=np.int64)
        n = int(use.sum())
        at[use] = np.arange(n)
        keep = use[state]
        state, obj, contested = at[state[keep]], obj[keep], contested[keep]
        ts, rs = c.ts[obj].astype(np.int64), c.rs[obj].astype(np.int64)
        one = (c.tl[obj] == 1) & (c.rl[obj] == 1)

        # proposals of each held object's span pair (among the pair's candidates)
        def span_pair(rows):
            p, t, r = c.pair[rows].astype(np.int64), c.ts[rows], c.rs[rows]
            return (((p * 64 + t) * 64 + c.tl[rows]) * 64 + r) * 64 + c.rl[rows]

        span, q = np.sort(span_pair(sel)), span_pair(obj)
        nprop = np.searchsorted(span, q, "right") - np.searchsorted(span, q)
        shape = (n, int(rs.max()) + 1 if rs.size else 1)
        rid = np.zeros(shape, dtype=np.int64)
        rid[state, rs] = (ts + 1) * 8 + c.stage[obj]
        tr = np.zeros(shape, dtype=np.int64)
        tr[state, rs] = ts
        con, ex, bad = (np.zeros(shape, dtype=bool) for _ in range(3))
        con[state, rs] = contested
        ex[state, rs] = one & (c.stage[obj] == 0)
        bad[state, rs] = contested & (nprop >= self.beam)
        rank, mw = per_state[0][use], per_state[1][use]
        mw[state[~one]] = True
        tread = np.zeros(n, dtype=np.uint64)
        np.bitwise_or.at(tread, state[one], np.left_shift(np.uint64(1), ts[one].astype(np.uint64)))
        dist = np.bincount(state, weights=np.abs(ts - rs), minlength=n)

        def less(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            out = np.zeros(u.size, dtype=bool), np.zeros(u.size, dtype=bool)
            w = np.flatnonzero((at[u] >= 0) & (at[v] >= 0))
            fire, first = _less(at[u[w]], at[v[w]])
            out[0][w], out[1][w] = fire, first
            return out

        def _less(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            fire = (rank[u] // self.third == rank[v] // self.third) & (
                rank[u] // self.fourth != rank[v] // self.fourth
            )
            fire &= ~mw[u] & ~mw[v] & (dist[u] != dist[v])
            ne = rid[u] != rid[v]
            cu, cv = (con[u] & ne).any(axis=1), (con[v] & ne).any(axis=1)
            fire &= cu != cv
            x, o = np.where(cu, u, v), np.where(cu, v, u)
            cx = con[x] & ne
            only_o = (rid[o] != 0) & ne
            only_x = (rid[x] != 0) & ne & ~con[x]
            fire &= only_o.any(axis=1) & (only_o == only_x).all(axis=1)
            fire &= ~((only_o & ~ex[o]) | (only_x & ~ex[x]) | (only_o & (tr[x] <= tr[o]))).any(
                axis=1
            )
            read = (tread[o][:, None] >> tr[x].astype(np.uint64)) & np.uint64(1)
            fire &= ~(cx & (bad[x] | (read != 0))).any(axis=1)
            return fire, dist[u] > dist[v]

        return less
