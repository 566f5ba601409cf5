"""References remembered across calls, for the drop-ins that receive them as strings every time.

Self-critical training code calls ``CiderD.compute_score(gts, res)`` on every
batch with the references of the batch's images as strings, under fixed
document frequencies.  A :class:`ReferenceMemo` remembers every distinct
reference list it has seen (a tuple of strings) and keeps a
:class:`~sparsecider.RewardScorer` over them, so a batch whose images were
seen before touches only its candidates (the scorer's cache) instead of
tokenizing, counting and looking up its references again.  Unseen lists
are scored by :func:`sparsecider.cider_d` and queued; the scorer is rebuilt
over all lists seen once the queue holds as many as the scorer (and at
least :data:`FIRST_BUILD`), so the rebuilds of a first epoch cost about
twice one build of the whole training set, and later epochs none.

Every score is bit-identical to :func:`sparsecider.cider_d`'s.  Memory
grows to that of a :class:`~sparsecider.RewardScorer` over the training
set (257 MiB for 113,287 images x 5 references), plus the remembered
strings.
"""

from __future__ import annotations

import threading

import numpy as np

from ..core.frequencies import DocumentFrequencies
from ..metrics.cider import cider_d
from ..training.reward import RewardScorer

__all__ = ["FIRST_BUILD", "ReferenceMemo"]

#: Reference lists to see before the first scorer is built.
FIRST_BUILD = 1000


class ReferenceMemo:
    """Scores against reference lists remembered across calls (fixed document frequencies).

    Examples
    --------
    >>> df = DocumentFrequencies.from_references([["a dog runs"], ["a red bus"], ["a cat"]],
    ...                                          tokenizer="whitespace")
    >>> memo = ReferenceMemo(df=df, n=4, sigma=6.0, first_build=1)
    >>> first = memo.score([["a dog", "a dog runs"]], [("a dog runs",)])  # unseen: queued
    >>> again = memo.score([["a dog", "a dog runs"]], [("a dog runs",)])  # from the scorer
    >>> bool((first == again).all()), memo.n_remembered
    (True, 1)
    """

    def __init__(
        self, *, df: DocumentFrequencies, n: int, sigma: float, first_build: int = FIRST_BUILD
    ) -> None:
        self.df, self.n, self.sigma, self.first_build = df, n, sigma, first_build
        self._known: dict[tuple, int] = {}  # reference list -> the scorer's image
        self._lists: list[tuple] = []  # the scorer's images
        self._queued: dict[tuple, None] = {}
        self._scorer: RewardScorer | None = None
        self._lock = threading.Lock()

    @property
    def n_remembered(self) -> int:
        return len(self._known) + len(self._queued)

    def score(self, candidates: list[list[str]], references: list[tuple]) -> np.ndarray:
        """The scores of each group's candidates against its references, group after group.

        ``references[g]`` is a tuple of reference strings (distinct per
        group), ``candidates[g]`` the candidate strings scored against it.
        """
        with self._lock:
            scorer, known = self._scorer, self._known
            position = [known.get(refs) for refs in references]
        sizes = np.array([len(c) for c in candidates], dtype=np.int64)
        out = np.empty(int(sizes.sum()))
        start = np.concatenate(([0], np.cumsum(sizes)))
        seen = [g for g, p in enumerate(position) if p is not None]
        unseen = [g for g, p in enumerate(position) if p is None]
        if seen:
            images = np.repeat([position[g] for g in seen], sizes[seen])
            scores = scorer([c for g in seen for c in candidates[g]], images).scores
            out[np.concatenate([np.arange(start[g], start[g + 1]) for g in seen])] = scores
        if unseen:
            result = cider_d(
                [candidates[g] for g in unseen], [list(references[g]) for g in unseen],
                n=self.n, sigma=self.sigma, df=self.df, tokenizer="whitespace",
            )  # fmt: skip
            out[np.concatenate([np.arange(start[g], start[g + 1]) for g in unseen])] = result.scores
            self.remember([references[g] for g in unseen], now=False)
        return out

    def remember(self, lists: list[tuple], *, now: bool = True) -> None:
        """Queue reference lists; build the scorer over all lists seen when ``now``,
        else once the queue is as long as the scorer (and ``first_build``)."""
        with self._lock:
            for refs in lists:
                if refs not in self._known:
                    self._queued[refs] = None
            if not self._queued or (
                not now and len(self._queued) < max(self.first_build, len(self._known))
            ):
                return
            lists = self._lists + list(self._queued)
            self._queued = {}
        # built outside the lock: calls meanwhile use the previous scorer
        scorer = RewardScorer.from_texts(
            [list(refs) for refs in lists], df=self.df, tokenizer="whitespace", n=self.n,
            sigma=self.sigma,
        )  # fmt: skip
        with self._lock:
            self._scorer, self._lists = scorer, lists
            self._known = {refs: i for i, refs in enumerate(lists)}
