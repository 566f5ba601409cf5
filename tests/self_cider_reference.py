"""The Self-CIDEr authors' evaluation code, ported to Python 3 with its arithmetic intact.

The oracle of ``tests/test_self_cider.py`` and ``benchmarks/bench_variants.py``.
Sources (read with git from the public repositories):

- ruotianluo/cider, branch ``self_cider``, commit e9b736d ("Add self cider"),
  ``pyciderevalcap/cider/cider_scorer.py``: ``precook``, ``CiderScorer.counts2vec``,
  ``sim`` (plain CIDEr: the per-order cosine, no clipping, no length penalty),
  ``compute_doc_freq`` and ``my_get_self_cider``; ``pyciderevalcap/cider/cider.py``:
  ``Cider.my_self_cider``.  Licence: BSD 2-Clause, Copyright (c) 2015 Xinlei
  Chen, Hao Fang, Tsung-Yi Lin and Ramakrishna Vedantam (``license.txt``).
- ruotianluo/self-critical.pytorch (the submodule ``cider`` pins the commit
  above), ``captioning/utils/eval_multi.py``: ``eval_self_cider``, which counts
  the document frequencies over the references of every image of the dataset
  (COCO: ``captions_val2014.json``), sets ``ref_len = log(number of images)``,
  and computes ``get_div(np.linalg.eigvalsh(K / 10))`` per image.  Licence:
  MIT, Copyright (c) 2019 Ruotian Luo.

Kept: every operation in its order (dict insertion order of the n-grams, the
``defaultdict`` lookups, ``np.mean`` over orders, ``* 10`` then ``/ 10``,
``np.clip`` at 0, natural logarithms divided by ``log(m)``).  Left out: the
file and PTB-tokenizer plumbing (callers pass tokenized captions, as the
scorer receives them), and the growth of the df dict on lookups (which
changes no value).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np


def precook(s: str, n: int = 4) -> defaultdict:
    words = s.split()
    counts: defaultdict = defaultdict(int)
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            ngram = tuple(words[i : i + k])
            counts[ngram] += 1
    return counts


class SelfCiderScorer:
    """``CiderScorer`` with the document frequencies of ``reference_sets``
    (one document per image), as ``eval_self_cider`` prepares it."""

    def __init__(self, reference_sets: list[list[str]], n: int = 4) -> None:
        self.n = n
        self.document_frequency: defaultdict = defaultdict(float)
        crefs = [[precook(ref, n) for ref in refs] for refs in reference_sets]
        for refs in crefs:  # compute_doc_freq
            for ngram in set([ngram for ref in refs for (ngram, count) in ref.items()]):
                self.document_frequency[ngram] += 1
        self.ref_len = np.log(float(len(crefs)))

    def counts2vec(self, cnts):
        vec = [defaultdict(float) for _ in range(self.n)]
        length = 0
        norm = [0.0 for _ in range(self.n)]
        for ngram, term_freq in cnts.items():
            # give word count 1 if it doesn't appear in reference corpus
            df = np.log(max(1.0, self.document_frequency.get(ngram, 0.0)))
            n = len(ngram) - 1
            vec[n][ngram] = float(term_freq) * (self.ref_len - df)
            norm[n] += pow(vec[n][ngram], 2)
            if n == 1:
                length += term_freq
        norm = [np.sqrt(n) for n in norm]
        return vec, norm, length

    def sim(self, vec_hyp, vec_ref, norm_hyp, norm_ref, length_hyp, length_ref):
        val = np.array([0.0 for _ in range(self.n)])
        for n in range(self.n):
            for ngram, _count in vec_hyp[n].items():
                val[n] += vec_hyp[n][ngram] * vec_ref[n][ngram]
            if (norm_hyp[n] != 0) and (norm_ref[n] != 0):
                val[n] /= norm_hyp[n] * norm_ref[n]
            assert not math.isnan(val[n])
        return val

    def my_get_self_cider(self, res: list[str]) -> np.ndarray:
        ctest = [self.counts2vec(precook(_, self.n)) for _ in res]
        scores = np.zeros((len(res), len(res), self.n))
        for tid, test in enumerate(ctest):
            vec, norm, length = test
            for rid, ref in enumerate(ctest):
                vec_ref, norm_ref, length_ref = ref
                scores[tid, rid] += self.sim(vec, vec_ref, norm, norm_ref, length, length_ref)
        scores = np.mean(scores, -1)
        scores *= 10.0
        return scores


def get_div(eigvals: np.ndarray) -> float:
    """``eval_self_cider``'s diversity of one set, from ``eigvalsh(K / 10)``."""
    eigvals = np.clip(eigvals, 0, None)
    return -np.log(np.sqrt(eigvals[-1]) / (np.sqrt(eigvals).sum())) / np.log(len(eigvals))


def self_cider(scorer: SelfCiderScorer, candidate_sets: list[list[str]]):
    """``(mean, per-set diversities, per-set kernels)`` as ``eval_self_cider``
    returns them (``self_cider``, ``imgToEval[...]['self_cider']`` and
    ``['self_cider_mat']``).  Sets of one caption give nan (0 / 0), with
    numpy's warnings silenced here."""
    kernels = [scorer.my_get_self_cider(s) for s in candidate_sets]
    with np.errstate(divide="ignore", invalid="ignore"):
        divs = [get_div(np.linalg.eigvalsh(k / 10)) for k in kernels]
    return float(np.mean(np.array(divs))), divs, kernels
