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
meteor
    METEOR 1.5 as pycocoevalcap's ``Meteor`` (its jar), without Java; reads
    the jar's data from the installed pycocoevalcap (the ``meteor`` extra).
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

# Every public name is imported on first use, from the module that defines it:
# ``import sparsecider`` loads no scipy, so ``sparsecider --version`` answers at
# once, and a script pays only for what it uses.
_HOMES = {
    "CiderAccumulator": "training.accumulate",
    "CiderResult": "core.result",
    "CiderVectorizer": "vectorizer",  # scikit-learn
    "DocumentFrequencies": "core.frequencies",
    "RewardScorer": "training.reward",
    "Signature": "core.result",
    "SmallCorpusWarning": "core.validate",
    "TokenizerWarning": "core.validate",
    "bleu": "metrics.bleu",
    "cider": "metrics.cider",
    "cider_d": "metrics.cider",
    "cider_d_ids": "training.ids",
    "cider_r": "metrics.cider_r",
    "mbr_select": "metrics.mbr",
    "meteor": "metrics.meteor.api",
    "ptb_tokenize": "tokenizers",
    "rouge_l": "metrics.rouge",
    "self_cider": "metrics.self_cider",
    "tokens": "tokenizers",
}

# the submodules a user reaches for as attributes, imported on first use
# (dask needs the dask extra: its ImportError names it)
_SUBMODULES = (
    "compat", "dask", "demo", "io", "significance", "stream", "tokenizers", "vectorizer",
)  # fmt: skip


def __getattr__(name: str):
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'sparsecider' has no attribute {name!r}")
    globals()[name] = value  # the next access is a plain attribute
    return value


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
    "meteor",
    "ptb_tokenize",
    "rouge_l",
    "self_cider",
    "tokens",
]
