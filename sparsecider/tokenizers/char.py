"""The ``"char"`` tokenizer: one token per CJK character, one per run of other letters.

The language-neutral baseline for Chinese and Japanese (character-level
scores need no segmenter, so they do not depend on one): every Han
character, kana and Hangul syllable is a token of its own; a run of other
letters, digits and marks (Latin, Cyrillic, full-width Latin, ...) is one
token; every punctuation mark or other symbol is a token of its own (and
punctuation is then dropped by default: :mod:`.cjk`).  Pure numpy over the
code points of all captions at once; no dependency.

Examples
--------
>>> segment(["穿着T恤的man在跑，3.5米", "ｉＰｈｏｎｅで撮った写真"])
['穿 着 T 恤 的 man 在 跑 ， 3 . 5 米', 'ｉＰｈｏｎｅ で 撮 っ た 写 真']
>>> split(["穿着T恤的man在跑，3.5米"], TextOptions()).lengths.tolist()  # ， and . dropped
[11]
"""

from __future__ import annotations

import numpy as np

from .._kernels.tokens import Tokens
from .cjk import (
    SPACE,
    WORD,
    TextOptions,
    code_point_classes,
    finish_text,
    from_code_points,
    joined_code_points,
    normalized,
)
from .whitespace import split_whitespace

__all__ = ["OPTIONS", "load", "markers", "segment", "split", "token_text", "version"]

#: No option of its own; no library to load; versioned with sparsecider.
OPTIONS: dict[str, bool] = {}


def load() -> None:
    """Nothing to load."""


def version() -> None:
    """None: the ``"char"`` rules are sparsecider's own (the signature's ``version:``)."""


def markers() -> str:
    """No option of its own adds to the signature name."""
    return ""


def segment(captions: list[str]) -> list[str]:
    """Each caption as its character tokens joined by spaces.

    Cost: a few vectorised passes over the code points of all captions.

    Parameters
    ----------
    captions : list of str

    Returns
    -------
    list of str
        One per caption.
    """
    if not captions:
        return []
    cp, separators = joined_code_points(captions)
    classes = code_point_classes(cp)
    space = classes == SPACE
    cp[space] = 32
    cp[separators] = 10
    # a space goes before each character that starts a token right after another
    # token: every non-space character except inside a run of word characters
    glued = ~space[1:] & ~space[:-1] & ~((classes[1:] == WORD) & (classes[:-1] == WORD))
    return from_code_points(np.insert(cp, np.flatnonzero(glued) + 1, np.uint32(32)))


def token_text(captions: list[str], text: TextOptions) -> list[str]:
    """The ``"char"`` tokenizer as text: normalise, :func:`segment`, then
    :func:`.cjk.finish_text`; each caption's tokens, separated by spaces."""
    return finish_text(segment(normalized(captions, text)), text)


def split(captions: list[str], text: TextOptions) -> Tokens:
    """The hashes of :func:`token_text`."""
    return split_whitespace(token_text(captions, text))
