"""Choosing the alignment among the candidate matches (specification 6).

What the jar optimises, as observed from outside (see IMPLEMENTER_NOTES.md):

1. the weighted number of covered words, where a match counts ``weight(stage) *
   (t_len + r_len)``, except that a one-word-to-one-word non-exact match is
   *contested* -- it counts 0 -- when its span pair was proposed more than once,
   or when another such candidate starts at the same test (reference) position
   with a disjoint reference (test) word;
2. then the fewest chunks;
3. then the most covered words (contested matches included);
4. then the first alignment found, taking test words left to right, each
   candidate (ordered by reference position) before skipping the word.

The common case -- no two candidates overlap and none is contested -- has one
answer, all candidates, and is returned at once; the rest goes through a beam
search over test positions, which is exhaustive for the sizes met in captions.
"""

from __future__ import annotations

from .matchers import EXACT

__all__ = ["BEAM", "align", "chunk_count"]

#: The jar's beam size (its usage text: ``-x beamSize (default 40)``).
BEAM = 40
_WEIGHT_X = (10, 6, 8, 6)  # module weights times 10: exact integer sums

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage


def chunk_count(matches: list[Match]) -> int:
    """Chunks of an alignment: runs of matches adjacent in both sentences, in test order."""
    count = 0
    te = re_ = -1
    for ts, tl, rs, rl, _ in sorted(matches):
        if ts != te or rs != re_:
            count += 1
        te, re_ = ts + tl, rs + rl
    return count


def _contested(props: dict[tuple[int, int, int, int], list[int]]) -> set[tuple[int, int, int, int]]:
    """Non-exact candidates the jar only takes when they add no chunk.

    A span pair proposed more than once, and a candidate with a rival of the same shape
    starting at the same test (reference) position whose reference (test) span is disjoint
    from its own.  Overlapping rivals (``a couple``/``two`` and ``couple of``/``two``) are not
    contested.
    """
    out = set()
    by_t: dict[tuple[int, int, int], list[tuple[int, int, int, int]]] = {}
    by_r: dict[tuple[int, int, int], list[tuple[int, int, int, int]]] = {}
    for k, (stage, n) in props.items():
        if stage == EXACT or k[1] != 1 or k[3] != 1:
            continue  # multi-word spans are never contested (`the person`/`a person` twice)
        if n > 1:
            out.add(k)
        by_t.setdefault((k[0], k[1], k[3]), []).append(k)
        by_r.setdefault((k[2], k[1], k[3]), []).append(k)
    for group, other in ((by_t, 2), (by_r, 0)):
        for keys in group.values():
            if len(keys) < 2:
                continue
            for k in keys:
                lo, n = k[other], k[other + 1]
                if any(j[other] + j[other + 1] <= lo or lo + n <= j[other] for j in keys if j != k):
                    out.add(k)
    return out


