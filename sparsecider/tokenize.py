"""Caption strings to token hashes (flat array + lengths), for whole corpora.

The scorer sees tokens only as 64-bit hashes (:mod:`.hashing`).  Splitting
and hashing run on one buffer of Unicode code points for all captions, with
no Python object per token.

Tokenizers:

``"ptb"`` (the default of the scoring functions)
    The reference captioning pipeline: pycocoevalcap's ``PTBTokenizer``
    (Stanford CoreNLP 3.4.1, lower-cased, punctuation removed), reproduced
    in pure Python by :func:`sparsecider.ptb_tokenize`.  Use it on raw text.
``"whitespace"``
    Split on runs of whitespace exactly like ``str.split()`` (the same set of
    Unicode whitespace characters).  pycocoevalcap's scorer does this to its
    already tokenized input, so pre-tokenized captions score exactly as there.
callable
    Any function taking the list of captions and returning one list of token
    strings per caption, in order.  Tokens must be non-empty and contain no
    whitespace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .hashing import hash_code_point_tokens
from .ptb import ptb_tokenize

__all__ = [
    "TokenizerLike",
    "Tokens",
    "resolve_tokenizer",
    "split_whitespace",
    "tokenize",
    "tokenizer_name",
]

TokenizerLike = str | Callable[[list[str]], Sequence[Sequence[str]]]

_BUILTIN = ("ptb", "whitespace")

# Code points for which str.isspace() is true all lie below U+3001.
_SPACE_LIMIT = 0x3001
_IS_SPACE = np.array([chr(c).isspace() for c in range(_SPACE_LIMIT + 1)], dtype=bool)
_SEPARATOR = "\n"  # whitespace, so no token can span two captions


@dataclass(frozen=True, eq=False)
class Tokens:
    """Tokenized captions: all token hashes back to back, and each caption's length.

    Attributes
    ----------
    hashes : ndarray of uint64, shape (n_tokens,)
    lengths : ndarray of int64, shape (n_captions,)
    """

    hashes: np.ndarray
    lengths: np.ndarray


def split_whitespace(captions: Sequence[str]) -> Tokens:
    """Split every caption on whitespace (as ``str.split()``) and hash the tokens.

    Preconditions: every item is a ``str``.  Cost: one join and one encode of
    the corpus text, then vectorised passes over its code points; no Python
    object per token.

    Examples
    --------
    >>> t = split_whitespace(["a  dog\\tbarks", "", "\\u3000cat "])
    >>> t.lengths.tolist()
    [3, 0, 1]
    """
    n = len(captions)
    text = _SEPARATOR.join(captions)
    cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    word = ~_IS_SPACE[np.minimum(cp, _SPACE_LIMIT)]
    edges = np.diff(word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edges == 1)
    lengths = np.flatnonzero(edges == -1) - starts
    char_len = np.fromiter(map(len, captions), dtype=np.int64, count=n)
    caption_start = np.cumsum(char_len + 1) - (char_len + 1)
    caption_of_token = np.searchsorted(caption_start, starts, side="right") - 1
    return Tokens(
        hashes=hash_code_point_tokens(cp, starts, lengths),
        lengths=np.bincount(caption_of_token, minlength=n).astype(np.int64),
    )


def resolve_tokenizer(
    tokenizer: TokenizerLike,
) -> Callable[[list[str]], Sequence[Sequence[str]]] | None:
    """Check a tokenizer argument; return the callable (None for the built-ins)."""
    if isinstance(tokenizer, str):
        if tokenizer in _BUILTIN:
            return None
        raise ValueError(
            f"tokenizer={tokenizer!r} is not known; use 'ptb' (raw text, as pycocoevalcap), "
            "'whitespace' (already tokenized text), "
            "or a callable mapping a list of captions to a list of token lists"
        )
    if callable(tokenizer):
        return tokenizer
    raise TypeError(
        "tokenizer must be a name such as 'whitespace' or a callable, "
        f"got {type(tokenizer).__name__}"
    )


def tokenizer_name(tokenizer: TokenizerLike) -> str:
    """The name used in signatures: the built-in name, or ``custom:<qualname>``."""
    if isinstance(tokenizer, str):
        return tokenizer
    return "custom:" + getattr(tokenizer, "__qualname__", type(tokenizer).__name__)


def tokenize(captions: list[str], tokenizer: TokenizerLike = "whitespace") -> Tokens:
    """Tokenize and hash a list of captions as one sequence.

    Raises
    ------
    TypeError, ValueError
        If a custom tokenizer returns the wrong number of captions, or
        something other than lists of non-empty, whitespace-free strings.
    """
    fn = resolve_tokenizer(tokenizer)
    if tokenizer == "ptb":
        # the PTB pipeline's output is space-joined tokens, split as the scorer does
        return split_whitespace(ptb_tokenize(captions))
    if fn is None:
        return split_whitespace(captions)
    token_lists = fn(captions)
    if isinstance(token_lists, str) or not isinstance(token_lists, Sequence):
        raise TypeError(
            f"the tokenizer must return a list of token lists, got {type(token_lists).__name__}"
        )
    if len(token_lists) != len(captions):
        raise ValueError(
            f"the tokenizer returned {len(token_lists)} token lists for {len(captions)} "
            "captions; it must return exactly one per caption, in order"
        )
    joined = []
    for i, toks in enumerate(token_lists):
        if (
            isinstance(toks, str)
            or not isinstance(toks, Sequence)
            or not all(isinstance(t, str) for t in toks)
        ):
            raise TypeError(
                f"the tokenizer's output [{i}] must be a list of strings, got {toks!r:.80}"
            )
        joined.append(" ".join(toks))
    tokens = split_whitespace(joined)
    expected = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    bad = np.flatnonzero(tokens.lengths != expected)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"the tokenizer's output [{i}] = {list(token_lists[i])!r:.80} holds an empty token "
            "or one with whitespace inside; tokens must be non-empty and whitespace-free"
        )
    return tokens
