"""The word lists of the METEOR fuzz's mutators, read from the user's pycocoevalcap.

The jar ``meteor-1.5.jar`` is read as a zip (its function words, WordNet synsets and
irregular forms), and the paraphrase table ``paraphrase-en.gz`` beside it is streamed once,
keeping the entries of the phrases a fuzz asks for.  Nothing of them is stored in the
repository.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Words", "load_words", "read_paraphrases"]

_ALPHA = re.compile(r"[a-z]+")


@dataclass
class Words:
    """The word lists the mutators draw from.

    Attributes
    ----------
    function_words : tuple of str
        The jar's ``function/english.words``, in file order.
    synsets : dict
        Word -> its synset ids, for the single-token lower-case words of
        ``synonym/english.synsets`` (file order).
    members : dict
        Synset id -> its words (the same words).
    irregular : dict
        ``synonym/english.exceptions``: base form -> its irregular forms.
    base_of : dict
        Irregular form -> its base forms.
    paraphrases : dict
        Phrase -> the phrases a paraphrase-table entry pairs it with (table order);
        only the phrases the caller asked for (see :func:`read_paraphrases`).
    """

    function_words: tuple[str, ...]
    synsets: dict[str, tuple[str, ...]]
    members: dict[str, tuple[str, ...]]
    irregular: dict[str, tuple[str, ...]]
    base_of: dict[str, tuple[str, ...]]
    paraphrases: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_texts(cls, function_words: str, synsets: str, exceptions: str) -> Words:
        """Parse the three jar resources (word line, then synset-id / forms line)."""
        fw = tuple(w for w in function_words.split("\n") if w)
        lines = synsets.split("\n")
        syn: dict[str, tuple[str, ...]] = {}
        members: dict[str, list[str]] = {}
        for word, ids in zip(lines[0::2], lines[1::2], strict=False):
            if _ALPHA.fullmatch(word):  # one token as -norm leaves it (no _ or -)
                syn[word] = tuple(ids.split())
                for s in syn[word]:
                    members.setdefault(s, []).append(word)
        lines = exceptions.split("\n")
        irregular: dict[str, tuple[str, ...]] = {}
        base_of: dict[str, list[str]] = {}
        for base, forms in zip(lines[0::2], lines[1::2], strict=False):
            irregular[base] = tuple(forms.split())
            for f in irregular[base]:
                base_of.setdefault(f, []).append(base)
        return cls(
            fw,
            syn,
            {k: tuple(v) for k, v in members.items()},
            irregular,
            {k: tuple(v) for k, v in base_of.items()},
        )

    @property
    def function_set(self) -> frozenset[str]:
        return frozenset(self.function_words)


def load_words(needed_phrases: Iterable[str] = ()) -> Words:
    """The word lists of the installed pycocoevalcap (jar read as a zip).

    Parameters
    ----------
    needed_phrases : iterable of str
        Phrases whose paraphrase-table partners to keep (the whole table is
        5.27 million entries; a fuzz needs those of its captions only).
    """
    from sparsecider.metrics.meteor.data import locate, read_jar_text

    src = locate()
    words = Words.from_texts(
        read_jar_text(src.jar, "function/english.words"),
        read_jar_text(src.jar, "synonym/english.synsets"),
        read_jar_text(src.jar, "synonym/english.exceptions"),
    )
    needed = set(needed_phrases)
    if needed:
        words.paraphrases = read_paraphrases(src.paraphrase, needed)
    return words


def read_paraphrases(path: Path, needed: set[str]) -> dict[str, tuple[str, ...]]:
    """Partners of the ``needed`` phrases in ``paraphrase-en.gz`` (probability, phrase, phrase
    line triples), in table order, the phrase itself left out."""
    want = {p.encode() for p in needed}
    out: dict[bytes, list[bytes]] = {}
    carry: list[bytes] = []
    with gzip.open(path, "rb") as f:
        tail = b""
        while chunk := f.read(1 << 24):
            lines = (tail + chunk).split(b"\n")
            tail = lines.pop()
            carry.extend(lines)
            n = len(carry) - len(carry) % 3
            for i in range(1, n, 3):
                left = carry[i]
                if left in want and carry[i + 1] != left:
                    out.setdefault(left, []).append(carry[i + 1])
            del carry[:n]
    return {k.decode(): tuple(v.decode() for v in vs) for k, vs in out.items()}
