"""The ``"whitespace"`` tokenizer: ``str.split()`` on one UTF-8 buffer, hashed.

Splitting and hashing run on one UTF-8 buffer of all captions (the few bytes
of characters wider than ASCII get a pass of their own), with no Python
object per token.  Every other tokenizer ends here too: its tokens are joined
with spaces and split again, so all of them hash tokens the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._kernels.arrays import BLOCK, blocks, exclusive_cumsum, ranges
from .._kernels.hashing import hash_byte_tokens
from .._kernels.tokens import Tokens

__all__ = ["split_whitespace"]

# Code points for which str.isspace() is true all lie below U+3001.
_SPACE_LIMIT = 0x3001
_IS_SPACE = np.array([chr(c).isspace() for c in range(_SPACE_LIMIT + 1)], dtype=bool)
_SEPARATOR = "\n"  # whitespace, so no token can span two captions


def split_whitespace(captions: Sequence[str]) -> Tokens:
    """Split every caption on whitespace (as ``str.split()``) and hash the tokens.

    Preconditions: every item is a ``str``.  Cost: one join and one UTF-8
    encode of the corpus text, then a few vectorised passes over its bytes;
    the few bytes that are not ASCII get a pass of their own.  No Python
    object per token.

    Parameters
    ----------
    captions : sequence of str

    Returns
    -------
    Tokens
        ``lengths[i] == len(captions[i].split())``.

    Examples
    --------
    >>> t = split_whitespace(["a  dog\\tbarks", "", "\\u3000cat "])
    >>> t.lengths.tolist()
    [3, 0, 1]
    """
    n = len(captions)
    # separators after the last caption: the hash reads 8 bytes at a time
    text = _SEPARATOR.join([*captions, _SEPARATOR * 7])
    data = text.encode("utf-8", "surrogatepass")
    buffer = np.frombuffer(data, dtype=np.uint8)
    word = _word_bytes(buffer)  # and every byte of a wider character, for now
    char_len = np.fromiter(map(len, captions), dtype=np.int64, count=n)
    caption_start = exclusive_cumsum(char_len + 1)[:-1]  # in characters
    if len(data) != len(text):
        caption_start = _mark_wide_spaces(buffer, word, caption_start)
    starts, ends = _runs(word)
    first_token = np.searchsorted(starts, caption_start)
    return Tokens(
        hashes=hash_byte_tokens(buffer, starts, ends - starts),
        lengths=np.diff(first_token, append=starts.shape[0]).astype(np.int64),
    )


def _word_bytes(text: np.ndarray) -> np.ndarray:
    """Which bytes of UTF-8 text are not whitespace characters on their own.

    Only ASCII bytes are characters of their own (a byte 0x85 or 0xA0
    continues a wider character).  The whitespace bytes are 9-13 and 28-32;
    the other bytes up to 32 are rare control characters, kept as word bytes
    (checked block by block, :data:`BLOCK`).
    """
    word = np.empty(text.shape[0], dtype=bool)
    scratch = np.empty(min(text.shape[0], BLOCK), dtype=np.uint8)
    control = np.empty(scratch.shape[0], dtype=bool)
    for start, stop in blocks(text.shape[0]):
        chunk = text[start:stop]
        np.greater(chunk, 32, out=word[start:stop])
        below, other = control[: stop - start], scratch[: stop - start]
        np.less(chunk, 9, out=below)
        np.subtract(chunk, np.uint8(14), out=other)
        below |= other < 14  # 14-27
        if below.any():
            word[start:stop] |= below
    return word


def _mark_wide_spaces(buffer: np.ndarray, word: np.ndarray, char_offsets: np.ndarray) -> np.ndarray:
    """Clear the bytes of multi-byte whitespace characters in ``word``; return
    ``char_offsets`` (character offsets into the text) as byte offsets.

    Works on the bytes >= 0x80 only (a handful in real captions): a character
    of 2 or 3 bytes is decoded at each lead byte and looked up in the table
    of ``str.isspace`` (every whitespace code point is below U+3001, so none
    takes 4 bytes).
    """
    wide = np.flatnonzero(buffer >= 0x80)
    lead = buffer[wide]
    continuation = (lead & 0xC0) == 0x80
    # a character starting at a lead byte of 2 or 3 bytes (0xC0..0xEF)
    at = wide[~continuation & (lead < 0xF0)]
    b0, b1, b2 = (buffer[at + j].astype(np.int64) for j in range(3))
    two = b0 < 0xE0
    code = np.where(
        two,
        ((b0 & 0x1F) << 6) | (b1 & 0x3F),
        ((b0 & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F),
    )
    hit = _IS_SPACE[np.minimum(code, _SPACE_LIMIT)]
    at, width = at[hit], np.where(two[hit], 2, 3)
    word[ranges(at, width)] = False
    # character offset c starts at byte c + (continuation bytes of the characters before c)
    cont = wide[continuation]
    owner_end = cont - np.arange(cont.shape[0])  # characters up to and including its owner
    return char_offsets + np.searchsorted(owner_end, char_offsets, side="right")


def _runs(word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and ends (exclusive) of the runs of True in a boolean array."""
    edge = np.empty(word.shape[0] + 1, dtype=bool)  # where word[i - 1] != word[i]
    if word.shape[0]:
        edge[0], edge[-1] = word[0], word[-1]
        np.not_equal(word[1:], word[:-1], out=edge[1:-1])
    else:
        edge[0] = False
    at = np.flatnonzero(edge)  # a start, an end, a start, ...
    return at[0::2], at[1::2]
