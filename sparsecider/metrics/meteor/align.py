"""Choosing the alignment among the candidate matches (specification 6), one pair at a time.

The jar's search as observed from outside (METEOR_BEHAVIOUR.md, 6.1-6.3): a beam of 40 partial
alignments walks the REFERENCE left to right.  Every proposal is its own candidate object (a span
pair proposed by two stages is two objects).  At reference position j each state free at j is
followed by one child per object starting at j whose test span is free (objects by stage, then
longer reference span, test start, even test spans first among siblings -- ``spec47b``,
:mod:`.order` --, squarer span pair, shorter test span), then by itself; the list is stably sorted
by :data:`KEY_TERMS` (-uncontested matches, chunks, -counted matches less contested duplicated
ones, -"certain" matches, -counted matches, -fifth key objects:
:func:`~.diagonal.diagonal_squares`, :func:`~.certain.short_siblings`,
:func:`~.enclosed.exposed_squares`) and cut to 40.  A one-word-to-one-word non-exact object becomes
*contested* (it stops counting in the first key) once another object with the same test start is in
the list with it (checked before the sort; a multi-word object taken at an earlier step counts only
after the sort, "check 1b"), or one with the same reference start is in the kept list (after the
cut); before the sort, a contest among the objects taken at j spreads to all of them ("check 1s"),
as does a multi-word non-exact object taken at j (``spec52a``: check 1 by reference start).
A non-exact object whose test and reference lengths differ becomes contested once the kept list
also holds an exact one-word object it *orphans* (inside it on one side only, every other object on
that exact word overlapping it: the orphan rule); a one-word non-exact object, once the kept list
also holds one of its *end twins* (``spec38c``: :func:`~.orphans.end_twins`) or a multi-word
object over one of its words other than that object's first (``spec49a``).  Every match counts in
the fourth key except a contested object with a *square twin*: an object longer than one word on
both sides with the same test and reference starts (or being one), starting on the diagonal (test
start == reference start).  The key's third term (``spec36e``) counts the same matches less the
contested one-word objects whose span pair is proposed twice or more (unless a contestable one-word
object proposed once reads the same reference word: ``spec46a``), or (``spec38c``) that have an end
twin starting on the diagonal and no square twin (one with a square twin too is taken off twice, as
in the specification's model, ``align_model2``).  A contested one-word object proposed once whose
end twin starts off the diagonal, with an exact reading of the twin's first words farther from the
diagonal, counts in neither (``spec45a``).
An *enclosed* one-word object (:func:`~.enclosed.enclosed`, ``spec38b``) is contested from the
start, has a square twin and is never certain; ``spec48a`` keeps some duplicated diagonal objects
in the third term (:func:`~.diagonal.diagonal_keeps`).  The answer is the best state; states tied
with it are ordered by their paths along the reference (``spec39a``, :mod:`.paths`: a diagonal
exact match loses to a crossing square paraphrase, ``spec46b``; a test-order lex order,
``spec47a``; siblings, ``spec48b``, :mod:`.siblings`; crossings, ``spec48c``, :mod:`.twice`).

Only reference positions where some object starts change anything, so only those are walked:
the cost follows the number of objects, not the captions' length.  Where more objects than the
beam start at one position (a long caption repeating a word), the new list is ranked without
being built and only the states that survive the cut are made (:func:`_cut`), and a state keeps
the set of its own tracked objects, not a bit set over all of them: a step costs the beam times
the options tried, so a megabyte caption takes time and memory linear in its length.
:mod:`.beam` runs the same search on arrays for many pairs at once.
"""

from __future__ import annotations

from functools import reduce
from operator import and_

