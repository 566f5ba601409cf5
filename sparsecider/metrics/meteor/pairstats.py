"""The 23 statistics of many alignments at once (specification 4.1), on arrays."""

from __future__ import annotations

import numpy as np

from .batch import Candidates, CaptionTable, expand_ranges, find_sorted
from .stats import ALPHA, BETA, DELTA, GAMMA, N_STATS, WEIGHTS

__all__ = ["alignment_statistics", "score_bounds", "tight_bounds"]

# The module weights' distinct values, lightest first (0: none), and each stage's code there.
_VALUE = np.array([0.0, *sorted(set(WEIGHTS))])
_CODE = np.searchsorted(_VALUE, WEIGHTS).astype(np.uint8)
# A covered word's kind, 2 * code + function word, its weight in the fmean, and the kinds'
# places heaviest first (stable: equal weights keep one order).
_KIND_WEIGHT = (_VALUE[:, None] * np.array([DELTA, 1.0 - DELTA])).ravel()
_KINDS = _KIND_WEIGHT.size
_PLACE = np.argsort(np.argsort(-_KIND_WEIGHT, kind="stable"), kind="stable")
_HEAVIEST = _KIND_WEIGHT[np.argsort(-_KIND_WEIGHT, kind="stable")]


def alignment_statistics(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, chosen: np.ndarray
) -> np.ndarray:
    """Statistics of the pairs (hyp[p], ref[p]) aligned with candidates ``chosen``.

    Parameters
    ----------
    tab : CaptionTable
    hyp, ref : ndarray of int
        Caption indexes of each pair.
    c : Candidates
    chosen : ndarray of int
        Indexes into ``c``, grouped by pair in test order (:func:`~.beam.align_pairs`).

    Returns
    -------
    ndarray of shape (n_pairs, 23), int64
    """
    n = hyp.size
    off = tab.off
    func_before = tab.func_before
    n_func = func_before[off[1:]] - func_before[off[:-1]]
    s = np.zeros((n, N_STATS), dtype=np.int64)
    s[:, 0], s[:, 1] = off[hyp + 1] - off[hyp], off[ref + 1] - off[ref]
    s[:, 2], s[:, 3] = n_func[hyp], n_func[ref]
    if chosen.size == 0:
        return s
    p, stage = c.pair.take(chosen), c.stage.take(chosen)
    ts, tl, rs, rl = c.ts.take(chosen), c.tl.take(chosen), c.rs.take(chosen), c.rl.take(chosen)
    cells = []
    col = p * N_STATS + 4 + 4 * stage  # each row's cell of its stage (+ side, + 2 * function)
    for start, length, cap, side in ((ts, tl, hyp, 0), (rs, rl, ref, 1)):
        at = off.take(cap.take(p)) + start  # each row's first word in ``tab``
        cells.append(col + (side + 2 * tab.func.take(at)))  # every row's first word
        # the words after the first, of the few rows longer than one
        m = np.flatnonzero(length > 1)  # indexes: boolean indexing is slower
        for d in range(1, int(length.max(initial=1))):
            m = m.compress(length.take(m) > d)
            cells.append(col.take(m) + (side + 2 * tab.func.take(at.take(m) + d)))
    flat = np.bincount(np.concatenate(cells), minlength=n * N_STATS)
    s += flat[: n * N_STATS].reshape(n, N_STATS)
    s[:, 21] = np.bincount(p, weights=tl, minlength=n).astype(np.int64)
    s[:, 22] = np.bincount(p, weights=rl, minlength=n).astype(np.int64)
    new = np.ones(p.size, dtype=bool)
    new[1:] = (p[1:] != p[:-1]) | (ts[1:] != (ts + tl)[:-1]) | (rs[1:] != (rs + rl)[:-1])
    s[:, 20] = np.bincount(p.compress(new), minlength=n)
    return s


