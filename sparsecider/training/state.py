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

from .._checks import describe_keys, type_name
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
        arrays of inconsistent lengths; the message names the field.
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
    return kind


def image_id_array(ids: object, n_images: int) -> np.ndarray:
    """Image ids as a plain array (integers, or strings), checked for repeats."""
    if isinstance(ids, str) or not hasattr(ids, "__len__"):
        raise TypeError(f"ids must be a list of image ids, got {type_name(ids)}")
    values = list(ids)
    if len(values) != n_images:
        raise ValueError(f"ids has {len(values)} entries for {n_images} images")
    if all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in values):
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
    else:
        part.update(precision=np.zeros(0), recall=np.zeros(0))
    return part
