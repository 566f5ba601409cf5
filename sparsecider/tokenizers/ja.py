"""The ``"mecab"`` tokenizer: Japanese morphemes through MeCab (fugashi) with UniDic-lite.

fugashi wraps MeCab, which ships inside its wheels; ``unidic-lite`` is the
dictionary (UniDic 2.1.2, about 250 MB installed), so both install from pip
alone.  The tagger is pinned to unidic-lite (``-d``): with the full
``unidic`` package also installed, a plain ``fugashi.Tagger()`` would pick
that one instead and cut words differently under the same name.  MeCab's
``-Owakati`` output is the morphemes' surface forms joined by spaces,
written by MeCab itself, so there is no Python work per morpheme.

fugashi holds the GIL while MeCab parses (two threads take as long as one:
``benchmarks/bench_cjk.py``), so captions run one after another.  A MeCab
tagger must not parse in two threads at once, so each thread gets its own
(a few milliseconds to make; the dictionary is memory-mapped once).  Each
caption is parsed on its own: MeCab reads its whole input as one sentence,
so captions joined into one call could cut differently at their edges.
Needs the ``mecab`` extra.

Inputs MeCab cannot take as they are:

- **Long captions.** MeCab crashes the process (a segmentation fault) on one
  input of a few hundred thousand characters.  A caption longer than
  :data:`PIECE` characters is parsed in pieces of at most that many, cut
  after the last whitespace of each piece (where MeCab's words end nearly
  always: in a test of 20,000 cuts between demo captions one unsplit parse
  differed, MeCab having read the words on both sides of the space
  together), else after the last sentence
  end (``。！？.!?``), else, in a run of :data:`PIECE` characters with
  neither, at exactly :data:`PIECE` characters (the hard cut: a morpheme
  across it becomes two tokens).
- **NUL.** MeCab reads C strings and would drop everything after a NUL
  character; a NUL is a token of its own instead, as jieba and Kiwi make it.
- **Lone surrogates** (``"\\ud800"``, from text decoded with
  ``errors="surrogateescape"``) cannot be passed to MeCab: a ``ValueError``
  names the caption (:func:`.cjk.check_encodable`).
"""

from __future__ import annotations

import functools
import os
import re
import threading
from importlib import metadata

from .._kernels.tokens import Tokens
from .cjk import TextOptions, check_encodable, finish_text, missing, normalized
from .whitespace import split_whitespace

__all__ = ["OPTIONS", "PIECE", "load", "markers", "segment", "split", "token_text", "version"]

#: MeCab has no option here (the dictionary is fixed by the name).
OPTIONS: dict[str, bool] = {}

#: The longest input given to MeCab at once, in characters (it crashes on one
#: of about 290,000 Han characters; 20,000 is far below; captions up to this
#: length are parsed whole, as before).
PIECE = 20_000

_SPACE = re.compile(r"\s+")
_SENTENCE_END = re.compile("[\u3002\uff01\uff1f.!?]+")  # 。！？ and ASCII

_tagger = None  # the tagger's maker, once fugashi and unidic-lite are imported
_local = threading.local()


def load():
    """This thread's MeCab tagger on unidic-lite, writing ``-Owakati`` output.

    Raises
    ------
    ImportError
        fugashi or unidic-lite is not installed; the message names the extra.
    """
    global _tagger
    if _tagger is None:
        try:
            import fugashi
            import unidic_lite
        except ImportError as error:
            raise missing("mecab", "fugashi and unidic-lite", "mecab") from error
        dicdir = unidic_lite.DICDIR
        rc = os.path.join(dicdir, "mecabrc")
        args = f'-r "{rc}" -d "{dicdir}" -Owakati'
        _tagger = functools.partial(fugashi.GenericTagger, args)
    tagger = getattr(_local, "tagger", None)
    if tagger is None or _local.maker is not _tagger:
        _local.tagger, _local.maker = _tagger(), _tagger
    return _local.tagger


def version() -> str:
    """``fugashi-<version>-unidic-lite-<version>``, as the signature records it."""
    return f"fugashi-{metadata.version('fugashi')}-unidic-lite-{metadata.version('unidic-lite')}"


def markers() -> str:
    """MeCab has no option that adds to the signature name."""
    return ""


def segment(captions: list[str]) -> list[str]:
    """Each caption as MeCab's morphemes joined by spaces (its ``-Owakati`` output;
    long captions in pieces, NUL a token of its own: see the module's description).

    Raises
    ------
    ValueError
        A caption holds a lone surrogate.
    """
    check_encodable(captions, "mecab")
    parse = load().parse
    return [
        parse(c) if len(c) <= PIECE and "\0" not in c else _parse_long(parse, c) for c in captions
    ]


def _parse_long(parse, caption: str) -> str:
    """:func:`segment` of one caption that is long or holds a NUL."""
    if "\0" in caption:
        return " \0 ".join(_parse_long(parse, part) for part in caption.split("\0"))
    out = []
    start, n = 0, len(caption)
    while n - start > PIECE:
        cut = _cut(caption, start, start + PIECE)
        out.append(parse(caption[start:cut]))
        start = cut
    out.append(parse(caption[start:]))
    return " ".join(out)


def _cut(text: str, start: int, stop: int) -> int:
    """Where the piece ``text[start:]`` ends, at most at ``stop``: after the last
    whitespace run, else the last sentence end, inside it; else at ``stop``.
    Cost O(stop - start)."""
    for pattern in (_SPACE, _SENTENCE_END):
        last = None
        for last in pattern.finditer(text, start, stop):  # noqa: B007 (the last one)
            pass
        if last is not None and last.end() > start:
            return last.end()
    return stop


def token_text(captions: list[str], text: TextOptions) -> list[str]:
    """The ``"mecab"`` tokenizer as text: normalise, :func:`segment`, then
    :func:`.cjk.finish_text`; each caption's tokens, separated by spaces."""
    return finish_text(segment(normalized(captions, text)), text)


def split(captions: list[str], text: TextOptions) -> Tokens:
    """The hashes of :func:`token_text`."""
    return split_whitespace(token_text(captions, text))
