"""Candidate matches of many caption pairs at once, as flat integer arrays (specification 5).

The same candidates as :func:`~.segment.pair_candidates` (its per-pair twin), made for a whole
chunk of pairs with array operations: every distinct caption is split, stemmed and looked up
once, its tokens become integer type ids, and the candidates of all pairs come from a few joins.
Pairs whose captions exceed :data:`MAX_FAST` tokens go to the per-pair code instead (their
positions would not fit the 64-bit masks of :mod:`.beam`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp

from .matchers import EXACT, PARAPHRASE, STEM, SYNONYM
from .paraphrase import MAX_PHRASE
from .resources import Resources
from .wordtypes import Words

__all__ = [
    "MAX_FAST",
    "Candidates",
    "CaptionTable",
    "candidates_of_pairs",
    "caption_table",
    "exact_one_rows",
    "expand_ranges",
    "find_sorted",
    "heads",
    "or_by",
    "readings_after",
    "rows_of_pairs",
]

#: Longest caption (tokens) the array path handles; longer ones take the per-pair path.
MAX_FAST = 64
# candidates_of_pairs packs a row in one integer, positions in 6 bits and phrase lengths in 3:
# larger limits would decode to wrong rows silently, so an edit that raises one stops here.
if MAX_FAST > 64 or MAX_PHRASE > 7:
    raise RuntimeError("the packed candidate key holds positions < 64 and phrase lengths < 8")


@dataclass
class CaptionTable:
    """Distinct normalised captions of a chunk, as arrays.

    Attributes
    ----------
    texts : list of str
    off : ndarray (n_captions + 1,)
        Token offsets of each caption in ``tok``.
    tok, stem, func : ndarray (n_tokens,)
        Type id, stem id and function-word flag of every token.
    syn_keys : ndarray
        Sorted ``a * n_types + b`` for type pairs a != b sharing a WordNet synset.
    partner_bits, partner_bits2 : ndarray (n_types,) uint64
        Per type, :func:`_bit_number` (first, second multiplier) of each of its synonyms in
        the chunk (quick filters).
    occ_off : ndarray (n_captions + 1,)
        Offsets of each caption's phrase occurrences.
    occ_start, occ_len, occ_pid : ndarray
        Paraphrase-table phrases occurring in the captions (ordered by caption, start, length).
    n_types : int
    func_before : ndarray (n_tokens + 1,) int64
        Function words before each token of ``tok`` (last: all), so a caption's count is
        ``func_before[off[i + 1]] - func_before[off[i]]``; computed on first use.
    """

    texts: list
    off: np.ndarray
    tok: np.ndarray
    stem: np.ndarray
    func: np.ndarray
    syn_keys: np.ndarray
    partner_bits: np.ndarray
    partner_bits2: np.ndarray
    occ_off: np.ndarray
    occ_start: np.ndarray
    occ_len: np.ndarray
    occ_pid: np.ndarray
    n_types: int

    def lengths(self) -> np.ndarray:
        """Number of tokens of each caption."""
        return np.diff(self.off)

    @cached_property
    def func_before(self) -> np.ndarray:
        """Function words before each token (and in all, last); made once per chunk, for the
        score bounds and statistics that read it several times."""
        out = np.zeros(self.func.size + 1, dtype=np.int64)
        np.cumsum(self.func, out=out[1:])
        return out


@dataclass
class Candidates:
    """Candidate objects of many pairs, one per proposal (a span pair proposed by two stages,
    or by a paraphrase entry and its reverse, is two rows), sorted by (pair, t_start, t_len,
    r_start, r_len, stage); ``tw``: the type id of each row's first test word, ``~id`` for a
    function word (spec52b's rule compares test words: :mod:`.farrival`; spec55b's reads the
    flag: :mod:`.splitsq`; None: unknown, the rules do not act)."""

    pair: np.ndarray
    ts: np.ndarray
    tl: np.ndarray
    rs: np.ndarray
    rl: np.ndarray
    stage: np.ndarray
    tw: np.ndarray | None = None


# Multipliers of :func:`_bit_number`: two, for two independent bit sets per type.
_MIX = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9)


def _bit_number(ids: np.ndarray, multiplier: np.uint64, n_bits: int = 6) -> np.ndarray:
    """A pseudo-random bit number (0 .. 2**n_bits - 1) per id: the top bits of
    ``id * multiplier`` (uint64)."""
    with np.errstate(over="ignore"):
        return (ids.astype(np.uint64) * multiplier) >> np.uint64(64 - n_bits)


def _partner_bits(syn_keys: np.ndarray, n_types: int) -> tuple[np.ndarray, np.ndarray]:
    """Per type a, the sets of :func:`_bit_number` (with each multiplier of ``_MIX``) of its
    synonyms b (no bit: not a synonym)."""
    out = np.zeros(n_types, dtype=np.uint64), np.zeros(n_types, dtype=np.uint64)
    if syn_keys.size:
        a, b = syn_keys // n_types, syn_keys % n_types
        first = np.flatnonzero(np.r_[True, a[1:] != a[:-1]])  # keys are sorted: grouped by a
        for mix, set_ in zip(_MIX, out, strict=True):
            set_[a[first]] = np.bitwise_or.reduceat(np.uint64(1) << _bit_number(b, mix), first)
    return out


def caption_table(texts: list[str], res: Resources, words: Words | None = None) -> CaptionTable:
    """Split, type, stem and phrase-index distinct normalised captions.

    Parameters
    ----------
    texts : list of str
        Distinct normalised captions.
    res : Resources
    words : Words, optional
        The run's word types (a fresh one by default).
    """
    words = Words(res) if words is None else words
    # Split and type every caption at once (normalised text: single spaces, no empty token).
    tok, lens = words.encode_texts(texts)
    off = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    w = words.arrays()
    n_types = w["stem"].size
    # Synonym pairs among this chunk's types.
    seen = np.zeros(n_types, dtype=bool)
    seen[tok] = True
    here = np.flatnonzero(seen)
    so = w["syn_off"]
    counts = so[here + 1] - so[here]
    _, pi = expand_ranges(so[here], counts)
    syn_keys = _synonym_pairs(here, counts, w["syn"][pi], n_types)
    # Paraphrase phrases of every caption, in one vectorised lookup.
    cap_of = np.repeat(np.arange(len(texts)), lens)  # each token's caption
    starts, plens, pids = res.paraphrases.find(w["pword"][tok], off[1:][cap_of])
    owner = cap_of[starts]
    occ_off = np.searchsorted(owner, np.arange(len(texts) + 1))
    bits, bits2 = _partner_bits(syn_keys, n_types)
    return CaptionTable(
        texts=texts,
        off=off,
        tok=tok,
        stem=w["stem"][tok],
        func=w["func"][tok],
        syn_keys=syn_keys,
        partner_bits=bits,
        partner_bits2=bits2,
        occ_off=occ_off,
        occ_start=starts - off[owner],
        occ_len=plens,
        occ_pid=pids,
        n_types=n_types,
    )


def _synonym_pairs(
    here: np.ndarray, counts: np.ndarray, synsets: np.ndarray, n_types: int
) -> np.ndarray:
    """Sorted unique ``a * n_types + b``, a != b, for types sharing a synset.

    ``here`` are the chunk's type ids (ascending), ``counts`` how many synsets each has and
    ``synsets`` those synsets, type by type.  The (type, synset) incidence matrix times its
    transpose: scipy's sparse product joins and de-duplicates in C (a word pair sharing k
    synsets is k joins, summed into one entry).  Its rows are the chunk's types only, built as
    CSR directly (they come grouped): a matrix over every type of the run, built from
    coordinates, cost more than the product itself.
    """
    if synsets.size == 0:
        return np.zeros(0, dtype=np.int64)
    indptr = np.zeros(here.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    m = sp.csr_matrix(
        (np.ones(synsets.size, dtype=np.int32), synsets, indptr),
        shape=(here.size, int(synsets.max()) + 1),
    )
    g = m @ m.T.tocsr()
    g.sort_indices()
    a = np.repeat(np.arange(here.size, dtype=np.int64), np.diff(g.indptr))
    b = g.indices.astype(np.int64)
    off = a != b
    # local rows and columns ascending: so are the type ids, and the keys
    return here[a[off]] * n_types + here[b[off]]


def heads(x: np.ndarray) -> np.ndarray:
    """True where a run of equal values starts."""
    out = np.ones(x.size, dtype=bool)
    out[1:] = x[1:] != x[:-1]
    return out


def exact_one_rows(c: Candidates, rows: np.ndarray) -> np.ndarray:
    """Which of the candidates ``rows`` of ``c`` are exact one-word matches (a mask)."""
    return (c.stage[rows] == EXACT) & (c.tl[rows] == 1) & (c.rl[rows] == 1)


def or_by(groups: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """OR of ``values`` per group number (``groups`` non-decreasing), for groups 0 .. n - 1."""
    out = np.zeros(n, dtype=np.uint64)
    if groups.size:
        first = np.flatnonzero(heads(groups))
        out[groups[first]] = np.bitwise_or.reduceat(values, first)
    return out


def rows_of_pairs(c: Candidates, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of ``rows`` (ascending) and every row of ``c`` (sorted by pair) of theirs,
    ascending (a mask over the pairs: cheaper than np.unique and two searches)."""
    has = np.zeros(int(c.pair[-1]) + 1, dtype=bool)
    has[c.pair[rows]] = True
    return np.flatnonzero(has), np.flatnonzero(has[c.pair])


