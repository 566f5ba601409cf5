"""Everything METEOR reads, loaded once per process.

:func:`load` finds pycocoevalcap, checksums its METEOR files while it reads the
word lists from the jar, and loads (or builds, the first time) the paraphrase
index.  The result is memoised: later calls cost nothing.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .cache import load_cached, load_or_build
from .data import Sources, locate, read_jar_text
from .matchers import STEMMER_VERSION, Lexicon, check_stemmer
from .normalize import Prefixes
from .paraphrase import ParaphraseIndex

__all__ = ["Resources", "load"]

_LOCK = threading.Lock()
_LOADED: dict[Sources, Resources] = {}


@dataclass(frozen=True)
class Resources:
    """METEOR 1.5's English model as read from pycocoevalcap.

    Attributes
    ----------
    sources : Sources
    checksums : dict
        SHA-256 of the jar and of the paraphrase table.
    function_words : frozenset of str
    prefixes : Prefixes
    lexicon : Lexicon
    paraphrases : ParaphraseIndex
    stemmer_version : str
    """

    sources: Sources
    checksums: dict
    function_words: frozenset
    prefixes: Prefixes
    lexicon: Lexicon
    paraphrases: ParaphraseIndex
    stemmer_version: str = STEMMER_VERSION

    def __hash__(self) -> int:
        return hash(self.sources)


def _checked_arrays(sources: Sources) -> tuple[dict, dict | None]:
    """The files' checksums and the cached paraphrase arrays, checked (None: not cached or
    unusable; nothing is built here, so a damaged jar is still refused before a build)."""
    checksums = sources.checksums()
    return checksums, load_cached(checksums)


def load(sources: Sources | None = None) -> Resources:
    """Load METEOR's data (memoised per source location).

    Parameters
    ----------
    sources : Sources, optional
        Defaults to the installed pycocoevalcap (:func:`~.data.locate`).

    Raises
    ------
    MeteorDataError
        pycocoevalcap is missing or its files are damaged.
    ImportError
        snowballstemmer 2.2.0 is missing.
    """
    check_stemmer()  # fail early, before any slow work, when the stemmer is missing
    if sources is None:
        sources = locate()
    with _LOCK:
        res = _LOADED.get(sources)
        if res is None:
            # The files' checksums, then the cache's arrays and their checksum (hashlib
            # releases the interpreter lock), in a worker while the jar's word lists are read
            # and parsed here: on a second free core the two overlap.
            with ThreadPoolExecutor(max_workers=1) as pool:
                arrays = pool.submit(_checked_arrays, sources)
                jar = sources.jar
                words = read_jar_text(jar, "function/english.words").split("\n")
                prefixes = Prefixes(read_jar_text(jar, "nonbreaking/english.prefixes"))
                lexicon = Lexicon(
                    read_jar_text(jar, "synonym/english.synsets"),
                    read_jar_text(jar, "synonym/english.exceptions"),
                )
                checksums, found = arrays.result()
            if found is None:  # first use, or an unusable cache: built now (and said why)
                found = load_or_build(sources, checksums)
            index = ParaphraseIndex(found)
            lexicon.known_stems(index.stems)
            res = Resources(
                sources=sources,
                checksums=checksums,
                function_words=frozenset(w for w in words if w),
                prefixes=prefixes,
                lexicon=lexicon,
                paraphrases=index,
            )
            _LOADED[sources] = res
    return res
