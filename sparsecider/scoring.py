"""Deprecated alias of :mod:`sparsecider.api`: the public scoring functions.

Import from there instead.  Kept so that code written against sparsecider 0.1
keeps working; importing
it warns with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings

from .api import *  # noqa: F403
from .api import __all__  # noqa: F401

warnings.warn(
    "sparsecider.scoring is deprecated; import from sparsecider.api",
    DeprecationWarning,
    stacklevel=2,
)
