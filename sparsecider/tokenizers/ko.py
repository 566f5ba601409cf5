"""The ``"kiwi"`` tokenizer: Korean morphemes through Kiwi (kiwipiepy).

Kiwi splits each eojeol (the space-separated word) into morphemes, written
in their dictionary forms: ``했다`` gives ``하 었 다``, ``빨간`` gives ``빨갛 ᆫ``.
That is what ``" ".join(t.form for t in kiwi.tokenize(caption))`` gives.
For scoring Korean on eojeol instead, use ``tokenizer="whitespace"`` (see
README.md: which one to choose).

All captions go to ``Kiwi.tokenize`` as one batch, which Kiwi spreads over
its own C++ worker threads (one per core by default), without the GIL;
batches from several Python threads take turns.  On
the shared 2-core benchmark machine that measured from no gain (while other
jobs held the cores) to 1.8x over one call per caption
(``benchmarks/bench_cjk.py``); it is never slower.  Only the morphemes'
forms are read back, through ``operator.attrgetter`` (C code, no Python
function per morpheme).  The model loads once, in about a second.  Needs the
``kiwi`` extra (about 100 MB of model files).
"""

from __future__ import annotations

import threading
from importlib import metadata
from operator import attrgetter

from .._kernels.tokens import Tokens
from .cjk import TextOptions, check_encodable, finish_text, missing, normalized
from .whitespace import split_whitespace

__all__ = ["OPTIONS", "load", "markers", "segment", "split", "token_text", "version"]

#: Kiwi has no option here (its defaults, as ``kiwipiepy.Kiwi().tokenize``).
OPTIONS: dict[str, bool] = {}

_lock = threading.Lock()
_kiwi = None
_form = attrgetter("form")


def load():
    """Kiwi with its default model (built once).

    Raises
    ------
    ImportError
        kiwipiepy is not installed; the message names the extra.
    """
    global _kiwi
    with _lock:
        if _kiwi is None:
            try:
                import kiwipiepy
            except ImportError as error:
                raise missing("kiwi", "the kiwipiepy package", "kiwi") from error
            _kiwi = kiwipiepy.Kiwi()
    return _kiwi


def version() -> str:
    """``<kiwipiepy version>-model-<kiwipiepy_model version>``, as the signature records it."""
    return f"{metadata.version('kiwipiepy')}-model-{metadata.version('kiwipiepy_model')}"


def markers() -> str:
    """Kiwi has no option that adds to the signature name."""
    return ""


def segment(captions: list[str]) -> list[str]:
    """Each caption as Kiwi's morphemes (their forms) joined by spaces.

    Raises
    ------
    ValueError
        A caption holds a lone surrogate (:func:`.cjk.check_encodable`).
    """
    if not captions:
        return []
    check_encodable(captions, "kiwi")
    kiwi = load()
    with _lock:  # one batch at a time: Kiwi's own threads share its work
        return [" ".join(map(_form, tokens)) for tokens in kiwi.tokenize(captions)]


def token_text(captions: list[str], text: TextOptions) -> list[str]:
    """The ``"kiwi"`` tokenizer as text: normalise, :func:`segment`, then
    :func:`.cjk.finish_text`; each caption's tokens, separated by spaces."""
    return finish_text(segment(normalized(captions, text)), text)


def split(captions: list[str], text: TextOptions) -> Tokens:
    """The hashes of :func:`token_text`."""
    return split_whitespace(token_text(captions, text))
