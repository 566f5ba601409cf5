"""Deprecated alias of :mod:`sparsecider.tokenizers`: the tokenizers.

Import from there instead.  Kept so that code written against sparsecider 0.1
keeps working; importing
it warns with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings

from .tokenizers import *  # noqa: F403
from .tokenizers import __all__  # noqa: F401

warnings.warn(
    "sparsecider.tokenize is deprecated; import from sparsecider.tokenizers",
    DeprecationWarning,
    stacklevel=2,
)