def align(props: dict[tuple[int, int, int, int], list[int]], n_test: int) -> list[Match]:
    """The jar's alignment from the proposed matches.

    Parameters
    ----------
    props : dict
        ``(t_start, t_len, r_start, r_len) -> [earliest stage, number of proposals]``
        (:func:`~sparsecider.metrics.meteor.matchers.candidates`).
    n_test : int
        Number of test tokens.

    Returns
    -------
    list of (t_start, t_len, r_start, r_len, stage)
        In test order.
    """
    if not props:
        return []
    keys = sorted(props)
    exact_only = True
    for v in props.values():
        if v[0] != EXACT:
            exact_only = False
            break
    contested = () if exact_only else _contested(props)
    touch_t = [0] * n_test
    touch_r: dict[int, int] = {}
    for ts, tl, rs, rl in keys:
        for x in range(ts, ts + tl):
            touch_t[x] += 1
        for x in range(rs, rs + rl):
            touch_r[x] = touch_r.get(x, 0) + 1
    if not contested and max(touch_t) == 1 and max(touch_r.values()) == 1:
        return [(*k, props[k][0]) for k in keys]  # nothing competes: every candidate is taken
    big = max(touch_r) >= _BIG
    by_start: dict[int, list[tuple]] = {}
    forced: dict[int, tuple] = {}
    for k in keys:
        ts, tl, rs, rl = k
        stage = props[k][0]
        gain = 0 if k in contested else _WEIGHT_X[stage] * (tl + rl)
        cand = (ts, tl, rs, rl, stage, gain, (1 << tl) - 1, 0 if big else ((1 << rl) - 1) << rs)
        by_start.setdefault(ts, []).append(cand)
    for i, cands in by_start.items():
        # Touching no other candidate's words and counting > 0: in every best alignment.
        if len(cands) == 1:
            ts, tl, rs, rl, stage, gain = cands[0][:6]
            if (
                gain > 0
                and all(touch_t[x] == 1 for x in range(ts, ts + tl))
                and all(touch_r[x] == 1 for x in range(rs, rs + rl))
            ):
                forced[i] = cands[0]
    # rest[i]: the most weight positions >= i could still add (an optimistic bound).
    rest = [0] * (n_test + 1)
    for i in range(n_test - 1, -1, -1):
        cands = by_start.get(i)
        rest[i] = rest[i + 1] + (max(c[5] for c in cands) if cands else 0)
    # A state: (-weighted, chunks, -covered, used_t, used_r, t_end, r_end, matches).  used_t is
    # relative to the current word (bit 0 = word i), so it stays small on long captions; used_r is
    # an int bit set, or a frozenset when the reference is long (an int would cost its length);
    # matches is a linked list (match, previous).  States with the same masks and last match end
    # have the same futures: only the best (the first found on a tie) is kept, which makes the
    # search exact for captions while staying small.
    beam = [(0, 0, 0, 0, frozenset() if big else 0, -1, -1, None)]
    at = 0
    for i in range(n_test):
        cands = by_start.get(i)
        if not cands:
            continue
        shift = i - at
        at = i
        if shift:
            beam = [
                (w, ch, cov, ut >> shift, ur, te, re_, ms)
                for w, ch, cov, ut, ur, te, re_, ms in beam
            ]
        f = forced.get(i)
        if f is not None:
            ts, tl, rs, rl, stage, gain, tmask, rmask = f
            m = (ts, tl, rs, rl, stage)
            rmask = frozenset(range(rs, rs + rl)) if big else rmask
            beam = [
                (w - gain, ch + (ts != te or rs != re_), cov - tl - rl, ut | tmask, ur | rmask,
                 ts + tl, rs + rl, (m, ms))
                for w, ch, cov, ut, ur, te, re_, ms in beam
            ]  # fmt: skip
            continue
        grown = []
        for state in beam:
            w, ch, cov, ut, ur, te, re_, ms = state
            if not ut & 1:
                for ts, tl, rs, rl, stage, gain, tmask, rmask in cands:
                    if ut & tmask:
                        continue
                    if big:
                        if not ur.isdisjoint(range(rs, rs + rl)):
                            continue
                        nur = ur.union(range(rs, rs + rl))
                    else:
                        if ur & rmask:
                            continue
                        nur = ur | rmask
                    grown.append(
                        (w - gain, ch + (ts != te or rs != re_), cov - tl - rl, ut | tmask,
                         nur, ts + tl, rs + rl, ((ts, tl, rs, rl, stage), ms))
                    )  # fmt: skip
            grown.append(state)  # skipping word i comes after every way of taking it
            if len(grown) > _COMPACT:
                grown = _select(grown, rest[i + 1])
        if len(grown) > 1:
            grown = _select(grown, rest[i + 1])
        beam = grown
    node = min(beam, key=_rank)[7]  # min keeps the first of equals
    out = []
    while node is not None:
        out.append(node[0])
        node = node[1]
    return out[::-1]


_BIG = 4096  # reference length from which used positions are a frozenset
_COMPACT = 4096  # states gathered before an intermediate selection (same result, less memory)


def _select(grown: list, rest: int) -> list:
    """The best ``BEAM`` states with distinct futures, in rank order (stable)."""
    grown.sort(key=_rank)  # stable: ties keep the order found
    # A state that cannot reach the best weight even taking the most from every later
    # position can never win on the first criterion.
    limit = grown[0][0] + rest
    seen = set()
    kept = []
    for st in grown:
        if st[0] > limit:
            break
        sig = (st[3], st[4], st[5], st[6])
        if sig not in seen:
            seen.add(sig)
            kept.append(st)
            if len(kept) == BEAM:
                break
    return kept


def _rank(state: tuple) -> tuple:
    return state[:3]