def _best_ratios(
    cells: tuple, stage: np.ndarray, shape: tuple, first, length, tab, func_before
) -> tuple[np.ndarray, np.ndarray]:
    """Per pair and M, the largest share of one side's weighted length that M matched words can
    cover: the M heaviest coverable words (best module weight, function words weighted by delta)
    over the side's weighted length, for M up to the most coverable words of any pair (at
    least 1); and each pair's coverable words.

    ``cells``: (first cell, cells or None for one) of each candidate on the side, a pair's
    row of ``shape`` (pairs, width) holding its words; ``func_before``: function words
    before each token of ``tab``."""
    n, width = shape
    best = _covered(*cells, n * width, stage)
    cell = np.flatnonzero(best != 0)  # on bools: numpy's nonzero is several times faster
    row, pos = np.divmod(cell, width)
    kind = 2 * best[cell] + tab.func[first[row] + pos]
    # the words' weights, heaviest first in each row: a few distinct values, so counted
    # (row-major, heaviest first) and laid out, then their running sums
    per = np.bincount(row * _KINDS + _PLACE[kind], minlength=n * _KINDS)
    cover = per.reshape(n, _KINDS).sum(axis=1)
    at = np.arange(cell.size) - np.repeat(np.cumsum(cover) - cover, cover)
    most = max(1, int(cover.max()))
    weight = np.zeros((n, most))
    # flat places: one index array, cheaper than a (row, column) pair
    weight.ravel()[np.repeat(np.arange(0, n * most, most), cover) + at] = np.repeat(
        np.tile(_HEAVIEST, n), per
    )
    n_func = func_before[first + length] - func_before[first]
    den = DELTA * (length - n_func) + (1.0 - DELTA) * n_func
    return np.cumsum(weight, axis=1) / den[:, None], cover


def _covered(start: np.ndarray, length, n: int, stage: np.ndarray) -> np.ndarray:
    """Per cell (``start`` numbers cells, ``length`` cells from it; None: one), the code of
    the heaviest module covering it (codes 1, 2, ... by weight; 0: none), in ``n`` cells."""
    best = np.zeros(n, dtype=np.uint8)
    code = _CODE[stage]
    np.maximum.at(best, start, code)
    if length is not None:
        # the cells after the first, of the few candidates longer than one
        longer = np.flatnonzero(length > 1)
        owner, cell = expand_ranges(start[longer] + 1, length[longer] - 1)
        np.maximum.at(best, cell, code[longer[owner]])
    return best


def score_bounds(tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates) -> np.ndarray:
    """Per pair, a segment score no alignment of its candidates can exceed.

    Every word that some candidate covers counted as matched with its best candidate's weight,
    in one chunk; a pair whose bound is below a score already
    found for its segment cannot be the segment's reference, so it need not be aligned.
    """
    n = hyp.size
    out = np.zeros(n, dtype=np.float64)
    if c.pair.size == 0:
        return out
    off = tab.off
    func_before = tab.func_before
    ratio, matched = [], []
    for start, length, cap in ((c.ts, c.tl, hyp), (c.rs, c.rl, ref)):
        best = _covered(c.pair * 64 + start, length, n * 64, c.stage)
        cell = np.flatnonzero(best != 0)  # on bools: several times faster
        p = cell >> 6  # shifts, not // and %: numpy's int64 division is slow
        f = tab.func[off[cap][p] + (cell & 63)]
        # a function word weighs 1 - delta, another delta (specification 4.1)
        num = np.bincount(
            p, weights=_VALUE[best[cell]] * np.where(f, 1.0 - DELTA, DELTA), minlength=n
        )
        size, n_func = off[cap + 1] - off[cap], func_before[off[cap + 1]] - func_before[off[cap]]
        ratio.append(num / np.maximum(DELTA * (size - n_func) + (1.0 - DELTA) * n_func, 1e-300))
        matched.append(np.bincount(p, minlength=n))
    # One chunk over every word that can be matched: the least fragmentation possible (none
    # only if every word of both captions can be matched).  numpy's power may differ from
    # the statistics' in the last bit: the margin covers it.
    live = np.flatnonzero((ratio[0] > 0) & (ratio[1] > 0))
    p, r = ratio[0][live], ratio[1][live]
    mt, mr = matched[0][live], matched[1][live]
    frag = 2.0 / (mt + mr)
    whole = (mt == (off[hyp + 1] - off[hyp])[live]) & (mr == (off[ref + 1] - off[ref])[live])
    frag[whole] = 0.0
    out[live] = (1.0 - GAMMA * frag**BETA) / (ALPHA / r + (1.0 - ALPHA) / p)
    return out * (1 + 1e-9)