from .certain import certain, short_siblings
from .cover import cov_states
from .diagonal import diagonal_keeps, diagonal_squares
from .earlier import tie_order
from .enclosed import enclosed, exposed_squares
from .excused import excused_drops
from .farrival import far_ranker, far_rivals
from .farther import far_drops, may_drop
from .matchers import EXACT, exact_one
from .order import option_key
from .orphans import Orphans, end_twins, inner_rivals
from .packed import (
    BASE0,
    CERT,
    CHUNK,
    KEY_TERMS,
    MATCH,
    SINGLE,
    UNC,
    child_change,
    place_values,
    rank_of,
)
from .paths import first_by_path, kind_of, lex_finals, lex_states
from .splitsq import split_keep, split_triples
from .twice import paths_with_bits
from .unread import Lost

__all__ = ["BEAM", "KEY_TERMS", "align", "chunk_count", "options", "place_values"]

#: The jar's beam size (its usage text: ``-x beamSize (default 40)``).
BEAM = 40
UNITS = (SINGLE, CERT)  # the packed rank's weights of the key's third and fourth terms

Match = tuple[int, int, int, int, int]  # t_start, t_len, r_start, r_len, stage

_NONE: frozenset[int] = frozenset()
_BIG = 4096  # test length from which used test positions are a frozenset, not an int


def chunk_count(matches: list[Match]) -> int:
    """Chunks of an alignment: runs of matches adjacent in both sentences, in test order."""
    count = 0
    te = re_ = -1
    for ts, tl, rs, rl, _ in sorted(matches):
        if ts != te or rs != re_:
            count += 1
        te, re_ = ts + tl, rs + rl
    return count


def options(props: dict) -> list[Match]:
    """Candidate objects (one per proposal) in the search's option order (:mod:`.order`: by
    reference start, then stage, longer reference span, test start, even test spans first among
    siblings, ``spec47b``, squarer span pair, shorter test span)."""
    objs = [(*k, s) for k, stages in props.items() for s in stages]
    objs.sort(key=option_key(objs))
    return objs


def align(props: dict, n_test: int, beam: int = BEAM, words=None) -> list[Match]:
    """The jar's alignment from the proposed matches.

    Parameters
    ----------
    props : dict
        ``(t_start, t_len, r_start, r_len) -> [stage of each proposal]``
        (:func:`~sparsecider.metrics.meteor.matchers.candidates`).
    n_test : int
        Number of test tokens.
    beam : int, default 40
        States kept per step, 1 to 63 (the tie-break copies CPython's sort, exact below 64
        items: :mod:`.paths`).
    words : sequence or dict, optional
        The test words (or ids) by position, read by spec52b's rule (:mod:`.farrival`; without
        them it never acts).

    Returns
    -------
    list of (t_start, t_len, r_start, r_len, stage)
        In test order.
    """
    if not 1 <= beam <= 63:
        raise ValueError(f"beam={beam!r}: the beam size must be 1 to 63 (the jar's is 40)")
    if not props:
        return []
    objs = options(props)
    # objects covering each test word (certain() reads these counts too) and reference word
    touch_t = [0] * n_test
    touch_r: dict[int, int] = {}
    for ts, tl, rs, rl, _ in objs:
        for x in range(ts, ts + tl):
            touch_t[x] += 1
        for x in range(rs, rs + rl):
            touch_r[x] = touch_r.get(x, 0) + 1
    if max(touch_t) == 1 and max(touch_r.values()) == 1:
        # No two objects share a word: the best state takes every one (and none is contested).
        return sorted(objs)
    return _search(objs, n_test, beam, (touch_t, touch_r), props, words)


def _rivals(objs: list[Match]) -> tuple[dict, list[bool], list[bool]]:
    """Objects grouped by reference start, which can be contested, and which are tracked (the
    groups by test start are only read here).

    Only one-word-to-one-word non-exact objects can be contested; they and the objects that
    share a test start or a reference start with one of them are tracked (a state keeps the
    set of its tracked objects: the presence sets of the checks).
    """
    by_t: dict[int, list[int]] = {}
    by_r: dict[int, list[int]] = {}
    for k, o in enumerate(objs):
        by_t.setdefault(o[0], []).append(k)
        by_r.setdefault(o[2], []).append(k)
    can = [o[4] != EXACT and o[1] == 1 and o[3] == 1 for o in objs]
    tracked = [False] * len(objs)
    for group in (*by_t.values(), *by_r.values()):
        if len(group) > 1 and any(can[k] for k in group):
            for k in group:
                tracked[k] = True
    return by_r, can, tracked


