"""The word types of one scoring run: every token's type id, and what matching needs of each type.

Captions are split and typed on their UTF-8 bytes: each token's 64-bit hash
(:func:`~sparsecider._kernels.hashing.hash_byte_tokens`) is looked up in an open-addressing
table of the run's types, and only the distinct new tokens become Python strings (to be
stemmed and looked up in WordNet).  No hash collision can merge two words: every token is
checked against its type (see :meth:`Words._verified`), and a chunk that fails the check is
typed by its strings instead.
"""

from __future__ import annotations

from itertools import chain, count, repeat

import numpy as np

from ..._kernels.hashing import hash_byte_tokens
from .resources import Resources

__all__ = ["Words"]

# _LOW[m]: a mask of the low m bytes of a 64-bit word
_LOW = np.array([(1 << (8 * m)) - 1 for m in range(9)], dtype=np.uint64)
_SPACE, _BREAK = 32, 10


class _Ids(dict):
    """Key -> id; a key not seen yet gets the next id and is noted in ``new``."""

    new: list

    def __init__(self) -> None:
        super().__init__()
        self.new = []

    def __missing__(self, key: str) -> int:
        k = self[key] = len(self)
        self.new.append(key)
        return k


def _words64(buffer: np.ndarray) -> np.ndarray:
    """Overlapping little-endian 64-bit words of a byte buffer: word i is bytes i .. i + 7
    (the buffer ends with 7 padding bytes at least)."""
    return np.ndarray(shape=(buffer.size - 7,), dtype="<u8", buffer=buffer, strides=(1,))


def _equal_bytes(
    a: np.ndarray, a_start: np.ndarray, b: np.ndarray, b_start: np.ndarray, length: np.ndarray
) -> np.ndarray:
    """Whether ``a[a_start[i]:][:length[i]] == b[b_start[i]:][:length[i]]``, for every i
    (both buffers padded as :func:`_words64` needs)."""
    wa, wb = _words64(a), _words64(b)
    ok = np.ones(length.size, dtype=bool)
    live = np.arange(length.size)
    step = 0
    while live.size:
        left = np.minimum(length[live] - step, 8)
        diff = (wa[a_start[live] + step] ^ wb[b_start[live] + step]) & _LOW[left]
        ok[live[diff != 0]] = False
        step += 8
        live = live[length[live] > step]
    return ok


def _same_tokens(
    a: np.ndarray,
    a_start: np.ndarray,
    a_len: np.ndarray,
    b: np.ndarray,
    b_start: np.ndarray,
    b_len: np.ndarray,
) -> bool:
    """Whether every token i of buffer ``a`` equals token i of buffer ``b``, for tokens with
    equal hashes: their lengths must be equal, which up to 8 bytes proves equal bytes (see
    :meth:`Words._verified`); longer tokens are compared byte for byte."""
    if not np.array_equal(a_len, b_len):
        return False
    long = np.flatnonzero(a_len > 8)
    return bool(_equal_bytes(a, a_start[long], b, b_start[long], a_len[long]).all())


