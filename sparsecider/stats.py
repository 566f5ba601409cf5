"""Deprecated alias of :mod:`sparsecider.significance`: bootstrap intervals and paired tests.

Import from there instead.  Kept so that code written against sparsecider 0.1
keeps working; importing
it warns with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings

from .significance import *  # noqa: F403
from .significance import __all__  # noqa: F401

warnings.warn(
    "sparsecider.stats is deprecated; import from sparsecider.significance",
    DeprecationWarning,
    stacklevel=2,
)
