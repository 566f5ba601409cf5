"""``Tokens``: tokenized captions as token hashes back to back plus lengths.

The one data type between the tokenizers (:mod:`sparsecider.tokenizers`) and
the kernels: every tokenizer produces it, every kernel consumes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Tokens"]


@dataclass(frozen=True, eq=False)
class Tokens:
    """Tokenized captions: all token hashes back to back, and each caption's length.

    Attributes
    ----------
    hashes : ndarray of uint64, shape (n_tokens,)
        One 64-bit hash per token (:mod:`sparsecider._kernels.hashing`): equal tokens,
        equal hashes.
    lengths : ndarray of int64, shape (n_captions,)
        Tokens per caption; ``hashes`` holds the first caption's tokens, then
        the second's, and so on.

    Examples
    --------
    >>> from sparsecider.tokenizers import tokenize
    >>> t = tokenize(["a dog", "", "a cat"], "whitespace")
    >>> t.lengths.tolist(), t.hashes.shape
    ([2, 0, 2], (4,))
    >>> bool(t.hashes[0] == t.hashes[2]), bool(t.hashes[1] == t.hashes[3])  # "a", "a"; "dog", "cat"
    (True, False)
    """

    hashes: np.ndarray
    lengths: np.ndarray
