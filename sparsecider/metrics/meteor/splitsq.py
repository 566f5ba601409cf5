"""spec55b's off-diagonal square paraphrase against its own split when a 1:2 paraphrase shares
its start (METEOR_BEHAVIOUR.md 6.3, N138; the model's ``s55b_q12="cw"``).

The shape (`elderly man`/`old man`): a non-exact 2:2 candidate M OFF the diagonal
(``M.t != M.r``) that splits into a non-exact one-word P at its two starts (`elderly`/`old`,
its span pair proposed ONCE, not exact) and an exact one-word X at its two ends (`man`/`man`),
with a candidate Q = ``(M.t, 1, M.r, 2)`` (`elderly`/`old man`, any stage), X's TEST word a
content word (not in the jar's function-word list: a fit, section 6.5).  The jar keeps M: a
final state holding P and X is dropped when the state with M in their place is also final
(after spec54a's drops, before the final sort; nothing else changes).

The shape is rare (1 of the 40,504 first-reference COCO pairs, 2 of their 121,646 others), so
the array search (:mod:`.beam`) finds its pairs (:func:`split_pairs`) and hands them to the
per-pair search (:mod:`.align`), whose final list the rule filters (:func:`split_triples`,
:func:`split_keep`).  Test words are type ids, a function word's negated (``~id``, as
``Candidates.tw``; :func:`typed_words` for a caption's tokens).
"""

from __future__ import annotations

import numpy as np

from .batch import Candidates, expand_ranges, find_sorted
from .matchers import EXACT

__all__ = ["split_keep", "split_pairs", "split_triples", "typed_words"]


def typed_words(tokens, function_words) -> list[int]:
    """A caption's tokens as type ids (equal tokens, equal ids), a function word's negated
    (``~id``): the test words the per-pair search's rules read (spec52b compares them,
    spec55b reads the sign)."""
    ids: dict = {}
    return [
        ~ids.setdefault(w, len(ids)) if w in function_words else ids.setdefault(w, len(ids))
        for w in tokens
    ]


def split_triples(objs: list, props: dict, words) -> list[tuple]:
    """The pair's (M, P, X) span pairs of the shape (module docstring); empty without ``words``
    (indexable by test position)."""
    out: list[tuple] = []
    if words is None:
        return out
    for ts, tl, rs, rl, stage in objs:
        if stage == EXACT or tl != 2 or rl != 2 or ts == rs:
            continue
        p, x = (ts, 1, rs, 1), (ts + 1, 1, rs + 1, 1)
        if props.get(p, [EXACT]) == [EXACT] or len(props[p]) != 1:
            continue
        if EXACT in props.get(x, ()) and (ts, 1, rs, 2) in props and words[ts + 1] >= 0:
            out.append(((ts, 2, rs, 2), p, x))
    return out


def split_keep(triples: list, states: list, ranks: list, objs: list, chain) -> tuple:
    """The final ``states`` and their ``ranks`` less those holding a triple's P and X whose
    state with M in their place is final too (``chain``: a state's object numbers)."""
    spans = [frozenset(objs[k][:4] for k in chain(st)) for st in states]
    final = set(spans)
    keep = [
        i
        for i, s in enumerate(spans)
        if not any(p in s and x in s and (s - {p, x}) | {m} in final for m, p, x in triples)
    ]
    if len(keep) == len(states):
        return states, ranks
    return [states[i] for i in keep], [ranks[i] for i in keep]


def split_pairs(c: Candidates, sel: np.ndarray) -> np.ndarray:
    """Per object of ``sel`` (whole pairs), whether its pair holds the shape (the pairs
    :mod:`.beam` leaves to the per-pair search); none without word ids (``c.tw``)."""
    out = np.zeros(sel.size, dtype=bool)
    if c.tw is None or sel.size == 0:
        return out
    # the off-diagonal non-exact 2:2 rows of c (few: 2:2 rows are paraphrases), then the rows
    # of their pairs only (c's order: by pair, then span pair and stage)
    r = np.flatnonzero((c.tl == 2) & (c.rl == 2))
    r = r[(c.stage[r] != EXACT) & (c.ts[r] != c.rs[r])]
    if r.size == 0:
        return out
    pairs = np.unique(c.pair[r])
    lo = np.searchsorted(c.pair, pairs)
    s = expand_ranges(lo, np.searchsorted(c.pair, pairs, "right") - lo)[1]
    p, ts, rs, stage = c.pair[s], c.ts[s], c.rs[s], c.stage[s]
    span = (((p * 64 + ts) * 8 + c.tl[s]) * 64 + rs) * 8 + c.rl[s]
    ms = np.flatnonzero((stage != EXACT) & (c.tl[s] == 2) & (c.rl[s] == 2) & (ts != rs))

    def key(d: int, r_len: int) -> np.ndarray:
        return (((p[ms] * 64 + ts[ms] + d) * 8 + 1) * 64 + rs[ms] + d) * 8 + r_len

    lo = np.searchsorted(span, key(0, 1))
    once = np.searchsorted(span, key(0, 1), "right") - lo == 1
    once[once] = stage[lo[once]] != EXACT
    at, x = find_sorted(span * 4 + stage, key(1, 1) * 4 + EXACT)
    x[x] = c.tw[s[at[x]]] >= 0
    ok = once & x & find_sorted(span, key(0, 2))[1]
    if not ok.any():
        return out
    good = np.zeros(int(c.pair[-1]) + 1, dtype=bool)
    good[p[ms[ok]]] = True
    return good[c.pair[sel]]
