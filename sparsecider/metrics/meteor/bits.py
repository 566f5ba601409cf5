"""What the array search (:mod:`.beam`) tracks of each object, worked out before it walks.

A pair's objects that take part in contests (share a start with a contestable object, or
belong to an orphan, end twin, inner or lost pair of :mod:`.orphans` / :mod:`.unread`) get a
bit each, at most 64 a pair (a pair with more is aligned by :func:`~.align.align`); a state
holds the bits of its tracked objects.  The flags of spec36e's term (proposed twice, spec38c's
end twins, less spec46a's and spec48a's keeps, spec45a's far twins) and of the fourth key
(square twins) are set here, as :func:`~.align.align` sets them for one pair.
"""

from __future__ import annotations

import numpy as np

from .batch import Candidates, find_sorted, heads
from .diagonal import diagonal_keep_rows
from .matchers import EXACT
from .orphans import end_twin_pairs, inner_pairs, orphan_pairs
from .unread import LostRows

__all__ = ["object_bits"]

_U1 = np.uint64(1)
_Z = np.uint64(0)


def object_bits(c: Candidates, sel: np.ndarray, enc: np.ndarray) -> tuple:
    """Per object of ``sel``: its presence bit, its contest bit, and the bits of the other
    objects with its test start; which pairs need more than 64 bits; which objects can be
    contested and have a square twin (an object longer than one word on both sides with the
    same two starts, or are one; on the diagonal only); which can be contested and share
    their span pair with another proposal (spec36e; unless a contestable object proposed once
    has their reference start, spec46a, or they keep it by spec48a: :mod:`.diagonal`), or have
    an end twin on the diagonal (spec38c); the orphan pairs (M, X), end twin pairs (P, M)
    and inner pairs (o, M, spec49a) of :mod:`.orphans` (the first object is the one contested).
    ``enc``: per object of ``sel``, spec38b's enclosed ones (they count as having a square
    twin, so spec38c's clause leaves them out of spec36e's term: N117)."""
    p = c.pair[sel]
    can = (c.stage[sel] != EXACT) & (c.tl[sel] == 1) & (c.rl[sel] == 1)
    # per side: another object has its start and one can be contested (counted by (slot, start)
    # with slots numbering sel's pairs only; by runs on the reference side: sel in option order)
    t_key, n_keys = (np.cumsum(p_first := heads(p)) - 1) * 64 + c.ts[sel], int(p_first.sum()) * 64
    r_first = np.flatnonzero(heads(p * 64 + c.rs[sel]))
    r_run = np.repeat(np.arange(r_first.size), r_size := np.diff(r_first, append=p.size))
    shared = [(np.bincount(t_key, minlength=n_keys)[t_key] > 1)
              & (np.bincount(t_key[can], minlength=n_keys)[t_key] > 0),
              (r_size[r_run] > 1) & np.logical_or.reduceat(can, r_first)[r_run]]  # fmt: skip
    relevant = shared[0] | shared[1]
    om, ox = orphan_pairs(c, sel)  # the orphan rule's objects: their presence in the kept list
    # spec38c: (P, M), P contested once the kept list holds it and its end twin M, searched
    # with the orphan rule's (M, X) (the first object is the one contested)
    ep, em, far = end_twin_pairs(c, sel)
    ip, im = inner_pairs(c, sel)  # spec49a: (o, M), o at an inner word of M, alike
    if ep.size or ip.size:
        om, ox = np.concatenate((om, ep, ip)), np.concatenate((ox, em, im))
        by_pair = np.argsort(p[om], kind="stable")
        om, ox = om[by_pair], ox[by_pair]
    ur = LostRows(c, sel)  # spec49c, spec50c: the orphan rule's third case and its mirror
    relevant[om] = relevant[ox] = relevant[ur.objects()] = True
    # bit numbers: the relevant objects of a pair in order
    before = np.cumsum(relevant) - relevant
    first = np.flatnonzero(heads(p))
    num = before - np.repeat(before[first], np.diff(np.r_[first, p.size]))
    too_many = np.zeros(int(p.max()) + 1, dtype=bool)
    too_many[p[relevant & (num >= 64)]] = True
    bit = np.where(relevant & (num < 64), _U1 << np.clip(num, 0, 63).astype(np.uint64), _Z)
    cbit = np.where(can, bit, _Z)
    # the bits of the tracked objects at each test start (by t_key: sel's pairs only)
    rel = np.flatnonzero(bit)
    at_start = np.zeros(n_keys, dtype=np.uint64)
    np.bitwise_or.at(at_start, t_key[rel], bit[rel])
    tgm = at_start[t_key] ^ bit
    starts = (p * 64 + c.ts[sel]) * 64 + c.rs[sel]
    square = (c.tl[sel] > 1) & (c.rl[sel] > 1)
    twin = np.zeros(p.size, dtype=bool)
    if square.any():
        sq = np.sort(starts[square])
        on_diagonal = c.ts[sel] == c.rs[sel]  # spec36a: only there
        for who in (np.flatnonzero(can), om, ur.m):
            twin[who] = find_sorted(sq, starts[who])[1] & on_diagonal[who]
    # A contestable object's second proposal is one word to one word with its starts, so
    # only the 1:1 objects of test starts shared with a contestable one are looked at.
    dup = np.zeros(p.size, dtype=bool)
    rows = np.flatnonzero(shared[0] & (c.tl[sel] == 1) & (c.rl[sel] == 1))
    if rows.size:
        table, mine = np.sort(starts[rows]), rows[can[rows]]
        q = starts[mine]
        dup[mine] = np.searchsorted(table, q, "right") - np.searchsorted(table, q) > 1
    # (spec45a: one proposed once with an end twin off the diagonal whose first words have a
    # farther exact reading stops counting in the fourth key, as with a square twin, and so
    # only once in spec36e's term; `dup` here: proposed twice)
    skip = ep[far & ~dup[ep]]
    # (spec46a: not one whose reference word a contestable object proposed once reads; spec48a)
    dup &= ~np.logical_or.reduceat(can & ~dup, r_first)[r_run] & ~diagonal_keep_rows(c, sel, dup)
    # (spec38c: so do those with an end twin starting on the diagonal, no square twin and not
    # enclosed: spec38b's ``enc`` count as having one, N117)
    dup[ep[(c.ts[sel[em]] == c.rs[sel[em]]) & ~twin[ep] & ~enc[ep]]] = True
    twin[skip], dup[skip] = True, False
    return bit, cbit, tgm, too_many, twin, dup, (om, ox), ur
