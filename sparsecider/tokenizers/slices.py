"""Tokenizing a slice of a caption sequence exactly as inside the whole sequence.

Shards (threads), chunks (streaming) and partitions (Dask) each tokenize a
slice of the captions; the PTB tokenizer reads past a caption's end, so a
slice is tokenized with the captions after it that can change its tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .._kernels.tokens import Tokens
from .ptb import LOOKAHEAD_CHARS, LOOKAHEAD_NONBLANK
from .registry import TokenizerLike, get_tokenizer

__all__ = ["lookahead_captions", "lookahead_complete", "tokenize_slice"]

# How far past a slice of captions the PTB lexer may need to read (see
# :func:`lookahead_captions`).
# LOOKAHEAD_NONBLANK (2) and LOOKAHEAD_CHARS (256) live in .ptb, which reads ahead by them


def lookahead_captions(following: Iterable[str]) -> list[str]:
    """The captions after a slice that decide how the slice's last captions tokenize.

    The reference PTB tokenizer looks past the end of a caption, so a
    caption's tokens may depend on the captions after it
    (``PTB_BEHAVIOUR.md``, sections 15 and 20): a single letter or a number
    abbreviation before a final period looks across any number of blank
    captions at the next non-blank one (a sentence starter such as ``The``,
    or a digit), and needs to know whether a line end follows that one's
    first word; a few endings (``they're``, ``'85``, ``:)``) need to know
    only whether the input ends there.  This takes captions from
    ``following`` until it holds ``LOOKAHEAD_NONBLANK`` (2) captions with
    non-blank text and at least ``LOOKAHEAD_CHARS`` (256) characters, or
    ``following`` runs out: enough for all of these, whatever the blank
    captions in between; only an SGML tag whose quoted attribute value
    spans captions over more than 256 characters reaches further.  Cost:
    O(length of the captions taken).

    Parameters
    ----------
    following : iterable of str
        The captions after the slice, in order.

    Returns
    -------
    list of str
        The first captions of ``following`` (all of them if it is short).

    Examples
    --------
    >>> lookahead_captions(["A dog.", "", "The cat."])  # fewer than 256 characters: all
    ['A dog.', '', 'The cat.']
    >>> [len(c) for c in lookahead_captions(["x" * 300, "y", "z", "w"])]  # 2 non-blank, 301 chars
    [300, 1]
    """
    taken: list[str] = []
    nonblank = chars = 0
    for caption in following:
        taken.append(caption)
        chars += len(caption)
        nonblank += not caption.isspace() and caption != ""
        if nonblank >= LOOKAHEAD_NONBLANK and chars >= LOOKAHEAD_CHARS:
            break
    return taken


def lookahead_complete(captions: Sequence[str]) -> bool:
    """Whether ``captions`` already hold all that :func:`lookahead_captions` takes."""
    nonblank = sum(1 for c in captions if c and not c.isspace())
    return nonblank >= LOOKAHEAD_NONBLANK and sum(map(len, captions)) >= LOOKAHEAD_CHARS


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
