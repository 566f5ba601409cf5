"""Caption strings to token hashes (flat array + lengths), for whole corpora.

The scorer sees tokens only as 64-bit hashes (:mod:`.hashing`).  Splitting
and hashing run on one UTF-8 buffer of all captions (the few bytes of
characters wider than ASCII get a pass of their own), with no Python object
per token.

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

``TokenizerLike`` is the type of such an argument: one of the names, or a callable.

Examples
--------
>>> def letters(captions):  # a custom tokenizer: one token per letter
...     return [[ch for ch in c if ch.isalpha()] for c in captions]
>>> for tokenizer in ("ptb", "whitespace", letters):
...     print(tokenizer_name(tokenizer), tokenize(["A dog."], tokenizer).lengths.tolist())
ptb [2]
whitespace [2]
custom:letters [4]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ._arrays import BLOCK, blocks, exclusive_cumsum, ranges
from .hashing import hash_byte_tokens
from .ptb import ptb_tokenize

__all__ = [
    "TokenizerLike",
    "Tokens",
    "lookahead_captions",
    "lookahead_complete",
    "resolve_tokenizer",
    "split_whitespace",
    "tokenize",
    "tokenize_slice",
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
        One 64-bit hash per token (:mod:`sparsecider.hashing`): equal tokens,
        equal hashes.
    lengths : ndarray of int64, shape (n_captions,)
        Tokens per caption; ``hashes`` holds the first caption's tokens, then
        the second's, and so on.

    Examples
    --------
    >>> t = tokenize(["a dog", "", "a cat"])
    >>> t.lengths.tolist(), t.hashes.shape
    ([2, 0, 2], (4,))
    >>> bool(t.hashes[0] == t.hashes[2]), bool(t.hashes[1] == t.hashes[3])  # "a", "a"; "dog", "cat"
    (True, False)
    """

    hashes: np.ndarray
    lengths: np.ndarray


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


def resolve_tokenizer(
    tokenizer: TokenizerLike,
) -> Callable[[list[str]], Sequence[Sequence[str]]] | None:
    """Check a tokenizer argument; return the callable (None for the built-ins).

    Parameters
    ----------
    tokenizer : {"ptb", "whitespace"} or callable

    Returns
    -------
    callable or None
        The callable itself, or None for a built-in name.

    Raises
    ------
    ValueError
        An unknown name.
    TypeError
        Neither a string nor a callable.

    Examples
    --------
    >>> resolve_tokenizer("ptb") is None, resolve_tokenizer(str.split) is str.split
    (True, True)
    >>> resolve_tokenizer("spacy")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer='spacy' is not known; use 'ptb' (raw text, as pycocoevalcap), ...
    """
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
    """The name used in signatures: the built-in name, or ``custom:<qualname>``.

    Parameters
    ----------
    tokenizer : {"ptb", "whitespace"} or callable

    Returns
    -------
    str

    Examples
    --------
    >>> tokenizer_name("whitespace"), tokenizer_name(str.split)
    ('whitespace', 'custom:str.split')
    """
    if isinstance(tokenizer, str):
        return tokenizer
    return "custom:" + getattr(tokenizer, "__qualname__", type(tokenizer).__name__)


def tokenize(captions: list[str], tokenizer: TokenizerLike = "whitespace") -> Tokens:
    """Tokenize and hash a list of captions as one sequence.

    Parameters
    ----------
    captions : list of str
    tokenizer : {"ptb", "whitespace"} or callable, default "whitespace"
        See the module's description.

    Returns
    -------
    Tokens

    Raises
    ------
    TypeError, ValueError
        If a custom tokenizer returns the wrong number of captions, or
        something other than lists of non-empty, whitespace-free strings.

    Examples
    --------
    "ptb" splits off the clitic and drops the period (``a dog 's toy``);
    "whitespace" keeps ``dog's`` and ``toy.`` whole:

    >>> captions = ["A dog's toy."]
    >>> tokenize(captions, "ptb").lengths.tolist(), tokenize(captions).lengths.tolist()
    ([4], [3])
    >>> tokenize(["a b"], lambda captions: [["a b"]])
    Traceback (most recent call last):
    ...
    ValueError: the tokenizer's output [0] = ['a b'] holds an empty token or one with ...
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


# How far past a slice of captions the PTB lexer may need to read (see
# :func:`lookahead_captions`).
LOOKAHEAD_NONBLANK = 2
LOOKAHEAD_CHARS = 256


def lookahead_captions(following: Iterable[str]) -> list[str]:
    """The captions after a slice that decide how the slice's last captions tokenize.

    The PTB lexer looks past the end of a caption (trailing context: a blank
    run, then a capitalised word and one more character, or two characters),
    so a caption's tokens may depend on the next non-blank caption (SPEC.md,
    section 4).  This takes captions from ``following`` until it holds
    ``LOOKAHEAD_NONBLANK`` (2) captions with non-blank text and at least
    ``LOOKAHEAD_CHARS`` (256) characters, or ``following`` runs out: far more
    than any trailing context of the lexer reaches, except an SGML tag with
    quoted attribute values spanning captions over 256 characters.  Cost:
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
    ``"ptb"`` tokenizer, whose output can depend on them; the others
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

    >>> whole = tokenize(["He reads K.", "A dog."], "ptb")
    >>> alone = tokenize(["He reads K."], "ptb")
    >>> part = tokenize_slice(["He reads K."], "ptb", ["A dog."])
    >>> bool(np.array_equal(part.hashes, whole.hashes[:3]))
    True
    >>> bool(np.array_equal(part.hashes, alone.hashes))  # "k" against "k."
    False
    """
    if tokenizer != "ptb":
        return tokenize(captions, tokenizer)
    extra = lookahead_captions(following)
    if not extra:
        return tokenize(captions, tokenizer)
    tokens = tokenize(captions + extra, tokenizer)
    lengths = tokens.lengths[: len(captions)]
    return Tokens(tokens.hashes[: int(lengths.sum())], lengths)