def _search(
    objs: list[Match], n_test: int, beam: int, touch: tuple, props: dict, words
) -> list[Match]:
    """The walk of the module docstring over the objects (in option order); ``touch``: how
    many objects cover each test word (a list) and reference word (a dict); ``props``: the
    proposals of :func:`align`; ``words``: its test words."""
    touch_t, touch_r = touch
    by_r, can, tracked = _rivals(objs)
    # Contestable objects with a square twin: once contested, not counted in the fourth key (6.1)
    square = {(o[0], o[2]) for o in objs if o[1] > 1 and o[3] > 1}
    # Orphan rule (6.3): an object M that orphans an exact object X is contested once the kept
    # list holds both; M and X are tracked (their presence is what counts); spec49c's third case.
    orph, lost = Orphans(objs), Lost(objs)
    for k in (*orph.ms, *orph.xs, *lost.tracked):
        tracked[k] = True
    # spec38c (6.3): a one-word object P is contested once the kept list also holds one of its
    # end twins (a square paraphrase ending on P's words); both are tracked.
    ends, far = end_twins(objs) if square else ({}, set())  # (an end twin is in `square`)
    # (spec36a: only on the diagonal, test start == reference start)
    twin = {
        k
        for k, o in enumerate(objs)
        if (can[k] or k in orph.ms or k in lost.ms) and o[0] == o[2] and (o[0], o[2]) in square
    }
    # Contestable objects proposed twice or more stop counting in spec36e's term once contested;
    # not spec46a's (reference word read by a once-proposed contestable object) nor spec48a's.
    once_r = {o[2] for k, o in enumerate(objs) if can[k] and len(props[o[:4]]) == 1}
    twice = {k for k, o in enumerate(objs) if can[k] and len(props[o[:4]]) > 1}
    dup = {k for k in twice if objs[k][2] not in once_r} - diagonal_keeps(objs, twice)
    # (spec38c: and those with an end twin starting on the diagonal, unless they have a
    # square twin or are enclosed (spec38b, below: they count as having one), as a second
    # proposal would; N117)
    enc = set(enclosed(objs, touch_r, can))
    dup.update(
        k
        for k, ms in ends.items()
        if k not in twin and k not in enc and any(objs[m][0] == objs[m][2] for m in ms)
    )
    # (spec45a: one proposed once with an end twin off the diagonal whose first words have a
    # farther exact reading stops counting in the fourth key, as with a square twin, and so
    # only once in spec36e's term; spec52b reads those without a square twin of their own)
    far45 = {k for k in far if len(props[objs[k][:4]]) == 1}
    dup -= far45
    far45 -= twin
    twin |= far45
    # spec49a: a one-word non-exact object o at an inner word of a multi-word M, contested once
    # the kept list holds both, is searched with the end twins (both ways); all of them tracked
    ends = inner_rivals(objs, ends, tracked)
    multi = [o[1] > 1 or o[3] > 1 for o in objs]
    nmw = [m and o[4] != EXACT for m, o in zip(multi, objs, strict=True)]  # (spec52a)
    cert = certain(objs, n_test, touch_t)
    # spec38b: enclosed one-word objects are contested from the start (marked below), count
    # as having a square twin and are never certain; tracked, since a state's contested
    # matches are read from its tracked objects.
    for k in enc:
        tracked[k] = True
        twin.add(k)
        cert[k] = False
    # the fifth key's objects (spec36a's diagonal squares, spec36d's / spec45b's short
    # siblings, spec38b's exposed squares off the diagonal: -1 each, so an off-diagonal
    # square both a sibling and exposed weighs -2)
    dsq = [int(d) for d in diagonal_squares(objs)]
    for k in (*short_siblings(objs, cert), *exposed_squares(objs)):
        dsq[k] += 1
    big = n_test >= _BIG
    # Used test positions: a frozenset for a long test (an int would cost its length per
    # copy), tested against each object's span as a range (no set per object).
    masks = [range(t, t + n) if big else ((1 << n) - 1) << t for t, n, *_ in objs]
    # The contested objects, those of them with a square twin, and those duplicated.  Sets of
    # object numbers, not bit sets: a long caption has tens of thousands of tracked objects,
    # and a state's set holds only its own (big integers would make every step cost the
    # caption's length).
    flagged: set[int] = set()
    ft: set[int] = set()
    fd: set[int] = set()
    marks: tuple = (flagged, ft, fd)
    if rivals := far_rivals(objs, props, words):  # spec52b: its terms per state, every child built
        marks += (
            far_ranker(
                rivals, (tracked, cert, far45.difference(enc)), marks, (SINGLE, CERT, MATCH)
            ),
        )

    def orphan(m: int) -> None:  # contested by the orphan rule (any M-shaped object)
        flagged.add(m)
        if m in twin:
            ft.add(m)
        if m in dup:
            fd.add(m)

    def flag(k: int) -> None:  # contested by a rival (one-word non-exact objects only)
        if can[k]:
            orphan(k)

    for k in enc:
        orphan(k)

    # A state: (base rank, its tracked objects, used test positions, next free reference
    # position, end (test, reference) of its last match, match list node).  base packs
    # (chunks, -matches, -certain, -matches, -fifth key objects); the first key, -uncontested
    # matches, and the contested objects' part of spec36e's term and the fourth key are added
    # at sort time from the tracked objects (contest marks change during the search).
    states = [(BASE0, _NONE, frozenset() if big else 0, 0, None, None)]
    starts = sorted(by_r)
    for j in starts:
        here = by_r[j]
        wide = len(here) > beam and not rivals
        if wide:
            added = _taken(states, here, j, tracked, masks, big)
        else:
            # At most `beam` options: every child is built (cheaper than ranking it unbuilt).
            new = []
            added = set()  # tracked objects taken by some child at this step
            for st in states:
                base, bits, used, nxt, end, node = st
                if nxt > j:
                    new.append(st)
                    continue
                for k in here:
                    if _free(used, masks[k], big):
                        ts, tl, rs, rl, _ = objs[k]
                        d = child_change(end, ts, rs, cert[k], dsq[k])
                        nused = used.union(masks[k]) if big else used | masks[k]
                        if tracked[k]:
                            nbits = bits | {k}
                            added.add(k)
                        else:
                            nbits = bits
                        new.append((base + d, nbits, nused, j + rl, (ts + tl, rs + rl), (k, node)))
                new.append((base, bits, used, j + 1, end, node))
        # Check 1 (the new list, before sorting): objects taken here against the objects of
        # the whole list with the same test start, except multi-word objects taken at an
        # earlier step: those are rivals only after the sort (check 1b, below the cut).
        if added:
            present = set(added)  # the new list's objects: the states' and those taken here
            for st in states:
                present |= st[1]
            early = {x for x in present if multi[x] and x not in added}
            _check1(here, added, present - early, objs, flag)
            # Check 1s (6.3, spec36b): a contest among the objects taken here (all share this
            # reference start) spreads to the other one-word non-exact ones; so does a multi-word
            # non-exact object taken here (spec52a: check 1 by reference start, N114).
            if len(added) > 1 and (not added.isdisjoint(flagged) or any(nmw[k] for k in added)):
                for k in added:
                    flag(k)
        if wide:
            states = _cut(states, here, j, objs, (tracked, cert, dsq, masks, big), beam, marks)
        else:
            new.sort(key=lambda s: rank_of(s, marks))
            states = new[:beam]
        if added:
            before = len(flagged)
            if early:  # check 1b, for the test starts of those multi-word objects
                at = {objs[x][0] for x in early}
                late = [k for k in here if k in added and objs[k][0] in at]
                _check1(late, added, present, objs, flag)
            # The kept list: the orphan rule, and check 2 (objects of this reference start kept
            # together).  Only an object taken here can complete a pair.
            new_m = [k for k in here if k in added and k in orph.ms and k not in flagged]
            new_x = [k for k in here if k in added and k in orph.xs]
            new_p = [k for k in here if k in added and k in ends]
            if new_m or new_x or new_p or len(here) > 1 or lost.ms:
                kept = set()
                for st in states:
                    kept |= st[1]
                for m in new_m:
                    if m in kept and any(
                        x in kept and orph.orphans(m, x) for x in orph.candidates(m)
                    ):
                        orphan(m)
                for x in new_x:
                    if x in kept:
                        for m in orph.orphaning(x):
                            if m not in flagged and m in kept and orph.orphans(m, x):
                                orphan(m)
                for k in new_p:  # spec38c: P and an end twin both kept (spec49a: o and M)
                    for m in [m for m in ends[k] if m in kept] if k in kept else ():
                        flag(k if can[k] else m)
                lost.check(states, kept, flagged, orphan)  # spec49c, spec50c
                both = [k for k in here if k in kept]
                if len(both) > 1:
                    for k in both:
                        flag(k)
            if len(flagged) != before:
                states.sort(key=lambda s: rank_of(s, marks))
    split = split_triples(objs, props, words)  # spec55b (.splitsq): usually none
    return sorted(objs[k] for k in _answer(states, marks, objs, by_r, can, (beam, props), split))


