"""The per-pair search's packed rank (:mod:`.align`): a state's key (:data:`KEY_TERMS`) as one
integer, the weights of its terms (:func:`place_values`, :mod:`.beam` packs its own ranks with
the same function), the empty state's rank, a child's change of its parent's rank, and the rank
of a state under its pair's current contest marks.  Moved out of :mod:`.align` unchanged (names
made public).
"""

from __future__ import annotations

__all__ = [
    "BASE0",
    "CERT",
    "CHUNK",
    "KEY_TERMS",
    "MATCH",
    "SINGLE",
    "UNC",
    "F",
    "child_change",
    "place_values",
    "rank_of",
]

#: The search key, most significant term first, each the lower the better (specification
#: 6.1, 6.3): -uncontested matches, chunks, -matches less the contested ones with a square
#: twin and the contested duplicated ones (``spec36e``), -certain matches, -matches less the
#: contested ones with a square twin, -fifth key objects.  Both searches pack a state's key
#: into one integer rank by :func:`place_values` (their term ranges differ).
KEY_TERMS = ("uncontested", "chunks", "counted_single", "certain", "counted", "fifth")


def place_values(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """The weight of each term of :data:`KEY_TERMS` in a packed rank (mixed radix).

    Parameters
    ----------
    sizes : tuple of int
        How many values each term's field holds (0 .. size - 1), in :data:`KEY_TERMS` order.

    Returns
    -------
    tuple of int
        Each term's weight; a rank below ``sizes[0] * weights[0]``.
    """
    if len(sizes) != len(KEY_TERMS):
        raise ValueError(f"sizes: {len(sizes)} given, one per key term ({len(KEY_TERMS)}) needed")
    out = [1]
    for size in sizes[:0:-1]:
        out.append(out[-1] * size)
    return tuple(out[::-1])


# The packed rank per pair: every field 2**22 wide, so counts below 2**21 matches fit
# (spec36e's term can exceed its offset by the matches: its offset is half the field).
F = 1 << 22
UNC, CHUNK, SINGLE, CERT, MATCH, _ = place_values((F,) * len(KEY_TERMS))


def child_change(end, ts: int, rs: int, certain: bool, dsq: int) -> int:
    """A child's change of the packed base rank: a new chunk unless the match starts where its
    parent's last one ended, one match more (spec36e's term and the fourth key), one
    "certain" more if it is, its fifth-key weight (0-2) more."""
    return CHUNK * (end != (ts, rs)) - SINGLE - CERT * certain - MATCH - dsq


# The empty state's base: no chunk, and the other terms at their offsets (the third term's
# at half its field: contested objects can raise it above its matches).
BASE0 = (F // 2 - 1) * SINGLE + (F - 1) * (CERT + MATCH + 1)


def rank_of(state: tuple, marks: tuple) -> int:
    # base already holds chunks, -matches twice, -certain and the fifth key; the first key
    # (uncontested matches) is the matches minus the contested ones among them, the fourth the
    # matches minus the contested ones with a square twin, spec36e's term (third) those minus
    # the contested duplicated ones too (an object that is both is taken off twice).
    base, bits = state[0], state[1]
    matches = F - 1 - base // MATCH % F
    if not bits:
        return (F - matches) * UNC + base
    flagged, ft, fd = marks[:3]
    twins = len(bits & ft)
    base += SINGLE * (twins + len(bits & fd)) + MATCH * twins
    if len(marks) > 3:  # spec52b's terms of the state (:func:`.farrival.far_ranker`)
        base += marks[3](state)
    return (F - matches + len(bits & flagged)) * UNC + base
