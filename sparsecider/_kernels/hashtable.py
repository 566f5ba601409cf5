"""A small open-addressing hash table of distinct integer keys, built and probed in numpy.

For joins inside one batch (a few thousand keys): the table of
``2**bits`` slots holds positions into the key array (-1: empty); a key's
first slot is its multiplicative hash, and collisions move on to the
next slot (linear probing).  Building and probing are vectorised over all
keys at once, one round per probe step: with the table at most half full
a handful of rounds, each a few passes over the keys still unplaced or
unresolved.  The table is small enough to stay in the CPU cache, unlike a
search in a sorted array (a dependent load and a mispredicted branch per
step) or a sort of the keys.
"""

from __future__ import annotations

import numpy as np

__all__ = ["build_table", "find", "table_bits"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def table_bits(n_keys: int) -> int:
    """Slots (as a power of two) for ``n_keys`` keys: at most half full.

    Examples
    --------
    >>> table_bits(0), table_bits(1000)
    (4, 11)
    """
    return max(4, int(2 * n_keys).bit_length())


def _slots(keys: np.ndarray, bits: int) -> np.ndarray:
    h = keys.astype(np.uint64)  # a copy: multiplied in place
    h *= _GOLDEN
    h >>= np.uint64(64 - bits)
    return h.astype(np.int64)


def build_table(keys: np.ndarray, bits: int) -> np.ndarray:
    """The table of distinct non-negative integer ``keys`` (at most ``2**(bits - 1)``).

    Each key is placed at the first slot of its probe sequence free when it
    got there; several keys arriving at one free slot at once leave one
    (whichever numpy's assignment writes last) and the others go on, so
    every slot a key passed is occupied for good: :func:`find` finds it.

    Returns
    -------
    ndarray of int64, shape (2**bits,)
        The position in ``keys`` of the key in each slot, -1 where empty.
    """
    mask = (1 << bits) - 1
    table = np.full(1 << bits, -1, dtype=np.int64)
    slot = _slots(keys, bits)
    pending = np.arange(keys.shape[0], dtype=np.int64)
    while pending.shape[0]:
        at = slot[pending]
        free = table[at] == -1
        placing, places = pending[free], at[free]
        table[places] = placing
        lost = table[places] != placing
        pending = np.concatenate((pending[~free], placing[lost]))
        slot[pending] += 1
        slot[pending] &= mask
    return table


def find(table: np.ndarray, keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The position in ``keys`` of each query (-1 where it is not a key).

    Preconditions: ``table`` is :func:`build_table` of ``keys``.

    Examples
    --------
    >>> keys = np.array([40, 7, 123456789])
    >>> table = build_table(keys, table_bits(3))
    >>> find(table, keys, np.array([7, 8, 123456789, 40])).tolist()
    [1, -1, 2, 0]
    """
    bits = int(table.shape[0]).bit_length() - 1
    mask = table.shape[0] - 1
    out = np.full(queries.shape[0], -1, dtype=np.int64)
    if keys.shape[0] == 0:
        return out
    slot = _slots(queries, bits)
    active = np.arange(queries.shape[0], dtype=np.int64)
    while active.shape[0]:
        stored = table[slot]
        occupied = stored >= 0
        hit = occupied & (keys[stored] == queries[active])  # keys[-1]: masked by occupied
        out[active[hit]] = stored[hit]
        more = occupied & ~hit
        active = active[more]
        slot = (slot[more] + 1) & mask
    return out
