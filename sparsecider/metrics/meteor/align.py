"""Choosing the alignment among the candidate matches (specification 6).

What the jar optimises, as observed from outside (see IMPLEMENTER_NOTES.md):

1. the weighted number of covered words, where a match counts ``weight(stage) *
   (t_len + r_len)``, except that a non-exact match is *contested* -- it counts
   0 -- when its span pair was proposed more than once, or when another
   proposal of the same shape starts at the same test or reference position;
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
    by_t: dict[tuple[int, int, int], int] = {}
    by_r: dict[tuple[int, int, int], int] = {}
    for (ts, tl, rs, rl), (stage, n) in props.items():
        if stage != EXACT:
            by_t[ts, tl, rl] = by_t.get((ts, tl, rl), 0) + n
            by_r[rs, tl, rl] = by_r.get((rs, tl, rl), 0) + n
    return {
        k
        for k, (stage, _) in props.items()
        if stage != EXACT and (by_t[k[0], k[1], k[3]] > 1 or by_r[k[2], k[1], k[3]] > 1)
    }


def _disjoint(keys: list[tuple[int, int, int, int]]) -> bool:
    used_t: set[int] = set()
    used_r: set[int] = set()
    for ts, tl, rs, rl in keys:
        for i in range(ts, ts + tl):
            if i in used_t:
                return False
            used_t.add(i)
        for j in range(rs, rs + rl):
            if j in used_r:
                return False
            used_r.add(j)
    return True


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
    contested = _contested(props)
    if not contested and _disjoint(keys):
        return [k + (props[k][0],) for k in keys]
    by_start: dict[int, list[tuple[int, int, int, int]]] = {}
    for k in keys:
        by_start.setdefault(k[0], []).append(k)
    # state: (-weighted, chunks, -covered, used_t, used_r, t_end, r_end, matches)
    beam = [(0, 0, 0, 0, 0, -1, -1, ())]
    for i in range(n_test):
        cands = by_start.get(i)
        if not cands:
            continue
        bit_i = 1 << i
        grown = []
        for state in beam:
            w, ch, cov, ut, ur, te, re_, ms = state
            if not ut & bit_i:
                for k in cands:
                    ts, tl, rs, rl = k
                    tmask = ((1 << tl) - 1) << ts
                    rmask = ((1 << rl) - 1) << rs
                    if ut & tmask or ur & rmask:
                        continue
                    stage = props[k][0]
                    gain = 0 if k in contested else _WEIGHT_X[stage] * (tl + rl)
                    new_chunk = 0 if (ts == te and rs == re_) else 1
                    grown.append(
                        (w - gain, ch + new_chunk, cov - tl - rl, ut | tmask, ur | rmask,
                         ts + tl, rs + rl, ms + ((ts, tl, rs, rl, stage),))
                    )  # fmt: skip
            grown.append(state)  # skipping word i comes after every way of taking it
        grown.sort(key=lambda s: s[:3])  # stable: ties keep the order found
        beam = grown[:BEAM]
    return list(beam[0][7])
