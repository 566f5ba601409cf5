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

from .._kernels.tokens import Tokens
from .ptb import ptb_tokenize
from .registry import (
    Tokenizer,
    TokenizerLike,
    get_tokenizer,
    lookahead_captions,
    lookahead_complete,
    registered,
    resolve_tokenizer,
    tokenize,
    tokenizer_name,
    tokens,
)
from .slices import tokenize_slice
from .whitespace import split_whitespace

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
