"""Tokenizing a slice of a caption sequence exactly as inside the whole sequence.

Shards (threads), chunks (streaming) and partitions (Dask) each tokenize a
slice of the captions; the PTB tokenizer reads past a caption's end, so a
slice is tokenized with the captions after it that can change its tokens.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._kernels.tokens import Tokens
from .registry import TokenizerLike, get_tokenizer, lookahead_captions

__all__ = ["tokenize_slice"]


def tokenize_slice(
    captions: list[str], tokenizer: TokenizerLike, following: Iterable[str] = ()
) -> Tokens:
    """Tokenize a slice of a longer sequence of captions as the whole sequence would.

    ``following``: the captions after the slice, in order (an iterator is
    read only as far as :func:`lookahead_captions` needs, and only for the
    tokenizers whose output can depend on them (``"ptb"``); the others
    tokenize each caption on its own).  So slices tokenized one by one (in
    chunks, threads or cluster partitions) give exactly the tokens of the
    whole sequence tokenized at once.

    Parameters
    ----------
    captions : list of str
        The slice.
    tokenizer : {"ptb", "whitespace"} or callable
    following : iterable of str, default ()
        The captions after the slice.

    Returns
    -------
    Tokens
        Of ``captions`` only.

    Examples
    --------
    "He reads K." loses its period only when the next caption begins with
    a capitalised word (see :func:`sparsecider.ptb_tokenize`):

    >>> import numpy as np
    >>> from sparsecider.tokenizers import tokenize
    >>> whole = tokenize(["He reads K.", "A dog."], "ptb")
    >>> alone = tokenize(["He reads K."], "ptb")
    >>> part = tokenize_slice(["He reads K."], "ptb", ["A dog."])
    >>> bool(np.array_equal(part.hashes, whole.hashes[:3]))
    True
    >>> bool(np.array_equal(part.hashes, alone.hashes))  # "k" against "k."
    False
    """
    resolved = get_tokenizer(tokenizer)
    if not resolved.lookahead:
        return resolved.split(captions)
    extra = lookahead_captions(following)
    if not extra:
        return resolved.split(captions)
    tokens = resolved.split(captions + extra)
    lengths = tokens.lengths[: len(captions)]
    return Tokens(tokens.hashes[: int(lengths.sum())], lengths)
