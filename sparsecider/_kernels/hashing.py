"""Stable 64-bit hashes of tokens and n-grams, computed on whole arrays.

Tokens are hashed from their UTF-8 bytes, 8 at a time, so a token's hash depends
only on its text: identical across processes, machines and runs (Python's
salted ``hash`` is never used), which lets document frequencies fitted in one
process be stored and used in another.  Scheme ``utf8-splitmix64-v2``:

- token of UTF-8 bytes ``b_0 .. b_{L-1}`` (lone surrogates as their 3-byte
  form), read as little-endian 64-bit words ``w_0 .. w_{ceil(L/8)-1}`` (the
  last one zero-padded): ``h = L * G``; for each j: ``h = splitmix64(h ^ w_j)``;
- k-gram (k >= 2) from the (k-1)-gram starting at the same position and
  the token completing it: ``splitmix64(prev * G + h_token)``.

``G`` is the 64-bit golden-ratio constant and ``splitmix64`` the finaliser
of Steele et al.'s SplitMix64; all arithmetic is modulo 2**64.

Collisions: two distinct n-grams of the same order share a key with
probability about ``2**-64``; among ``d`` distinct n-grams of one order the
chance of any collision is about ``d**2 / 2**65`` (7e-8 for the 1.6 million
of COCO val).  Within one scoring call columns are exact per key (see
:mod:`.entries`); a key collision is the only lossy step of the pipeline.
"""

from __future__ import annotations

import numpy as np

from .arrays import BLOCK, blocks

__all__ = [
    "SCHEME",
    "hash_byte_tokens",
    "hash_code_point_tokens",
    "next_order_keys",
    "ngram_keys",
]

SCHEME = "utf8-splitmix64-v2"

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def _mix(z: np.ndarray, scratch: np.ndarray) -> None:
    """The SplitMix64 finaliser, in place on ``z`` (``scratch``: same shape)."""
    np.right_shift(z, _S30, out=scratch)
    z ^= scratch
    z *= _MIX1
    np.right_shift(z, _S27, out=scratch)
    z ^= scratch
    z *= _MIX2
    np.right_shift(z, _S31, out=scratch)
    z ^= scratch


