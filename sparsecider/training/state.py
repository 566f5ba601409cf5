"""The serialised state of a :class:`~sparsecider.CiderAccumulator`: plain arrays, checked.

A state is a dict of numpy arrays and JSON-able values, so it pickles small
(``torch.distributed.all_gather_object``, multiprocessing) and holds no
caption text: token hashes (one vocabulary of distinct 64-bit hashes per
state, each token an index into it), lengths and counts, or per-candidate
statistics.  Keys:

- ``format`` (:data:`FORMAT`), ``format_version`` (:data:`FORMAT_VERSION`):
  a state from a newer version is refused, not misread;
- ``options``: metric, n, sigma, scale, beta, document frequencies (their
  description and content hash), tokenizer, hashing scheme;
- ``ids``: the image ids (int64 or unicode array), ``candidates_per_image``;
- per metric, the arrays of :data:`ARRAYS`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from .._checks import check_int64_ids, describe_keys, type_name
from .._kernels.arrays import exclusive_cumsum, smallest_uint
from .._kernels.tokens import Tokens
from ..tokenizers import Tokenizer, TokenizerLike

__all__ = [
    "ARRAYS",
    "FORMAT",
    "FORMAT_VERSION",
    "check_state",
    "compact",
    "empty_part",
    "image_id_array",
    "pack_tokens",
    "state_part",
    "state_tokenizer",
    "unpack_tokens",
]

FORMAT = "sparsecider.accumulator"
FORMAT_VERSION = 1

#: The arrays of each kind of state, beyond ``ids`` and ``candidates_per_image``.
ARRAYS = {
    # CIDEr with document frequencies from the union of the references
    "tokens": (
        "vocabulary",
        "reference_tokens",
        "reference_lengths",
        "references_per_image",
        "candidate_tokens",
        "candidate_lengths",
    ),
    # CIDEr with fixed document frequencies: each candidate's final per-order values
    "values": ("per_order", "empty"),
    "bleu": ("testlen", "reflen", "guess", "correct"),
    "rouge": ("precision", "recall"),
    # METEOR: each candidate's 23 statistics (counts: sums are exact)
    "meteor": ("statistics",),
}


def pack_tokens(hashes: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """One vocabulary of distinct hashes for several token arrays, each as indices into it.

    Examples
    --------
    >>> vocabulary, (a, b) = pack_tokens([np.array([9, 4, 9], np.uint64), np.array([4], np.uint64)])
    >>> vocabulary.tolist(), a.tolist(), b.tolist(), a.dtype.name
    ([4, 9], [1, 0, 1], [0], 'uint8')
    """
    vocabulary, inverse = np.unique(np.concatenate(hashes), return_inverse=True)
    inverse = inverse.ravel().astype(smallest_uint(max(vocabulary.shape[0] - 1, 0)))
    cuts = exclusive_cumsum(np.array([h.shape[0] for h in hashes]))
    return vocabulary, [inverse[a:b] for a, b in itertools.pairwise(cuts.tolist())]


def unpack_tokens(vocabulary: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """The hashes of :func:`pack_tokens`'s indices."""
    return vocabulary[tokens.astype(np.int64)]


def _bad(why: str) -> ValueError:
    return ValueError(f"not a valid accumulator state: {why}")


def check_state(state: object) -> str:
    """Check a state's layout (not its options); return its kind (a key of :data:`ARRAYS`).

    Raises
    ------
    ValueError
        Not a state, a newer format version, a missing or malformed array,
        arrays of inconsistent lengths, or content ``update()`` never makes:
        an id twice, an image without candidates or references, counts and
        lengths that are not non-negative integers, ``per_order`` or BLEU
        counts of the wrong shape, values outside their range (NaN, inf,
        negative, above the scale; ROUGE-L outside [0, 1]; BLEU ``correct``
        above ``guess``), ``empty`` not booleans.  The message names the
        field and the first bad entry.  Cost: one vectorised pass per array
        (0.1-0.5 ms for a COCO val state, see the tests of issue 35).
    """
    if not isinstance(state, Mapping) or state.get("format") != FORMAT:
        raise _bad(f"expected a dict with format={FORMAT!r} (from CiderAccumulator.state())")
    version = state.get("format_version")
    if not isinstance(version, int) or version < 1:
        raise _bad(f"format_version must be a positive integer, got {version!r}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"the state has format version {version}, written by a newer sparsecider; this "
            f"one reads versions up to {FORMAT_VERSION}: upgrade sparsecider where it is read"
        )
    kind = state.get("kind")
    if kind not in ARRAYS:
        raise _bad(f"unknown kind {kind!r}")
    if not isinstance(state.get("options"), Mapping):
        raise _bad("no options")
    for name in ("ids", "candidates_per_image", *ARRAYS[kind]):
        if not isinstance(state.get(name), np.ndarray):
            raise _bad(f"{name!r} must be a numpy array, got {type(state.get(name)).__name__}")
    ids, per_image = state["ids"], state["candidates_per_image"]
    if ids.ndim != 1 or ids.dtype.kind not in "iU" or per_image.shape != ids.shape:
        raise _bad("'ids' and 'candidates_per_image' must be 1-D and of one length")
    if any(state[name].ndim == 0 for name in ARRAYS[kind]):
        raise _bad(f"the arrays of {', '.join(map(repr, ARRAYS[kind]))} must not be scalars")
    # what update() can never produce, before any count is summed: each image
    # once, with candidates (and references), counts and lengths as integers
    if _repeats(ids):
        unique, counts = np.unique(ids, return_counts=True)
        raise _bad(f"'ids' repeats image id(s) {describe_keys(unique[counts > 1].tolist())}")
    _check_integers(state, "candidates_per_image", 1, "every image has a candidate")
    for name in _INTEGERS[kind]:
        _check_integers(state, name, int(name == "references_per_image"),
                        "every image has a reference")  # fmt: skip
    n_candidates = int(per_image.sum())
    lengths = {name: state[name].shape[0] for name in ARRAYS[kind]}
    if kind == "tokens":
        expected = {
            "reference_tokens": int(state["reference_lengths"].sum()),
            "candidate_tokens": int(state["candidate_lengths"].sum()),
            "references_per_image": ids.shape[0],
            "reference_lengths": int(state["references_per_image"].sum()),
            "candidate_lengths": n_candidates,
        }
        tokens = np.concatenate((state["reference_tokens"], state["candidate_tokens"]))
        if tokens.size and tokens.max() >= state["vocabulary"].shape[0]:
            raise _bad("token indices beyond the vocabulary")
    else:
        expected = dict.fromkeys(ARRAYS[kind], n_candidates)
    for name, want in expected.items():
        if lengths[name] != want:
            raise _bad(f"{name!r} has {lengths[name]} entries, expected {want}")
    _check_values(state, kind, n_candidates)
    return kind


