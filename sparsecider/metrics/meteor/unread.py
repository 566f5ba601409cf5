"""The third case of the orphan rule (specification 6.3, ``spec49c``, appendix N92): an exact
``a`` left unread inside the kept state of a 2:1 paraphrase.

A non-exact object M reading two or more test words and one reference word (``a street`` /
``road``) holding no exact one-word pair on both sides, and an exact one-word object X whose
test word lies inside M (its reference word outside M) and has two or more exact one-word
readings: M is contested once the kept list holds X and SOME kept state holding M leaves X's
reference word unread (no object of the state covers it) while every *other* reader of that
word -- an object covering it, X's span pair excepted, sharing no word with M -- is blocked in
that state by an EXACT one-word match reading one of its test or reference words.  Whether
(M, X) can fire is static (:class:`Unread` lists them); the state condition reads only the
state's tracked objects, so M, X, the readers of X's reference word and the exact blockers
are tracked.

:class:`UnreadRows` lists the same for many pairs at once (the array search, :mod:`.beam`): bit
masks per (M, X), checked against a step's kept rows with numpy.

Its mirror (``spec50c``, appendix N100) is the same test with test and reference swapped: a
1:2 / 1:3 M (``is`` / ``has a``), X exact inside M on the REFERENCE side, X's TEST word left
unread, and no count of X's readings.  Both classes take ``mirror``: they then read every
object with its two sides swapped (the test is symmetric but for the count), and
:class:`Lost` / :class:`LostRows` run the two sides as one.
"""

from __future__ import annotations

import numpy as np

from .batch import Candidates, exact_one_rows, expand_ranges, heads
from .matchers import EXACT, exact_one
from .orphans import meets