def _splitmix(z: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser, in place on a uint64 array (which it returns)."""
    scratch = np.empty(min(z.shape[0], BLOCK), dtype=np.uint64)
    for start, stop in blocks(z.shape[0]):
        _mix(z[start:stop], scratch[: stop - start])
    return z


# _LOW_BYTES[m]: a mask of the low m bytes of a 64-bit word
_LOW_BYTES = np.array([(1 << (8 * m)) - 1 for m in range(9)], dtype=np.uint64)


# at most this many tokens left longer than 8 * step bytes: finish them one by one
_FEW = 16
_MASK = (1 << 64) - 1


def _finish_token(buffer: np.ndarray, start: int, length: int, step: int, h: int) -> int:
    """Steps ``step ..`` of the token scheme for one token, in Python integers
    (the same arithmetic as :func:`_mix`, modulo 2**64)."""
    tail = buffer[start + 8 * step : start + length].tobytes()
    tail += bytes(-len(tail) % 8)  # the last word zero-padded, as the mask does
    m1, m2 = int(_MIX1), int(_MIX2)
    for w in np.frombuffer(tail, dtype="<u8").tolist():
        z = h ^ w
        z ^= z >> 30
        z = (z * m1) & _MASK
        z ^= z >> 27
        z = (z * m2) & _MASK
        h = z ^ (z >> 31)
    return h


def hash_byte_tokens(buffer: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Hash every token of a UTF-8 byte buffer (the token scheme above).

    Preconditions: ``buffer`` is a uint8 array with at least 7 bytes after
    the end of the last token (they are read, then masked off); token t is
    ``buffer[starts[t]:starts[t] + lengths[t]]`` with ``lengths >= 1``.
    Eight bytes are read per step through an overlapping uint64 view of the
    buffer; step j handles only the tokens longer than 8 j bytes, so the loop
    runs ``ceil(max(lengths) / 8)`` times and nearly all the work is step 0.
    Once at most ``_FEW`` tokens remain, they finish one by one in Python
    integers: linear in their bytes, however long one token is.

    Returns
    -------
    ndarray of uint64, shape (n_tokens,)
    """
    n_bytes = buffer.shape[0]
    if starts.shape[0] == 0:
        return np.empty(0, dtype=np.uint64)
    words = np.ndarray(shape=(n_bytes - 7,), dtype="<u8", buffer=buffer, strides=(1,))
    h = np.empty(starts.shape[0], dtype=np.uint64)
    scratch = np.empty(min(h.shape[0], BLOCK), dtype=np.uint64)
    for start, stop in blocks(h.shape[0]):
        block, length = h[start:stop], lengths[start:stop]
        block[...] = length
        block *= _GOLDEN
        block ^= words[starts[start:stop]] & _LOW_BYTES[np.minimum(length, 8)]
        _mix(block, scratch[: stop - start])
    step = 1
    longer = np.flatnonzero(lengths > 8)
    while longer.shape[0]:
        if longer.shape[0] <= _FEW:
            # a vectorised step costs tens of microseconds whatever its width: a
            # few long tokens (one 10 MB "word") finish word by word instead,
            # so the cost stays linear in their bytes at ~1 us per 8 bytes
            for t in longer.tolist():
                h[t] = _finish_token(buffer, int(starts[t]), int(lengths[t]), step, int(h[t]))
            break
        left = lengths[longer] - 8 * step
        head = h[longer]
        head ^= words[starts[longer] + 8 * step] & _LOW_BYTES[np.minimum(left, 8)]
        h[longer] = _splitmix(head)
        longer = longer[left > 8]
        step += 1
    return h


def hash_code_point_tokens(
    code_points: np.ndarray, starts: np.ndarray, lengths: np.ndarray
) -> np.ndarray:
    """Hash every token of a code-point buffer (a per-call grouping key, not :data:`SCHEME`).

    Preconditions: ``code_points`` is a uint32 array; token t is
    ``code_points[starts[t]:starts[t] + lengths[t]]`` with ``lengths >= 1``.
    Tokens are processed longest first so that step j touches a contiguous
    prefix of them: the loop runs ``max(lengths)`` times and the total work is
    one pass over the tokens' code points.

    Returns
    -------
    ndarray of uint64, shape (n_tokens,)
    """
    n_tokens = starts.shape[0]
    if n_tokens == 0:
        return np.empty(0, dtype=np.uint64)
    # lengths fit in int16 for any real caption: then this is a radix sort
    narrow = np.int16 if int(lengths.max()) < 2**15 else np.int64
    order = np.argsort(-lengths.astype(narrow), kind="stable")
    sorted_starts = starts[order]
    sorted_lengths = lengths[order]
    h = sorted_lengths.astype(np.uint64) * _GOLDEN
    # active[j] = number of tokens longer than j (a prefix of the sorted order)
    active = np.searchsorted(
        -sorted_lengths, -np.arange(1, int(sorted_lengths[0]) + 1), side="right"
    )
    for j, m in enumerate(active.tolist()):
        head = h[:m]
        head ^= code_points[sorted_starts[:m] + j]
        _splitmix(head)
    out = np.empty_like(h)
    out[order] = h
    return out


def next_order_keys(
    prev: np.ndarray, token_hashes: np.ndarray, k: int, inside: np.ndarray | None = None, *,
    keep_every: bool = True,
) -> tuple[np.ndarray | None, np.ndarray]:  # fmt: skip
    """Keys of the k-grams from the (k-1)-gram keys, at every position and
    at the positions where ``inside`` is True, in one blocked pass.

    Preconditions: ``prev[i]`` is the key of the (k-1)-gram starting at flat
    position ``i`` (for k = 2, ``prev`` is ``token_hashes``), for every
    ``i < len(token_hashes) - k + 2``.  Caption boundaries are ignored in
    the hashing; ``inside`` (shape ``(len(token_hashes) - k + 1,)``) marks
    the positions to keep, those whose k-gram lies inside one caption.
    Cost: a handful of vectorised passes, block by block (``BLOCK``).

    Returns
    -------
    every : ndarray of uint64, shape (max(len(token_hashes) - k + 1, 0),), or None
        The keys at every position (the input of order k + 1); None when
        ``keep_every=False`` and ``inside`` is given.
    kept : ndarray of uint64
        The keys at the positions where ``inside`` is True; ``every`` itself
        when ``inside`` is None.
    """
    m = max(token_hashes.shape[0] - k + 1, 0)
    every = np.empty(m, dtype=np.uint64) if keep_every or inside is None else None
    kept = every if inside is None else np.empty(int(np.count_nonzero(inside)), dtype=np.uint64)
    scratch = np.empty(min(m, BLOCK), dtype=np.uint64)
    work = np.empty(scratch.shape[0], dtype=np.uint64) if every is None else None
    filled = 0
    for start, stop in blocks(m):
        z = work[: stop - start] if every is None else every[start:stop]
        np.multiply(prev[start:stop], _GOLDEN, out=z)
        z += token_hashes[k - 1 + start : k - 1 + stop]
        _mix(z, scratch[: stop - start])
        if inside is not None:
            block = z[inside[start:stop]]
            kept[filled : filled + block.shape[0]] = block
            filled += block.shape[0]
    return every, kept


def ngram_keys(token_hashes: np.ndarray, lengths: np.ndarray, n: int):
    """Yield, for k = 1..n, the keys of every k-gram and its row pointer.

    Parameters
    ----------
    token_hashes : ndarray of uint64, shape (n_tokens,)
        Hashes of all tokens of all captions, caption after caption.
    lengths : ndarray of int64, shape (n_captions,)
        Number of tokens of each caption.
    n : int
        Highest order.

    Yields
    ------
    keys : ndarray of uint64
        Keys of the k-grams, caption after caption, in text order.
    indptr : ndarray of int64, shape (n_captions + 1,)
        ``keys[indptr[j]:indptr[j + 1]]`` are the k-grams of caption j
        (``max(lengths[j] - k + 1, 0)`` of them).

    Notes
    -----
    Order k + 1 is computed from order k's keys: modify a yielded array
    only once the generator is exhausted, and never order 1's, which is
    ``token_hashes`` itself.  Each order after the first is one blocked
    pass (hash, then keep the k-grams inside one caption), see ``BLOCK``.
    """
    n_tokens = token_hashes.shape[0]
    # inside[p]: the k-gram starting at position p lies within one caption;
    # for k + 1 it must also not cross the end of a caption at p + k - 1
    last = np.zeros(n_tokens, dtype=bool)
    last[np.cumsum(lengths)[lengths > 0] - 1] = True
    inside = None
    keys = token_hashes
    for k in range(1, n + 1):
        indptr = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.maximum(lengths - (k - 1), 0), out=indptr[1:])
        if k == 1:
            yield keys, indptr
            continue
        m = max(n_tokens - k + 1, 0)
        inside = ~last[:m] if inside is None else inside[:m] & ~last[k - 2 : k - 2 + m]
        keep = None if indptr[-1] == m else inside  # None: no k-gram crosses a caption end
        # the keys at every position feed order k + 1; the last order needs none
        keys, kept = next_order_keys(keys, token_hashes, k, keep, keep_every=k < n)
        yield kept, indptr
