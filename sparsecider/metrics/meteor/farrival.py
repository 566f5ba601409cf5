"""spec52b's end pair against a farther EARLIER rival of its reference word (METEOR_BEHAVIOUR.md
6.3 "An end pair against a farther EARLIER rival", N115).

The shape (`plane in the sky flying`/`airplane is flying in the air`): a non-exact one-word
object P (`sky`/`air`) whose span pair is proposed ONCE sits at the END of a non-exact 2:2
candidate M (`the sky`/`the air`) with an exact one-word candidate X (`the`/`the`) at M's two
starts, and a non-exact one-word rival Q (`plane`/`air`, its span pair proposed once too) reads
P's reference word from ANOTHER word of the test (not a second `sky`) that lies BEFORE M's test
start and FARTHER from the diagonal than M's starts (``|Q.t - Q.r| > |M.t - M.r|``).  The jar
then prefers M.  As the model (``align_model2``, ``s52b_far="far+xcert+xa+k5+dw+bf+q1"``) reads
it, in every sort, for a state s in which some such Q's test word is unread (*free*):

1. P in s, contested, without a square twin: P counts neither in spec36e's term nor in the
   fourth key, and neither P nor X (if s holds it) is certain;
2. P's reference word unread in s: X (if s holds it) is not certain;
3. an M of s off the diagonal weighs one more in the fifth key.

The terms depend on the state's test words and objects, not on a fixed change per object, so
the per-pair search (:mod:`.align`) adds them to a state's rank (:func:`far_ranker`, one entry
per P) and builds every child at the pairs having an entry (no class cut).  Such pairs are rare
(at most 30 of the 40,504 first-reference COCO pairs and 91 of their 121,646 others have the
broadest shape at all), so the array search (:mod:`.beam`) finds them (:func:`far_pairs`) and
hands them to the per-pair search (:func:`per_pair_rows`), as it does pairs with too many
contest bits.  Words are compared by id (``Candidates.tw``, the test word type of each row).
"""

from __future__ import annotations

import numpy as np

from .batch import Candidates, expand_ranges, find_sorted, heads
from .matchers import EXACT

__all__ = ["far_pairs", "far_ranker", "far_rivals", "per_pair_rows"]


def far_rivals(objs: list, props: dict, words) -> list[tuple]:
    """Per P of the shape (static, per pair): ``(P, Q test positions, X, Ms off the diagonal,
    the objects reading P's reference word)``, object numbers into ``objs`` (``X`` -1 if none:
    never, X is part of the shape); empty without ``words`` (the test words, indexable by
    position) or where no P has a rival."""
    if words is None:
        return []

    def one(o) -> bool:
        return o[4] != EXACT and o[1] == 1 and o[3] == 1

    exact = {(o[0], o[2]): k for k, o in enumerate(objs) if o[4] == EXACT and o[1] == o[3] == 1}
    ms: dict[tuple, list[int]] = {}
    for k, o in enumerate(objs):
        if o[4] != EXACT and o[1] == o[3] == 2:
            ms.setdefault((o[0], o[2]), []).append(k)
    out = []
    for k, p in enumerate(objs):
        at = (p[0] - 1, p[2] - 1)
        if not one(p) or len(props[p[:4]]) > 1 or at not in ms or at not in exact:
            continue
        far = abs(at[0] - at[1])
        qs = {
            q[0]
            for q in objs
            if one(q) and q[2] == p[2] and q[0] < at[0] and abs(q[0] - q[2]) > far
            and len(props[q[:4]]) == 1 and words[q[0]] != words[p[0]]
        }  # fmt: skip
        if qs:
            off = [m for m in ms[at] if at[0] != at[1]]
            reads = {i for i, o in enumerate(objs) if o[2] <= p[2] < o[2] + o[3]}
            out.append((k, sorted(qs), exact[at], off, reads))
    return out


def far_ranker(entries: list, tables: tuple, marks: tuple, units: tuple):
    """A state's change of rank by the rule (added by :func:`~.packed.rank_of`); marks the
    objects it reads as tracked (a state's set of them tells which it holds).  ``tables``:
    :mod:`.align`'s tracked and certain objects (lists) and the set of objects spec45a alone
    skips like a contested object with a square twin (the model's ``skip45``: the rule's
    "no square twin" test does not count that skip); ``units``: the packed weights (SINGLE,
    CERT, MATCH) of :mod:`.packed`."""
    tracked, cert, own45 = tables
    single, cert_w, match = units
    flagged, ft = marks[0], marks[1]
    rows = []
    for k, qs, x, off, reads in entries:
        for i in (k, x, *off, *reads):
            tracked[i] = True
        rows.append((k, qs, sum(1 << q for q in qs), x, cert[x], cert[k], off, frozenset(reads)))

    def change(state: tuple) -> int:
        bits, used = state[1], state[2]
        add = 0
        for k, qs, qmask, x, cx, ck, off, reads in rows:
            if isinstance(used, int):
                if used & qmask == qmask:
                    continue
            elif all(q in used for q in qs):
                continue
            xc = cx and x in bits
            if k in bits:
                if k in flagged and (k not in ft or k in own45):  # 1: contested, no square twin
                    add += single + match + cert_w * (ck + xc)
            elif bits.isdisjoint(reads):  # 2: P's reference word unread
                add += cert_w * xc
            add -= sum(m in bits for m in off)  # 3: the fifth key
        return add

    return change


