"""SacreEOS's pure-Python CIDEr-R, ported with its arithmetic intact (the test oracle).

The oracle of ``tests/test_cider_r.py`` and ``benchmarks/bench_variants.py``.
Source: SacreEOS 1.0.2 (``pip install sacreeos``; github.com/jchenghu/sacreeos),
``sacreeos/metric/py_core/py_cider_scorer.py`` (``compute_penalty_by_length``,
``compute_penalty_by_repetition``, ``compute_doc_freq``,
``PyCiderScorer.compute_cider`` for ``MetricClass.CIDEr_R``),
``sacreeos/metric/py_core/ngram_utils.py`` (``precook``) and
``sacreeos/metric/cider_r.py`` (the defaults: n=4, repeat_coeff=0.8,
length_coeff=0.2, alpha=1.0).  Licence: Apache License 2.0, Copyright Jia
Cheng Hu.  SacreEOS credits the CIDEr-R parts to Gabriel Oliveira dos Santos
(github.com/gabrielsantosrv/coco-caption, ``pycocoevalcap/ciderR``, whose
scorer is the same computation with alpha fixed at 1) and the core to
Tsung-Yi Lin and Ramakrishna Vedantam (coco-caption, BSD 2-Clause).

Changes, none of which alter a value:
- nltk's ``RegexpTokenizer(r'\\w+').tokenize`` is ``re.findall`` with the
  flags nltk compiles it with (``re.UNICODE | re.MULTILINE | re.DOTALL``),
  which is what that method runs; so the oracle needs no nltk;
- the repetition penalty, a function of the two sentences alone, is
  computed once per pair instead of once per order (the same value four times);
- df lookups use ``.get`` instead of growing the ``defaultdict``.

SacreEOS itself imports torch only in its training helpers; its metric
modules import without it (``pip install --no-deps sacreeos nltk``), which is
how the tests compare this port with the package when it is installed.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np
from scipy.stats.mstats import gmean

DEFAULTS = {"n": 4, "repeat_coeff": 0.8, "length_coeff": 0.2, "alpha": 1.0}
_WORDS = re.compile(r"\w+", re.UNICODE | re.MULTILINE | re.DOTALL)


def precook(s: str, n: int = 4) -> defaultdict:
    words = s.split()
    counts: defaultdict = defaultdict(int)
    for k in range(1, n + 1):
        for i in range(len(words) - k + 1):
            ngram = tuple(words[i : i + k])
            counts[ngram] += 1
    return counts


def compute_penalty_by_length(candidate_len, reference_len, alpha=1.0):
    delta = abs(reference_len - candidate_len)
    return np.e ** (-(delta**2) / (float(alpha) * float(reference_len) ** 2))


def compute_penalty_by_repetition(candidate_sent, reference_sent, penalty_func):
    word_freq_candidate = Counter(_WORDS.findall(candidate_sent))
    word_freq_reference = Counter(_WORDS.findall(reference_sent))
    scores = []
    for word, freq in word_freq_candidate.items():
        if word_freq_reference.get(word, None) is not None:
            diff = abs(word_freq_reference[word] - freq)
            scores.append(penalty_func(diff))
        else:
            scores.append(penalty_func(freq - 1))
    return gmean(np.array(scores))


def compute_doc_freq(count_refss):
    df: defaultdict = defaultdict(int)
    for refs in count_refss:
        for ngram in set([ngram for ref in refs for (ngram, count) in ref.items()]):
            df[ngram] += 1
    return df


def cider_r(
    tests: list[str],
    refss: list[list[str]],
    *,
    n: int = 4,
    repeat_coeff: float = 0.8,
    length_coeff: float = 0.2,
    alpha: float = 1.0,
    corpus_refss: list[list[str]] | None = None,
) -> tuple[float, np.ndarray]:
    """``CiderR(...).compute(tests, refss)``: the corpus mean and one score per test.

    ``corpus_refss``: the references the document frequencies come from
    (SacreEOS's constructor argument); default: ``refss`` themselves.
    """
    count_tests = [precook(t, n) for t in tests]
    count_refss = [[precook(r, n) for r in refs] for refs in refss]
    if corpus_refss is None:
        corpus_df, corpus_len = compute_doc_freq(count_refss), len(refss)
    else:
        corpus_df = compute_doc_freq([[precook(r, n) for r in refs] for refs in corpus_refss])
        corpus_len = len(corpus_refss)

    def counts2vec(cnts, ref_len):
        vec = [defaultdict(float) for _ in range(n)]
        length = 0
        norm = [0.0 for _ in range(n)]
        for ngram, term_freq in cnts.items():
            df = np.log(max(1.0, corpus_df.get(ngram, 0)))
            k = len(ngram) - 1
            vec[k][ngram] = float(term_freq) * (ref_len - df)
            norm[k] += pow(vec[k][ngram], 2)
            if k == 1:
                length += term_freq
        norm = [np.sqrt(val) for val in norm]
        return vec, norm, length

    def sim(vec_test, sent_test, vec_ref, sent_ref, norm_test, norm_ref, length_test, length_ref):
        val = np.array([0.0 for _ in range(n)])
        rep_penalty = compute_penalty_by_repetition(
            sent_test, sent_ref, penalty_func=lambda x: 1 / (1 + x)
        )
        len_penalty = compute_penalty_by_length(length_test + 1, length_ref + 1, alpha)
        for k in range(n):
            for ngram, _count in vec_test[k].items():
                val[k] += min(vec_test[k][ngram], vec_ref[k][ngram]) * vec_ref[k][ngram]
            if (norm_test[k] != 0) and (norm_ref[k] != 0):
                val[k] /= norm_test[k] * norm_ref[k]
            assert not math.isnan(val[k])
            val[k] *= (rep_penalty**repeat_coeff) * (len_penalty**length_coeff)
        return val

    log_len = np.log(float(corpus_len))
    scores = []
    for c_test, c_refs, s_test, s_refs in zip(count_tests, count_refss, tests, refss, strict=True):
        v_test, norm_test, length = counts2vec(c_test, log_len)
        score = np.array([0.0 for _ in range(n)])
        for c_ref, s_ref in zip(c_refs, s_refs, strict=True):
            v_ref, norm_ref, length_ref = counts2vec(c_ref, log_len)
            score += sim(v_test, s_test, v_ref, s_ref, norm_test, norm_ref, length, length_ref)
        score_avg = np.mean(score)
        score_avg /= len(c_refs)
        score_avg *= 10.0
        scores.append(score_avg)
    return np.mean(np.array(scores)), np.array(scores)