def _rows_of(c: Candidates, which: np.ndarray) -> tuple:
    """The candidate rows ``k`` of the pairs ``which`` (sorted), each row's place in ``which``,
    and per pair whether it has a candidate longer than one word, and any candidate."""
    # c is sorted by pair: each pair's rows are one range
    lo = np.searchsorted(c.pair, which)
    slot, k = expand_ranges(lo, np.searchsorted(c.pair, which, side="right") - lo)
    multi = np.zeros(which.size, dtype=bool)
    multi[slot[(c.tl[k] > 1) | (c.rl[k] > 1)]] = True
    has = np.zeros(which.size, dtype=bool)
    has[slot] = True
    return slot, k, multi, has


def tight_bounds(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, which: np.ndarray
) -> np.ndarray:
    """Per pair of ``which``, a segment score no alignment of its candidates can exceed,
    tighter (and dearer) than :func:`score_bounds`.

    :func:`_one_word_bounds` for pairs whose candidates all match one word with one word,
    :func:`_multi_word_bounds` for the others with candidates; their pairs' candidate rows are
    found once.

    Parameters
    ----------
    tab : CaptionTable
        The captions.
    hyp, ref : ndarray of int
        Per pair (all pairs, not only ``which``), its test and reference caption in ``tab``.
    c : Candidates
        The candidate matches of all pairs, sorted by pair.
    which : ndarray of int
        The pairs to bound, sorted.

    Returns
    -------
    ndarray of float64
        One bound per pair of ``which``, in its order; infinity (no bound) for a pair without
        candidates.
    """
    rows = _rows_of(c, which)
    return np.minimum(
        _one_word_bounds(tab, hyp, ref, c, which, rows),
        _multi_word_bounds(tab, hyp, ref, c, which, rows),
    )


def _pairs_of(
    tab: CaptionTable, hyp, ref, c: Candidates, which: np.ndarray, rows, *, multi_word: bool
) -> tuple | None:
    """The pairs of ``which`` (sorted) that have a candidate longer than one word on some side
    (``multi_word``) or that have candidates and none such: their candidate rows ``k``, each
    row's slot among them, their places in ``which``, the pairs, their two caption lengths and
    the longest caption (None when no pair qualifies); ``rows``: :func:`_rows_of`."""
    slot, k, multi, has = rows
    mine = (multi == multi_word) & has
    live = np.flatnonzero(mine)
    if live.size == 0:
        return None
    keep = np.flatnonzero(mine[slot])
    k, slot = k[keep], (np.cumsum(mine) - 1)[slot[keep]]
    pairs = which[live]
    off = tab.off
    lens = (off[hyp[pairs] + 1] - off[hyp[pairs]], off[ref[pairs] + 1] - off[ref[pairs]])
    width = int(max(lens[0].max(), lens[1].max()))
    return k, slot, live, pairs, lens, width