def _chain(st) -> list[int]:
    """The objects a state holds, in reference order."""
    node, ks = st[5], []
    while node is not None:
        ks.append(node[0])
        node = node[1]
    return ks[::-1]


def _answer(states, marks, objs, by_r, can, far, split) -> list[int]:
    """The first state's objects, or with ties the paths' choice (spec39a, 47a: :mod:`.paths`);
    first spec54a's drops (``far``: the beam and the pair's proposals, :mod:`.farther`), then
    spec55b's (``split``: :func:`~.splitsq.split_triples`)."""
    ranks = [rank_of(st, marks) for st in states]
    drops = excused_drops(states, objs)  # spec50b: a state lifted, the whole list (.excused)
    if drops:
        ranks = [r - d for r, d in zip(ranks, drops, strict=True)]

    def contested(k: int) -> bool:
        return k in marks[0] and can[k]

    if any(contested(k) for st in states for k in st[1]) and may_drop(sorted(ranks), UNITS):
        fin = lex_finals([_chain(st) for st in states], ranks, objs, contested)
        if out := far_drops(fin, *far, UNITS):  # spec54a (.farther): the whole list
            keep = [i for i in range(len(states)) if i not in out]
            states, ranks = [states[i] for i in keep], [ranks[i] for i in keep]
    if split:  # spec55b (.splitsq): P + X dropped for M
        states, ranks = split_keep(split, states, ranks, objs, _chain)
    if drops:
        n, lex = len(states), contested
    else:
        n, lex = lex_states(ranks, CERT, [st[1] for st in states], objs, marks[0], can)
    n, cov = cov_states(states, ranks, n, objs, UNC)  # spec54b (.cover): on the first term
    lex = lex or (cov and contested)
    chains = [_chain(st) for st in states[:n]]
    if n == 1:
        return chains[0]
    place = {k: i for here in by_r.values() for i, k in enumerate(here)}
    paths = paths_with_bits(objs, chains, by_r, place, kind_of)  # (+ spec48c's kind bits)
    # (spec46b: the test positions each state reads with exact one-word matches)
    reads = [sum(1 << objs[k][0] for k in ks if exact_one(objs[k])) for ks in chains]
    finals = lex_finals(chains, ranks, objs, lex) if lex else None
    return chains[first_by_path(paths, reads, finals, tie_order(objs, by_r, chains), CERT, cov)]