def far_pairs(c: Candidates, sel: np.ndarray) -> np.ndarray:
    """Per object of ``sel`` (whole pairs, option order), whether its pair has a P of the shape
    with a rival Q (the pairs :mod:`.beam` leaves to the per-pair search); none without word ids
    (``c.tw``)."""
    out = np.zeros(sel.size, dtype=bool)
    tw = c.tw
    if tw is None or sel.size == 0:
        return out
    # only the pairs holding a non-exact 2:2 (M) can hold the shape: the rest are left out
    # before the sort (most pairs hold none; the answer per pair is the same)
    pair_of = c.pair[sel]
    square = (c.stage[sel] != EXACT) & (c.tl[sel] == 2) & (c.rl[sel] == 2)
    if not square.any():
        return out
    has = np.zeros(int(pair_of.max()) + 1, dtype=bool)
    has[pair_of[square]] = True
    s = np.sort(sel[has[pair_of]])  # c's order: by pair, then span pair, stage
    p, ts, tl, rs, rl, st = c.pair[s], c.ts[s], c.tl[s], c.rs[s], c.rl[s], c.stage[s]
    span = (((p * 64 + ts) * 8 + tl) * 64 + rs) * 8 + rl
    once = np.ones(s.size, dtype=bool)
    same = np.flatnonzero(span[1:] == span[:-1])
    once[same] = once[same + 1] = False
    one = (st != EXACT) & (tl == 1) & (rl == 1) & once
    at = (p * 64 + ts - 1) * 64 + rs - 1
    key = (p * 64 + ts) * 64 + rs
    xs = np.sort(key[(st == EXACT) & (tl == 1) & (rl == 1)])
    m2 = np.sort(key[(st != EXACT) & (tl == 2) & (rl == 2)])
    cand = one & (ts > 0) & (rs > 0)
    cand[cand] = find_sorted(xs, at[cand])[1] & find_sorted(m2, at[cand])[1]
    ps = np.flatnonzero(cand)
    if ps.size == 0:
        return out
    qs = np.flatnonzero(one)
    rk = p[qs] * 64 + rs[qs]
    order = np.argsort(rk, kind="stable")
    qs, rk = qs[order], rk[order]
    lo = np.searchsorted(rk, p[ps] * 64 + rs[ps])
    who, q = expand_ranges(lo, np.searchsorted(rk, p[ps] * 64 + rs[ps], "right") - lo)
    pp, q = ps[who], qs[q]
    ok = (ts[q] < ts[pp] - 1) & (np.abs(ts[q] - rs[q]) > np.abs(ts[pp] - rs[pp]))
    ok &= tw[s[q]] != tw[s[pp]]
    hit = np.zeros(has.size, dtype=bool)
    hit[p[pp[ok]]] = True
    out[:] = hit[pair_of]
    return out


def per_pair_rows(c: Candidates, rows: np.ndarray, align) -> np.ndarray:
    """``align`` (:func:`~.align.align`, passed in: it imports this module) for the pairs of
    ``rows`` (whole pairs), mapped back to rows; the test words by id where ``c`` has them
    (spec52b's rule reads them)."""
    out = []
    p = c.pair[rows]
    tw = c.tw
    for part in np.split(rows, np.flatnonzero(heads(p))[1:]):
        props: dict = {}
        where: dict = {}
        words: dict | None = None if tw is None else {}
        for r in part.tolist():
            k = (int(c.ts[r]), int(c.tl[r]), int(c.rs[r]), int(c.rl[r]))
            props.setdefault(k, []).append(int(c.stage[r]))
            where.setdefault((*k, int(c.stage[r])), r)
            if words is not None:
                words[k[0]] = int(tw[r])
        for ts, tl, rs, rl, stage in align(props, 64, words=words):
            out.append(where[ts, tl, rs, rl, stage])
    return np.asarray(out, dtype=np.int64)
