"""A slow, line-by-line, dict-based twin of tests/SPEC.md, sections 1 and 2 (and, at the
end, of the "char" tokenizer's rule, one character at a time).

Written from the specification, not from sparsecider's code: every n-gram is
a tuple, every vector a dict.  The property tests compare the fast sparse
path with it on random corpora.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter


def _ngrams(caption: str, n: int) -> Counter:
    words = caption.split()
    counts: Counter = Counter()
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            counts[tuple(words[i : i + k])] += 1
    return counts


def twin_scores(
    candidates: list[list[str]],
    references: list[list[str]],
    *,
    n: int = 4,
    sigma: float | None = 6.0,
    scale: float = 10.0,
) -> list[float]:
    """Scores of every candidate (image after image), CIDEr-D or (sigma=None) CIDEr."""
    ref_counts = [[_ngrams(r, n) for r in refs] for refs in references]
    # df: number of images with the n-gram in at least one reference
    df: Counter = Counter()
    for refs in ref_counts:
        seen = set()
        for counts in refs:
            seen.update(counts)
        for g in seen:
            df[g] += 1
    log_n = math.log(len(references))

    def vectors(caption: str):
        counts = _ngrams(caption, n)
        vec = [dict() for _ in range(n)]
        for g, tf in counts.items():
            vec[len(g) - 1][g] = tf * (log_n - math.log(max(1.0, df[g])))
        norms = [math.sqrt(sum(v * v for v in order.values())) for order in vec]
        # the reference's length is the number of bigram occurrences among the
        # cooked n-grams (words - 1): with n honoured and n = 1 there are none, so
        # every length is 0 (checked against pycocoevalcap in test_hardening)
        length = max(len(caption.split()) - 1, 0) if n >= 2 else 0
        return vec, norms, length

    scores = []
    for cands, refs in zip(candidates, references, strict=True):
        ref_vectors = [vectors(r) for r in refs]
        for cand in cands:
            c_vec, c_norm, c_len = vectors(cand)
            total = [0.0] * n
            for r_vec, r_norm, r_len in ref_vectors:
                for k in range(n):
                    val = 0.0
                    for g, c_val in c_vec[k].items():
                        r_val = r_vec[k].get(g, 0.0)
                        val += (min(c_val, r_val) if sigma is not None else c_val) * r_val
                    if c_norm[k] != 0 and r_norm[k] != 0:
                        val /= c_norm[k] * r_norm[k]
                    if sigma is not None:
                        val *= math.exp(-((c_len - r_len) ** 2) / (2 * sigma**2))
                    total[k] += val
            scores.append(sum(total) / n / len(refs) * scale)
    return scores


def is_cjk(ch: str) -> bool:
    name = unicodedata.name(ch, "")
    return name.startswith(("CJK ", "HIRAGANA", "KATAKANA", "HANGUL", "BOPOMOFO", "KANGXI",
                            "IDEOGRAPHIC", "HALFWIDTH KATAKANA", "HALFWIDTH HANGUL"))  # fmt: skip


def char_twin(caption: str) -> str:
    """The "char" rule, one character at a time: CJK characters, punctuation and
    symbols alone; runs of anything else (letters, digits, marks) together."""
    tokens, run = [], ""
    for ch in caption:
        alone = unicodedata.category(ch)[0] in "PS" or is_cjk(ch)
        if ch.isspace() or alone:
            tokens.append(run)
            run = ""
            if alone:
                tokens.append(ch)
        else:
            run += ch
    tokens.append(run)
    return " ".join(t for t in tokens if t)
