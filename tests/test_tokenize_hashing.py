"""Whitespace splitting equals str.split; hashes follow the documented scheme."""

from __future__ import annotations

import sys
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sparsecider._kernels.counts import count_columns
from sparsecider._kernels.hashing import SCHEME, ngram_keys
from sparsecider.tokenizers.whitespace import (
    _IS_SPACE,
    _SPACE_LIMIT,
    _word_bytes,
    split_whitespace,
)

M64 = 2**64 - 1
G = 0x9E3779B97F4A7C15


def splitmix(z: int) -> int:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & M64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & M64
    return z ^ (z >> 31)


def token_hash(token: str) -> int:
    """The scheme of sparsecider._kernels.hashing's docstring, in plain Python integers."""
    data = token.encode("utf-8", "surrogatepass")
    h = len(data) * G & M64
    for j in range(0, len(data), 8):
        h = splitmix(h ^ int.from_bytes(data[j : j + 8], "little"))
    return h


def ngram_key(tokens: list[str]) -> int:
    key = token_hash(tokens[0])
    for tok in tokens[1:]:
        key = splitmix((key * G + token_hash(tok)) & M64)
    return key


WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
text = st.text(
    alphabet=st.one_of(
        st.sampled_from(WHITESPACE), st.characters(codec="utf-8"), st.sampled_from("ab")
    ),
    max_size=40,
)


def test_whitespace_table_covers_every_unicode_space():
    assert all(ord(c) < _SPACE_LIMIT for c in WHITESPACE)
    assert _IS_SPACE.sum() == len(WHITESPACE) and not _IS_SPACE[_SPACE_LIMIT]
    assert SCHEME == "utf8-splitmix64-v2"


def test_byte_whitespace_is_ascii_whitespace_only():
    # a byte is a space on its own only below 0x80; 0x85 and 0xA0 are the
    # code points of spaces, but as bytes they continue a wider character
    want = [not (c < 0x80 and chr(c).isspace()) for c in range(256)]
    assert _word_bytes(np.arange(256, dtype=np.uint8)).tolist() == want
    # block by block: control bytes only in some blocks of a long buffer
    plain = np.frombuffer(b"a b\t", dtype=np.uint8)
    long = np.tile(plain, 70_000)  # 280,000 bytes: five blocks
    long[200_001] = 3  # a control byte (a word byte) in the fourth block only
    expected = np.tile([True, False, True, False], 70_000)
    expected[200_001] = True
    assert (_word_bytes(long) == expected).all()


@settings(max_examples=300, deadline=None)
@given(st.lists(text, max_size=6))
def test_split_equals_str_split_and_hashes_follow_the_scheme(captions):
    tokens = split_whitespace(captions)
    expected = [c.split() for c in captions]
    assert tokens.lengths.tolist() == [len(t) for t in expected]
    want = [token_hash(t) for toks in expected for t in toks]
    assert tokens.hashes.tolist() == want


def test_lone_surrogates_and_astral_characters():
    caps = ["\ud800x y\U0001f415", "\U0001f415"]
    tokens = split_whitespace(caps)
    assert tokens.lengths.tolist() == [2, 1]
    assert tokens.hashes.tolist() == [
        token_hash("\ud800x"),
        token_hash("y\U0001f415"),
        token_hash("\U0001f415"),
    ]
    assert tokens.hashes[1] != tokens.hashes[2]


def test_control_bytes_and_wide_spaces_split_as_str_split():
    # every byte below 33 (whitespace or a control character that is not),
    # and every multi-byte whitespace character, next to multi-byte letters,
    # at caption edges and after non-ASCII text (byte offsets != characters)
    controls = "".join(chr(c) for c in range(33)) + "\x7f"
    wide = [c for c in WHITESPACE if ord(c) >= 0x80]
    captions = [
        "é" + controls + "ü",
        *(f"ü{c}x{c}\u00e9\u00a1{c}" for c in wide),
        "\x85\xa0Åàx",  # U+0085, U+00A0 are spaces; the bytes 0x85 of Å, 0xA0 of à are not
        "\u0100\u0120\u2080\u3000\u3001",  # lead/continuation bytes shaped like spaces
        "",
        "\ud800\u2028\U0001f415 z",
    ]
    tokens = split_whitespace(captions)
    expected = [c.split() for c in captions]
    assert tokens.lengths.tolist() == [len(t) for t in expected]
    assert tokens.hashes.tolist() == [token_hash(t) for toks in expected for t in toks]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a", "b", "cc", "ü"]), max_size=7), max_size=5),
    st.integers(1, 5),
)
def test_ngram_keys_follow_the_scheme(token_lists, n):
    tokens = split_whitespace([" ".join(t) for t in token_lists])
    for k, (keys, indptr) in enumerate(ngram_keys(tokens.hashes, tokens.lengths, n), start=1):
        want = [
            ngram_key(toks[i : i + k]) for toks in token_lists for i in range(len(toks) - k + 1)
        ]
        assert keys.tolist() == want
        assert np.diff(indptr).tolist() == [max(len(t) - k + 1, 0) for t in token_lists]


def _random_keys(case: str, rng) -> np.ndarray:
    if case == "clash":
        # 6,000 occurrences: the sort packs 13 position bits under each key's
        # top 51 bits, and these keys share those bits (they differ only in
        # the low 6): the runs must be re-sorted on the full key
        low = rng.integers(0, 50, 6000).astype(np.uint64)
        return (np.uint64(0xABCDE) << np.uint64(40)) | low
    n_distinct = {"one": 1, "few": 7, "many": 1000, "lots": 50_000}[case]
    distinct = rng.integers(0, 2**64 - 1, n_distinct, dtype=np.uint64, endpoint=True)
    return distinct[rng.integers(0, n_distinct, 3 * n_distinct)]


@pytest.mark.parametrize("case", ["one", "few", "many", "lots", "clash"])
def test_count_columns_counts_every_key_of_every_slot_exactly(case):
    rng = np.random.default_rng(len(case))
    keys = _random_keys(case, rng)
    cuts = np.sort(rng.integers(0, keys.shape[0] + 1, 40))
    indptr = np.concatenate(([0], cuts, [keys.shape[0]]))  # some slots empty
    counts, column_keys = count_columns(keys, indptr)
    np.testing.assert_array_equal(column_keys, np.unique(keys))
    dense = counts.toarray()
    expected = np.zeros_like(dense)
    for s in range(indptr.shape[0] - 1):  # the twin: a Counter per slot
        for key, c in Counter(keys[indptr[s] : indptr[s + 1]].tolist()).items():
            expected[s, np.searchsorted(column_keys, np.uint64(key))] = c
    np.testing.assert_array_equal(dense, expected)
    # canonical CSC: strictly increasing slots within each column, none empty
    for j in range(counts.shape[1]):
        rows = counts.indices[counts.indptr[j] : counts.indptr[j + 1]]
        assert rows.size and (np.diff(rows) > 0).all()


def test_count_columns_empty():
    counts, column_keys = count_columns(np.empty(0, dtype=np.uint64), np.zeros(3, dtype=np.int64))
    assert counts.shape == (2, 0) and column_keys.shape == (0,)
