"""The registered tokenizer names, readable without loading any tokenizer.

The command line's parser offers them as choices, so ``sparsecider --help``
does not import the PTB tables; :func:`sparsecider.tokenizers.registered`
returns the same tuple (a test keeps the two equal).
"""

from __future__ import annotations

__all__ = ["REGISTERED"]

#: The built-in tokenizers, then the CJK segmenters (loaded on first use).
REGISTERED = ("ptb", "whitespace", "char", "jieba", "mecab", "kiwi")
