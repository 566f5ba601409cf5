"""The steps around a CJK segmenter: options, normalisation, punctuation, lower case.

Every tokenizer for Chinese, Japanese and Korean text (``"char"``,
``"jieba"``, ``"mecab"``, ``"kiwi"``) is the same pipeline around a
different segmenter::

    captions --normalize (optional NFKC)--> segmenter --> tokens joined by spaces
             --drop punctuation tokens, lower-case--> split_whitespace --> Tokens

The segmenter (:mod:`.char`, or a library in :mod:`.zh`, :mod:`.ja`,
:mod:`.ko`) writes each caption as its tokens joined by spaces: exactly
what users write today with ``" ".join(jieba.cut(caption))``.  This module
holds the options every such tokenizer takes (:class:`TextOptions`, checked
by :func:`check_options`), the markers they add to the signature name, and
the array code of the steps before and after segmentation: one pass over
the code points of all captions, with no Python call per token.

Options (the defaults follow the published evaluation code, see README.md):

``normalize`` : None (default) or ``"nfkc"``
    NFKC folds full-width letters, digits and punctuation (``ＡＢＣ１２３``,
    ``，``) and half-width katakana into their usual forms before
    segmenting.  Full-width spaces (U+3000) are whitespace either way.
``punctuation`` : ``"drop"`` (default) or ``"keep"``
    ``"drop"`` removes every token made only of punctuation characters
    (Unicode categories P*: ``。、，！？「」…``, ASCII ``.,!?;:'"()-``); a
    caption that held nothing else becomes empty (it scores 0, as an empty
    caption does in the reference).  Tokens mixing punctuation with other
    characters (``3.5``, ``T-shirt``) are kept whole.
``lowercase`` : True (default) or False
    Lower-case the tokens (Latin words inside CJK captions), as the PTB
    pipeline does.

Examples
--------
>>> finish(["一只 狗 。", "。 ！", "Ａ dog"], TextOptions()).lengths.tolist()
[2, 0, 2]
>>> TextOptions(normalize="nfkc", punctuation="keep", lowercase=False).markers
'+nfkc+keep-punct+cased'
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import CaptionError, type_name
from .._kernels.arrays import exclusive_cumsum
from .._kernels.tokens import Tokens
from .whitespace import split_whitespace

__all__ = [
    "CJK",
    "PUNCT",
    "SPACE",
    "SYMBOL",
    "WORD",
    "TextOptions",
    "check_encodable",
    "check_options",
    "code_point_classes",
    "finish",
    "finish_text",
    "from_code_points",
    "joined_code_points",
    "missing",
    "normalized",
]

_NORMALIZE = (None, "nfkc")
_PUNCTUATION = ("drop", "keep")


@dataclass(frozen=True)
class TextOptions:
    """The options every CJK tokenizer takes (see the module's description).

    Attributes
    ----------
    normalize : {None, "nfkc"}
    punctuation : {"drop", "keep"}
    lowercase : bool
    """

    normalize: str | None = None
    punctuation: str = "drop"
    lowercase: bool = True

    @property
    def markers(self) -> str:
        """What the non-default options add to the signature name (``""`` for the defaults)."""
        return (
            ("+nfkc" if self.normalize == "nfkc" else "")
            + ("+keep-punct" if self.punctuation == "keep" else "")
            + ("" if self.lowercase else "+cased")
        )


def check_options(
    tokenizer: str, options: Mapping[str, object], own: Mapping[str, bool]
) -> tuple[TextOptions, dict[str, bool]]:
    """Check the keyword options given for ``tokenizer``.

    Parameters
    ----------
    tokenizer : str
        The registered name, for messages.
    options : mapping
        What the user passed.
    own : mapping of str to bool
        The segmenter's own (boolean) options and their defaults, such as
        jieba's ``{"hmm": True}``.

    Returns
    -------
    TextOptions, dict
        The text options, and every own option (defaults filled in).

    Raises
    ------
    TypeError
        An unknown option, or a value of the wrong type.
    ValueError
        A value out of range.

    Examples
    --------
    >>> check_options("jieba", {"hmm": False, "normalize": "nfkc"}, {"hmm": True})
    (TextOptions(normalize='nfkc', punctuation='drop', lowercase=True), {'hmm': False})
    >>> check_options("char", {"punct": "keep"}, {})
    Traceback (most recent call last):
    ...
    TypeError: tokenizer 'char' has no option 'punct'; its options are normalize, punctuation, ...
    """
    known = ["normalize", "punctuation", "lowercase", *own]
    for key in options:
        if key not in known:
            raise TypeError(
                f"tokenizer {tokenizer!r} has no option {key!r}; its options are "
                + ", ".join(known)
            )
    normalize = options.get("normalize")
    if normalize is not None and not isinstance(normalize, str):
        raise TypeError(f"normalize must be None or 'nfkc', got {type_name(normalize)}")
    if normalize not in _NORMALIZE:
        raise ValueError(f"normalize must be None or 'nfkc', got {normalize!r}")
    punctuation = options.get("punctuation", "drop")
    if not isinstance(punctuation, str):
        raise TypeError(f"punctuation must be 'drop' or 'keep', got {type_name(punctuation)}")
    if punctuation not in _PUNCTUATION:
        raise ValueError(f"punctuation must be 'drop' or 'keep', got {punctuation!r}")
    flags = {"lowercase": options.get("lowercase", True)}
    flags |= {key: options.get(key, default) for key, default in own.items()}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{key} must be True or False, got {type_name(value)}")
    text = TextOptions(normalize, punctuation, flags.pop("lowercase"))
    return text, flags


def check_encodable(captions: Sequence[str], tokenizer: str) -> None:
    """Refuse captions with a lone surrogate, which MeCab and Kiwi cannot read
    (they take UTF-8 or UTF-16, where a lone surrogate has no encoding).

    Cost: one UTF-8 encode of all captions; the caption is looked for only
    when there is one.

    Examples
    --------
    >>> check_encodable(["a dog", "a " + chr(0xDCFF) + " cat"], "mecab")
    Traceback (most recent call last):
    ...
    sparsecider._checks.CaptionError: captions[1] (...) holds a lone surrogate, U+DCFF at ...
    """
    try:
        "".join(captions).encode("utf-8")
        return
    except UnicodeEncodeError:
        pass
    for i, caption in enumerate(captions):
        try:
            caption.encode("utf-8")
        except UnicodeEncodeError as err:
            # named captions[i] here; the entry points name it as the user gave it
            raise CaptionError(
                i,
                f"({caption[:40]!r}) holds a lone surrogate, U+{ord(caption[err.start]):04X} at "
                f"character {err.start}, which tokenizer {tokenizer!r} cannot read: remove it, "
                "or decode the text with errors='replace' instead of 'surrogateescape'",
            ) from None


def missing(tokenizer: str, packages: str, extra: str) -> ImportError:
    """The error for a tokenizer whose library is not installed, naming the extra."""
    return ImportError(
        f"tokenizer {tokenizer!r} needs {packages}: pip install 'sparsecider[{extra}]' "
        "(or 'sparsecider[cjk]' for every CJK tokenizer)"
    )


def normalized(captions: list[str], options: TextOptions) -> list[str]:
    """The captions as the segmenter sees them (NFKC when ``options.normalize``)."""
    if options.normalize is None:
        return captions
    return [unicodedata.normalize("NFKC", c) for c in captions]


# ---- code point classes ----------------------------------------------------
#: Classes of code points: whitespace (``str.isspace``), punctuation (P*),
#: CJK characters (each its own token in ``"char"``), other symbols (S*),
#: and the characters of words (letters, digits and marks of other scripts).
SPACE, PUNCT, CJK, SYMBOL, WORD = range(5)

# Han (with radicals, iteration and numeral marks), kana, bopomofo and Hangul.
_CJK_RANGES = (
    (0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3038, 0x303C),
    (0x3040, 0x30FF), (0x3100, 0x312F), (0x3130, 0x318F), (0x31A0, 0x31BF), (0x31F0, 0x31FF),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA960, 0xA97F), (0xAC00, 0xD7FF), (0xF900, 0xFAFF),
    (0xFF66, 0xFFDC), (0x1B000, 0x1B16F), (0x20000, 0x3FFFF),
)  # fmt: skip


def _classify(code: int) -> int:
    ch = chr(code)
    if ch.isspace():
        return SPACE
    category = unicodedata.category(ch)
    if category[0] == "P":
        return PUNCT
    if any(lo <= code <= hi for lo, hi in _CJK_RANGES):
        return CJK
    return SYMBOL if category[0] == "S" else WORD


@functools.cache
def _bmp_classes() -> np.ndarray:
    """The class of every code point below U+10000 (built once, ~20 ms)."""
    return np.array([_classify(c) for c in range(0x10000)], dtype=np.int8)


def code_point_classes(cp: np.ndarray) -> np.ndarray:
    """The class (:data:`SPACE`, :data:`PUNCT`, ...) of each code point.

    A table lookup for the Basic Multilingual Plane; the few distinct code
    points above it are classified one by one.

    Examples
    --------
    >>> cp = joined_code_points(["狗 A1，😀"])[0]
    >>> code_point_classes(cp).tolist() == [CJK, SPACE, WORD, WORD, PUNCT, SYMBOL]
    True
    """
    classes = _bmp_classes()[np.minimum(cp, 0xFFFF)]
    astral = cp > 0xFFFF
    if astral.any():
        distinct, inverse = np.unique(cp[astral], return_inverse=True)
        table = np.array([_classify(int(c)) for c in distinct], dtype=np.int8)
        classes[astral] = table[inverse.ravel()]
    return classes


def joined_code_points(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The code points of ``"\\n".join(texts)`` and the positions of the joining newlines.

    Returns
    -------
    cp : ndarray of uint32, shape (n_code_points,)
    separators : ndarray of int64, shape (len(texts) - 1,)
    """
    joined = "\n".join(texts)
    cp = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4").copy()
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    separators = exclusive_cumsum(lengths + 1)[1:-1] - 1
    return cp, separators


def from_code_points(cp: np.ndarray) -> list[str]:
    """The texts back from their joined code points, split at the newlines (which
    must be the joining ones only: make every other whitespace a space first)."""
    return cp.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass").split("\n")


def finish(segmented: list[str], options: TextOptions) -> Tokens:
    """Segmented captions (tokens joined by whitespace) -> Tokens, after the
    punctuation and case options: the hashes of :func:`finish_text`.

    Parameters
    ----------
    segmented : list of str
        One string per caption: its tokens separated by any whitespace.
    options : TextOptions

    Returns
    -------
    Tokens
    """
    return split_whitespace(finish_text(segmented, options))


def finish_text(segmented: list[str], options: TextOptions) -> list[str]:
    """Segmented captions after the punctuation and case options, as text:
    each caption's tokens separated by whitespace.

    Cost: one lower-casing per caption, then (dropping punctuation) a few
    vectorised passes over the code points of all captions; no Python call
    per token.

    Examples
    --------
    >>> finish_text(["一只 狗 。", "A Dog !"], TextOptions(None, "drop", True))
    ['一只 狗  ', 'a dog  ']
    """
    if options.lowercase:
        segmented = [s.lower() for s in segmented]
    if options.punctuation == "keep" or not segmented:
        return segmented
    cp, separators = joined_code_points(segmented)
    classes = code_point_classes(cp)
    word = classes != SPACE
    starts = word.copy()
    starts[1:] &= ~word[:-1]
    run = np.cumsum(starts) - 1  # the token of each word character
    others = np.bincount(run[word], weights=classes[word] != PUNCT, minlength=int(starts.sum()))
    blank = ~word
    blank[word] = others[run[word]] == 0  # a token made only of punctuation
    cp[blank] = 32
    cp[separators] = 10
    return from_code_points(cp)
