"""Word typing on bytes (``wordtypes.Words.encode_texts``) against its string twin: the
captions split on single spaces and typed through a dict, a new word numbered on first
occurrence.  The twin is the obvious reading, so both must give the same type ids, caption
lengths and per-type features, whatever route the bytes take (odd captions, lone surrogates,
line breaks, and collisions of long words forced with a 2-bit hash)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip(
    "pycocoevalcap", reason="METEOR reads its data from pycocoevalcap (the `ref` extra)"
)
pytest.importorskip(
    "snowballstemmer", reason="METEOR needs snowballstemmer==2.2.0 (the `meteor` extra)"
)

from sparsecider.metrics.meteor import wordtypes
from sparsecider.metrics.meteor.resources import load
from sparsecider.metrics.meteor.wordtypes import Words

CHUNKS = [
    ["a man riding a horse .", "two dogs play in the snow", "a man riding a bicycle"],
    ["", "a b", "", "naïve café", "straße", "a man"],
    ["supercalifragilistic word", "supercalifragilistic", "supercalifragilistix word"],
    ["eight888 eight888x eight88", "eight888"],
    [" leading space", "trailing space ", "two  spaces"],  # empty tokens: string route
    ["a line\nbreak", "break"],  # a line break inside a caption: string route
    ["lone \ud800 surrogate", "surrogate"],  # no UTF-8 form: string route
    ["", ""],
    [],
    ["a man riding a horse .", "caf\u00e9 na\u00efve"],
]


def _twin(ids: dict, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    flat = [t for text in texts if text for t in text.split(" ")]
    lens = np.array([len(text.split(" ")) if text else 0 for text in texts], dtype=np.int64)
    return np.array([ids.setdefault(t, len(ids)) for t in flat], dtype=np.int64), lens


@pytest.fixture(scope="module")
def res():
    return load()


def _check_all(res, chunks):
    words, ids = Words(res), {}
    for texts in chunks:
        tok, lens = words.encode_texts(texts)
        want_tok, want_lens = _twin(ids, texts)
        assert tok.tolist() == want_tok.tolist(), texts
        assert lens.tolist() == want_lens.tolist(), texts
    assert dict(words.ids) == ids
    # the features of type k are those of word k
    by_strings = Words(res)
    by_strings.encode(list(ids))
    for name, array in words.arrays().items():
        assert np.array_equal(array, by_strings.arrays()[name]), name


def test_bytes_route_types_as_its_string_twin(res, monkeypatch):
    by_strings = []
    real = Words.encode
    monkeypatch.setattr(
        Words, "encode", lambda self, flat: by_strings.append(flat) or real(self, flat)
    )
    _check_all(res, CHUNKS)
    # only the three odd chunks went by their strings (and _check_all's own twin)
    assert len(by_strings) == 4


# Five words of 10 bytes over two chunks: with 2 bits of hash, two of them collide (four
# values), either two new ones or a new one and a known type.  First in a run: a known type
# of another length on the same hash would send the chunk by its strings.
LONG_TWINS = [["abcdefghi1"], ["abcdefghi2 abcdefghi3 abcdefghi1 abcdefghi4 abcdefghi5"]]


def test_a_hash_collision_never_merges_two_words(res, monkeypatch):
    real = wordtypes.hash_byte_tokens

    def two_bits(data, start, length):
        # 2 bits of hash for tokens over 8 bytes, which are compared byte for byte: nearly
        # every pair of them collides.  Up to 8 bytes an equal hash and length prove equal
        # bytes (the full hash is a bijection there), so those keep their hash.
        h = real(data, start, length)
        h[length > 8] &= np.uint64(3)
        return h

    monkeypatch.setattr(wordtypes, "hash_byte_tokens", two_bits)
    _check_all(res, LONG_TWINS + CHUNKS + CHUNKS[::-1])


def test_equal_bytes_compares_every_byte():
    data = np.frombuffer(b"abcdefghijXabcdefghijYabcdefghi" + bytes(8), dtype=np.uint8)
    same = wordtypes._equal_bytes(
        data, np.array([0, 0, 0]), data, np.array([11, 11, 0]), np.array([10, 11, 22])
    )
    assert same.tolist() == [True, False, True]
