"""The four matching stages: candidate matches between two token lists (specification 5).

A candidate is ``(t_start, t_len, r_start, r_len, stage)``; the same span pair
may be proposed several times (by several stages, or by a paraphrase entry
and its reverse), and the alignment search counts those proposals, so they
are returned with their multiplicity.
"""

from __future__ import annotations

import functools

import numpy as np

from .data import INSTALL_HINT, REINSTALL_HINT, MeteorDataError
from .paraphrase import ParaphraseIndex

__all__ = ["EXACT", "PARAPHRASE", "STEM", "SYNONYM", "Lexicon", "candidates", "exact_one"]

EXACT, STEM, SYNONYM, PARAPHRASE = 0, 1, 2, 3


def exact_one(o: tuple) -> bool:
    """Is the object ``(t_start, t_len, r_start, r_len, stage)`` an exact one-word match."""
    return o[4] == EXACT and o[1] == o[3] == 1


STEMMER_VERSION = "2.2.0"

# WordNet's detachment rules, in the order the jar tries them (specification 5.3).
_SUFFIX_RULES = (
    ("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
    ("men", "man"), ("ies", "y"),
    ("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""),
    ("ing", "e"), ("ing", ""),
    ("er", ""), ("est", ""), ("er", "e"), ("est", "e"),
)  # fmt: skip
# The rules by the last letter of their suffix, in the same order (a word ending otherwise has no
# rule to try); a rule met again later (s, ies) is left out: its first try failed already.
_RULES_BY_END: dict[str, list[tuple[str, str, int]]] = {}
for _suffix, _repl in _SUFFIX_RULES:
    _rules = _RULES_BY_END.setdefault(_suffix[-1], [])
    if (_suffix, _repl, len(_suffix)) not in _rules:
        _rules.append((_suffix, _repl, len(_suffix)))


@functools.cache
def _installed_version() -> str:
    """snowballstemmer's version from its package metadata (2.2.0 has no ``__version__``):
    read once per process, not on every call of :func:`check_stemmer` (each face and the
    loader call it: a metadata lookup scans the import path).  "unknown" without metadata (a
    module of that name of unknown origin: refused as another release)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("snowballstemmer")
    except PackageNotFoundError:
        return "unknown"


def check_stemmer():
    """Check that snowballstemmer 2.2.0 is installed; return the module.

    The one check of the stemmer: every face of METEOR calls it before any work.

    Raises
    ------
    ImportError
        snowballstemmer is missing or another version (the message says
        ``pip install "sparsecider[meteor]"``).
    """
    try:
        import snowballstemmer
    except ImportError:
        raise ImportError(
            f"METEOR needs snowballstemmer=={STEMMER_VERSION} (its English stemmer), which is "
            f"not installed: {INSTALL_HINT}"
        ) from None
    version = getattr(snowballstemmer, "__version__", None)
    if version is None:
        version = _installed_version()
    if version != STEMMER_VERSION:
        raise ImportError(
            f"METEOR needs snowballstemmer=={STEMMER_VERSION}, found {version} (other releases "
            f"stem some words differently from METEOR 1.5): {INSTALL_HINT}"
        )
    return snowballstemmer


class _CStemmer:
    """PyStemmer's C build of the Snowball 2.2.0 English stemmer, as the class's interface.

    A word UTF-8 cannot encode (a lone surrogate, which ``str`` allows) makes PyStemmer
    raise; such words go to the pure-Python class.
    """

    __slots__ = ("_c", "_py")

    def __init__(self, c, py) -> None:
        self._c, self._py = c, py

    def stemWord(self, word: str) -> str:
        try:
            return self._c.stemWord(word)
        except UnicodeEncodeError:
            return self._py.stemWord(word)

    def stemWords(self, words: list[str]) -> list[str]:
        try:
            return self._c.stemWords(words)
        except UnicodeEncodeError:
            return list(map(self.stemWord, words))


def _pystemmer():
    """PyStemmer's English stemmer when a 2.2.0.x release is installed, else None."""
    try:
        import Stemmer
    except ImportError:
        return None
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("PyStemmer")
    except PackageNotFoundError:  # a Stemmer module of unknown origin: not trusted
        return None
    # 2.2.0.x releases are built from Snowball 2.2.0; 3.x stem some words otherwise.
    if release != STEMMER_VERSION and not release.startswith(STEMMER_VERSION + "."):
        return None
    return Stemmer.Stemmer("english", 0)  # no cache: Lexicon memoises every stem


def english_stemmer():
    """Snowball 2.2.0's English stemmer (the jar's stems; 3.x differ): ``stemWord``, ``stemWords``.

    PyStemmer's C build (~85 times faster) when PyStemmer 2.2.0.x is installed: it is built
    from Snowball 2.2.0 and gives the same stems (specification note N31); else
    snowballstemmer 2.2.0's pure-Python class. Any other PyStemmer is ignored.

    Raises
    ------
    ImportError
        snowballstemmer is missing or another version (:func:`check_stemmer`).
    """
    # Not snowballstemmer.stemmer("english"): that returns PyStemmer's C stemmer whenever
    # PyStemmer is installed, whatever Snowball release it was built from.
    py = check_stemmer().EnglishStemmer()
    c = _pystemmer()
    return py if c is None else _CStemmer(c, py)


class Lexicon:
    """Stems and WordNet synsets of words, memoised per word.

    Parameters
    ----------
    synsets_text : str
        ``synonym/english.synsets``: a word line, then a line of synset ids.
    exceptions_text : str
        ``synonym/english.exceptions``: a base form line, then its inflected forms.
    """

    def __init__(self, synsets_text: str, exceptions_text: str) -> None:
        lines = synsets_text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) % 2:
            raise MeteorDataError(
                f"synonym/english.synsets has an odd number of lines; {REINSTALL_HINT}"
            )
        self._synsets = dict(zip(lines[0::2], lines[1::2], strict=True))
        bases: dict[str, list[str]] = {}
        lines = exceptions_text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for base, forms in zip(lines[0::2], lines[1::2], strict=False):
            for form in forms.split():
                bases.setdefault(form, []).append(base)
        self._bases = bases
        self._stemmer = english_stemmer()
        self._stems: dict[str, str] = {}
        self._sets: dict[str, frozenset[str]] = {}
        self._lines: dict[str, str] = {}

    def known_stems(self, stems: dict[str, str]) -> None:
        """Start the stem memo with precomputed stems (this stemmer's, from the cache)."""
        self._stems.update(stems)

    def stems(self, words: list[str]) -> list[str]:
        """The Snowball English stems of words (the new ones stemmed in one call)."""
        memo = self._stems
        new = list(dict.fromkeys(w for w in words if w not in memo))
        if new:
            memo.update(zip(new, self._stemmer.stemWords(new), strict=True))
        return list(map(memo.__getitem__, words))

    def stem(self, word: str) -> str:
        """The Snowball English stem of a word."""
        s = self._stems.get(word)
        if s is None:
            s = self._stems[word] = self._stemmer.stemWord(word)
        return s

    def forms(self, word: str) -> list[str]:
        """The word and its WordNet base forms (exceptions, else the first rule that applies)."""
        bases = self._bases.get(word)
        if bases is not None:
            return [word, *bases]
        rules = _RULES_BY_END.get(word[-1:])
        if rules is None or len(word) <= 2 or word.endswith("ss"):
            return [word]
        known = self._synsets
        for suffix, repl, n in rules:
            if word.endswith(suffix) and len(word) > n:
                base = word[:-n] + repl
                if base in known:
                    return [word, base]
        return [word]

    def synset_lines(self, words: list[str]) -> list[str]:
        """Per word, the synset ids of its forms as one space-separated string (a form's ids
        in a row, as WordNet lists them; an id may repeat across forms; "" when none);
        memoised per word."""
        memo, known = self._lines, self._synsets
        new = [w for w in words if w not in memo]
        if new:
            got = [" ".join(filter(None, map(known.get, f))) for f in map(self.forms, new)]
            memo.update(zip(new, got, strict=True))
        return list(map(memo.__getitem__, words))

    def synsets(self, word: str) -> frozenset[str]:
        """Every synset id of the word's forms (empty when WordNet lacks it)."""
        s = self._sets.get(word)
        if s is None:
            ids: set[str] = set()
            for f in self.forms(word):
                line = self._synsets.get(f)
                if line:
                    ids.update(line.split())
            s = self._sets[word] = frozenset(ids)
        return s


def _phrases(index: ParaphraseIndex, tokens: list[str]) -> dict[int, list[tuple[int, int]]]:
    """Occurrences of table phrases in a token list: phrase id -> [(start, length)]."""
    if not tokens:
        return {}
    ids = index.word_ids(tokens)
    starts, lengths, pids = index.find(ids, np.full(ids.size, ids.size))
    out: dict[int, list[tuple[int, int]]] = {}
    for s, n, p in zip(starts.tolist(), lengths.tolist(), pids.tolist(), strict=True):
        out.setdefault(p, []).append((s, n))
    return out


def paraphrase_candidates(
    index: ParaphraseIndex,
    test_phr: dict[int, list[tuple[int, int]]],
    ref_phr: dict[int, list[tuple[int, int]]],
) -> list[tuple[int, int, int, int, int]]:
    """Paraphrase candidates, one per proposing table entry (so with repeats)."""
    out = []
    arrays = index.arrays
    # An entry (p1, p2) proposes test p1 with reference p2, and reference p1 with test p2.
    for side, src, dst, flip in (
        ("fwd", test_phr, ref_phr, False),
        ("fwd", ref_phr, test_phr, True),
    ):
        indptr, partner = arrays[f"{side}_indptr"], arrays[f"{side}_partner"]
        if not dst:
            continue
        for p, occ in src.items():
            lo, hi = int(indptr[p]), int(indptr[p + 1])
            if lo == hi:
                continue
            for q in partner[lo:hi].tolist():
                other = dst.get(q)
                if other is None:
                    continue
                for a, la in occ:
                    for b, lb in other:
                        if flip:
                            out.append((b, lb, a, la, PARAPHRASE))
                        else:
                            out.append((a, la, b, lb, PARAPHRASE))
    return out


def candidates(
    test: list[str],
    ref: list[str],
    lexicon: Lexicon,
    index: ParaphraseIndex,
    test_phr: dict[int, list[tuple[int, int]]] | None = None,
    ref_phr: dict[int, list[tuple[int, int]]] | None = None,
) -> dict[tuple[int, int, int, int], list[int]]:
    """Every proposed match with its number of proposals.

    Parameters
    ----------
    test, ref : list of str
        Normalised tokens.
    lexicon : Lexicon
    index : ParaphraseIndex
    test_phr, ref_phr : dict, optional
        Precomputed phrase occurrences (see :func:`_phrases`).

    Returns
    -------
    dict
        ``(t_start, t_len, r_start, r_len) -> [stage of each proposal]`` (ascending).
    """
    props: dict[tuple[int, int, int, int], list[int]] = {}

    def add(key, stage):
        v = props.get(key)
        if v is None:
            props[key] = [stage]
        else:
            v.append(stage)

    stems_r = [lexicon.stem(w) for w in ref]
    syn_r = [lexicon.synsets(w) for w in ref]
    for i, w in enumerate(test):
        st = lexicon.stem(w)
        sy = lexicon.synsets(w)
        for j, v in enumerate(ref):
            if w == v:
                add((i, 1, j, 1), EXACT)
                continue
            if st == stems_r[j]:
                add((i, 1, j, 1), STEM)
            if sy and not sy.isdisjoint(syn_r[j]):
                add((i, 1, j, 1), SYNONYM)
    if test_phr is None:
        test_phr = _phrases(index, test)
    if ref_phr is None:
        ref_phr = _phrases(index, ref)
    for c in paraphrase_candidates(index, test_phr, ref_phr):
        add(c[:4], PARAPHRASE)
    return props