def _check1(here, added, present, objs, flag) -> None:
    """Flag the objects taken here that share a test start with another object of ``present``,
    and those others (``flag``: only contestable ones), grouping ``present`` by test start."""
    need, at = {objs[k][0] for k in here if k in added}, {}
    for x in (x for x in present if objs[x][0] in need):
        at.setdefault(objs[x][0], []).append(x)
    for k in here:
        if k in added and any(x != k for x in at.get(objs[k][0], ())):
            for x in (k, *at[objs[k][0]]):
                flag(x)


def _taken(states, here, j, tracked, masks, big) -> set[int]:
    """Tracked objects of ``here`` that some state free at ``j`` can take."""
    free = [st[2] for st in states if st[3] <= j]
    added, every = set(), reduce(and_, free, -1) if not big else 0  # (used by every one)
    for k in here:
        if tracked[k] and (big or not masks[k] & every):
            for used in free:
                if _free(used, masks[k], big):
                    added.add(k)
                    break
    return added


def _cut(states, here, j, objs, tables, beam, marks) -> list:
    """The first ``beam`` states of step ``j``'s sorted new list, without building the list.

    A child ranks as its parent, plus a change fixed by its object: one more match, a new
    chunk unless it continues the parent's last match, "certain" or not, contested or not,
    with a square twin or not, duplicated or not (the object is not yet in the parent).
    Children of one parent in one such class tie and keep the option order, so only the
    first ``beam`` of each class can survive the cut; the others are never made.  A step then
    costs the beam times the options tried, not the options of every state (a long caption
    repeating a word has thousands of options at one reference position).  The options
    continuing the parent's last match (starting where it ends) are all tried.
    """
    tracked, cert, dsq, masks, big = tables
    flagged, ft, fd = marks
    classes: dict[int, list[tuple]] = {}  # by rank change: (t, mask, change + chunk, i, k)
    cont: dict[int, list[int]] = {}  # option indices by test start
    fixed = []  # each option's change of the rank but the chunk (its marks are known here)
    for i, k in enumerate(here):
        in_ft = k in ft
        f = UNC * ((k in flagged) - 1) + SINGLE * (in_ft + (k in fd) - 1)
        f += MATCH * (in_ft - 1) - CERT * cert[k] - dsq[k]
        fixed.append(f)
        classes.setdefault(f, []).append((objs[k][0], masks[k], f + CHUNK, i, k))
        cont.setdefault(objs[k][0], []).append(i)
    last = len(here)
    ranked = []
    for p, st in enumerate(states):
        rank = rank_of(st, marks)
        if st[3] > j:
            ranked.append((rank, p, 0, -1))  # carried: inside a match taken earlier
            continue
        used, end = st[2], st[4]
        ct = end[0] if end is not None and end[1] == j else -1
        for i in cont.get(ct, ()):  # continuing the parent's last match: no new chunk
            if _free(used, masks[here[i]], big):
                ranked.append((rank + fixed[i], p, i, here[i]))
        for group in classes.values():  # (the others start a chunk: (t, j) is not `end`)
            n = 0
            for t, m, d, i, k in group:
                if t != ct and (used.isdisjoint(m) if big else not used & m):
                    ranked.append((rank + d, p, i, k))
                    n += 1
                    if n == beam:
                        break
        ranked.append((rank, p, last, -1))  # left unmatched
    ranked.sort()
    out = []
    for _, p, i, k in ranked[:beam]:
        base, bits, used, _, end, node = st = states[p]
        if i == last:
            out.append((base, bits, used, j + 1, end, node))
        elif k < 0:
            out.append(st)
        else:
            ts, tl, _, rl, _ = objs[k]
            d = child_change(end, ts, j, cert[k], dsq[k])
            nbits = bits | {k} if tracked[k] else bits
            nused = used.union(masks[k]) if big else used | masks[k]
            out.append((base + d, nbits, nused, j + rl, (ts + tl, j + rl), (k, node)))
    return out


def _free(used, mask, big: bool) -> bool:
    return used.isdisjoint(mask) if big else not used & mask