def find_sorted(table: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each key, where it is (or would go) in the sorted ``table``, clipped to the last
    index, and whether it is there (an empty table: place 0, never there)."""
    if table.size == 0:
        return np.zeros(keys.shape, dtype=np.int64), np.zeros(keys.shape, dtype=bool)
    at = np.minimum(np.searchsorted(table, keys), table.size - 1)
    return at, table[at] == keys


def readings_after(table: np.ndarray, r_key: np.ndarray, t: np.ndarray) -> np.ndarray:
    """How many keys of the sorted ``table`` of ``(pair * 64 + r) * 64 + t`` readings read the
    reference words ``r_key`` (``pair * 64 + r``) from a test word after ``t`` (positions under
    64): does the word occur again later in the test."""
    r_key = r_key.astype(np.int64) * 64
    return np.searchsorted(table, r_key + 63, "right") - np.searchsorted(table, r_key + t, "right")


def expand_ranges(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each i, the indices starts[i] .. starts[i] + sizes[i] - 1: (owner i, index),
    grouped by i."""
    owner = np.repeat(np.arange(sizes.size), sizes)
    # one repeat, not two gathers by owner (it runs on every row of a search step)
    return owner, np.arange(owner.size) + np.repeat(starts - np.cumsum(sizes) + sizes, sizes)


def _keyed(right: np.ndarray) -> tuple[np.ndarray, ...]:
    """``right`` prepared for :func:`_join` (sorted once for several joins)."""
    order = np.argsort(right, kind="stable")
    rs = right[order]
    head = np.flatnonzero(heads(rs))
    return order, head, rs[head], np.diff(head, append=rs.size)


def _join(left: np.ndarray, right: np.ndarray | tuple) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with left[i] == right[j], grouped by i (j ascending within); ``right`` may
    come prepared by :func:`_keyed`."""
    order, head, uniq, size = _keyed(right) if isinstance(right, np.ndarray) else right
    if head.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    # One search per left key, among the distinct right keys.
    at = np.searchsorted(uniq, left)
    at[at == uniq.size] = 0
    n = np.where(uniq[at] == left, size[at], 0)
    li, pos = expand_ranges(head[at], n)
    return li, order[pos]


def candidates_of_pairs(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, seg: np.ndarray, res
) -> Candidates:
    """Candidates of the pairs (hyp[p], ref[p]) (caption indexes into ``tab``).

    ``seg[p]`` is the segment of pair p: the pairs of a segment are consecutive and share
    their hypothesis.  Every caption must have at most :data:`MAX_FAST` tokens.
    """
    one = _one_word(tab, hyp, ref, seg)
    parts = [one, *_paraphrase(tab, hyp, ref, seg, res)]
    pair, ts, tl, rs, rl, stage = (np.concatenate([part[c] for part in parts]) for c in range(6))
    # Each row packed in one integer (positions < 64, lengths < 8, stages < 4): sorting the
    # integers sorts the rows (equal integers are equal rows), which are read back from them.
    key = ((((pair * 64 + ts) * 8 + tl) * 64 + rs) * 8 + rl) * 4 + stage
    key.sort(kind="stable")
    pair, ts = key >> 20, (key >> 14) & 63
    signed = np.where(tab.func, ~tab.tok, tab.tok)  # (per token: ~id for a function word)
    return Candidates(
        pair=pair,
        ts=ts,
        tl=(key >> 11) & 7,
        rs=(key >> 5) & 63,
        rl=(key >> 2) & 7,
        stage=key & 3,
        tw=signed.take(tab.off.take(hyp.take(pair)) + ts),
    )


def _one_word(tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, seg: np.ndarray) -> tuple:
    """Exact, stem and synonym candidates of the pairs, one row per proposal.

    Exact and stem candidates join each segment's test words with the words of its references
    on their stem (equal words have equal stems; the pairs of a segment are consecutive and
    share their hypothesis); synonym candidates come from every (test word, reference word) of
    a pair, among the test words with a synonym in the chunk and the reference words that are
    some word's synonym only.
    """
    off = tab.off
    # every (pair, test word) and (pair, reference word): the word's place in ``tab``
    # (its position in the caption: minus the caption's offset, for the few rows kept)
    h0, r0 = off.take(hyp), off.take(ref)
    pt, ti = expand_ranges(h0, off.take(hyp + 1) - h0)
    pr, rj = expand_ranges(r0, off.take(ref + 1) - r0)
    n_stems = int(tab.stem.max()) + 1 if tab.stem.size else 1
    new_seg = np.r_[True, seg[1:] != seg[:-1]]
    s_hyp = hyp[new_seg]
    sh, si = expand_ranges(np.zeros(s_hyp.size, np.int64), off[s_hyp + 1] - off[s_hyp])
    sti = off[s_hyp][sh] + si
    li, ri = _join(
        sh * n_stems + tab.stem[sti], (np.cumsum(new_seg) - 1)[pr] * n_stems + tab.stem[rj]
    )
    exact = tab.tok[sti[li]] == tab.tok[rj[ri]]
    # Synonyms: a's synonym bit set holds b's bit for every synonym b (most pairs fail there);
    # then the exact check.
    a_all, b_all = tab.tok[ti], tab.tok[rj]
    target = np.zeros(tab.n_types, dtype=bool)
    target[tab.syn_keys % tab.n_types] = True
    # Per caption, the bits of its words that are some word's synonym, and its words' synonym
    # bits: a test word whose synonym bits miss every bit of the reference (or a reference
    # word whose bit no test word's synonym bits hold) has no synonym candidate in the pair.
    bit = np.uint64(1) << _bit_number(tab.tok, _MIX[0])
    ref_bits = _caption_or(tab, np.where(target[tab.tok], bit, np.uint64(0)))
    hyp_bits = _caption_or(tab, tab.partner_bits[tab.tok])
    # != 0: numpy's nonzero is several times faster on bools than on uint64
    ts_ = np.flatnonzero((tab.partner_bits[a_all] & ref_bits[ref][pt]) != 0)
    rs_ = np.flatnonzero(target[b_all] & ((hyp_bits[hyp][pr] & bit[rj]) != 0))
    # each such test word with each such reference word of its pair (by pair, test word,
    # reference word; one expansion, no division)
    ns = np.bincount(pr[rs_], minlength=ref.size)
    own = pt[ts_]
    w, rr = expand_ranges((np.cumsum(ns) - ns)[own], ns[own])
    tt, rr = ts_[w], rs_[rr]
    a, b = a_all[tt], b_all[rr]
    syn = ((tab.partner_bits[a] >> _bit_number(b, _MIX[0])) & np.uint64(1)).astype(bool)
    q = np.flatnonzero(syn)
    # a second filter (two thirds of the pairs passing the first fail it) before the search
    miss = ((tab.partner_bits2[a[q]] >> _bit_number(b[q], _MIX[1])) & np.uint64(1)) == 0
    syn[q.compress(miss)] = False  # compress: faster than boolean indexing on such masks
    q = q.compress(~miss)
    keys = a[q] * tab.n_types + b[q]
    syn[q] = find_sorted(tab.syn_keys, keys)[1]
    syn = np.flatnonzero(syn)
    tt, rr = tt[syn], rr[syn]
    ones = np.ones(li.size + tt.size, np.int64)
    pr_ri, pt_tt = pr[ri], pt[tt]
    return (
        np.r_[pr_ri, pt_tt],
        np.r_[si[li], ti[tt] - h0[pt_tt]],
        ones,
        np.r_[rj[ri] - r0[pr_ri], rj[rr] - r0[pr[rr]]],
        ones,
        np.r_[np.where(exact, EXACT, STEM), np.full(tt.size, SYNONYM, np.int64)],
    )


def _caption_or(tab: CaptionTable, values: np.ndarray) -> np.ndarray:
    """Per caption, the OR of ``values`` (one per token) over its tokens (0 if it has none)."""
    out = np.zeros(tab.off.size - 1, dtype=np.uint64)
    full = np.flatnonzero(np.diff(tab.off))
    if full.size:
        out[full] = np.bitwise_or.reduceat(values, tab.off[full])
    return out


def _phrase_bit(pids: np.ndarray) -> np.ndarray:
    """A pseudo-random bit number (0-255) per phrase id, as int64 (it also indexes)."""
    return _bit_number(pids, _MIX[0], 8).astype(np.int64)


def _paraphrase(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, seg: np.ndarray, res
) -> list[tuple]:
    """Paraphrase candidates of both directions, one row per proposing table entry.

    Driven from the hypothesis, which all pairs of a segment share: each phrase occurring in a
    hypothesis is expanded to its table partners once per segment (not once per reference),
    then joined with the phrases of that segment's references.
    """
    index = res.paraphrases
    if tab.occ_pid.size == 0 or hyp.size == 0:
        return []
    arrays = index.arrays
    n_phr = int(index.hashes.size)
    # Pairs of one segment are consecutive and share their hypothesis.
    first = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    s_hyp = hyp[first]
    s_of_pair = np.cumsum(np.r_[True, seg[1:] != seg[:-1]]) - 1
    pr, ro = expand_ranges(tab.occ_off[ref], tab.occ_off[ref + 1] - tab.occ_off[ref])
    sh, ho = expand_ranges(tab.occ_off[s_hyp], tab.occ_off[s_hyp + 1] - tab.occ_off[s_hyp])
    hp = tab.occ_pid[ho]
    # Only partners occurring in some reference of the chunk can match (a flag per table phrase).
    present = np.zeros(n_phr, dtype=bool)
    present[tab.occ_pid[ro]] = True
    # And only partners that may occur in a reference of the segment: a 256-bit set per segment
    # of its references' phrases (no false negatives; the join below decides).  Held as one
    # flag per (segment, bit number), set by plain assignment: the same sets as 64-bit words
    # or-ed together, without ``np.bitwise_or.at`` (~1 ms a chunk).
    n_seg = first.size
    seg_bits = np.zeros(n_seg * 256, dtype=bool)
    r_flag = s_of_pair[pr] * 256 + _phrase_bit(tab.occ_pid[ro])
    seg_bits[r_flag] = True
    lefts = []
    # An entry (p1, p2) proposes test p1 with reference p2 (the forward partners of a test
    # phrase), and reference p1 with test p2 (its backward partners).
    uniq, which = np.unique(hp, return_inverse=True)
    for side in ("fwd", "bwd"):
        # Partners of each distinct hypothesis phrase, then those of each occurrence.
        indptr, partner = arrays[f"{side}_indptr"], arrays[f"{side}_partner"]
        lo = indptr[uniq]
        uo, ui = expand_ranges(lo, indptr[uniq + 1] - lo)
        q = partner[ui].astype(np.int64)
        ok = np.flatnonzero(present[q])
        uo, q = uo[ok], q[ok]
        u_off = np.searchsorted(uo, np.arange(uniq.size + 1))
        xo, xi = expand_ranges(u_off[which], u_off[which + 1] - u_off[which])
        # each partner's word and bit in the sets, then read per occurrence
        qb = _phrase_bit(q)
        keep = np.flatnonzero(seg_bits[sh[xo] * 256 + qb[xi]])
        xo, xi = xo[keep], xi[keep]
        lefts.append((xo, sh[xo] * n_phr + q[xi], sh[xo] * 256 + qb[xi]))
    # The reference occurrences some left key may meet, by the same kind of sets (of the wanted
    # partners per segment): far fewer to sort for the joins.
    want = np.zeros(n_seg * 256, dtype=bool)
    for _, _, flag in lefts:
        want[flag] = True
    rk = np.flatnonzero(want[r_flag])
    pr, ro = pr[rk], ro[rk]
    right = _keyed(s_of_pair[pr] * n_phr + tab.occ_pid[ro])
    out = []
    for xo, left, _ in lefts:
        li, ri = _join(left, right)
        t, r = ho[xo[li]], ro[ri]
        out.append(
            (
                pr[ri],
                tab.occ_start[t],
                tab.occ_len[t],
                tab.occ_start[r],
                tab.occ_len[r],
                np.full(li.size, PARAPHRASE, np.int64),
            )
        )
    return out
