"""sparsecider: CIDEr and CIDEr-D on sparse matrices.

Exactly the numbers of the reference implementation (pycocoevalcap), computed
for a whole corpus at once with scipy sparse matrices.

Public API
----------
cider_d, cider
    Score candidates against references; return a :class:`CiderResult`.
cider_d_ids
    CIDEr-D of integer token-id arrays (self-critical training rewards).
RewardScorer
    Rewards against a fixed training set whose references are cached once
    (ids or strings), with the SCST baselines.
CiderAccumulator
    A corpus score (CIDEr-D, CIDEr, BLEU, ROUGE-L) filled batch by batch on
    any number of processes; states merge exactly.
bleu, rouge_l
    BLEU-1..4 and ROUGE-L exactly as pycocoevalcap's ``Bleu`` and ``Rouge``
    (the rest of the COCO caption table, without Java).
self_cider, mbr_select, cider_r
    Variants over the same statistics: Self-CIDEr diversity of candidate
    sets, consensus (MBR) selection among candidates, CIDEr-R.
CiderResult, Signature
    The one result type (corpus score, per-candidate scores, per-order
    values) and the signature that says how the number was made.
DocumentFrequencies
    Fitted document frequencies: fit once, save, load, merge, score with.
CiderVectorizer
    CIDEr's tf-idf space as a scikit-learn transformer (imported lazily).
ptb_tokenize, tokens
    The reference PTB tokenizer in pure Python; the tokens any tokenizer
    makes of captions (what the n-grams are made of).
SmallCorpusWarning, TokenizerWarning
    Advice: frequencies counted over too few images; a tokenizer that
    cannot see the captions' words.
compat, stream, dask, significance, tokenizers, io, demo
    Drop-ins for pycocoevalcap, chunked scoring, Dask clusters, bootstrap
    and paired tests, tokenizers, caption and df files, the bundled example:
    submodules, imported on first use (``sparsecider.stream.cider_d``).
"""

from __future__ import annotations

import importlib

from ._version import __version__
from .core.frequencies import DocumentFrequencies
from .core.result import CiderResult, Signature
from .core.validate import SmallCorpusWarning, TokenizerWarning
from .metrics.bleu import bleu
from .metrics.cider import cider, cider_d
from .metrics.cider_r import cider_r
from .metrics.mbr import mbr_select
from .metrics.rouge import rouge_l
from .metrics.self_cider import self_cider
from .tokenizers import ptb_tokenize, tokens
from .training.accumulate import CiderAccumulator
from .training.ids import cider_d_ids
from .training.reward import RewardScorer

# the submodules a user reaches for as attributes, imported on first use
# (dask needs the dask extra: its ImportError names it)
_SUBMODULES = (
    "compat", "dask", "demo", "io", "significance", "stream", "tokenizers", "vectorizer",
)  # fmt: skip


def __getattr__(name: str):
    # scikit-learn is imported only when the estimator is first used
    if name == "CiderVectorizer":
        from .vectorizer import CiderVectorizer

        return CiderVectorizer
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'sparsecider' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_SUBMODULES})


__all__ = [
    "CiderAccumulator",
    "CiderResult",
    "CiderVectorizer",
    "DocumentFrequencies",
    "RewardScorer",
    "Signature",
    "SmallCorpusWarning",
    "TokenizerWarning",
    "__version__",
    "bleu",
    "cider",
    "cider_d",
    "cider_d_ids",
    "cider_r",
    "mbr_select",
    "ptb_tokenize",
    "rouge_l",
    "self_cider",
    "tokens",
]
