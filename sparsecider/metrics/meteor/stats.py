"""The 23 METEOR statistics -> segment and corpus scores (specification, section 4).

Pure functions over integer arrays.  The order of the floating-point
operations is the one the specification pins down: the scores equal the
jar's bit for bit.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ALPHA",
    "BETA",
    "DELTA",
    "GAMMA",
    "N_STATS",
    "WEIGHTS",
    "corpus_score",
    "score_one",
    "segment_scores",
    "summed",
]

ALPHA, BETA, GAMMA, DELTA = 0.85, 0.2, 0.6, 0.75
#: Module weights, in stage order: exact, stem, synonym, paraphrase.
WEIGHTS = (1.0, 0.6, 0.8, 0.6)
N_STATS = 23
# Column layout of a statistics row (specification 4.1).
TEST_LEN, REF_LEN, TEST_FUNC, REF_FUNC = 0, 1, 2, 3
CHUNKS, TEST_MATCHED, REF_MATCHED = 20, 21, 22


def _side(s: tuple[int, ...] | np.ndarray, off: int) -> float:
    # (W*d)*count accumulated content first, then function; the jar's order.
    num = 0.0
    for k in range(4):
        num += WEIGHTS[k] * DELTA * s[4 + 4 * k + off]
    for k in range(4):
        num += WEIGHTS[k] * (1.0 - DELTA) * s[6 + 4 * k + off]
    length, func = s[TEST_LEN + off], s[TEST_FUNC + off]
    den = DELTA * (length - func) + (1.0 - DELTA) * func
    return num / den


def score_one(s: tuple[float, ...] | np.ndarray) -> float:
    """The score of one statistics row (segment, or corpus sums).

    Parameters
    ----------
    s : sequence of 23 numbers
        One statistics row (specification 4.1); counts or their sums.

    Returns
    -------
    float
        The METEOR score, 0.0 when nothing matched.
    """
    s = [float(x) for x in s]
    if s[TEST_MATCHED] + s[REF_MATCHED] == 0:
        return 0.0
    p = _side(s, 0)
    r = _side(s, 1)
    if p == 0 or r == 0:
        return 0.0
    fmean = 1.0 / (ALPHA / r + (1.0 - ALPHA) / p)
    if full_one_chunk(s):
        frag = 0.0
    else:
        frag = s[CHUNKS] / ((s[TEST_MATCHED] + s[REF_MATCHED]) / 2)
    pen = GAMMA * frag**BETA
    return (1.0 - pen) * fmean


def full_one_chunk(s) -> bool:
    """Both sides wholly matched in one chunk (the fragmentation is then 0)."""
    return s[TEST_MATCHED] == s[TEST_LEN] and s[REF_MATCHED] == s[REF_LEN] and s[CHUNKS] == 1


def segment_scores(stats: np.ndarray) -> np.ndarray:
    """Segment scores of an ``(n_segments, 23)`` statistics array.

    The same operations as :func:`score_one`, in the same order, on whole columns (IEEE
    double arithmetic is element-wise, so each score is :func:`score_one`'s to the last bit);
    the one power goes through Python's ``float.__pow__``, as :func:`score_one` does, since
    numpy's vectorised ``power`` may round differently.

    Parameters
    ----------
    stats : ndarray of shape (n_segments, 23), integer
        Per-segment statistics.

    Returns
    -------
    ndarray of shape (n_segments,), float64
    """
    s = np.asarray(stats).reshape(-1, N_STATS).astype(np.float64)
    out = np.zeros(s.shape[0], dtype=np.float64)
    live = np.flatnonzero(s[:, TEST_MATCHED] + s[:, REF_MATCHED] != 0)
    if live.size == 0:
        return out
    s = s[live]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = _side_cols(s, 0)
        r = _side_cols(s, 1)
        ok = (p != 0) & (r != 0)
        fmean = 1.0 / (ALPHA / r + (1.0 - ALPHA) / p)
        frag = s[:, CHUNKS] / ((s[:, TEST_MATCHED] + s[:, REF_MATCHED]) / 2)
    whole = (
        (s[:, TEST_MATCHED] == s[:, TEST_LEN])
        & (s[:, REF_MATCHED] == s[:, REF_LEN])
        & (s[:, CHUNKS] == 1)
    )
    frag[whole] = 0.0
    frag = np.array([f**BETA for f in frag.tolist()], dtype=np.float64)
    pen = GAMMA * frag
    out[live] = np.where(ok, (1.0 - pen) * fmean, 0.0)
    return out


def _side_cols(s: np.ndarray, off: int) -> np.ndarray:
    num = np.zeros(s.shape[0], dtype=np.float64)
    for k in range(4):
        num += WEIGHTS[k] * DELTA * s[:, 4 + 4 * k + off]
    for k in range(4):
        num += WEIGHTS[k] * (1.0 - DELTA) * s[:, 6 + 4 * k + off]
    length, func = s[:, TEST_LEN + off], s[:, TEST_FUNC + off]
    den = DELTA * (length - func) + (1.0 - DELTA) * func
    return num / den


def summed(stats: np.ndarray) -> np.ndarray:
    """Column sums as the jar aggregates them for the corpus score.

    A segment wholly matched in one chunk adds 0 chunks (specification 4.4).
    The sums are exact integers, so partial sums from several processes can be
    added in any order.

    Parameters
    ----------
    stats : ndarray of shape (n_segments, 23), integer

    Returns
    -------
    ndarray of shape (23,), int64
    """
    stats = np.asarray(stats, dtype=np.int64).reshape(-1, N_STATS)
    one = (
        (stats[:, TEST_MATCHED] == stats[:, TEST_LEN])
        & (stats[:, REF_MATCHED] == stats[:, REF_LEN])
        & (stats[:, CHUNKS] == 1)
    )
    total = stats.sum(axis=0)
    total[CHUNKS] -= int(one.sum())
    return total


def corpus_score(totals: np.ndarray) -> float:
    """The corpus score from summed statistics (see :func:`summed`).

    Parameters
    ----------
    totals : ndarray of shape (23,)

    Returns
    -------
    float
    """
    return score_one(np.asarray(totals).reshape(N_STATS))