__all__ = ["Lost", "LostRows", "Unread", "UnreadRows"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


class Unread:
    """The (M, X) of one pair's objects that the third case may contest: ``by_m`` maps each M
    to the test words inside it read exactly twice or more (with ``mirror``, spec50c: the sides
    swapped, and read at all; ``x_t`` each X's test word; its X are their exact one-word
    objects); ``tracked`` the objects the check reads; ``ms`` the M.  Every table is per word
    and shared, never per (M, X) or per reader: a long caption repeating ``a street`` has a
    number of (M, X) that grows with the square of its length and of (M, X, reader) with the
    cube, the tables only linearly."""

    def __init__(self, objs: list[Match], mirror: bool = False) -> None:
        if mirror:  # spec50c: the sides swapped (an object's index is unchanged)
            objs = [(o[2], o[3], o[0], o[1], o[4]) for o in objs]
        self.objs = objs
        self.by_m: dict[int, list[int]] = {}
        self.tracked: set[int] = set()
        self.ms: set[int] = set()
        self.x_t: dict[int, int] = {}  # each X's test word
        shaped = [k for k, o in enumerate(objs) if o[4] != EXACT and o[1] >= 2 and o[3] == 1]
        if not shaped:
            return
        ex_t: dict[int, list[int]] = {}  # exact one-word objects by test / reference word
        ex_r: dict[int, list[int]] = {}
        cov_r: dict[int, list[int]] = {}  # objects covering each reference word
        for k, o in enumerate(objs):
            if exact_one(o):
                ex_t.setdefault(o[0], []).append(k)
                ex_r.setdefault(o[2], []).append(k)
            for r in range(o[2], o[2] + o[3]):
                cov_r.setdefault(r, []).append(k)
        pairs = {(objs[y][0], objs[y][2]) for ys in ex_t.values() for y in ys}
        # X's word read twice or more (spec49c; the mirror has no such count: read at all)
        twice = {t for t, ys in ex_t.items() if len({objs[y][2] for y in ys}) >= 2 - mirror}
        for m in shaped:
            t0, n, r0, _, _ = objs[m]
            if any((t, r0) in pairs for t in range(t0, t0 + n)):
                continue  # M holds an exact pair on both sides
            if words := [t for t in range(t0, t0 + n) if t in twice]:
                self.by_m[m] = words
        self.ms = set(self.by_m)
        self.ex_t, self.cov_r = ex_t, cov_r
        self.ex_t_set = {t: frozenset(v) for t, v in ex_t.items()}
        self.ex_r_set = {r: frozenset(v) for r, v in ex_r.items()}
        xs = {x for t in {t for v in self.by_m.values() for t in v} for x in ex_t[t]}
        self.x_t = {x: objs[x][0] for x in xs}
        spans: dict[int, set] = {}  # X's span pairs by reference word
        for x in xs:
            spans.setdefault(objs[x][2], set()).add(objs[x][:4])
        self.cover_r = {r: frozenset(cov_r[r]) for r in spans}
        # the readers of X's word, and the exact blockers of those that are some X's OTHER
        # readers (a reader with X's span pair is no other reader of that X)
        others = {p for r, sp in spans.items() for p in cov_r[r] if sp - {objs[p][:4]}}
        words_t, words_r = set(), set()  # their words first: readers share words
        for p in others:
            ts, tl, rs, rl, _ = objs[p]
            words_t.update(range(ts, ts + tl))
            words_r.update(range(rs, rs + rl))
        blockers = {y for t in words_t for y in ex_t.get(t, ())}
        blockers.update(y for r in words_r for y in ex_r.get(r, ()))
        self.tracked = self.ms | xs | {p for r in spans for p in cov_r[r]} | blockers

    def _blocked(self, bits: set, p: int) -> bool:
        """True if the state (its tracked objects ``bits``) holds an exact one-word object
        reading one of reader ``p``'s test or reference words."""
        ts, tl, rs, rl, _ = self.objs[p]
        empty = frozenset()
        return any(
            not bits.isdisjoint(self.ex_t_set.get(t, empty)) for t in range(ts, ts + tl)
        ) or any(not bits.isdisjoint(self.ex_r_set.get(r, empty)) for r in range(rs, rs + rl))

    def check(self, states: list, kept: set, flagged: set, orphan) -> None:
        """Contest (``orphan``) each M not yet contested with an X kept where some kept state
        (its tracked objects ``state[1]``) holds M, no reader of X's reference word and, for
        every other reader P sharing no word with M, one of P's blockers (none: never).  The
        kept X are found from ``kept`` by test word (an M's X grow with a caption's repeats);
        which X fires first does not matter: M is contested once, and nothing read changes."""
        objs, on_t, ms = self.objs, {}, self.ms.intersection(kept).difference(flagged)
        for x in (x for x in kept if x in self.x_t) if ms else ():
            on_t.setdefault(self.x_t[x], []).append(x)
        for m in ms:
            mo = objs[m]
            holding = [st[1] for st in states if m in st[1]]
            for x in (x for t in self.by_m[m] for x in on_t.get(t, ())):
                xo = objs[x]
                free = [bits for bits in holding if bits.isdisjoint(self.cover_r[xo[2]])]
                if not free:
                    continue
                others = [
                    p for p in self.cov_r[xo[2]] if objs[p][:4] != xo[:4] and not meets(objs[p], mo)
                ]
                if any(all(self._blocked(bits, p) for p in others) for bits in free):
                    orphan(m)
                    break


class UnreadRows:
    """:class:`Unread`'s (M, X) for many pairs at once (the array search, :mod:`.beam`), as
    positions in ``sel`` (whole pairs, grouped by pair): ``m``, ``x`` per rule; the readers of
    X's reference word (``cov_h`` the rule, ``cov_q`` the object); the other readers P
    (``p_h`` the rule of each) and their exact blockers (``blk_p`` the P row, ``blk_e`` the
    object).  Rules with a reader that nothing can block are left out."""

    def __init__(self, c: Candidates, sel: np.ndarray, mirror: bool = False) -> None:
        p, st = c.pair[sel], c.stage[sel]
        ts, tl, rs, rl = c.ts[sel], c.tl[sel], c.rs[sel], c.rl[sel]
        if mirror:  # spec50c: the sides swapped
            ts, tl, rs, rl = rs, rl, ts, tl
        none = np.zeros(0, dtype=np.int64)
        self.m = self.x = self.cov_h = self.cov_q = self.p_h = self.blk_p = self.blk_e = none
        mm = np.flatnonzero((st != EXACT) & (tl >= 2) & (rl == 1))
        ex = np.flatnonzero(exact_one_rows(c, sel))
        if mm.size == 0 or ex.size == 0:
            return
        n = int(max((ts + tl).max(), (rs + rl).max())) + 1
        # Every table below is read within an M's pair: the exact objects of the pairs without
        # an M (most pairs) are left out of the sorts (whole pairs, so counts stay the same).
        with_m = np.zeros(int(p.max()) + 1, dtype=bool)
        with_m[p[mm]] = True
        ex = ex[with_m[p[ex]]]
        if ex.size == 0:  # (then no M has an X)
            return
        # M holding an exact pair on both sides (at its one reference word) is left out
        by_r = np.sort((p[ex] * n + rs[ex]) * n + ts[ex])
        lo = (p[mm] * n + rs[mm]) * n + ts[mm]
        mm = mm[np.searchsorted(by_r, lo + tl[mm]) == np.searchsorted(by_r, lo)]
        # X: an exact one-word object on a test word of M read exactly twice or more (the mirror:
        # read at all)
        order = np.argsort((p[ex] * n + ts[ex]) * n + rs[ex], kind="stable")
        ex, key = ex[order], ((p[ex] * n + ts[ex]) * n + rs[ex])[order]
        # the distinct readings of each row's test word: key is sorted, so they are the heads of
        # key's runs within each run of its word (no np.unique, no search)
        run = np.cumsum(heads(key // n)) - 1
        reads = np.bincount(run[heads(key)], minlength=int(run[-1]) + 1)[run]
        lo = (p[mm] * n + ts[mm]) * n
        owner, at = expand_ranges(
            np.searchsorted(key, lo),
            np.searchsorted(key, lo + tl[mm] * n) - np.searchsorted(key, lo),
        )
        m, x = mm[owner], ex[at]
        keep = reads[at] >= 2 - mirror  # (the mirror: no count)
        m, x = m[keep], x[keep]
        if m.size == 0:
            return
        # the readers Q of X's reference word (objects of the pair covering it)
        first = np.searchsorted(p, p[m])
        h, q = expand_ranges(first, np.searchsorted(p, p[m], side="right") - first)
        xh, mh = x[h], m[h]
        on = (rs[q] <= rs[xh]) & (rs[xh] < rs[q] + rl[q])
        h, q, xh, mh = h[on], q[on], xh[on], mh[on]
        same = (ts[q] == ts[xh]) & (tl[q] == 1) & (rs[q] == rs[xh]) & (rl[q] == 1)
        meets = ((ts[q] < ts[mh] + tl[mh]) & (ts[mh] < ts[q] + tl[q])) | (
            (rs[q] < rs[mh] + rl[mh]) & (rs[mh] < rs[q] + rl[q])
        )
        other = np.flatnonzero(~same & ~meets)  # the other readers P (rows of h, q)
        # their blockers: exact one-word objects of the pair on a test or reference word of P
        first = np.searchsorted(p, p[q[other]])
        bo, e = expand_ranges(first, np.searchsorted(p, p[q[other]], side="right") - first)
        pq = q[other][bo]
        blocks = exact_one_rows(c, sel[e]) & (
            ((ts[pq] <= ts[e]) & (ts[e] < ts[pq] + tl[pq]))
            | ((rs[pq] <= rs[e]) & (rs[e] < rs[pq] + rl[pq]))
        )
        bo, e = bo[blocks], e[blocks]
        dead = (
            np.bincount(h[other[np.bincount(bo, minlength=other.size) == 0]], minlength=m.size) > 0
        )
        live = ~dead
        renum = np.cumsum(live) - 1
        pl = live[h[other]]
        self.m, self.x = m[live], x[live]
        self.cov_h, self.cov_q = renum[h[live[h]]], q[live[h]]
        self.p_h = renum[h[other[pl]]]
        pnum = np.cumsum(pl) - 1
        bl = pl[bo]
        self.blk_p, self.blk_e = pnum[bo[bl]], e[bl]

    def objects(self) -> np.ndarray:
        """The objects the rule reads (to be tracked)."""
        return np.concatenate((self.m, self.x, self.cov_q, self.blk_e))

    def ready(self, bit: np.ndarray, fast: np.ndarray, pair_of: np.ndarray) -> None:
        """The rules' bit masks from the objects' bits ``bit``, keeping the rules of the
        positions ``fast`` (pairs searched on arrays); ``pair_of``: each position's pair."""
        r = np.flatnonzero(fast[self.m]) if self.m.size else self.m
        self.pair = pair_of[self.m[r]]
        self.mbit, self.xbit = bit[self.m[r]], bit[self.x[r]]
        self.cover = np.zeros(self.m.size, dtype=np.uint64)
        np.bitwise_or.at(self.cover, self.cov_h, bit[self.cov_q])
        pmask = np.zeros(self.p_h.size, dtype=np.uint64)
        np.bitwise_or.at(pmask, self.blk_p, bit[self.blk_e])
        self.cover = self.cover[r]
        keep = fast[self.m][self.p_h] if self.p_h.size else np.zeros(0, dtype=bool)
        renum = np.cumsum(fast[self.m]) - 1
        self.pmask, ph = pmask[keep], renum[self.p_h[keep]]
        self.p_first = np.searchsorted(ph, np.arange(r.size))
        self.p_n = np.searchsorted(ph, np.arange(r.size), side="right") - self.p_first
        self.first = None  # per slot, its first rule (made by the first fire)

    def fire(self, flagged, slots, kpresent, kbits, kstart, kcnt, slot_of) -> None:
        """After a step's cut: for the groups of ``slots`` (kept presence ``kpresent``, kept
        rows ``kstart`` .. + ``kcnt`` of ``kbits``), flag each M whose X is kept and some kept
        state holding M leaves X's reference word unread and blocks every other reader."""
        if self.pair.size == 0:
            return
        if self.first is None:
            # each slot's rules, found once per search (not by two searches at every step):
            # the rules are grouped by slot (pairs in order, so slots non-decreasing)
            slot = slot_of[self.pair]
            every = np.arange(int(slot_of.max()) + 1)
            self.first = np.searchsorted(slot, every)
            self.n_of = np.searchsorted(slot, every, side="right") - self.first
        n = self.n_of[slots]
        w = np.flatnonzero(n)  # only the groups of slots with rules (most have none)
        if w.size == 0:
            return
        g, r = expand_ranges(self.first[slots[w]], n[w])
        g = w[g]
        on = ((kpresent[g] & self.xbit[r]) != 0) & ((kpresent[g] & self.mbit[r]) != 0)
        g, r = g[on], r[on]
        if g.size == 0:
            return
        so, s = expand_ranges(kstart[g], kcnt[g])
        b, rr = kbits[s], r[so]
        cand = np.flatnonzero(((b & self.mbit[rr]) != 0) & ((b & self.cover[rr]) == 0))
        po, pi = expand_ranges(self.p_first[rr[cand]], self.p_n[rr[cand]])
        open_ = (b[cand][po] & self.pmask[pi]) == 0
        ok = cand[np.bincount(po[open_], minlength=cand.size) == 0]
        if ok.size:
            np.bitwise_or.at(flagged, slots[g[so[ok]]], self.mbit[rr[ok]])


class Lost:
    """spec49c's :class:`Unread` and its mirror (``spec50c``) for one pair, run as one: ``ms``
    and ``tracked`` are the two sides' together, :meth:`check` checks both (their flags are
    independent: each contests its own M)."""

    def __init__(self, objs: list[Match]) -> None:
        self.sides = Unread(objs), Unread(objs, mirror=True)
        self.ms = self.sides[0].ms | self.sides[1].ms
        self.tracked = self.sides[0].tracked | self.sides[1].tracked

    def check(self, states: list, kept: set, flagged: set, orphan) -> None:
        """:meth:`Unread.check` of both sides."""
        for side in self.sides:
            if side.ms:
                side.check(states, kept, flagged, orphan)


class LostRows:
    """:class:`UnreadRows` and its mirror for many pairs, run as one (the array search)."""

    def __init__(self, c: Candidates, sel: np.ndarray) -> None:
        self.sides = UnreadRows(c, sel), UnreadRows(c, sel, mirror=True)
        self.m = np.concatenate([side.m for side in self.sides])

    def objects(self) -> np.ndarray:
        """The objects the two sides read (to be tracked)."""
        return np.concatenate([side.objects() for side in self.sides])

    def ready(self, bit: np.ndarray, fast: np.ndarray, pair_of: np.ndarray) -> None:
        """:meth:`UnreadRows.ready` of both sides."""
        for side in self.sides:
            side.ready(bit, fast, pair_of)

    def fire(self, *args) -> None:
        """:meth:`UnreadRows.fire` of both sides (the same arguments)."""
        for side in self.sides:
            side.fire(*args)