class Words:
    """The word types met by one scoring run, with what matching needs of each, looked up once.

    Type ids are global to the run (numbered in order of first occurrence), so later chunks
    only look up their new words.

    Parameters
    ----------
    res : Resources
    """

    def __init__(self, res: Resources) -> None:
        self._res = res
        self.ids = _Ids()
        # Stem and synset ids: dict.setdefault with a counter gives a key met before its id and
        # a new key the next count, at C speed.  Counts used by keys met before are skipped:
        # the ids are distinct, not consecutive (they are only compared), below the number of
        # new words (stems) and of their synsets (WordNet has 117,374 synsets in 147,306 words).
        # Synsets are keyed as :meth:`_synset_numbers` reads them.
        self._stem_ids: dict[str, int] = {}
        self._synset_ids: dict[int | str, int] = {}
        self._stem_count, self._synset_count = count(), count()
        z = np.zeros(0, dtype=np.int64)
        self._arrays = {
            "stem": z,
            "func": np.zeros(0, dtype=bool),
            "pword": z,
            "syn_off": np.zeros(1, dtype=np.int64),
            "syn": z,
        }
        # The hash table: slot -> (hash, type id), -1 for a free slot; at most a quarter full.
        self._bits = 12
        self._slot_hash = np.zeros(1 << self._bits, dtype=np.uint64)
        self._slot_type = np.full(1 << self._bits, -1, dtype=np.int64)
        # Per type: its hash, its length in bytes and, for types longer than 8 bytes (whose hash
        # alone does not prove equality), where its bytes are in _long.
        self._hash = np.zeros(0, dtype=np.uint64)
        self._len = z
        self._long_at = z
        self._long = np.zeros(8, dtype=np.uint8)

    def encode_texts(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Type ids of the tokens of normalised captions (split on single spaces), and the
        number of tokens of each caption; new words get their features now."""
        got = self._by_hash(texts)
        if got is None:  # a line break in a caption, an empty token or a hash collision
            lens = np.fromiter(map(str.count, texts, repeat(" ")), np.int64, len(texts)) + 1
            lens[np.fromiter(map(len, texts), np.int64, len(texts)) == 0] = 0
            flat = " ".join(filter(None, texts)).split(" ") if lens.any() else []
            return self.encode(flat), lens
        return got

    def encode(self, flat: list[str]) -> np.ndarray:
        """Type ids of tokens (new words get their features now)."""
        ids = self.ids
        ids.new = []
        # one pass over the tokens: a new word gets the next id (_Ids.__missing__)
        out = np.fromiter(map(ids.__getitem__, flat), np.int64, len(flat))
        if ids.new:
            new = ids.new
            # their bytes as the hash route reads them (a lone surrogate as its 3 bytes: no
            # UTF-8 text has those)
            raw = [w.encode("utf-8", "surrogatepass") for w in new]
            length = np.fromiter(map(len, raw), np.int64, len(raw))
            data = np.frombuffer(b"".join(raw) + bytes(8), dtype=np.uint8)
            self._new_types(data, np.cumsum(length) - length, length)
            self._add(new)
        return out

    def _by_hash(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`encode_texts` on the captions' bytes; None when this route cannot decide."""
        n = len(texts)
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        try:
            raw = ("\n".join(texts) + "\n").encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return None
        data = np.frombuffer(raw + bytes(8), dtype=np.uint8)
        sep = np.flatnonzero((data == _SPACE) | (data == _BREAK))
        brk = data[sep] == _BREAK
        if np.count_nonzero(brk) != n:
            return None
        start = np.empty_like(sep)
        start[0] = 0
        start[1:] = sep[:-1] + 1
        length = sep - start
        # An empty caption is an empty piece between line breaks: no token.
        empty = length == 0
        if empty.any():
            empty &= brk & np.r_[True, brk[:-1]]
            if np.count_nonzero(length == 0) != np.count_nonzero(empty):
                return None  # an empty token inside a caption
        lens = np.diff(np.flatnonzero(brk), prepend=-1) - empty.compress(brk)
        if empty.any():
            start, length = start[~empty], length[~empty]
        h = hash_byte_tokens(data, start, length)
        tok = self._find(h)
        known = np.flatnonzero(tok >= 0)
        if known.size == tok.size:  # every word seen before (later chunks, mostly): no gathers
            ok = self._verified(data, start, length, tok)
        else:
            ok = self._verified(data, start[known], length[known], tok[known])
        if not ok:
            return None
        miss = np.flatnonzero(tok < 0)
        if miss.size:
            uniq, first, inv = np.unique(h[miss], return_index=True, return_inverse=True)
            rep = miss[first][inv]  # the group's first token
            if not _same_tokens(data, start[miss], length[miss], data, start[rep], length[rep]):
                return None  # two words share a hash: typed by their strings
            # new ids in order of first occurrence, as the string route numbers them
            order = np.argsort(first, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            tok[miss] = self._hash.size + rank[inv]
            heads = miss[first[order]]
            s, e = start[heads], start[heads] + length[heads]
            new = [raw[a:b].decode("utf-8") for a, b in zip(s.tolist(), e.tolist(), strict=True)]
            # the string route's table stays complete
            self.ids.update(zip(new, tok[heads].tolist(), strict=True))
            self._new_types(data, s, length[heads], uniq[order])
            self._add(new)
        return tok, lens

    def _home(self, h: np.ndarray) -> tuple[np.ndarray, int]:
        """Each hash's home slot in the table (its top bits), and the mask of slot numbers."""
        return (h >> np.uint64(64 - self._bits)).astype(np.int64), (1 << self._bits) - 1

    def _find(self, h: np.ndarray) -> np.ndarray:
        """The type id of each hash in the table, -1 where absent."""
        pos, mask = self._home(h)
        occupant = self._slot_type[pos]
        tok = np.where(self._slot_hash[pos] == h, occupant, -1)  # a free slot holds -1
        # another hash in the slot: linear probing (few, the table being a quarter full at most)
        live = np.flatnonzero((tok < 0) & (occupant >= 0))
        while live.size:
            pos[live] = (pos[live] + 1) & mask
            p = pos[live]
            occupant = self._slot_type[p]
            tok[live] = np.where(self._slot_hash[p] == h[live], occupant, -1)
            live = live[(tok[live] < 0) & (occupant >= 0)]
        return tok

    def _verified(
        self, data: np.ndarray, start: np.ndarray, length: np.ndarray, tok: np.ndarray
    ) -> bool:
        """Whether each token equals its type (found by hash).

        Up to 8 bytes, a token's hash is the SplitMix64 finaliser, a bijection, of its length
        times a constant XOR its bytes: an equal hash and an equal length prove equal bytes.
        Longer tokens are compared byte for byte with their type.
        """
        return _same_tokens(data, start, length, self._long, self._long_at[tok], self._len[tok])

    def _new_types(
        self,
        data: np.ndarray,
        start: np.ndarray,
        length: np.ndarray,
        h: np.ndarray | None = None,
    ) -> None:
        """Record new types (in id order): hash, length, bytes of the long ones; table slots."""
        if h is None:
            h = hash_byte_tokens(data, start, length)
        first = self._hash.size
        self._hash = np.concatenate([self._hash, h])
        self._len = np.concatenate([self._len, length])
        at = np.full(length.size, -1, dtype=np.int64)
        long = np.flatnonzero(length > 8)
        if long.size:
            body = b"".join(
                data[a : a + n].tobytes()
                for a, n in zip(start[long].tolist(), length[long].tolist(), strict=True)
            )
            at[long] = self._long.size - 8 + np.r_[0, np.cumsum(length[long])[:-1]]
            self._long = np.concatenate(
                [self._long[:-8], np.frombuffer(body, np.uint8), np.zeros(8, np.uint8)]
            )
        self._long_at = np.concatenate([self._long_at, at])
        if self._hash.size * 4 > 1 << self._bits:
            while self._hash.size * 4 > 1 << self._bits:
                self._bits += 1
            self._slot_hash = np.zeros(1 << self._bits, dtype=np.uint64)
            self._slot_type = np.full(1 << self._bits, -1, dtype=np.int64)
            self._insert(self._hash, np.arange(self._hash.size))
        else:
            self._insert(h, np.arange(first, self._hash.size))

    def _insert(self, h: np.ndarray, ids: np.ndarray) -> None:
        """Put types in the table (linear probing); a hash already there keeps its first type
        (a token of the other then fails :meth:`_verified` and goes by its string)."""
        pos, mask = self._home(h)
        live = np.arange(h.size)
        while live.size:
            p = pos[live]
            occupant = self._slot_type[p]
            taken = (occupant >= 0) & (self._slot_hash[p] == h[live])
            free = np.flatnonzero(occupant < 0)
            # the first type (lowest id) aiming at a free slot takes it
            slots, first = np.unique(p[free], return_index=True)
            won = live[free[first]]
            self._slot_hash[slots] = h[won]
            self._slot_type[slots] = ids[won]
            done = taken
            done[free[first]] = True
            stay = ~done
            busy = stay & (occupant >= 0)
            pos[live[busy]] = (p[busy] + 1) & mask
            live = live[stay]

    def _add(self, new: list[str]) -> None:
        res = self._res
        lex, fw, vocab = res.lexicon, res.function_words, res.paraphrases.vocab
        n = len(new)
        # Each a pass at C speed over the new words.
        stem = np.fromiter(
            map(self._stem_ids.setdefault, lex.stems(new), self._stem_count), np.int64, n
        )
        n_syn, syn_a = self._synset_numbers(lex.synset_lines(new))
        a = self._arrays
        local = np.zeros(n_syn.size + 1, dtype=np.int64)
        np.cumsum(n_syn, out=local[1:])
        self._arrays = {
            "stem": np.concatenate([a["stem"], stem]),
            "func": np.concatenate([a["func"], np.fromiter(map(fw.__contains__, new), bool, n)]),
            "pword": np.concatenate(
                [a["pword"], np.fromiter(map(vocab.get, new, repeat(0)), np.int64, n)]
            ),
            "syn_off": np.concatenate([a["syn_off"], a["syn_off"][-1] + local[1:]]),
            "syn": np.concatenate([a["syn"], syn_a]),
        }

    def _synset_numbers(self, lines: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per word (``lines``: :meth:`~.matchers.Lexicon.synset_lines`), how many synset ids
        it has, and their numbers, word by word (an id repeated across a word's forms is kept
        twice: the synonym pairs' sparse product sums, so its pattern is the same).

        WordNet's ids are 8 digits: read on the bytes of all lines at once, each id as the
        64-bit word of its digit values (equal ids, equal words, and back), then numbered by
        ``dict.setdefault`` (integer keys: no string per id); any other id (not in the jar's
        data) is keyed by its string, the 8-digit ones by the same word.
        """
        n = len(lines)
        text = " ".join(filter(None, lines))
        k = (np.fromiter(map(len, lines), np.int64, n) + 1) // 9  # ids of a line if 8-digit
        data = np.frombuffer((text + " ").encode("utf-8", "surrogatepass"), dtype=np.uint8)
        cells = data.reshape(-1, 9) if text and data.size == 9 * int(k.sum()) else None
        if cells is not None and (cells[:, 8] == _SPACE).all() and (cells[:, :8] - 48 < 10).all():
            keys = (cells[:, :8] - np.uint8(48)).copy().view("<u8").ravel().tolist()
        else:  # not the jar's ids (or none): by their strings
            ids = [line.split() for line in lines]
            k = np.fromiter(map(len, ids), np.int64, n)
            keys = list(map(_synset_key, chain.from_iterable(ids)))
        numbers = map(self._synset_ids.setdefault, keys, self._synset_count)
        return k, np.fromiter(numbers, np.int64, len(keys))

    def arrays(self) -> dict[str, np.ndarray]:
        """Per-type ``stem``, ``func``, ``pword``, ``syn_off`` and synset ids ``syn``."""
        return self._arrays


def _synset_key(s: str) -> int | str:
    """A synset id's key in :meth:`Words._synset_numbers`: the 64-bit word of an 8-digit id's
    digit values (as read on the bytes), any other id itself."""
    if len(s) == 8 and s.isascii() and s.isdigit():
        return int.from_bytes(bytes(ord(c) - 48 for c in s), "little")
    return s
