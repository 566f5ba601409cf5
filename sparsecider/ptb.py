"""Deprecated alias of :mod:`sparsecider.tokenizers.ptb`: the PTB tokenizer.

Import from there instead.  Kept so that code written against sparsecider 0.1
keeps working; importing
it warns with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings

from .tokenizers.ptb import *  # noqa: F403
from .tokenizers.ptb import __all__  # noqa: F401

warnings.warn(
    "sparsecider.ptb is deprecated; import from sparsecider.tokenizers.ptb",
    DeprecationWarning,
    stacklevel=2,
)
