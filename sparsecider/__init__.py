"""sparsecider: CIDEr and CIDEr-D on sparse matrices.

Exactly the numbers of the reference implementation (pycocoevalcap), computed
for a whole corpus at once with scipy sparse matrices.

Public API
----------
cider_d, cider
    Score candidates against references; return a :class:`CiderResult`.
CiderResult
    Corpus score, per-candidate scores, per-order values, signature.
compat
    Drop-in replacements for pycocoevalcap's ``Cider`` (``compat.Cider``,
    ``compat.CiderD``).
"""

from __future__ import annotations

__version__ = "0.1.0"

from .frequencies import DocumentFrequencies
from .ids import cider_d_ids
from .ptb import ptb_tokenize
from .result import CiderResult
from .scoring import cider, cider_d


def __getattr__(name: str):
    # scikit-learn is imported only when the estimator is first used
    if name == "CiderVectorizer":
        from .vectorizer import CiderVectorizer

        return CiderVectorizer
    raise AttributeError(f"module 'sparsecider' has no attribute {name!r}")


__all__ = [
    "CiderResult",
    "CiderVectorizer",
    "DocumentFrequencies",
    "__version__",
    "cider",
    "cider_d",
    "cider_d_ids",
    "ptb_tokenize",
]
