"""Issue 35: no silent number, third round (token ids as text, token lists as captions,
partial results, merged states, long captions), and errors a user can act on.

Each test pins the message of the error (or the number) that replaced a
plausible wrong number or an unactionable failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sparsecider
from sparsecider import RewardScorer

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """A snippet in a fresh interpreter with 4 GiB of address space at most."""
    head = (
        "import resource, warnings\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "warnings.simplefilter('ignore')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", head + code], capture_output=True, text=True, timeout=timeout,
        env=env,
    )  # fmt: skip


# ---- 2. the reward scorer's memory is linear in the tokens ------------------------------

_LONG_BATCH = """
import tracemalloc
import numpy as np
import sparsecider
rng = np.random.default_rng(0)
words = ["w%d" % i for i in range(50)]
refs = [[" ".join(rng.choice(words, 10)) for _ in range(5)] for _ in range(300)]
cands = [" ".join(rng.choice(words, 9)) for _ in range(300)]
long = " ".join(rng.choice(words, 400_000))
{make}
short = score(cands[:299], np.arange(299))
tracemalloc.start()
got = score(cands[:299] + [long], np.arange(300))
peak = tracemalloc.get_traced_memory()[1]
print(bool((got[:299] == short).all()), got[299], peak // 2**20)
"""

_MAKERS = {
    "RewardScorer.from_texts": (
        "scorer = sparsecider.RewardScorer.from_texts(refs, df='corpus')\n"
        "def score(c, images): return scorer(c, images).scores\n"
    ),
    "compat.CiderD": (
        "from sparsecider.compat import CiderD\n"
        "df = sparsecider.DocumentFrequencies.from_references(refs, tokenizer='whitespace')\n"
        "scorer = CiderD(df=df)\n"
        "scorer.remember(refs)\n"
        "def score(c, images):\n"
        "    gts = {int(i): refs[i] for i in images}\n"
        "    res = [{'image_id': int(i), 'caption': [x]} for x, i in zip(c, images)]\n"
        "    return scorer.compute_score(gts, res)[1]\n"
    ),
}


@pytest.mark.parametrize("entry", sorted(_MAKERS))
def test_one_400k_word_candidate_among_300_costs_memory_linear_in_tokens(entry):
    # Before: a (4, 300, 400000) uint64 grid, 3.58 GiB, MemoryError.  The
    # other 299 rewards are those of the batch without the long caption; the
    # long one scores 0: its length penalty exp(-(399999 - 9)**2 / 72) is 0.0
    done = _run(_LONG_BATCH.replace("{make}", _MAKERS[entry]))
    assert done.returncode == 0, done.stderr[-800:]
    same, long_score, peak_mib = done.stdout.split()
    assert (same, float(long_score)) == ("True", 0.0)
    # 400,000 tokens: a few dozen bytes per token and n-gram order, not 300 x 400,000 cells
    assert int(peak_mib) < 300, done.stdout


@pytest.mark.parametrize("seed", range(5))
def test_flat_ngrams_are_the_padded_rows_entries(seed):
    # the flat path must give the padded path's entries in its order: the
    # rewards' sums then add the same terms in the same order (bit-identical)
    from sparsecider._kernels.rows import flat_ngrams, padded_hashes, row_ngrams
    from sparsecider._kernels.tokens import Tokens

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 30, size=40)
    lengths[rng.integers(40)] = 500
    tokens = Tokens(rng.integers(0, 6, size=int(lengths.sum())).astype(np.uint64), lengths)
    padded = row_ngrams(padded_hashes(tokens), lengths, 4)
    flat = flat_ngrams(tokens, 4)
    for a, b in zip(padded, flat, strict=True):
        assert a.dtype == b.dtype and (a == b).all()
