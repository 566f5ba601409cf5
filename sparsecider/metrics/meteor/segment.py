"""One segment: a hypothesis against its references -> the 23 statistics.

Each reference is aligned with the hypothesis on its own; the statistics of
the reference with the highest segment score are kept, the first one on a
tie (specification 4.3).
"""

from __future__ import annotations

import numpy as np

from .align import align, chunk_count
from .matchers import candidates
from .resources import Resources
from .stats import N_STATS, score_one

__all__ = ["Caption", "alignment_stats", "segment_stats"]


class Caption:
    """A normalised caption with what matching needs, computed once.

    Parameters
    ----------
    text : str
        The normalised text (tokens separated by single spaces).
    res : Resources
    phrases : dict, optional
        Paraphrase-table phrases occurring in it (phrase id -> [(start, length)]).
    """

    __slots__ = ("tokens", "function", "n_function", "phrases")

    def __init__(self, text: str, res: Resources, phrases: dict | None = None) -> None:
        self.tokens = text.split(" ") if text else []
        fw = res.function_words
        self.function = [t in fw for t in self.tokens]
        self.n_function = sum(self.function)
        self.phrases = phrases


def alignment_stats(test: Caption, ref: Caption, matches: list) -> list[int]:
    """The 23 statistics of one alignment (specification 4.1)."""
    s = [0] * N_STATS
    s[0], s[1] = len(test.tokens), len(ref.tokens)
    s[2], s[3] = test.n_function, ref.n_function
    ft, fr = test.function, ref.function
    for ts, tl, rs, rl, stage in matches:
        base = 4 + 4 * stage
        for i in range(ts, ts + tl):
            s[base + 2 * ft[i]] += 1
        for j in range(rs, rs + rl):
            s[base + 1 + 2 * fr[j]] += 1
        s[21] += tl
        s[22] += rl
    s[20] = chunk_count(matches)
    return s


def segment_stats(test: Caption, refs: list[Caption], res: Resources) -> list[int]:
    """Statistics of the best reference for one hypothesis.

    Parameters
    ----------
    test : Caption
    refs : list of Caption
        At least one.
    res : Resources

    Returns
    -------
    list of int
        23 statistics.
    """
    best = None
    best_score = -1.0
    for ref in refs:
        props = candidates(
            test.tokens, ref.tokens, res.lexicon, res.paraphrases, test.phrases, ref.phrases
        )
        s = alignment_stats(test, ref, align(props, len(test.tokens)))
        score = score_one(s)
        if score > best_score:  # strictly: a tie keeps the earlier reference
            best, best_score = s, score
    return best


def stats_array(rows: list[list[int]]) -> np.ndarray:
    """Rows of statistics as an ``(n, 23)`` int64 array."""
    return np.asarray(rows, dtype=np.int64).reshape(-1, N_STATS)