#: The arrays of counts and lengths of each kind of state.
_INTEGERS = {
    "tokens": (
        "references_per_image",
        "reference_lengths",
        "candidate_lengths",
        "reference_tokens",
        "candidate_tokens",
    ),
    "values": (),
    "bleu": ("testlen", "reflen", "guess", "correct"),
    "rouge": (),
    "meteor": ("statistics",),
}


def _repeats(ids: np.ndarray) -> bool:
    """Whether an id occurs twice.  Integer ids within a span of 64 per id (dataset
    ids) are marked in a table, O(len + span); others sorted, O(len log len)."""
    if ids.shape[0] < 2:
        return False
    if ids.dtype.kind == "i":
        low, high = int(ids.min()), int(ids.max())
        if high - low < 64 * ids.shape[0]:
            seen = np.zeros(high - low + 1, dtype=bool)
            seen[ids - low] = True
            return int(np.count_nonzero(seen)) != ids.shape[0]
    ordered = np.sort(ids)
    return bool((ordered[1:] == ordered[:-1]).any())


def _first(mask: np.ndarray) -> list[int]:
    """The index of the first True of ``mask``, as a list (a row and a column for 2-D)."""
    return [int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape)]


def _check_integers(state: Mapping, name: str, low: int, why: str) -> None:
    """Integers (counts or lengths) of at least ``low`` (0 or 1, ``why`` for 1)."""
    array = state[name]
    if array.dtype.kind not in "iu":
        raise _bad(f"{name!r} must be integers (counts), got dtype {array.dtype}")
    if array.size and (array.dtype.kind == "i" or low) and array.min() < low:
        below = array < low
        bad = array[tuple(_first(below))].item()
        rule = f"positive integers ({why})" if low else "non-negative integers"
        raise _bad(f"{name!r} must be {rule}, found {bad} at {_first(below)}")


def _check_range(state: Mapping, name: str, high: float, label: str) -> None:
    """Finite floats in [0, high]."""
    array = state[name]
    if array.dtype.kind != "f":
        raise _bad(f"{name!r} must hold floats, got dtype {array.dtype}")
    inside = (array >= 0) & (array <= high)  # NaN compares False: outside
    if not inside.all():
        bad = array[tuple(_first(~inside))].item()
        raise _bad(f"{name!r} must hold values in [0, {label}], found {bad} at {_first(~inside)}")


def _check_values(state: Mapping, kind: str, n_candidates: int) -> None:
    """Each kind's shapes and value ranges (one vectorised pass per array: cheap next
    to ``compute()``)."""
    options = state["options"]
    if kind in ("values", "bleu"):
        n = options.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise _bad(f"options 'n' must be a positive integer, got {n!r}")
        for name in ("per_order",) if kind == "values" else ("guess", "correct"):
            if state[name].shape != (n_candidates, n):
                raise _bad(
                    f"{name!r} must have shape {(n_candidates, n)} (candidates x n), "
                    f"got {state[name].shape}"
                )
    if kind == "values":
        scale = options.get("scale")
        if not isinstance(scale, int | float) or not 0 < scale < float("inf"):
            raise _bad(f"options 'scale' must be a positive number, got {scale!r}")
        # a per-order value is scale times a mean of cosines (at most 1, give or take rounding)
        _check_range(state, "per_order", scale * (1 + 1e-9), f"scale={scale!r}")
        if state["empty"].dtype != bool or state["empty"].ndim != 1:
            raise _bad(f"'empty' must be booleans, got dtype {state['empty'].dtype}")
    elif kind == "bleu":
        guess, correct = state["guess"], state["correct"]
        above = correct > guess
        if above.any():
            at = tuple(_first(above))
            raise _bad(
                "'correct' must not exceed 'guess' (matched n-grams of the candidate), found "
                f"{correct[at].item()} > {guess[at].item()} at {list(at)}"
            )
    elif kind == "rouge":
        for name in ("precision", "recall"):
            _check_range(state, name, 1.0, "1")
    elif kind == "meteor":
        stats = state["statistics"]
        if stats.shape != (n_candidates, 23):
            raise _bad(f"'statistics' must have shape {(n_candidates, 23)}, got {stats.shape}")
        # matched words (columns 21, 22) never exceed the lengths (columns 0, 1)
        above = stats[:, 21:23] > stats[:, 0:2]
        if above.any():
            raise _bad(f"'statistics' row {_first(above)[0]} matches more words than it has")


