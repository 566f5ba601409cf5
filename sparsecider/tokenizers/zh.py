"""The ``"jieba"`` tokenizer: Chinese words through jieba, in accurate mode.

Accurate mode (``cut_all=False``) with jieba's HMM for unknown words, its
default dictionary: what the AI Challenger caption evaluation code runs on
candidate captions (``jieba.cut(caption, cut_all=False)``, README: "精确模式").
sparsecider uses a private ``jieba.Tokenizer`` with the default dictionary,
so words a program adds to jieba's global tokenizer (``jieba.add_word``)
cannot change tokens behind a signature that names only jieba's version.

jieba is pure Python and holds the GIL, so captions run one after another
(joining them into one call gives the same words and no speed: measured in
``benchmarks/bench_cjk.py``).  Needs the ``jieba`` extra.
"""

from __future__ import annotations

import logging
import threading
from importlib import metadata

from .._kernels.tokens import Tokens
from .cjk import TextOptions, finish_text, missing, normalized
from .whitespace import split_whitespace

__all__ = ["OPTIONS", "load", "markers", "segment", "split", "token_text", "version"]

#: jieba's own options and their defaults: ``hmm`` (jieba's HMM for words
#: not in its dictionary; ``False`` is ``jieba.cut(..., HMM=False)``).
OPTIONS = {"hmm": True}

_lock = threading.Lock()
_segmenter = None


def load():
    """jieba's tokenizer (built once; its dictionary loads in about 0.5 s).

    Raises
    ------
    ImportError
        jieba is not installed; the message names the extra.
    """
    global _segmenter
    with _lock:
        if _segmenter is None:
            try:
                import jieba
            except ImportError as error:
                raise missing("jieba", "the jieba package", "jieba") from error
            # jieba announces its dictionary loading on stderr at DEBUG level
            logger = logging.getLogger("jieba")
            level = logger.level
            logger.setLevel(logging.WARNING)
            try:
                segmenter = jieba.Tokenizer()
                segmenter.initialize()
            finally:
                logger.setLevel(level)
            _segmenter = segmenter
    return _segmenter


def version() -> str:
    """jieba's version, as the signature records it (after :func:`load`)."""
    return metadata.version("jieba")


def markers(hmm: bool) -> str:
    """What jieba's non-default options add to the signature name."""
    return "" if hmm else "+no-hmm"


def segment(captions: list[str], *, hmm: bool = True) -> list[str]:
    """Each caption as jieba's words joined by spaces (``" ".join(jieba.cut(c, HMM=hmm))``)."""
    cut = load().lcut
    return [" ".join(cut(c, cut_all=False, HMM=hmm)) for c in captions]


def token_text(captions: list[str], text: TextOptions, *, hmm: bool = True) -> list[str]:
    """The ``"jieba"`` tokenizer as text: normalise, :func:`segment`, then
    :func:`.cjk.finish_text`; each caption's tokens, separated by spaces."""
    return finish_text(segment(normalized(captions, text), hmm=hmm), text)


def split(captions: list[str], text: TextOptions, *, hmm: bool = True) -> Tokens:
    """The hashes of :func:`token_text`."""
    return split_whitespace(token_text(captions, text, hmm=hmm))
