"""Consensus (minimum Bayes risk) selection: the candidate of each set that agrees most.

Given several candidates per image (an n-best list, samples), MBR selection
picks the one with the highest mean CIDEr-D against the *other* candidates
of its set, a decoding and re-ranking rule that needs no reference.  Scored
against the image's references instead, the same selection is the oracle
best-of-n, for analysis.  Either way the scores are the engine's statistics
of a corpus (for consensus, one whose references are its candidates:
:func:`sparsecider.core.corpus.as_candidate_sets`), reduced per candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._kernels.pairs import sum_by
from ..core import reduce
from ..core.advice import advise, check_id_strings, warn_small_corpus
from ..core.corpus import Corpus, as_candidate_sets, as_corpus
from ..core.engine import no_reference_words, statistics
from ..core.frequencies import DocumentFrequencies
from ..core.result import Signature
from ..core.validate import Options, check_n_jobs, check_options
from ..tokenizers import TokenizerLike
from .cider import References, score_corpus

__all__ = ["Selection", "mbr_select"]

CandidateSets = Sequence[Sequence[str]] | Mapping[object, Sequence[str]]


@dataclass(frozen=True, eq=False)
class Selection:
    """The candidate chosen in each image's set, and every candidate's score.

    Attributes
    ----------
    index : ndarray of int64, shape (n_images,)
        Position of the chosen candidate within its set (ties: the first).
    scores : ndarray of float64, shape (n_images,)
        The chosen candidate's score; ``nan`` for a set of one under
        consensus (no other candidate to agree with; its index is 0).
    captions : list of str
        The chosen captions, in input order.
    score : float
        The mean of ``scores`` over the sets that have one (``nan`` only
        when every set has a single candidate under consensus).
    candidate_scores : ndarray of float64, shape (n_candidates,)
        Every candidate's score, set after set, in input order.
    image_index : ndarray of int64, shape (n_candidates,)
        The image of each candidate.
    signature : Signature
        ``MBR-CIDEr-D|...`` (consensus) or ``oracle-CIDEr-D|...`` (against references).
    ids : tuple or None
        The image ids, when the input was a mapping.

    Examples
    --------
    The caption closest to the others wins; "a red bus" agrees with none.
    In the second set both captions score alike against each other (a tie:
    the first is chosen):

    >>> from sparsecider import mbr_select
    >>> sets = [["a dog runs on the grass", "a dog runs on grass", "a dog on the grass",
    ...          "a red bus"], ["a cat", "a cat sleeps"]]
    >>> pick = mbr_select(sets, df="coco-val2014")
    >>> pick.index.tolist(), pick.captions
    ([0, 0], ['a dog runs on the grass', 'a cat'])
    >>> pick.candidate_scores.round(3).tolist()
    [3.207, 2.962, 1.439, 0.0, 2.217, 2.217]
    >>> print(pick)
    MBR-CIDEr-D = 2.7120 | MBR-CIDEr-D|n:4|sigma:6|df:coco-val2014(n_images=40504)|tok:ptb|...
    """

    index: np.ndarray
    scores: np.ndarray
    captions: list[str]
    score: float
    candidate_scores: np.ndarray
    image_index: np.ndarray
    signature: Signature
    ids: tuple | None = None

    def __post_init__(self) -> None:
        for arr in (self.index, self.scores, self.candidate_scores, self.image_index):
            arr.setflags(write=False)

    @property
    def n_images(self) -> int:
        return int(self.index.shape[0])

    def __str__(self) -> str:
        return f"{self.signature.metric} = {self.score:.4f} | {self.signature}"


def mbr_select(
    candidate_sets: CandidateSets,
    references: References | None = None,
    *,
    against: str = "candidates",
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    n_jobs: int | None = -1,
) -> Selection:
    """Per image, the candidate with the highest mean CIDEr-D against the others (MBR).

    Parameters
    ----------
    candidate_sets : list of list of str, or dict
        Each image's candidates, or a dict from image id to its list.
    references : list of list of str, or dict, optional
        The images' references, aligned with ``candidate_sets`` (as in
        :func:`sparsecider.cider_d`); needed for ``against="references"``.
    against : {"candidates", "references"}, default "candidates"
        ``"candidates"``: each candidate's score is CIDEr-D with the other
        candidates of its set as its references, exactly
        ``cider_d([c], [others], df=...)`` (consensus, minimum Bayes risk).
        ``"references"``: its CIDEr-D against the image's references, exactly
        ``cider_d(candidate_sets, references)`` (the oracle best-of-n).
    n, sigma, tokenizer, scale, n_jobs
        As in :func:`sparsecider.cider_d`.
    df : "corpus", a name, a path, or DocumentFrequencies, default "corpus"
        ``"corpus"``: counted over what is scored against, one document per
        image: the candidate sets (consensus) or the references (oracle).
        A name (``"coco-val2014"``) or fitted frequencies (e.g. the
        training captions, as for SCST rewards) score each set on its own.

    Returns
    -------
    Selection

    Raises
    ------
    TypeError, ValueError
        Malformed candidate sets (as :func:`sparsecider.self_cider`) or
        references, ``against="references"`` without references (or
        references given with ``against="candidates"``), or an invalid option.

    Examples
    --------
    The caption that agrees most with the others wins; against references,
    the one closest to them:

    >>> import sparsecider
    >>> sets = [["a dog runs on the grass", "a dog runs on grass", "a dog on the grass",
    ...          "a red bus"]]
    >>> sparsecider.mbr_select(sets, df="coco-val2014").index.tolist()
    [0]
    >>> oracle = sparsecider.mbr_select(sets, [["a red bus on the street"]], against="references",
    ...                                 df="coco-val2014")
    >>> oracle.index.tolist(), oracle.captions
    ([3], ['a red bus'])
    """
    if against not in ("candidates", "references"):
        raise ValueError(f"against must be 'candidates' or 'references', got {against!r}")
    if against == "references" and references is None:
        raise ValueError(
            "against='references' scores each candidate against its image's references: "
            "pass references"
        )
    if against == "candidates" and references is not None:
        raise ValueError(
            "references are used only with against='references' (the oracle best-of-n); "
            "consensus selection scores each candidate against the other candidates"
        )
    options = check_options(n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer)
    jobs = check_n_jobs(n_jobs)
    sets = as_candidate_sets(candidate_sets)
    if against == "references":
        corpus = as_corpus(candidate_sets, references)
        result = score_corpus(corpus, options, n_jobs=jobs)
        scores, metric = result.scores, "oracle-CIDEr-D"
    else:
        corpus = sets
        check_id_strings(corpus.candidates, options.df)
        scores, metric = _consensus_scores(corpus, options, jobs), "MBR-CIDEr-D"
        warn_small_corpus(corpus.n_images, options.df, stacklevel=3)
        advise(corpus.candidates, (), options.tokenizer, options.df)
    signature = options.signature(corpus.n_images).replace(metric=metric)
    return _select(sets, scores, signature)


def _consensus_scores(corpus: Corpus, options: Options, n_jobs: int) -> np.ndarray:
    """Each candidate's CIDEr-D against the other candidates of its set, shape (n_candidates,).

    The engine gives every (a, b) of each set; the pairs (a, a) are set to 0
    (adding 0.0 leaves a sum unchanged), and each candidate's per-order sums
    are divided by m - 1, as ``cider_d`` divides by the number of references.
    """
    try:
        stats = statistics(
            corpus, n=options.n, clip=True, tokenizer=options.tokenizer, df=options.df,
            n_jobs=n_jobs,
        )  # fmt: skip
    except ValueError as err:
        if str(err) != str(no_reference_words()):
            raise
        raise ValueError(
            "every candidate is empty after tokenization: with df='corpus' the document "
            "frequencies are counted over the candidates, and there are none to count"
        ) from None
    values = reduce.pair_values(stats, options.sigma)
    sizes = np.diff(corpus.reference_offsets)
    first_pair = np.concatenate(([0], np.cumsum(sizes * sizes)))
    pair_image = corpus.candidate_image[stats.pair_candidate]
    local = np.arange(stats.pair_candidate.shape[0]) - first_pair[pair_image]
    m = sizes[pair_image]
    values[:, local // m == local % m] = 0.0  # a candidate against itself
    per_order = np.stack(
        [sum_by(stats.pair_candidate, row, stats.n_candidates) for row in values], axis=1
    )
    with np.errstate(divide="ignore", invalid="ignore"):  # a set of one: 0 / 0, nan
        per_order /= (sizes[corpus.candidate_image] - 1)[:, None]
    per_order *= options.scale
    return reduce.scores(per_order)


def _select(sets: Corpus, scores: np.ndarray, signature: Signature) -> Selection:
    """The best candidate of each set (the first of equal scores; nan only in sets of one)."""
    image = sets.candidate_image
    position = np.arange(image.shape[0])
    order = np.lexsort((position, -scores, image))
    best = order[sets.reference_offsets[:-1]]  # each set's first in that order
    chosen = scores[best]
    return Selection(
        index=best - sets.reference_offsets[:-1],
        scores=chosen,
        captions=[sets.candidates[i] for i in best.tolist()],
        # sets of one have no consensus score (nan): the mean is over the others
        score=float(np.nanmean(chosen)) if np.isfinite(chosen).any() else float("nan"),
        candidate_scores=scores,
        image_index=image,
        signature=signature,
        ids=sets.ids,
    )