def image_id_array(ids: object, n_images: int) -> np.ndarray:
    """Image ids as a plain array (integers, or strings), checked for repeats."""
    if isinstance(ids, str) or not hasattr(ids, "__len__"):
        raise TypeError(f"ids must be a list of image ids, got {type_name(ids)}")
    values = list(ids)
    if len(values) != n_images:
        raise ValueError(f"ids has {len(values)} entries for {n_images} images")
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
        check_int64_ids(values, "ids[{i}] = {v}")
        out = np.array(values, dtype=np.int64)
    elif all(isinstance(v, str) for v in values):
        out = np.array(values, dtype=str)
    else:
        raise TypeError(
            "image ids must be all integers or all strings (they travel in plain arrays), got "
            + ", ".join(sorted({type_name(v) for v in values}))
        )
    unique, counts = np.unique(out, return_counts=True)
    if unique.shape[0] != out.shape[0]:
        raise ValueError(f"image id(s) {describe_keys(unique[counts > 1].tolist())} repeat")
    return out


def state_tokenizer(name: object) -> TokenizerLike:
    """The tokenizer a state names: a registered one without options by its name;
    any other (a callable, a versioned library) by a stand-in that carries the
    name, for merging and computing, and says what to do if asked to tokenize."""
    if not isinstance(name, str):
        raise ValueError(f"not a valid accumulator state: tokenizer {name!r}")
    if name in ("ptb", "whitespace", "char"):
        return name

    def unavailable(captions: list[str]) -> Tokens:
        raise ValueError(
            f"this accumulator was restored from a state of tokenizer {name!r}, which a "
            "state cannot carry: pass it, from_state(state, tokenizer=...), to update it"
        )

    return Tokenizer(name, unavailable)


def compact(array: np.ndarray) -> np.ndarray:
    """Non-negative integers (counts, lengths) in the smallest unsigned type that holds them.

    Examples
    --------
    >>> compact(np.array([3, 200])).dtype.name, compact(np.array([-1, 5])).dtype.name
    ('uint8', 'int64')
    """
    if array.dtype.kind not in "iu" or array.size == 0 or array.min() < 0:
        return array
    return array.astype(smallest_uint(int(array.max())))


def _wide(array: np.ndarray) -> np.ndarray:
    return array.astype(np.int64) if array.dtype.kind == "u" else array


def state_part(state: Mapping, kind: str) -> dict:
    """A checked state as an internal part (token indices back to hashes, counts as int64)."""
    part = {name: _wide(np.asarray(state[name])) for name in ("ids", "candidates_per_image")}
    if kind == "tokens":
        vocabulary = state["vocabulary"]
        part.update(
            reference_hashes=unpack_tokens(vocabulary, state["reference_tokens"]),
            candidate_hashes=unpack_tokens(vocabulary, state["candidate_tokens"]),
            reference_lengths=state["reference_lengths"].astype(np.int64),
            candidate_lengths=state["candidate_lengths"].astype(np.int64),
            references_per_image=state["references_per_image"].astype(np.int64),
        )  # fmt: skip
    else:
        part.update({name: _wide(np.asarray(state[name])) for name in ARRAYS[kind]})
    return part


def empty_part(kind: str, n: int | None, metric: str) -> dict:
    n = n or 1
    part = {"ids": np.zeros(0, np.int64), "candidates_per_image": np.zeros(0, np.int64)}
    if kind == "tokens":
        for name in ("reference_hashes", "candidate_hashes"):
            part[name] = np.zeros(0, np.uint64)
        for name in ("reference_lengths", "references_per_image", "candidate_lengths"):
            part[name] = np.zeros(0, np.int64)
    elif kind == "values":
        part.update(per_order=np.zeros((0, n)), empty=np.zeros(0, bool))
    elif kind == "bleu":
        part.update({name: np.zeros(0, np.int64) for name in ("testlen", "reflen")})
        part.update({name: np.zeros((0, n), np.int64) for name in ("guess", "correct")})
    elif kind == "meteor":
        part["statistics"] = np.zeros((0, 23), np.int64)
    else:
        part.update(precision=np.zeros(0), recall=np.zeros(0))
    return part