def _one_word_bounds(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, which, rows: tuple
) -> np.ndarray:
    """Tighter bounds than :func:`score_bounds` for the pairs ``which`` (sorted) whose
    candidates all match one word with one word (others: infinity).

    An alignment of M such matches has M matched words on each side, each weighing at most its
    best candidate's weight (so a side's weighted matches are at most its M heaviest coverable
    words), M at most the coverable words of either side, and at least M - D chunks: D is the
    fewer of the test and of the reference positions i where candidates (i, j) and
    (i + 1, j + 1) both exist (only there can two matches join one chunk).  The bound is the
    best over M of the score with those values; no fragmentation only when M is both lengths.
    """
    out = np.full(which.size, np.inf)
    got = _pairs_of(tab, hyp, ref, c, which, rows, multi_word=False)
    if got is None:
        return out
    k, slot, live, pairs, lens, width = got
    off = tab.off
    func_before = tab.func_before
    ratios, masks, cover = [], [], []
    for start, other, first, length in (
        (c.ts[k], c.rs[k], off[hyp[pairs]], lens[0]),
        (c.rs[k], c.ts[k], off[ref[pairs]], lens[1]),
    ):
        cell = slot * width + start
        ratio, n_cover = _best_ratios(
            (cell, None), c.stage[k], (live.size, width), first, length, tab, func_before
        )
        ratios.append(ratio)
        cover.append(n_cover)
        # 64-bit rows: per position, the positions of the other side it has a candidate with
        mask = np.zeros(live.size * width, dtype=np.uint64)
        np.bitwise_or.at(mask, cell, np.uint64(1) << other.astype(np.uint64))
        mask = mask.reshape(live.size, width)
        masks.append(np.count_nonzero(mask[:, :-1] & (mask[:, 1:] >> np.uint64(1)), axis=1))
    links = np.minimum(masks[0], masks[1])
    most = np.minimum(cover[0], cover[1])
    # M beyond a pair's coverable words scores 0: the grid stops at the most any pair has
    wm = max(1, int(most.max()))
    matches = np.arange(1, wm + 1, dtype=np.float64)
    chunks = np.maximum(1.0, matches - links[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        fmean = 1.0 / (ALPHA / ratios[1][:, :wm] + (1.0 - ALPHA) / ratios[0][:, :wm])
    pen = GAMMA * (chunks / matches) ** BETA
    pen[(matches == lens[0][:, None]) & (matches == lens[1][:, None])] = 0.0
    val = np.where(matches <= most[:, None], (1.0 - pen) * np.nan_to_num(fmean), 0.0)
    out[live] = val.max(axis=1) * (1 + 1e-9)
    return out


def _multi_word_bounds(
    tab: CaptionTable, hyp: np.ndarray, ref: np.ndarray, c: Candidates, which, rows: tuple
) -> np.ndarray:
    """Tighter bounds than :func:`score_bounds` for the pairs ``which`` (sorted) with a
    candidate longer than one word on some side (others: infinity).

    An alignment matching Mt test and Mr reference words weighs at most the Mt (Mr) heaviest
    coverable words of a side, and has at least max(1, Mt - Gt, Mr - Gr) chunks: Gt is the
    number of test boundaries (i, i + 1) that a chunk can run across, namely inside one
    candidate, or where one candidate ends and another starts right after it on both sides
    (Gr likewise).  The bound is the best over (Mt, Mr) of the score with those values.
    """
    out = np.full(which.size, np.inf)
    got = _pairs_of(tab, hyp, ref, c, which, rows, multi_word=True)
    if got is None:
        return out
    k, slot, live, pairs, lens, width = got
    off = tab.off
    ts, tl, rs, rl = c.ts[k], c.tl[k], c.rs[k], c.rl[k]
    # candidates followed, on both sides at once, by another candidate of the pair
    span = width + 1
    starts = np.sort(((slot * span) + ts) * span + rs)
    after = ((slot * span) + ts + tl) * span + rs + rl
    joined = find_sorted(starts, after)[1]
    func_before = tab.func_before
    ratios, cover, glue = [], [], []
    for start, length, first, n in (
        (ts, tl, off[hyp[pairs]], lens[0]),
        (rs, rl, off[ref[pairs]], lens[1]),
    ):
        cell = slot * width + start
        shape = (live.size, width)
        ratio, n_cover = _best_ratios((cell, length), c.stage[k], shape, first, n, tab, func_before)
        ratios.append(ratio)
        cover.append(n_cover)
        glued = np.zeros(live.size * width, dtype=bool)  # boundary after the position
        glued[(cell + length - 1).compress(joined)] = True
        glued[expand_ranges(cell, length - 1)[1]] = True  # inside a candidate
        glue.append(np.count_nonzero(glued.reshape(live.size, width), axis=1))
    # penalty by (chunks, Mt + Mr), looked up instead of a power per grid cell
    c_, s_ = np.arange(width + 1.0)[:, None], np.arange(2 * width + 1.0)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = GAMMA * (2.0 * c_ / s_) ** BETA
    # pairs in blocks of similar coverable counts: the grid of a block is (Mt, Mr) up to them
    order = np.argsort(np.maximum(cover[0], cover[1]), kind="stable")
    for a in range(0, order.size, 128):
        b = order[a : a + 128]
        nt, nr = int(cover[0][b].max()), int(cover[1][b].max())
        mt, mr = np.arange(1, nt + 1)[:, None], np.arange(1, nr + 1)[None, :]
        p, r = ratios[0][b, :nt][:, :, None], ratios[1][b, :nr][:, None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            fmean = 1.0 / (ALPHA / r + (1.0 - ALPHA) / p)
        chunks = np.maximum(
            np.maximum(1, mt - glue[0][b][:, None, None]), mr - glue[1][b][:, None, None]
        )
        pen = penalty[chunks, mt + mr]
        pen[(mt == lens[0][b][:, None, None]) & (mr == lens[1][b][:, None, None])] = 0.0
        ok = (mt <= cover[0][b][:, None, None]) & (mr <= cover[1][b][:, None, None])
        val = np.where(ok, (1.0 - pen) * fmean, 0.0)
        out[live[b]] = val.reshape(b.size, -1).max(axis=1) * (1 + 1e-9)
    return out
