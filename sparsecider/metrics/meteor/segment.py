"""One segment: a hypothesis against its references -> the 23 statistics.

Each reference is aligned with the hypothesis on its own; the statistics of
the reference with the highest segment score are kept, the first one on a
tie (specification 4.3).
"""

from __future__ import annotations

import numpy as np

from .align import align, chunk_count
from .matchers import EXACT, PARAPHRASE, STEM, SYNONYM
from .resources import Resources
from .splitsq import typed_words
from .stats import N_STATS, WEIGHTS, score_one

__all__ = ["Caption", "SynonymTypes", "alignment_stats", "pair_candidates", "segment_stats"]


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

    __slots__ = ("_index", "function", "n_function", "phrases", "stems", "synsets", "tokens")

    def __init__(self, text: str, res: Resources, phrases: dict | None = None) -> None:
        self.tokens = text.split(" ") if text else []
        fw = res.function_words
        self.function = [t in fw for t in self.tokens]
        self.n_function = sum(self.function)
        self.phrases = phrases
        lex = res.lexicon
        self.stems = lex.stems(self.tokens)
        self.synsets = [lex.synsets(t) for t in self.tokens]
        self._index = None

    def index(self) -> tuple[dict, dict, frozenset]:
        """Positions by token and by stem, and the set of tokens (built once, as a reference)."""
        if self._index is None:
            by_tok: dict[str, list[int]] = {}
            by_stem: dict[str, list[int]] = {}
            for j, (t, st) in enumerate(zip(self.tokens, self.stems, strict=True)):
                by_tok.setdefault(t, []).append(j)
                by_stem.setdefault(st, []).append(j)
            self._index = (by_tok, by_stem, frozenset(by_tok))
        return self._index


class SynonymTypes:
    """For each word, the words of a vocabulary sharing a synset with it (memoised).

    Parameters
    ----------
    vocabulary : iterable of str
        Every token that can occur on the reference side.
    lexicon : Lexicon
    """

    def __init__(self, vocabulary, lexicon) -> None:
        self._lex = lexicon
        by_synset: dict[str, list[str]] = {}
        for w in vocabulary:
            for s in lexicon.synsets(w):
                by_synset.setdefault(s, []).append(w)
        self._by_synset = by_synset
        self._memo: dict[str, frozenset[str]] = {}

    def __call__(self, word: str) -> frozenset[str]:
        out = self._memo.get(word)
        if out is None:
            found: set[str] = set()
            for s in self._lex.synsets(word):
                found.update(self._by_synset.get(s, ()))
            found.discard(word)  # identical words are never synonym candidates
            out = self._memo[word] = frozenset(found)
        return out


def pair_candidates(test: Caption, ref: Caption, partners, synonyms: SynonymTypes) -> dict:
    """Candidates of one pair from precomputed caption features.

    Same result as :func:`~.matchers.candidates` (its slow, plain twin), using
    the reference's position indexes instead of comparing every word pair.
    ``partners(phrase_id)`` gives the phrases the table pairs with it.
    """
    props: dict[tuple[int, int, int, int], list[int]] = {}
    by_tok, by_stem, types = ref.index()
    rtok = ref.tokens
    for i, (w, st) in enumerate(zip(test.tokens, test.stems, strict=True)):
        for j in by_tok.get(w, ()):
            props[i, 1, j, 1] = [EXACT]
        for j in by_stem.get(st, ()):
            if rtok[j] != w:
                props[i, 1, j, 1] = [STEM]
        if test.synsets[i]:
            for b in synonyms(w) & types:
                for j in by_tok[b]:
                    v = props.get((i, 1, j, 1))
                    if v is None:
                        props[i, 1, j, 1] = [SYNONYM]
                    else:
                        v.append(SYNONYM)
    tp, rp = test.phrases, ref.phrases
    if tp and rp:
        # An entry (p1, p2) proposes test p1 with reference p2 and reference p1 with test p2.
        for src, dst, flip in ((tp, rp, False), (rp, tp, True)):
            for p, occ in src.items():
                for q in partners(p):
                    other = dst.get(q)
                    if other is None:
                        continue
                    for a, la in occ:
                        for b, lb in other:
                            key = (b, lb, a, la) if flip else (a, la, b, lb)
                            v = props.get(key)
                            if v is None:
                                props[key] = [PARAPHRASE]
                            else:
                                v.append(PARAPHRASE)
    return props


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


def segment_stats(
    test: Caption, refs: list[Caption], res: Resources, synonyms: SynonymTypes
) -> list[int]:
    """Statistics of the best reference for one hypothesis.

    Parameters
    ----------
    test : Caption
    refs : list of Caption
        At least one.
    res : Resources
    synonyms : SynonymTypes

    Returns
    -------
    list of int
        23 statistics.
    """
    # Bound every reference's score from its candidates alone, then align the most promising
    # first: a reference whose bound is below the best score found cannot be chosen, so it is
    # never aligned.  The result is the same as aligning all of them.
    cands = [pair_candidates(test, ref, res.paraphrases.partners, synonyms) for ref in refs]
    bounds = [_upper_bound(test, ref, p) for ref, p in zip(refs, cands, strict=True)]
    order = sorted(range(len(refs)), key=lambda k: -bounds[k])
    best = None
    best_key = None
    words = typed_words(test.tokens, res.function_words)  # (the per-pair search's rules)
    for k in order:
        if best_key is not None and bounds[k] < best_key[0]:
            break
        s = alignment_stats(test, refs[k], align(cands[k], len(test.tokens), words=words))
        key = (score_one(s), -k)  # highest score, then the earliest reference
        if best_key is None or key > best_key:
            best, best_key = s, key
    return best


def _upper_bound(test: Caption, ref: Caption, props: dict) -> float:
    """A score no alignment of these candidates can exceed (best weights, least fragmentation)."""
    if not props:
        return 0.0
    wt: dict[int, float] = {}
    wr: dict[int, float] = {}
    for (ts, tl, rs, rl), (stage, *_) in props.items():
        w = WEIGHTS[stage]
        for x in range(ts, ts + tl):
            if wt.get(x, 0.0) < w:
                wt[x] = w
        for x in range(rs, rs + rl):
            if wr.get(x, 0.0) < w:
                wr[x] = w
    s = [0.0] * N_STATS
    s[0], s[1], s[2], s[3] = len(test.tokens), len(ref.tokens), test.n_function, ref.n_function
    # Put each word's best weight under the exact column: the score only sees weight * count.
    for words, func, off in ((wt, test.function, 0), (wr, ref.function, 1)):
        for x, w in words.items():
            s[(6 if func[x] else 4) + off] += w
        s[21 + off] = len(words)
    # One chunk over every word that can be matched: the least fragmentation possible (none
    # only if every word of both captions can be matched).
    s[20] = 1
    return score_one(s) * (1 + 1e-9)


def stats_array(rows: list[list[int]]) -> np.ndarray:
    """Rows of statistics as an ``(n, 23)`` int64 array."""
    return np.asarray(rows, dtype=np.int64).reshape(-1, N_STATS)
