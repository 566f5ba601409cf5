"""The orphan rule of the alignment search (specification 6.3, ``spec34a``): which candidate
objects can orphan which.

An object M *orphans* an exact object X when M is not exact and its test and reference lengths
differ, X matches one word to one word, X lies inside M on ONE side only, every object
covering X's word on the other side overlaps M (shares a test word or a reference word with
it), and no other exact object on X's word inside M lies inside M on both sides (that one
would be an alternative): once M is taken, X's words have no candidate left.  The relation is
static per pair; the search contests M once its kept list holds M and an X it orphans.

:func:`end_twins` / :func:`end_twin_pairs` give a relation of the same kind (``spec38c``): a
one-word non-exact object at the end of a square paraphrase whose first words have an earlier
exact reading is contested once the kept list holds both.  They also tell which of those
readings lie *farther* from the diagonal than the paraphrase's starts (``spec45a``).
:func:`inner_rivals` / :func:`inner_pairs` give another (``spec49a``): a one-word non-exact object
o at an INNER word of a multi-word object M (``M.t < o.t < M.t + M.t_len`` or the same on the
reference side) is contested once the kept list holds both (in either order of taking).

:class:`Orphans` answers the search's questions for one pair without listing every (M, X):
a long caption can have thousands of each.  :func:`orphan_pairs` lists them for many short
pairs at once (at most 64 tokens a side, so few per pair).
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .batch import Candidates, expand_ranges, heads
from .latetwin import late_twins
from .matchers import EXACT

__all__ = ["Orphans", "end_twin_pairs", "end_twins", "inner_pairs", "inner_rivals", "orphan_pairs"]

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def meets(a: Match, b: Match) -> bool:
    """True if the two objects share a test word or a reference word."""
    test = a[0] < b[0] + b[1] and b[0] < a[0] + a[1]
    return test or (a[2] < b[2] + b[3] and b[2] < a[2] + a[3])


class Orphans:
    """The orphan relation of one pair's objects, asked object by object.

    An X can only be orphaned through a word all of whose one-word objects (one word on that
    side) lie within a window as short as the longest M span on the other side: the others
    cannot all overlap any M.  Only such *tight* X are candidates, which removes the many
    matches of a repeated word at once; the rest is checked on demand (walking the objects
    covering X's outside word up to the first that does not overlap M).

    Parameters
    ----------
    objs : list of (t_start, t_len, r_start, r_len, stage)
    """

    def __init__(self, objs: list[Match]) -> None:
        self.objs = objs
        shaped = [k for k, o in enumerate(objs) if o[4] != EXACT and o[1] != o[3]]
        self.cov_t: dict[int, list[int]] = {}  # objects covering a test / reference word
        self.cov_r: dict[int, list[int]] = {}  # (only the words candidate X lie outside on)
        self.by_t: dict[int, list[int]] = {}  # candidate X by test / reference word (the
        self.by_r: dict[int, list[int]] = {}  # first case's, then the second case's)
        self.ms: set[int] = set()  # objects that may orphan some X
        self.xs: set[int] = set()  # objects that some M may orphan
        self.xs_t: set[int] = set()
        self.xs_r: set[int] = set()
        self.exact: set[tuple[int, int]] = set()
        self.m_t: dict[int, list[int]] = {}  # the M by covered test / reference word
        self.m_r: dict[int, list[int]] = {}
        self.sev_t: set[int] = set()  # X of the second case (spec37d)
        self.sev_r: set[int] = set()
        self.reads_t: dict[int, list[int]] = {}  # exact one-word partners of their inside words
        self.reads_r: dict[int, list[int]] = {}
        if not shaped:
            return
        a = np.fromiter(chain.from_iterable(objs), np.int64, 5 * len(objs)).reshape(-1, 5)
        ts, tl, rs, rl, stage = a.T
        # Tight outside words: the one-word objects on a test word span at most the longest M
        # reference span (their last starts and first ends), and the other way round.
        long_r, long_t = int(rl[shaped].max()), int(tl[shaped].max())
        tight_t = _tight(ts, tl, rs, rl, long_r)
        tight_r = _tight(rs, rl, ts, tl, long_t)
        # Candidate X by the word inside M: a tight X at a reference word is inside M's
        # reference span only (its test word outside); at a test word, the other way round.
        ex = (stage == EXACT) & (tl == 1) & (rl == 1)
        sh = np.array(shaped)
        cover_t = _covering(ts[sh], tl[sh], int((ts + tl).max()) + 1) > 0
        cover_r = _covering(rs[sh], rl[sh], int((rs + rl).max()) + 1) > 0
        # exact objects inside some M on both sides (alternatives to an X on their word)
        both = ex & cover_t[ts] & cover_r[rs]
        self.exact = set(zip(ts[both].tolist(), rs[both].tolist(), strict=True))
        in_r = np.flatnonzero(ex & tight_t[ts] & cover_r[rs])  # X inside some M's reference span
        in_t = np.flatnonzero(ex & tight_r[rs] & cover_t[ts])
        for k in in_r.tolist():
            self.by_r.setdefault(objs[k][2], []).append(k)
        for k in in_t.tolist():
            self.by_t.setdefault(objs[k][0], []).append(k)
        # X by the side it may lie inside M on (each side's outside word was found tight)
        self.xs_r, self.xs_t = set(in_r.tolist()), set(in_t.tolist())
        self._several(ts, tl, rs, rl, ex, cover_t, cover_r)
        self.xs = self.xs_r | self.xs_t | self.sev_r | self.sev_t
        # Objects covering those X's outside words (the orphan walk), and the M covering any
        # word (which M may orphan an X).
        need_t = np.zeros(cover_t.size, dtype=bool)
        need_t[ts[in_r]] = True
        need_r = np.zeros(cover_r.size, dtype=bool)
        need_r[rs[in_t]] = True
        for k in np.flatnonzero(_holds(need_t, ts, tl) | _holds(need_r, rs, rl)).tolist():
            t0, n, r0, m, _ = objs[k]
            for x in range(t0, t0 + n):
                if need_t[x]:
                    self.cov_t.setdefault(x, []).append(k)
            for x in range(r0, r0 + m):
                if need_r[x]:
                    self.cov_r.setdefault(x, []).append(k)
        # only an M covering a word with a candidate X can orphan one (in a long caption
        # repeating a word, usually none does: no M is walked)
        near = _holds(_marks(self.by_r, cover_r.size), rs[sh], rl[sh])
        near |= _holds(_marks(self.by_t, cover_t.size), ts[sh], tl[sh])
        self.ms = {k for k in sh[near].tolist() if next(self.candidates(k), None) is not None}
        for k in sorted(self.ms):
            t0, n, r0, m, _ = objs[k]
            for x in range(t0, t0 + n):
                self.m_t.setdefault(x, []).append(k)
            for x in range(r0, r0 + m):
                self.m_r.setdefault(x, []).append(k)

    def candidates(self, m: int):
        """Tight exact objects inside M on one side only (M orphans some of them)."""
        ts, tl, rs, rl, _ = self.objs[m]
        for r in range(rs, rs + rl):
            for x in self.by_r.get(r, ()):
                if not ts <= self.objs[x][0] < ts + tl:
                    yield x
        for t in range(ts, ts + tl):
            for x in self.by_t.get(t, ()):
                if not rs <= self.objs[x][2] < rs + rl:
                    yield x

    def orphaning(self, x: int):
        """Objects M that may orphan X (covering one of its words)."""
        ts, _, rs, _, _ = self.objs[x]
        yield from self.m_t.get(ts, ())
        yield from self.m_r.get(rs, ())

    def orphans(self, m: int, x: int) -> bool:
        """True if M orphans X."""
        mo, xo = self.objs[m], self.objs[x]
        t_in = mo[0] <= xo[0] < mo[0] + mo[1]
        r_in = mo[2] <= xo[2] < mo[2] + mo[3]
        if t_in == r_in:
            return False
        if x in (self.sev_t if t_in else self.sev_r) and self.several(mo, xo, t_in):
            return True
        if x not in (self.xs_t if t_in else self.xs_r):
            return False
        if t_in:  # an exact object from X's test word to M's reference span is an alternative
            inside = ((xo[0], r) for r in range(mo[2], mo[2] + mo[3]))
        else:
            inside = ((t, xo[2]) for t in range(mo[0], mo[0] + mo[1]))
        if any(k in self.exact for k in inside):
            return False
        cov = self.cov_r[xo[2]] if t_in else self.cov_t[xo[0]]
        return all(meets(self.objs[p], mo) for p in cov)

    def _several(self, ts, tl, rs, rl, ex, cover_t, cover_r) -> None:
        """The X of the second case (spec37d) as far as M does not matter: exact one word to
        one word, inside some M on one side, its word there read by two or more exact
        one-word objects, its other word covered by at most one other span pair."""
        words = (cover_t.size, cover_r.size)
        one = _unique(np.ravel_multi_index((ts[ex], rs[ex]), words))
        one_t, one_r = np.unravel_index(one, words)  # the exact one-word span pairs
        reads_t = np.bincount(one_t, minlength=words[0])
        reads_r = np.bincount(one_r, minlength=words[1])
        # A word's own exact readings are distinct span pairs covering it: more than two fail
        # the count of span pairs below, which then sorts every span pair for nothing (a
        # repeated word in a long caption).
        in_r = ex & cover_r[rs] & (reads_r[rs] >= 2) & (reads_t[ts] <= 2)
        in_t = ex & cover_t[ts] & (reads_t[ts] >= 2) & (reads_r[rs] <= 2)
        if not (in_r.any() or in_t.any()):
            return
        # span pairs covering each word (a span pair proposed by two stages counted once)
        size = (words[0], int(tl.max()) + 1, words[1], int(rl.max()) + 1)
        spans = _unique(np.ravel_multi_index((ts, tl, rs, rl), size))
        s_ts, s_tl, s_rs, s_rl = np.unravel_index(spans, size)
        n_t, n_r = _covering(s_ts, s_tl, words[0]), _covering(s_rs, s_rl, words[1])
        sv_r = np.flatnonzero(in_r & (n_t[ts] <= 2))
        sv_t = np.flatnonzero(in_t & (n_r[rs] <= 2))
        self.sev_r, self.sev_t = set(sv_r.tolist()), set(sv_t.tolist())
        for k in sv_r.tolist():
            self.by_r.setdefault(self.objs[k][2], []).append(k)
        for k in sv_t.tolist():
            self.by_t.setdefault(self.objs[k][0], []).append(k)
        # the readings of those X's inside words only
        want = np.isin(one_r, rs[sv_r]) | np.isin(one_t, ts[sv_t])
        for t, r in zip(one_t[want].tolist(), one_r[want].tolist(), strict=True):
            self.reads_t.setdefault(t, []).append(r)
            self.reads_r.setdefault(r, []).append(t)

    def several(self, mo: Match, xo: Match, t_in: bool) -> bool:
        """Second case of the rule (spec37d) for an X of :meth:`_several` inside M on one
        side: two or more exact one-word readings of X's word there lie outside M on the
        other side, and M holds no exact one-word pair on both sides."""
        if t_in:
            out = [r for r in self.reads_t[xo[0]] if not mo[2] <= r < mo[2] + mo[3]]
        else:
            out = [t for t in self.reads_r[xo[2]] if not mo[0] <= t < mo[0] + mo[1]]
        if len(out) < 2:
            return False
        cells = ((t, r) for t in range(mo[0], mo[0] + mo[1]) for r in range(mo[2], mo[2] + mo[3]))
        return not any(k in self.exact for k in cells)


def _tight(side, side_len, other, other_len, width: int) -> np.ndarray:
    """Per word of one side (positions ``side``), whether the objects one word long on that
    side covering it have spans on the other side that all fit a window of ``width`` words
    (their last start at most ``width - 1`` after their first end)."""
    one = side_len == 1
    n = int((side + side_len).max()) + 1
    last_start = np.full(n, -1, dtype=np.int64)
    np.maximum.at(last_start, side[one], other[one])
    first_end = np.full(n, n + int((other + other_len).max()), dtype=np.int64)
    np.minimum.at(first_end, side[one], (other + other_len - 1)[one])
    return last_start - first_end <= width - 1


def orphan_pairs(c: Candidates, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (M, X) where M orphans X, as positions in ``sel`` (whole pairs, grouped by pair):
    each M-shaped object against its pair's exact one-word objects, each such hit against its
    pair's objects (:class:`Orphans`' relation, listed)."""
    p, st = c.pair[sel], c.stage[sel]
    ts, tl, rs, rl = c.ts[sel], c.tl[sel], c.rs[sel], c.rl[sel]
    none = np.zeros(0, dtype=np.int64)
    shaped = np.flatnonzero((st != EXACT) & (tl != rl))
    ex = np.flatnonzero((st == EXACT) & (tl == 1) & (rl == 1))
    if shaped.size == 0 or ex.size == 0:
        return none, none
    lo = np.searchsorted(p[ex], p[shaped])
    owner, at = expand_ranges(lo, np.searchsorted(p[ex], p[shaped], side="right") - lo)
    m, x = shaped[owner], ex[at]
    tin = (ts[m] <= ts[x]) & (ts[x] < ts[m] + tl[m])
    rin = (rs[m] <= rs[x]) & (rs[x] < rs[m] + rl[m])
    hit = tin != rin
    m, x, tin = m[hit], x[hit], tin[hit]
    if m.size == 0:
        return none, none
    # every object q of the hit's pair: covering X's outside word but not overlapping M fails it
    lo = np.searchsorted(p, p[m])
    h, q = expand_ranges(lo, np.searchsorted(p, p[m], side="right") - lo)
    mh, xh = m[h], x[h]
    on_t = (ts[q] <= ts[xh]) & (ts[xh] < ts[q] + tl[q])
    on_r = (rs[q] <= rs[xh]) & (rs[xh] < rs[q] + rl[q])
    covers = np.where(tin[h], on_r, on_t)
    meets_t = (ts[q] < ts[mh] + tl[mh]) & (ts[mh] < ts[q] + tl[q])
    meets_r = (rs[q] < rs[mh] + rl[mh]) & (rs[mh] < rs[q] + rl[q])
    # an exact object on X's inside word lying inside M on both sides is an alternative
    t_inside = (ts[mh] <= ts[q]) & (ts[q] < ts[mh] + tl[mh])
    r_inside = (rs[mh] <= rs[q]) & (rs[q] < rs[mh] + rl[mh])
    one = (st[q] == EXACT) & (tl[q] == 1) & (rl[q] == 1)
    inside = one & t_inside & r_inside  # exact one-word objects inside M on both sides
    alt = inside & np.where(tin[h], on_t, on_r)
    failed = np.bincount(h[(covers & ~meets_t & ~meets_r) | alt], minlength=m.size) > 0
    # Second case (spec37d): X's inside word has two or more exact one-word objects inside M on
    # that side only, X's outside word at most one other span pair, M no exact pair inside.
    holds = np.bincount(h[inside], minlength=m.size) > 0
    reads = one & np.where(tin[h], on_t & ~r_inside, on_r & ~t_inside)
    # counted as distinct span pairs (positions < 64), X's own excluded on its outside word
    span = ((ts[q] * 64 + tl[q]) * 64 + rs[q]) * 64 + rl[q]
    same = (ts[q] == ts[xh]) & (tl[q] == 1) & (rs[q] == rs[xh]) & (rl[q] == 1)
    several = (_distinct(h, span, reads, m.size) >= 2) & ~holds
    several &= _distinct(h, span, covers & ~same, m.size) <= 1
    keep = ~failed | several
    return m[keep], x[keep]


def _distinct(h: np.ndarray, span: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    """Per hit ``0 .. n - 1``, how many distinct span keys ``span[mask]`` it has."""
    key = np.unique(h[mask] * (1 << 24) + span[mask])
    return np.bincount(key >> 24, minlength=n)


def _unique(keys: np.ndarray) -> np.ndarray:
    """The distinct values of ``keys``, sorted (a plain sort: faster than ``np.unique``'s hash
    on the million keys of a long caption)."""
    keys = np.sort(keys)
    return keys[heads(keys)]


def _covering(start: np.ndarray, length: np.ndarray, n: int) -> np.ndarray:
    """How many of the spans (``start``, ``length``, all ending before word ``n``) cover each
    word 0 .. n - 1: those started less those ended, summed."""
    return np.cumsum(np.bincount(start, minlength=n) - np.bincount(start + length, minlength=n))


def _holds(marked: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Per span (``start``, ``length``): does it hold a word ``marked`` True."""
    upto = np.zeros(marked.size + 1, dtype=np.int64)
    np.cumsum(marked, out=upto[1:])
    return upto[start + length] > upto[start]


def _marks(words: dict, n: int) -> np.ndarray:
    """The words 0 .. n - 1 keyed in ``words``, as a mask."""
    out = np.zeros(n, dtype=bool)
    out[list(words)] = True
    return out


def end_twins(objs: list[Match]) -> tuple[dict[int, list[int]], set[int]]:
    """The *end twins* of each one-word non-exact object P (specification 6.3, ``spec38c``).

    An end twin of P is a non-exact square object M (test and reference lengths equal, two or
    more) ending on P's two words, whose first test word has an exact one-word reading at an
    earlier reference position or whose first reference word has one at an earlier test
    position.  The search contests P once its kept list holds P and one of them.  A P proposed
    once with none gets spec51a's, with a LATER reading (:func:`~.latetwin.late_twins`).

    Parameters
    ----------
    objs : list of (t_start, t_len, r_start, r_len, stage)

    Returns
    -------
    dict
        ``P -> [M, ...]`` (object numbers), only for objects P that have some.
    set
        The objects P with an end twin M starting OFF the diagonal (test start != reference
        start) that has such an exact reading Y farther from the diagonal than M's starts,
        ``|Y.t - Y.r| > |M.t - M.r|`` (``spec45a``; the search skips P in the fourth key when
        it is proposed once, :func:`~.align.align`).
    """
    a = np.fromiter(chain.from_iterable(objs), np.int64, 5 * len(objs)).reshape(-1, 5)
    ts, tl, rs, rl, stage = a.T
    ps, ms, far = _end_pairs(np.zeros(len(objs), dtype=np.int64), ts, tl, rs, rl, stage)
    out: dict[int, list[int]] = {}
    for k, m in zip(ps.tolist(), ms.tolist(), strict=True):
        out.setdefault(k, []).append(m)
    return out, set(ps[far].tolist())


def end_twin_pairs(c: Candidates, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (P, M) where M is an end twin of P (:func:`end_twins`), as positions in ``sel``
    (whole pairs, grouped by pair), and per (P, M) whether M starts off the diagonal with an
    exact reading farther from it (``spec45a``, :func:`end_twins`)."""
    # only pairs holding both a non-exact square object and a non-exact one-word object can
    # hold one (few): the rule is per pair, so the rest are dropped before gathering
    loose = c.stage[sel] != EXACT
    tl, rl = c.tl[sel], c.rl[sel]
    p = c.pair[sel]
    pairs_sq = p[loose & (tl == rl) & (tl > 1)]
    if pairs_sq.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    both = np.zeros(int(p.max()) + 1, dtype=np.int8)
    both[pairs_sq] = 1
    both[p[loose & (tl == 1) & (rl == 1)]] |= 2
    pos = np.flatnonzero(both[p] == 3)
    if pos.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    r = sel[pos]
    ep, em, far = _end_pairs(c.pair[r], c.ts[r], c.tl[r], c.rs[r], c.rl[r], c.stage[r])
    return pos[ep], pos[em], far


def _end_pairs(g, ts, tl, rs, rl, stage) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (P, M) of :func:`end_twins` among objects of groups ``g`` (non-decreasing; a pair
    each), as positions, grouped by P, and per (P, M) the ``spec45a`` flag of
    :func:`end_twins` (M off the diagonal with a farther exact reading)."""
    none = np.zeros(0, dtype=np.int64)
    sq = np.flatnonzero((stage != EXACT) & (tl == rl) & (tl > 1))
    one = np.flatnonzero((stage != EXACT) & (tl == 1) & (rl == 1))
    if sq.size == 0 or one.size == 0:
        return none, none, np.zeros(0, dtype=bool)
    n = int(max((ts + tl).max(), (rs + rl).max())) + 1
    # P on the last two words of M: a join on (group, test word, reference word), first (few
    # match; the exact readings are then looked up for those M only)
    ends = (g[sq] * n + ts[sq] + tl[sq] - 1) * n + rs[sq] + rl[sq] - 1
    order = np.argsort(ends, kind="stable")
    ends = ends[order]
    key = (g[one] * n + ts[one]) * n + rs[one]
    lo = np.searchsorted(ends, key)
    owner, at = expand_ranges(lo, np.searchsorted(ends, key, side="right") - lo)
    ps, ms = one[owner], sq[order[at]]
    if ms.size == 0:
        return none, none, np.zeros(0, dtype=bool)
    # an exact one-word reading of M's first test word at an earlier reference word, or of
    # its first reference word at an earlier test word: sorted (group, word, other word) keys
    # (the exact objects of M's groups only: few)
    gm, of_m = g[ms], np.zeros(int(g.max()) + 1, dtype=bool)
    of_m[gm] = True
    ex = np.flatnonzero((stage == EXACT) & (tl == 1) & (rl == 1) & of_m[g])
    e = g[ex]
    by_t, by_r = np.sort((e * n + ts[ex]) * n + rs[ex]), np.sort((e * n + rs[ex]) * n + ts[ex])
    base_t, base_r = (gm * n + ts[ms]) * n, (gm * n + rs[ms]) * n
    lo_t, lo_r = np.searchsorted(by_t, base_t), np.searchsorted(by_r, base_r)
    ok = np.searchsorted(by_t, base_t + rs[ms]) > lo_t
    ok |= np.searchsorted(by_r, base_r + ts[ms]) > lo_r
    ok |= late_twins((g, ts, tl, rs, rl, stage), ps, ms, ok, n, (by_t, by_r))  # spec51a: LATER
    # spec45a: M off the diagonal and a reading Y farther from it than M's starts.  With Y at
    # M's test start and an earlier reference word, |M.t - Y.r| > |M.t - M.r| reads
    # Y.r < min(M.r, 2 M.t - M.r); at M's reference start, Y.t < min(M.t, 2 M.r - M.t).
    mt, mr = ts[ms], rs[ms]
    far = np.searchsorted(by_t, base_t + np.clip(np.minimum(mr, 2 * mt - mr), 0, None)) > lo_t
    far |= np.searchsorted(by_r, base_r + np.clip(np.minimum(mt, 2 * mr - mt), 0, None)) > lo_r
    far &= mt != mr
    return ps[ok], ms[ok], far[ok]


def inner_rivals(objs: list[Match], ends: dict, tracked: list[bool]) -> InnerRivals:
    """``ends`` (:func:`end_twins`, ``P -> [M, ...]``) with ``spec49a``'s inner pairs added both
    ways (``o -> [M, ...]``, ``M -> [o, ...]``: M can be taken before or after o), every object of
    a pair marked in ``tracked`` (the search reads their presence).  In each pair one object can
    be contested (P or o: one word to one word, not exact), once the kept list holds both (6.3,
    N90)."""
    return InnerRivals(objs, ends, tracked)


class InnerRivals:
    """The mapping of :func:`inner_rivals` (``k in``, ``[k]``: ``ends[k]``, then k's inner partners
    in increasing order, as :func:`_inner_pairs` lists them), from tables per word, not a list per
    (o, M): a caption repeating a phrase has a cube of its length of those, the tables a line."""

    def __init__(self, objs: list[Match], ends: dict, tracked: list[bool]) -> None:
        self.objs, self.ends = objs, ends  # multi-word objects by inner word, one-word by word
        ms_t: dict[int, list[int]] = {}
        ms_r: dict[int, list[int]] = {}
        ones_t: dict[int, list[int]] = {}
        ones_r: dict[int, list[int]] = {}
        for k, (ts, tl, rs, rl, st) in enumerate(objs):
            if tl > 1 or rl > 1:
                for t in range(ts + 1, ts + tl):
                    ms_t.setdefault(t, []).append(k)
                for r in range(rs + 1, rs + rl):
                    ms_r.setdefault(r, []).append(k)
            elif st != EXACT:
                ones_t.setdefault(ts, []).append(k)
                ones_r.setdefault(rs, []).append(k)
        self.tables = ms_t, ms_r, ones_t, ones_r
        self.keys = set(ends)
        for k, (ts, tl, rs, rl, st) in enumerate(objs):
            if tl > 1 or rl > 1:
                inner = any(t in ones_t for t in range(ts + 1, ts + tl))
                if inner or any(r in ones_r for r in range(rs + 1, rs + rl)):
                    self.keys.add(k)
            elif st != EXACT and (ts in ms_t or rs in ms_r):
                self.keys.add(k)
        for k in self.keys:
            tracked[k] = True
        for ms in ends.values():
            for m in ms:
                tracked[m] = True

    def __contains__(self, k: int) -> bool:
        return k in self.keys

    def __getitem__(self, k: int) -> list[int]:
        ts, tl, rs, rl, _ = self.objs[k]
        ms_t, ms_r, ones_t, ones_r = self.tables
        if tl > 1 or rl > 1:  # M: the one-word objects at its inner words
            seen = {o for t in range(ts + 1, ts + tl) for o in ones_t.get(t, ())}
            seen.update(o for r in range(rs + 1, rs + rl) for o in ones_r.get(r, ()))
        else:  # o: the multi-word objects it lies inside
            seen = set(ms_t.get(ts, ())) | set(ms_r.get(rs, ()))
        return [*self.ends.get(k, ()), *sorted(seen)]


def inner_pairs(c: Candidates, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (o, M) of :func:`inner_rivals` (o at an inner word of M), as positions in ``sel``
    (whole pairs, grouped by pair), grouped by pair."""
    cols = (x[sel].astype(np.int64) for x in (c.pair, c.ts, c.tl, c.rs, c.rl, c.stage))
    return _inner_pairs(*cols)


def _inner_pairs(g, ts, tl, rs, rl, stage) -> tuple[np.ndarray, np.ndarray]:
    """The (o, M) of :func:`inner_rivals` among objects of groups ``g`` (non-decreasing; a pair
    each), as positions, once each, ordered by o: a join of the one-word non-exact objects'
    (group, word) on each side with the inner words of the multi-word objects."""
    none = np.zeros(0, dtype=np.int64)
    mw = np.flatnonzero((tl > 1) | (rl > 1))
    one = np.flatnonzero((stage != EXACT) & (tl == 1) & (rl == 1))
    if mw.size == 0 or one.size == 0:
        return none, none
    n = int(max((ts + tl).max(), (rs + rl).max())) + 1
    found = []
    for start, length in ((ts, tl), (rs, rl)):
        words = g[one] * n + start[one]
        order = np.argsort(words, kind="stable")
        words = words[order]
        owner, word = expand_ranges(start[mw] + 1, length[mw] - 1)  # M's inner words
        key = g[mw[owner]] * n + word
        lo = np.searchsorted(words, key)
        at_m, at = expand_ranges(lo, np.searchsorted(words, key, side="right") - lo)
        found.append(one[order[at]] * g.size + mw[owner[at_m]])
    both = np.unique(np.concatenate(found))  # (o inside M on both sides: found twice)
    return both // g.size, both % g.size
