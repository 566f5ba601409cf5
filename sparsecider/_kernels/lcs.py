"""Longest-common-subsequence lengths of many pairs of token sequences at once.

The LCS dynamic programme, in its bit-vector form (Allison and Dix 1986;
Hyyrö 2004): the DP row over the positions of the shorter sequence ``a`` is
held as the bits of a vector ``V`` (a zero bit where the row steps up), and
one token ``b_j`` of the longer sequence advances the whole row at once::

    M = bits i where a_i == b_j
    U = V & M
    V = (V + U) | (V - U)         # V - U == V ^ U, as U is a subset of V

after which the LCS length is the number of zero bits among the low
``len(a)`` bits of ``V``.  Every pair advances together, one numpy step per
position j: the pairs are grouped by the length of their shorter sequence
(8 tokens per byte of ``V``), each group sorted by the length of its longer
sequence, so the pairs still running at step j are a prefix of the group.
A vector longer than 64 tokens spans several 64-bit words; the carry of the
addition crosses them word by word.  No Python loop per pair or per cell.
"""

from __future__ import annotations

import numpy as np

from .arrays import popcount

__all__ = ["lcs_lengths"]

_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
# x * _GATHER >> 56 packs the lowest bits of the 8 bytes of x (each 0 or 1)
# into one byte, byte i to bit i: the partial products land on distinct bits
_GATHER = np.uint64(0x0102040810204080)
_S56 = np.uint64(56)
# pairs per chunk: the chunk's padded rows (8 bytes per token) stay in the L2 cache
_CHUNK_BYTES = 1 << 20


def _low_bits(length: np.ndarray, n_words: int) -> np.ndarray:
    """Masks of the low ``length[p]`` bits over ``n_words`` words, shape (m, n_words)."""
    bits = length[:, None] - 64 * np.arange(n_words)[None, :]
    part = np.clip(bits, 0, 63).astype(np.uint64)
    mask = (np.uint64(1) << part) - np.uint64(1)
    mask[bits >= 64] = _ALL_ONES
    return mask


def _chunk_lcs(
    tokens: np.ndarray,
    short_start: np.ndarray,
    short_len: np.ndarray,
    long_start: np.ndarray,
    long_len: np.ndarray,
    n_bytes: int,
) -> np.ndarray:
    """LCS lengths of pairs whose shorter sequence fits in ``n_bytes`` bytes
    (8 tokens each), sorted by ``long_len`` in decreasing order."""
    m = short_start.shape[0]
    width = 8 * n_bytes
    n_words = (n_bytes + 7) // 8
    # the shorter sequences as rows; the cells past a row's end read other
    # tokens (or the last one), which only set bits above its length, and
    # carries run upwards
    rows = np.take(tokens, short_start[:, None] + np.arange(width)[None, :], mode="clip")
    equal = np.empty((m, width), dtype=bool)
    match = np.zeros((m, 8 * n_words), dtype=np.uint8)
    v = np.full((m, n_words), _ALL_ONES, dtype=np.uint64)
    # running[j]: the pairs whose longer sequence has a token j (a prefix)
    running = np.searchsorted(-long_len, -np.arange(1, int(long_len[0]) + 1), side="right")
    for j, k in enumerate(running.tolist()):
        b = tokens[long_start[:k] + j]
        eq = equal[:k]
        np.equal(rows[:k], b[:, None], out=eq)
        # the matches, 8 tokens (bytes of 0 or 1) per word, packed to bits
        packed = eq.view("<u8") * _GATHER
        packed >>= _S56
        if n_bytes == 1:
            mask = packed
        else:
            match[:k, :n_bytes] = packed
            mask = match[:k].view("<u8")
        vk = v[:k]
        u = vk & mask
        if n_words == 1:
            total = vk + u
            vk ^= u
            vk |= total
            continue
        carry = np.zeros(k, dtype=np.uint64)
        for w in range(n_words):
            total = vk[:, w] + u[:, w]
            overflow = total < u[:, w]
            total += carry
            overflow |= total < carry
            vk[:, w] = total | (vk[:, w] ^ u[:, w])
            carry = overflow.astype(np.uint64)
    zeros = v & _low_bits(short_len, n_words)
    return short_len - popcount(zeros).sum(axis=1)


def lcs_lengths(
    tokens: np.ndarray,
    a_start: np.ndarray,
    a_len: np.ndarray,
    b_start: np.ndarray,
    b_len: np.ndarray,
) -> np.ndarray:
    """The LCS length of every pair of token sequences ``(a[p], b[p])``.

    Sequence ``a[p]`` is ``tokens[a_start[p]:a_start[p] + a_len[p]]``, and
    likewise ``b[p]``; tokens are compared for equality only.  Cost: for
    each pair, one step per token of its longer sequence, each step
    comparing one token with the shorter sequence padded to a multiple of 8
    tokens (about ``len(a) * len(b)`` comparisons, as the DP has cells), in
    vectorised passes over the pairs; ``max(len)`` numpy steps per group of
    pairs of equal ``ceil(shorter length / 8)``.

    Parameters
    ----------
    tokens : ndarray, shape (n_tokens,)
        Token ids or hashes (any dtype with ``==``).
    a_start, a_len, b_start, b_len : ndarray of int64, shape (n_pairs,)
        Starts and lengths (>= 0) of the two sequences of each pair.

    Returns
    -------
    ndarray of int64, shape (n_pairs,)

    Examples
    --------
    "a b c b d a b" against "b d c a b a": LCS 4 ("b c a b", "b d a b", ...);
    "x" against "y": 0; an empty sequence: 0.

    >>> tokens = np.array([1, 2, 3, 2, 4, 1, 2, 2, 4, 3, 1, 2, 1, 8, 9])
    >>> lcs_lengths(tokens, np.array([0, 13, 0]), np.array([7, 1, 0]),
    ...             np.array([7, 14, 7]), np.array([6, 1, 6])).tolist()
    [4, 0, 0]
    """
    n_pairs = a_start.shape[0]
    out = np.zeros(n_pairs, dtype=np.int64)
    if n_pairs == 0 or tokens.shape[0] == 0:
        return out
    swap = a_len > b_len
    short_start = np.where(swap, b_start, a_start)
    short_len = np.where(swap, b_len, a_len)
    long_start = np.where(swap, a_start, b_start)
    long_len = np.where(swap, a_len, b_len)
    n_bytes = (short_len + 7) // 8
    # group by bytes of the bit vector, then longest first within a group
    # (one stable sort of a small integer key: a radix sort when it fits 16 bits)
    top = int(long_len.max()) + 1
    key = n_bytes * top + (top - 1 - long_len)
    order = np.argsort(key.astype(np.int16) if key.max() < 2**15 else key, kind="stable")
    sorted_bytes = n_bytes[order]
    bounds = np.flatnonzero(np.diff(sorted_bytes, prepend=-1, append=-1))
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if sorted_bytes[lo] == 0:  # an empty sequence: LCS 0
            continue
        n_bytes = int(sorted_bytes[lo])
        chunk = max(_CHUNK_BYTES // (64 * n_bytes), 256)
        for c in range(lo, hi, chunk):
            idx = order[c : min(c + chunk, hi)]
            out[idx] = _chunk_lcs(
                tokens, short_start[idx], short_len[idx], long_start[idx], long_len[idx],
                n_bytes,
            )  # fmt: skip
    return out
