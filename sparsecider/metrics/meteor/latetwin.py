"""spec51a's end twins with a LATER exact reading (METEOR_BEHAVIOUR.md 6.3 "spec38c's end twin
with a LATER exact reading, for a one-word paraphrase proposed once", N106).

spec38c (:func:`~.orphans.end_twins`) makes a square non-exact object M an *end twin* of a
one-word non-exact object P ending on P's two words when M's first test word has an exact
one-word reading at an EARLIER reference position (or its first reference word one at an
earlier test position).  The jar also contests P against M when that reading is LATER, in one
shape (`a boy`/`a young a`: M = `a boy`/`a young`, P = `boy`/`young`, X = `a`/`a` at M's two
starts, Y = the later `a`/`a`): at ``-x 40`` it answers Y alone where X + P would otherwise win
by one match.  So, for a P that spec38c gives no end twin at all, M is one too when:

- P's span pair is proposed once (a duplicated P is spec48a's, :mod:`.diagonal`);
- M lies on the diagonal (``M.t == M.r``) and an exact one-word candidate X reads (M.t, M.r);
- an exact one-word candidate Y reads M's first test word at a later reference position;
- not (``xt``) a later test word reads M's first reference word exactly (with none earlier
  (``ne``): never here, since an earlier one would make M spec38c's end twin already);
- not (``r21``) a non-exact candidate reads M's two first test words against P's reference
  word (span (M.t, 2, P.r, 1): `a boy`/`child`);
- not (``fr``) P's test word has another non-exact one-word candidate (`boy`/`kid` beside
  `boy`/`young`: as P is proposed once, two or more non-exact one-word rows at P's test word).

The pairs found are then spec38c's exactly (the check-2 flag; M being diagonal, the
``spec36e`` skip; no ``spec45a`` far flag), so the searches change nowhere else.
"""

from __future__ import annotations

import numpy as np

from .matchers import EXACT

__all__ = ["late_twins"]


def _count(table: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """How many keys of the sorted ``table`` lie in ``[lo, hi)``, per query."""
    return np.searchsorted(table, hi) - np.searchsorted(table, lo)


def late_twins(
    rows: tuple, ps: np.ndarray, ms: np.ndarray, ok: np.ndarray, n: int, exact: tuple
) -> np.ndarray:
    """Which joined (P, M) (``ps``, ``ms``: positions in ``rows``; every non-exact square M ending
    on P's words) are end twins by this module's rule, as a mask.

    ``rows``: ``(g, ts, tl, rs, rl, stage)`` of every object of the groups (whole pairs);
    ``ok``: spec38c's end twins among the (P, M); ``n``: more than any word position;
    ``exact``: the sorted keys ``(g * n + t) * n + r`` and ``(g * n + r) * n + t`` of the exact
    one-word objects of M's groups (:func:`~.orphans._end_pairs` builds them)."""
    g, ts, tl, rs, rl, stage = rows
    out = np.zeros(ps.size, dtype=bool)
    twin = np.zeros(ts.size, dtype=bool)
    twin[ps[ok]] = True  # P with a spec38c end twin: the rule does not look at them
    at = np.flatnonzero(~twin[ps] & (ts[ms] == rs[ms]))
    if at.size == 0:
        return out
    p, m = ps[at], ms[at]
    gm, mt, mr = g[m], ts[m], rs[m]
    by_t, by_r = exact
    base_t, base_r = (gm * n + mt) * n, (gm * n + mr) * n
    hit = _count(by_t, base_t + mr, base_t + mr + 1) > 0  # X at M's two starts
    hit &= _count(by_t, base_t + mr + 1, base_t + n) > 0  # Y: M's test start read later
    hit &= _count(by_r, base_r + mt + 1, base_r + n) == 0  # xt: no later test word reads M.r
    # P proposed once; r21; fr: keys over every object of the groups
    loose = stage != EXACT
    one = (tl == 1) & (rl == 1)  # P is 1:1: its span is proposed once if one 1:1 object has it
    span = np.sort(((g * n + ts) * n + rs)[one])
    pk = (g[p] * n + ts[p]) * n + rs[p]
    hit &= _count(span, pk, pk + 1) == 1
    r21 = np.sort(((g * n + ts) * n + rs)[loose & (tl == 2) & (rl == 1)])
    q = (gm * n + mt) * n + rs[p]
    hit &= _count(r21, q, q + 1) == 0
    fr = np.sort((g * n + ts)[loose & (tl == 1) & (rl == 1)])
    q = g[p] * n + ts[p]
    hit &= _count(fr, q, q + 1) < 2
    out[at[hit]] = True
    return out
