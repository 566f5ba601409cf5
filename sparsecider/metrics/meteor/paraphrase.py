"""The paraphrase table as a compact index of numpy arrays.

``paraphrase-en.gz`` holds 5.27 million (probability, phrase 1, phrase 2)
records over 2.6 million distinct phrases of at most 7 words.  Held as
Python objects it takes 1.85 GB; here a phrase is a row of word ids
(``uint16``/``uint32``, 0 pads), found through a sorted 64-bit hash of that
row and then compared word for word, so a hash collision can never make a
false match.  The entries are a CSR adjacency over phrase ids, in table order.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from .data import REINSTALL_HINT, MeteorDataError

__all__ = ["MAX_PHRASE", "ParaphraseIndex", "build_arrays", "phrase_filter", "phrase_hash"]

MAX_PHRASE = 7
#: Hash buckets of the phrase lookup: 2**21 for 2.6 million phrases, about one each.
BUCKET_BITS = 21
#: Bits of the phrase filter (:func:`phrase_filter`).
FILTER_BITS = 24
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SEED = np.uint64(0x9E3779B97F4A7C15)
# Bits of a phrase id in the packed occurrences of :meth:`ParaphraseIndex.find` (2.6 million
# phrases need 22): with 3 bits of length, 2**38 token positions fit in an int64.
_PID_BITS = 25


def phrase_hash(rows: np.ndarray) -> np.ndarray:
    """64-bit hash of each row of word ids: a splitmix64 chain over its words (0 pads skipped).

    Chaining word by word lets :meth:`ParaphraseIndex.find` hash a window of length L from the
    hash of its first L - 1 words with one more step.

    Parameters
    ----------
    rows : ndarray of shape (n, MAX_PHRASE), unsigned integer

    Returns
    -------
    ndarray of shape (n,), uint64
    """
    h = np.full(rows.shape[0], _SEED, dtype=np.uint64)
    for j in range(rows.shape[1]):
        live = np.flatnonzero(rows[:, j])
        h[live] = _step(h[live], rows[live, j])
    return h


def _step(h: np.ndarray, word: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        h = h ^ word.astype(np.uint64)
        h += _SEED
        h ^= h >> np.uint64(30)
        h *= _M1
        h ^= h >> np.uint64(27)
        h *= _M2
        h ^= h >> np.uint64(31)
    return h


def _records(path: Path, progress: Callable[[int], None] | None) -> Iterator[list[bytes]]:
    """Lines of the gzip file in chunks (the last line of a chunk may continue)."""
    with open(path, "rb") as raw, gzip.GzipFile(fileobj=raw) as f:
        carry = b""
        while chunk := f.read(1 << 24):
            lines = (carry + chunk).split(b"\n")
            carry = lines.pop()
            if progress is not None:
                progress(raw.tell())
            yield lines
        if carry:
            yield [carry]


def build_arrays(
    path: Path, stem: Callable[[str], str], progress: Callable[[int], None] | None = None
) -> dict[str, np.ndarray]:
    """Read ``paraphrase-en.gz`` into the arrays of :class:`ParaphraseIndex`.

    Parameters
    ----------
    path : Path
        The gzip file.
    stem : callable
        The Snowball English stemmer's ``stemWord``: the stems of the table's words are kept.
    progress : callable, optional
        Called with the compressed bytes read so far.

    Raises
    ------
    MeteorDataError
        The file is truncated, damaged or not a paraphrase table.
    """
    phrase_id: dict[bytes, int] = {}
    left, right = [], []
    pending: list[bytes] = []
    try:
        for lines in _records(path, progress):
            pending.extend(lines)
            n = len(pending) - len(pending) % 3
            for i in range(0, n, 3):
                float(pending[i])  # a probability: checked, not kept
                left.append(phrase_id.setdefault(pending[i + 1], len(phrase_id)))
                right.append(phrase_id.setdefault(pending[i + 2], len(phrase_id)))
            del pending[:n]
    except (OSError, EOFError, zlib.error, ValueError) as e:
        raise MeteorDataError(
            f"{path} is damaged or truncated ({type(e).__name__}: {e}); {REINSTALL_HINT}"
        ) from e
    if pending or not left:
        raise MeteorDataError(
            f"{path} does not hold (probability, phrase, phrase) line triples; {REINSTALL_HINT}"
        )
    vocab: dict[bytes, int] = {}
    phrases = list(phrase_id)
    del phrase_id
    rows = np.zeros((len(phrases), MAX_PHRASE), dtype=np.uint32)
    for i, p in enumerate(phrases):
        words = p.split(b" ")
        if len(words) > MAX_PHRASE or b"" in words:
            raise MeteorDataError(
                f"{path}: phrase {p!r} is not 1 to {MAX_PHRASE} single-spaced words"
            )
        rows[i, : len(words)] = [vocab.setdefault(w, len(vocab) + 1) for w in words]
    del phrases
    dtype = np.uint16 if len(vocab) < 65535 else np.uint32
    hashes = phrase_hash(rows)
    order = np.argsort(hashes, kind="stable")
    hashes = hashes[order]
    if np.any(hashes[1:] == hashes[:-1]):  # would make a lookup ambiguous; never seen
        raise MeteorDataError(f"{path}: two phrases share a 64-bit hash; please report this")
    new_id = np.empty_like(order)
    new_id[order] = np.arange(order.size)
    left_a = new_id[np.asarray(left, dtype=np.int64)]
    right_a = new_id[np.asarray(right, dtype=np.int64)]
    out = {
        "vocab": np.frombuffer(b"\n".join(vocab), dtype=np.uint8),
        # Snowball stems of the table's words, computed once here rather than in every process.
        "stems": np.frombuffer(
            "\n".join(stem(w.decode("utf-8")) for w in vocab).encode("utf-8"), dtype=np.uint8
        ),
        "phrase_hash": hashes,
        "phrase_rows": rows[order].astype(dtype),
    }
    # Entries grouped by their first phrase, in table order.  The probabilities are not kept: the
    # jar matches every entry whatever its probability (specification 5.4).
    by = np.argsort(left_a, kind="stable")
    out["fwd_indptr"] = np.searchsorted(left_a[by], np.arange(order.size + 1)).astype(np.int64)
    out["fwd_partner"] = right_a[by].astype(np.uint32)
    # The same entries grouped by their second phrase: the phrases an entry pairs *with* a phrase.
    by = np.argsort(right_a, kind="stable")
    out["bwd_indptr"] = np.searchsorted(right_a[by], np.arange(order.size + 1)).astype(np.int64)
    out["bwd_partner"] = left_a[by].astype(np.uint32)
    out["bucket_off"] = bucket_offsets(hashes)
    out["filter"] = phrase_filter(hashes)
    out["prefix_filter"] = prefix_filter(out["phrase_rows"])
    return out


def prefix_filter(rows: np.ndarray) -> np.ndarray:
    """The bit set of :func:`phrase_filter` for the proper prefixes of the phrases (their first
    1 to length - 1 words): a window of a caption that is no such prefix cannot grow into a
    phrase, so :meth:`ParaphraseIndex.find` stops extending it."""
    h = np.full(rows.shape[0], _SEED, dtype=np.uint64)
    seen = np.zeros(1 << FILTER_BITS, dtype=bool)
    for j in range(rows.shape[1] - 1):
        live = np.flatnonzero(rows[:, j + 1])  # the phrase goes on after word j
        h[live] = _step(h[live], rows[live, j])
        seen[(h[live] >> np.uint64(64 - FILTER_BITS)).astype(np.int64)] = True
    return np.packbits(seen, bitorder="little")


def phrase_filter(hashes: np.ndarray) -> np.ndarray:
    """A bit set (2 MB, little-endian bits) of the hashes' top :data:`FILTER_BITS` bits.

    Most windows of a caption are not phrases, and this rejects 85 % of them with one access
    to memory that stays in cache.
    """
    seen = np.zeros(1 << FILTER_BITS, dtype=bool)
    seen[(hashes >> np.uint64(64 - FILTER_BITS)).astype(np.int64)] = True
    return np.packbits(seen, bitorder="little")


def bucket_offsets(hashes: np.ndarray) -> np.ndarray:
    """Where each hash bucket (top :data:`BUCKET_BITS` bits) starts in the sorted hashes."""
    counts = np.bincount(
        (hashes >> np.uint64(64 - BUCKET_BITS)).astype(np.int64), minlength=1 << BUCKET_BITS
    )
    off = np.zeros((1 << BUCKET_BITS) + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    return off


class ParaphraseIndex:
    """Look phrases up in the paraphrase table.

    Parameters
    ----------
    arrays : dict of ndarray
        As made by :func:`build_arrays` (validated by the cache loader).
    """

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays
        words = arrays["vocab"].tobytes().decode("utf-8").split("\n")
        self.vocab = {w: i + 1 for i, w in enumerate(words)}
        stems = arrays["stems"].tobytes().decode("utf-8").split("\n")
        #: word -> Snowball stem, for the table's words (:class:`~.matchers.Lexicon` starts with it)
        self.stems = dict(zip(words, stems, strict=True))
        self.hashes = arrays["phrase_hash"]
        self.rows = arrays["phrase_rows"]
        self._indptr = arrays["fwd_indptr"]
        self._partner = arrays["fwd_partner"]
        self._partners: dict[int, list[int]] = {}
        self._buckets = arrays["bucket_off"]
        self._filter = arrays["filter"]
        self._prefixes = arrays["prefix_filter"]
        if self.hashes.size >= 1 << _PID_BITS:
            raise MeteorDataError(
                f"the paraphrase table has {self.hashes.size:,} phrases, more than "
                f"{1 << _PID_BITS:,}; it is not METEOR 1.5's: {REINSTALL_HINT}"
            )
        self._first_word_tables()

    def _first_word_tables(self) -> None:
        """Per word id, the first step of :meth:`find` done once here (43,000 words) instead of
        once per caption token: the hash of the one-word window, the one-word phrase it is (-1:
        none) and whether it is the proper prefix of some phrase."""
        ids = np.arange(len(self.vocab) + 1, dtype=np.int64)
        h = _step(np.full(ids.size, _SEED, dtype=np.uint64), ids)
        at, hit = self._lookup(h)
        hit &= (self.rows[at, 0] == ids) & (self.rows[at, 1] == 0)
        self._one_hash = h
        self._one_pid = np.where(hit, at, -1)
        self._one_grows = np.zeros(ids.size, dtype=bool)
        self._one_grows[self._maybe(self._prefixes, h)] = True

    def partners(self, pid: int) -> list[int]:
        """Phrase ids q with a table entry (pid, q), one per entry (memoised)."""
        out = self._partners.get(pid)
        if out is None:
            out = self._partners[pid] = self._partner[
                self._indptr[pid] : self._indptr[pid + 1]
            ].tolist()
        return out

    def word_ids(self, tokens: list[str]) -> np.ndarray:
        """Word ids of tokens (0 for a word no phrase contains)."""
        get = self.vocab.get
        return np.fromiter((get(t, 0) for t in tokens), dtype=np.int64, count=len(tokens))

    @staticmethod
    def _maybe(bits: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Where the hashes' top bits are set in a filter (:func:`phrase_filter`)."""
        f = (h >> np.uint64(64 - FILTER_BITS)).astype(np.int64)
        # 0/1 bytes read as bools: numpy's nonzero is several times faster on bools
        return np.flatnonzero(((bits[f >> 3] >> (f & 7).astype(np.uint8)) & 1).view(bool))

    def _lookup(
        self, h: np.ndarray, maybe: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Index of each hash in the sorted table, and whether it is there (``maybe``: where
        the phrase filter holds the hashes, when known)."""
        if maybe is None:
            maybe = self._maybe(self._filter, h)
        at = np.zeros(h.size, dtype=np.int64)
        hit = np.zeros(h.size, dtype=bool)
        at[maybe], hit[maybe] = self._lookup_all(h[maybe])
        return at, hit

    def _lookup_all(self, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        b = (h >> np.uint64(64 - BUCKET_BITS)).astype(np.int64)
        at = self._buckets[b]
        end = self._buckets[b + 1]
        # A bucket holds about one hash: step through it (a few passes at most).  compress, not
        # a boolean index: numpy's boolean indexing is ~5x slower on masks near half full.
        live = np.flatnonzero(at < end)
        while live.size:
            live = live.compress(self.hashes[at[live]] < h[live])
            at[live] += 1
            live = live.compress(at[live] < end[live])
        hit = at < end
        i = np.flatnonzero(hit)
        hit[i] = self.hashes[at[i]] == h[i]
        return at, hit

    def find(self, ids: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every phrase of the table occurring in a run of captions.

        Parameters
        ----------
        ids : ndarray of shape (n_tokens,)
            Word ids of all captions, concatenated (:meth:`word_ids`).
        ends : ndarray of shape (n_tokens,)
            For each token, the index one past the last token of its caption.

        Returns
        -------
        starts, lengths, phrase_ids : ndarray
            One entry per occurrence, ordered by start then length.
        """
        ids = ids.astype(np.int64, copy=False)
        # How many words from each token on are known and in its caption: a window of length L
        # starting there can be a phrase only if that is at least L.
        unknown = np.append(np.flatnonzero(ids <= 0), ids.size)
        # the next unknown word at or after each token (the blocks between unknown words)
        stop = np.repeat(unknown, np.diff(unknown, prepend=-1))[: ids.size]
        run = np.minimum(stop, ends) - np.arange(ids.size)
        # Windows still alive (start, and hash of their words so far), one-word windows from
        # the per-word tables (the same steps as below, done at load).
        alive = np.flatnonzero(run > 0)
        first = ids[alive]
        pid = self._one_pid[first]
        one = np.flatnonzero(pid >= 0)
        found = [(((alive[one] << 3) + 1) << _PID_BITS) + pid[one]]
        grows = np.flatnonzero(self._one_grows[first])
        alive, h = alive[grows], self._one_hash[first[grows]]
        for length in range(2, MAX_PHRASE + 1):
            j = length - 1
            ok = np.flatnonzero(run[alive] > j)  # indexes: one nonzero for both arrays
            alive, h = alive[ok], h[ok]
            if alive.size == 0:
                break
            h = _step(h, ids[alive + j])
            # one bit address for both filters (phrase, proper prefix)
            f = (h >> np.uint64(64 - FILTER_BITS)).astype(np.int64)
            byte, bit = f >> 3, (f & 7).astype(np.uint8)
            maybe = np.flatnonzero(((self._filter[byte] >> bit) & 1).view(bool))
            # only the windows the filter passes are looked up (no scatter back to all)
            at, hit = self._lookup_all(h[maybe])
            hit = np.flatnonzero(hit)
            at, st = at[hit], alive[maybe[hit]]
            # Compare word by word: a hash collision can never make a false match.
            same = self.rows[at, length] == 0 if length < MAX_PHRASE else np.ones(at.size, bool)
            for d in range(length):
                same &= self.rows[at, d] == ids[st + d]
            same = np.flatnonzero(same)
            found.append((((st[same] << 3) + length) << _PID_BITS) + at[same])
            if length < MAX_PHRASE:  # only a phrase's proper prefix can grow into a phrase
                grows = np.flatnonzero(((self._prefixes[byte] >> bit) & 1).view(bool))
                alive, h = alive[grows], h[grows]
        # (start, length, phrase id) packed in one integer each: sorting the integers orders
        # by start then length (each list is sorted already: the stable sort merges them).
        key = np.sort(np.concatenate(found), kind="stable")
        pids = key & ((1 << _PID_BITS) - 1)
        key >>= _PID_BITS
        return key >> 3, key & 7, pids
