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
"""

from __future__ import annotations

import functools
import os
import threading
from importlib import metadata

from .._kernels.tokens import Tokens
from .cjk import TextOptions, finish_text, missing, normalized
from .whitespace import split_whitespace

__all__ = ["OPTIONS", "load", "markers", "segment", "split", "token_text", "version"]

#: MeCab has no option here (the dictionary is fixed by the name).
OPTIONS: dict[str, bool] = {}

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
    """Each caption as MeCab's morphemes joined by spaces (its ``-Owakati`` output)."""
    parse = load().parse
    return [parse(c) for c in captions]


def token_text(captions: list[str], text: TextOptions) -> list[str]:
    """The ``"mecab"`` tokenizer as text: normalise, :func:`segment`, then
    :func:`.cjk.finish_text`; each caption's tokens, separated by spaces."""
    return finish_text(segment(normalized(captions, text)), text)


def split(captions: list[str], text: TextOptions) -> Tokens:
    """The hashes of :func:`token_text`."""
    return split_whitespace(token_text(captions, text))
