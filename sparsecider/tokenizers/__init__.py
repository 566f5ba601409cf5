"""Tokenizers: caption strings -> token hashes (:class:`~sparsecider._kernels.tokens.Tokens`).

``registry`` resolves a ``tokenizer=`` argument (a registered name or a
callable) to a :class:`Tokenizer` with the name a signature records;
``whitespace`` is ``str.split()`` on one UTF-8 buffer; ``ptb`` is the
reference PTB pipeline in pure Python, written from observed behaviour of the
reference jar (``PTB_BEHAVIOUR.md``), with a vectorised fast path
(``_ptb_fast``) and exact token rules for the rest (``_ptb_exact``); ``ids`` turns
integer token ids into the same hashes as their decimal strings.  For
Chinese, Japanese and Korean text, ``cjk`` holds the options and the steps
around a segmenter: ``char`` (one token per CJK character), ``zh`` (jieba),
``ja`` (MeCab through fugashi) and ``ko`` (Kiwi); the libraries load on first
use.
"""

from __future__ import annotations

import importlib

# Each name is imported on first use from the module that defines it: the
# command line reads the registered names (.names) without loading the PTB
# tables, and ``from sparsecider.tokenizers import tokenize`` loads what it needs.
_HOMES = {
    "Tokenizer": "registry",
    "TokenizerLike": "registry",
    "Tokens": "sparsecider._kernels.tokens",
    "get_tokenizer": "registry",
    "lookahead_captions": "registry",
    "lookahead_complete": "registry",
    "ptb_tokenize": "ptb",
    "registered": "registry",
    "resolve_tokenizer": "registry",
    "split_whitespace": "whitespace",
    "tokenize": "registry",
    "tokenize_slice": "slices",
    "tokenizer_name": "registry",
    "tokens": "registry",
}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(home if "." in home else f"{__name__}.{home}")
    value = getattr(module, name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Tokenizer",
    "TokenizerLike",
    "Tokens",
    "get_tokenizer",
    "lookahead_captions",
    "lookahead_complete",
    "ptb_tokenize",
    "registered",
    "resolve_tokenizer",
    "split_whitespace",
    "tokenize",
    "tokenize_slice",
    "tokenizer_name",
    "tokens",
]
