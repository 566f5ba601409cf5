"""The alignment search of :mod:`.align`, run for many pairs at once on arrays.

Same states, same order, same result as :func:`~.align.align` (the per-pair reading of the
specification, section 6): every pair of a chunk advances one REFERENCE position holding objects
per step (step k: each pair's k-th), its partial alignments held as rows of flat arrays -- a
packed rank (the terms of :data:`~.align.KEY_TERMS`), 64-bit
masks of the used test words and of the candidate objects taken that can be contested or
contest, or take part in the orphan rule (so captions of at most 64 tokens), the end of the
last match and a back pointer into a table of chosen objects.  A step's new lists are one sort
of packed int64 keys.  A pair whose objects share no word keeps all of them: that common case
costs no search.  A pair with more than 64 objects that take part in contests (never seen in
captions), or of spec52b's or spec55b's shape (:mod:`.farrival`, :mod:`.splitsq`), is aligned by
:func:`~.align.align` instead.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..._kernels.arrays import popcount, span_bits
from .align import BEAM, align, place_values
from .batch import Candidates, expand_ranges, heads, or_by
from .bits import object_bits
from .certain import certain_rows, short_sibling_rows
from .cover import cov_answer, cov_redo
from .diagonal import diagonal_square_rows
from .earlier import tie_rows
from .enclosed import enclosed_rows, exposed_square_rows
from .excused import excused_rows
from .farrival import far_pairs, per_pair_rows
from .farther import far_keep_rows
from .matchers import EXACT
from .order import option_order
from .paths import first_by_path_rows, held_rows, kinds_rows, lex_rows
from .splitsq import split_pairs
from .twice import twice_rows

__all__ = ["align_pairs"]

_Z = np.uint64(0)
# A state's rank, mixed radix over KEY_TERMS: (64 - uncontested matches) * _UNC + base +
# (_SINGLE + _MATCH) * contested matches with a square twin + _SINGLE * contested duplicated
# ones, base = chunks * _CHUNK + (64 - matches) * (_SINGLE + _MATCH) + (64 - certain) * _CERT
# + 64 - fifth key weights; taking an object adds a constant.  Every count is at most 64;
# spec36e's term at most 128 (64 less the matches, plus up to twice their number); fifth key
# weights at most 64 (an object weighing 1 spans three tokens or more of the 128, one weighing
# 2 -- an off-diagonal square both a spec45b sibling and exposed -- four or more).  Under 2**38.
_UNC, _CHUNK, _SINGLE, _CERT, _MATCH, _ = place_values((65, 65, 129, 65, 65, 65))
_RANK_BITS = (65 * _UNC - 1).bit_length()
_BASE0 = 64 * (_SINGLE + _CERT + _MATCH) + 64
_PAIR_SHIFT = _RANK_BITS
_KEY_BITS = 63  # bits of a new list's packed row key (fewer only in tests: more key blocks)


def align_pairs(c: Candidates, n_pairs: int) -> np.ndarray:
    """Indexes (into ``c``) of the candidate objects each pair's alignment keeps.

    Parameters
    ----------
    c : Candidates
        One row per proposal, sorted by pair; spans within 64 tokens.
    n_pairs : int

    Returns
    -------
    ndarray of int
        Chosen indexes, grouped by pair, in test order.
    """
    if c.pair.size == 0:
        return np.zeros(0, dtype=np.int64)
    # Option order within each pair: reference start, stage, longer reference span, test
    # start, even test spans first among siblings (spec47b), squarer, shorter test span.
    idx = option_order(c)
    pair = c.pair[idx]
    # How many objects cover each word: a pair where none shares a word keeps them all.
    own_t, cell_t = expand_ranges(c.pair * 64 + c.ts, c.tl)
    own_r, cell_r = expand_ranges(c.pair * 64 + c.rs, c.rl)
    touch_t = np.bincount(cell_t, minlength=n_pairs * 64 + 64)
    touch_r = np.bincount(cell_r, minlength=n_pairs * 64 + 64)
    # no other object touches its words
    alone = np.bincount(own_t[touch_t[cell_t] != 1], minlength=c.pair.size) == 0
    alone &= np.bincount(own_r[touch_r[cell_r] != 1], minlength=c.pair.size) == 0
    shared = np.zeros(n_pairs, dtype=bool)
    shared[c.pair[~alone]] = True
    chosen = [idx[~shared[pair]]]
    sel = idx[shared[pair]]
    if sel.size:
        # certain (6.2, 6.3): at most one object covers the TEST position numbered like the
        # object's last reference position, and the object is eligible (:mod:`.certain`)
        cert = certain_rows(c, sel, touch_t)
        # spec38b's enclosed one-word objects: never certain, contested from the start
        enc = enclosed_rows(c, sel, touch_r)
        cert &= ~enc
        # the fifth key's weights (spec36a's diagonal squares, spec36d's / spec45b's short
        # siblings, spec38b's exposed squares off the diagonal: an off-diagonal square can be
        # both of the last two, -2; the first lie on the diagonal, the second off it)
        dsq = (diagonal_square_rows(c, sel) | short_sibling_rows(c, sel, cert)).astype(np.int64)
        dsq += exposed_square_rows(c, sel)
        chosen.append(_search(c, sel, (cert, dsq, enc), alone[sel]))
    out = np.concatenate(chosen)
    return out[np.argsort(c.pair[out] * 64 + c.ts[out], kind="stable")]


def _search(c: Candidates, sel: np.ndarray, flags: tuple, alone: np.ndarray) -> np.ndarray:
    """The beam search of :func:`~.align.align` for the objects ``sel`` (whole pairs, in
    option order); ``flags``: the object counts in the third key, in the fifth, is enclosed
    (``spec38b``); ``alone``: no other object touches the object's words.

    The walk stops at each pair's last object that is not alone: the objects after it are
    taken by the answer, which is the first kept state that is best once they are added
    (METEOR_BEHAVIOUR.md, appendix N18).
    """
    cert, dsq, enc = flags
    bit, cbit, tgm, too_many, twin, dup, (om, ox), ur = object_bits(c, sel, enc)
    p_all = c.pair[sel]
    slow = too_many[p_all] | far_pairs(c, sel)  # (spec52b: the per-pair search's, .farrival)
    slow |= split_pairs(c, sel)  # (spec55b's too: .splitsq)
    ur.ready(bit, ~slow, p_all)
    # the orphan rule's pairs (M, X) of the pairs searched here: M's object and bit, X's bit
    fo = ~slow[om]
    o_obj, o_mbit, o_xbit = sel[om[fo]], bit[om[fo]], bit[ox[fo]]
    multi = (c.tl[sel] > 1) | (c.rl[sel] > 1)
    out = []
    if slow.any():
        # (at this module's BEAM, read now: align's default is bound at its definition, so a
        # patched BEAM would otherwise search these pairs at 40)
        out.append(per_pair_rows(c, sel[slow], partial(align, beam=BEAM)))
        sel, bit, cbit, tgm, cert = sel[~slow], bit[~slow], cbit[~slow], tgm[~slow], cert[~slow]
        dsq, enc = dsq[~slow], enc[~slow]
        p_all, alone, twin, multi = p_all[~slow], alone[~slow], twin[~slow], multi[~slow]
        dup = dup[~slow]
    if sel.size == 0:
        return np.concatenate(out)
    n = c.pair.size
    # Per object (indexed like c): its bits and what taking it changes.
    obit = np.zeros(n, dtype=np.uint64)
    obit[sel] = bit
    ocbit = np.zeros(n, dtype=np.uint64)
    ocbit[sel] = cbit
    otgm = np.zeros(n, dtype=np.uint64)
    otgm[sel] = tgm
    dkey = np.zeros(n, dtype=np.int64)
    dkey[sel] = -_SINGLE - _CERT * cert.astype(np.int64) - _MATCH - dsq
    # spec38b: an enclosed object is contested from the start and has a square twin, so its
    # take ranks as _more would rank it (marks known before the search are never "new")
    dkey[sel] += enc * (_UNC + _SINGLE + _MATCH) + (enc & dup) * _SINGLE
    tmask = span_bits(c.ts, c.tl)
    start_at = (c.ts + 1) * 128 + c.rs + 1
    end_at = (c.ts + c.tl + 1) * 128 + c.rs + c.rl + 1
    pairs = p_all[heads(p_all)]
    n_slots = pairs.size
    slot_of = np.full(int(pairs.max()) + 1, -1, dtype=np.int64)
    slot_of[pairs] = np.arange(n_slots)
    cand_bits = _or_by_slot(n_slots, slot_of[p_all], cbit)  # contest bits of each pair's objects
    # bits of the objects with a square twin (6.1: contested, out of the fourth key too), of the
    # duplicated ones (spec36e: out of its term), multi-word (check 1b), and non-exact (spec52a)
    nmw = multi & (c.stage[sel] != EXACT)
    twin_bits, dup_bits, mw_bits, nmw_bits = (
        _or_by_slot(n_slots, slot_of[p_all[m]], bit[m]) for m in (twin, dup, multi, nmw)
    )
    o_slot = slot_of[c.pair[o_obj]]  # non-decreasing (pairs in order)
    flagged = _or_by_slot(n_slots, slot_of[p_all[enc]], bit[enc])
    # States: slot q holds count[q] states in rows q * BEAM ..., in beam order.
    rows = n_slots * BEAM
    # each state's rank under its pair's current marks (kept so as marks change)
    srank = np.full(rows, 64 * _UNC + _BASE0, dtype=np.int64)
    sbits = np.zeros(rows, dtype=np.uint64)
    sused = np.zeros(rows, dtype=np.uint64)
    # next free reference position << 14, plus the packed end of the last match (0: none)
    sne = np.zeros(rows, dtype=np.int64)
    snode = np.full(rows, -1, dtype=np.int64)
    count = np.ones(n_slots, dtype=np.int64)
    node_c: list[np.ndarray] = []
    node_parent: list[np.ndarray] = []
    last_shared = np.full(n_slots, -1, dtype=np.int64)
    np.maximum.at(last_shared, slot_of[p_all[~alone]], c.rs[sel[~alone]])
    tail = alone & (c.rs[sel] > last_shared[slot_of[p_all]])
    walk = sel[~tail]
    # The walk's (pair, position) groups, made once: the objects of a pair at one reference
    # position (walk is in option order, so by pair and position).  A step reads and writes
    # only its pairs' states, so step k walks each pair's k-th position with objects: fewer
    # steps than positions, each with more rows.
    w_slot = slot_of[c.pair[walk]]
    g_first = np.flatnonzero(heads(w_slot * 64 + c.rs[walk]))
    g_n = np.diff(g_first, append=walk.size)
    g_slot = w_slot[g_first]
    at = np.arange(g_first.size)
    g_k = at - np.maximum.accumulate(np.where(heads(g_slot), at, 0))
    order = np.argsort(g_k * n_slots + g_slot, kind="stable")
    w_obj = walk[expand_ranges(g_first[order], g_n[order])[1]]  # by step, then pair, option order
    g_n, g_slot, g_k = g_n[order], g_slot[order], g_k[order]
    g_first = np.cumsum(g_n) - g_n
    w_rs = c.rs[w_obj]
    # (spec39a's final ties: an object's place among its position's options, and whether it is
    # one-word on the diagonal)
    w_opt = np.arange(w_obj.size) - np.repeat(g_first, g_n)
    w_diag = (c.ts[w_obj] == w_rs) & (c.tl[w_obj] == 1) & (c.rl[w_obj] == 1)
    g_j = w_rs[g_first]  # the group's reference position
    g_edges = np.searchsorted(g_k, np.arange(int(g_k[-1]) + 2)).tolist()
    # per object of the walk, what a step reads of it
    w_tmask = tmask[w_obj]
    w_dkey = dkey[w_obj]
    w_start = start_at[w_obj]
    w_obit = obit[w_obj]
    w_otgm = otgm[w_obj]
    w_ocbit = ocbit[w_obj]
    w_ne = ((w_rs + c.rl[w_obj]) << 14) + end_at[w_obj]
    g_bits = np.bitwise_or.reduceat(w_obit, g_first)  # tracked objects of each group
    # A new list's row as one int64 key: group, rank (< 2**_RANK_BITS), the state's place,
    # the option's number in its group (all ones: the state itself).  Sorted, each group's
    # first BEAM keys are the kept list in the order of align.py's stable sort of rows made
    # state by state, options before the state itself.
    kb = int(g_n.max()).bit_length()
    kself = (1 << kb) - 1
    low = (BEAM - 1).bit_length() + kb
    block = 1 << max(0, _KEY_BITS - _RANK_BITS - low)  # groups per key range
    # an object's part of a take's key: its number in the walk and its change of the keys
    w_key = np.arange(w_obj.size) + (w_dkey << low)
    n_nodes = 0

    def step(g0: int, g1: int) -> None:
        nonlocal n_nodes
        gs, a_n, gf = g_slot[g0:g1], g_n[g0:g1], g_first[g0:g1]
        cg = count[gs]
        # the states: group, stored row, place in the list (per-group values spread to the
        # states by repeat: cheaper than gathers by owner)
        scum = np.cumsum(cg) - cg
        # (one repeat of the per-group values, stacked: row's offset, the key's group and
        # place offset, the position, the group's first object and its size)
        i = np.arange(cg.size)
        per = np.stack((gs * BEAM - scum, (i << (_RANK_BITS + low)) - (scum << kb), g_j[g0:g1]))
        per = np.repeat(np.concatenate((per, gf[None], a_n[None])), cg, axis=1)
        s_first, s_n = per[3], per[4]
        i = np.arange(s_first.size)
        row = i + per[0]
        ne = sne.take(row)  # (take: fewer instructions than a fancy index)
        # each state's takes: the objects of its group whose words are free (a state whose
        # last match reaches past the position takes nothing here)
        used = np.where((ne >> 14) > per[2], ~_Z, sused.take(row))
        tstate, obj = expand_ranges(s_first, s_n)
        ok = np.flatnonzero((used.take(tstate) & w_tmask.take(obj)) == 0)
        tstate, obj = tstate.take(ok), obj.take(ok)
        sk = per[1] + (i << kb) + (srank.take(row) << low)
        skey = sk + kself
        # a take ranks as its state plus one uncontested match, the object's change of the
        # keys and one more chunk unless it extends the state's last (marks unchanged so far;
        # the groups whose marks check 1 changes are ranked again below)
        tkey = (sk - s_first - (_UNC << low)).take(tstate) + w_key.take(obj)
        tkey += (w_start.take(obj) != (ne & 16383).take(tstate)) * (_CHUNK << low)
        tcnt = np.diff(np.searchsorted(tstate, scum), append=tstate.size)
        cnt = cg + tcnt
        kcnt = np.minimum(cnt, BEAM)
        # Only groups with a tracked object here can mark objects (the others' objects here
        # have no bit, and their kept lists only lose bits, so the orphan rule has already
        # fired for them): the checks read the rows of those groups only.
        here = g_bits[g0:g1]
        lg = np.flatnonzero(here)
        if lg.size:
            slots, hl = gs[lg], here[lg]
            # Check 1 (the new list, before sorting): an object taken here and another
            # object with the same test start anywhere in the list contest each other; a
            # multi-word object taken at an earlier step only after the sort (check 1b).
            tcum = np.cumsum(tcnt) - tcnt
            _, ls = expand_ranges(scum[lg], cg[lg])
            lt_owner, lt = expand_ranges(tcum[lg], tcnt[lg])
            taken = w_obit.take(obj.take(lt))
            added = or_by(lt_owner, taken, lg.size)
            present = sbits.take(row.take(ls))
            present = np.bitwise_or.reduceat(present, np.cumsum(cg[lg]) - cg[lg]) | added
            o_owner, lobj = expand_ranges(gf[lg], a_n[lg])
            early = present & mw_bits[slots] & ~hl
            oq = slots.take(o_owner)
            lb = (w_obit.take(lobj), w_otgm.take(lobj), w_ocbit.take(lobj))
            check1 = (added, o_owner, oq, *lb, cand_bits.take(oq))
            prev = flagged[slots]
            _check1(flagged, present & ~early, *check1)
            # Check 1s (6.3, spec36b): a contest among the objects taken here (one reference
            # start) spreads to the other one-word non-exact ones, as does spec52a's M (N114).
            spread = (popcount(added) > 1) & ((added & (flagged[slots] | nmw_bits[slots])) != 0)
            if spread.any():
                flagged[slots[spread]] |= added[spread] & cand_bits[slots[spread]]
            new = flagged[slots] ^ prev  # marks only grow
            ch = np.flatnonzero(new)
            if ch.size:
                # the states and takes of groups with new marks rank lower by what they take
                g, nf, tw, dp = lg[ch], new[ch], twin_bits[slots[ch]], dup_bits[slots[ch]]
                so, s = expand_ranges(scum[g], cg[g])
                sb = sbits.take(row.take(s))
                skey[s] += _more(sb, nf.take(so), tw.take(so), dp.take(so)) << low
                to, t = expand_ranges(tcum[g], tcnt[g])
                bits = sbits.take(row.take(tstate.take(t))) | w_obit.take(obj.take(t))
                tkey[t] += _more(bits, nf.take(to), tw.take(to), dp.take(to)) << low
        keys = np.concatenate((skey, tkey))
        keys.sort(kind="stable")
        kfirst = np.cumsum(cnt) - cnt  # each group's first key
        # the kept keys: each group's first kcnt (kstart: where each group's kept rows start)
        kstart = np.cumsum(kcnt) - kcnt
        kat = np.arange(int(kstart[-1] + kcnt[-1]))
        base = gs * BEAM
        per = np.repeat(np.stack((kfirst - kstart, base, gf, base - kstart)), kcnt, axis=1)
        kk = keys.take(kat + per[0])
        krank = (kk >> low) & ((1 << _RANK_BITS) - 1)
        kopt = kk & kself
        parent = per[1] + ((kk >> kb) & ((1 << (low - kb)) - 1))
        dest = kat + per[3]  # the kept rows in places 0 .. kcnt - 1
        kbits, kused = sbits.take(parent), sused.take(parent)
        kne, knode = sne.take(parent), snode.take(parent)
        tpos = np.flatnonzero(kopt != kself)
        c1 = per[2].take(tpos) + kopt.take(tpos)
        kbits[tpos] |= w_obit.take(c1)
        kused[tpos] |= w_tmask.take(c1)
        kne[tpos] = w_ne.take(c1)
        # New nodes for the kept children.
        node_c.append(c1)
        node_parent.append(knode.take(tpos))
        knode[tpos] = np.arange(n_nodes, n_nodes + tpos.size)
        n_nodes += tpos.size
        if lg.size:
            prev = flagged[slots]
            if early.any():
                _check1(flagged, present, *check1)  # check 1b
            _, krows = expand_ranges(kstart[lg], kcnt[lg])
            kpresent = np.bitwise_or.reduceat(kbits.take(krows), np.cumsum(kcnt[lg]) - kcnt[lg])
            # The orphan rule: M and an object it orphans both in the kept list (and
            # spec38c: P and an end twin).
            lo = np.searchsorted(o_slot, slots)
            g, r = expand_ranges(lo, np.searchsorted(o_slot, slots, side="right") - lo)
            on = ((kpresent[g] & o_mbit[r]) != 0) & ((kpresent[g] & o_xbit[r]) != 0)
            if on.any():
                np.bitwise_or.at(flagged, slots[g[on]], o_mbit[r[on]])
            ur.fire(flagged, slots, kpresent, kbits, kstart[lg], kcnt[lg], slot_of)  # spec49c
            # Check 2 (the kept list): objects of this reference start kept together.
            mine = kpresent & hl
            two = popcount(mine) > 1
            flagged[slots[two]] |= mine[two] & cand_bits[slots[two]]
            new = flagged[slots] ^ prev
            changed = np.flatnonzero(new)
            if changed.size:
                # re-rank the kept rows of the groups whose marks changed (each group's rows
                # keep their places 0 .. n - 1, in the new order)
                moved = lg[changed]
                mo, sub = expand_ranges(kstart[moved], kcnt[moved])
                q = slots[changed]
                nf, tw, dp = new[changed].take(mo), twin_bits[q].take(mo), dup_bits[q].take(mo)
                krank[sub] += _more(kbits.take(sub), nf, tw, dp)
                dest[sub[np.argsort((mo << _PAIR_SHIFT) + krank[sub], kind="stable")]] = dest[sub]
        sbits[dest], sused[dest] = kbits, kused
        sne[dest], snode[dest], srank[dest] = kne, knode, krank
        count[gs] = kcnt

    for k in range(len(g_edges) - 1):
        for b0 in range(g_edges[k], g_edges[k + 1], block):
            step(b0, min(b0 + block, g_edges[k + 1]))
    # The first state of each pair ranking best (with a tail, once the tail's first object is added:
    # does it extend the state's last chunk) is its answer; two or more: spec39a's path order.
    owner, row = expand_ranges(np.arange(n_slots) * BEAM, count)
    rank = srank[row]
    tail = sel[tail]
    if tail.size:
        tq = slot_of[c.pair[tail]]
        o1 = np.full(n_slots, -1, dtype=np.int64)
        o1[tq[heads(tq)]] = tail[heads(tq)]
        t1 = o1[owner]
        w = np.flatnonzero(t1 >= 0)
        rank[w] += _CHUNK * (start_at[t1[w]] != (sne[row[w]] & 16383))
        out.append(tail)
    nc_arr = np.concatenate(node_c) if node_c else np.zeros(0, np.int64)
    np_arr = np.concatenate(node_parent) if node_parent else np.zeros(0, np.int64)
    rank -= (lift := excused_rows(c, sel, slot_of, (owner, snode[row], w_obj, nc_arr, np_arr)))
    # spec54a (.farther): states dropped before the final sort, the whole list at once
    mk, sp = (cbit, flagged, obit, ocbit), slot_of[p_all]
    t_mw = np.zeros(n_slots, dtype=bool)
    t_mw[slot_of[c.pair[tail[(c.tl[tail] > 1) | (c.rl[tail] > 1)]]]] = True
    keep = far_keep_rows(
        c,
        sel,
        sp,
        mk,
        (rank, owner, sbits[row], sused[row], t_mw),
        _held_by(snode, row, (nc_arr, np_arr, w_obj)),
        (_SINGLE, _CERT),
        BEAM,
    )
    if keep is not None:
        owner, row, rank, lift = owner[keep], row[keep], rank[keep], lift[keep]
        count = np.bincount(owner, minlength=n_slots)
    tied = np.flatnonzero(rank == np.minimum.reduceat(rank, np.cumsum(count) - count)[owner])
    won = tied[heads(owner[tied])]  # (the answer where one state ranks best)
    # spec47a (:mod:`.paths`): where it can act, the states equal with the best on four terms
    tails = (tail, slot_of[c.pair[tail]])
    tied, lex = lex_rows(c, sel, sp, mk, tails, (rank, owner, tied, sbits[row], lift), _CERT)
    n_tied = np.bincount(owner[tied], minlength=n_slots)
    tied = tied[n_tied[owner[tied]] > 1]
    if tied.size:
        # the objects each tied state holds (the tail's are the same for all: left out)
        state, k = held_rows(snode[row[tied]], nc_arr, np_arr)
        kind, reads = kinds_rows(c, sel, w_obj[k], w_diag[k], state)
        kind |= twice_rows(c, sel, w_obj[k], state, tied.size)  # spec48c
        fin = lex(tied, state, w_obj[k]) if lex else None
        sib = tie_rows(c, sel, state, w_obj[k], tied.size)  # spec48b, spec50a
        held = (state, w_rs[k], w_opt[k], kind)
        won[n_tied > 1] = tied[first_by_path_rows(held, n_tied[n_tied > 1], reads, fin, sib)]
    # spec54b (.cover): the pairs whose answer the rule can change, answered again below
    fin = (slot_of, owner, rank, snode[row], won)
    redo = cov_redo(c, sel, fin, (nc_arr, np_arr, w_obj), _UNC)
    node = snode[row[won]]
    node = node[node >= 0]
    while node.size:
        out.append(w_obj[nc_arr[node]])
        node = np_arr[node]
        node = node[node >= 0]
    return cov_answer(c, sel, redo, out, partial(align, beam=BEAM))  # spec54b (.cover)


def _check1(flagged, present, added, bo, bq, obit, otgm, ocbit, cand_bits) -> None:
    """Check 1 (or 1b) on a step's new list: each object of the step's block (``obit``...,
    group ``bo``, slot ``bq``) taken by some child and another object with the same test start
    in ``present`` contest each other; the contestable ones are flagged."""
    hit = ((added[bo] & obit) != 0) & ((present[bo] & otgm) != 0)
    if hit.any():
        f = np.where(hit, (present[bo] & otgm & cand_bits) | ocbit, _Z)
        fq = np.flatnonzero(heads(bq))
        flagged[bq[fq]] |= np.bitwise_or.reduceat(f, fq)


def _held_by(snode, row, nodes):
    """``held(states) -> (state, object)``: the objects (rows of the candidates) the final
    states ``states`` hold, their tail left out (``nodes``: node objects, parents, objects)."""
    nc_arr, np_arr, w_obj = nodes

    def held(states):
        state, k = held_rows(snode[row[states]], nc_arr, np_arr)
        return state, w_obj[k]

    return held


def _or_by_slot(n: int, slot: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """The bits ``bits`` or-ed together per slot ``0 .. n - 1`` (``slot``: each one's)."""
    out = np.zeros(n, dtype=np.uint64)
    np.bitwise_or.at(out, slot, bits)
    return out


def _more(bits: np.ndarray, new: np.ndarray, twin: np.ndarray, dup: np.ndarray) -> np.ndarray:
    """How much a state's rank grows when the marks ``new`` are added (6.1): each contested
    match it holds leaves the first key (one uncontested match fewer), one with a square twin
    stops counting in the fourth key and spec36e's term too, and a duplicated one in spec36e's
    term (once more if it has a square twin as well)."""
    hit = bits & new
    n, twins, dups = (popcount(x) for x in (hit, hit & twin, hit & dup))  # int64: weighted
    return n * _UNC + (_SINGLE + _MATCH) * twins + _SINGLE * dups
