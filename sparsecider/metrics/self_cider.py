"""Self-CIDEr: the diversity of each image's set of candidate captions.

Wang & Chan (CVPR 2019, "Describing like humans: on diversity in image
captioning"; TPAMI 2020, "On diversity in image captioning: metrics and
methods").  The m captions of a set are compared with each other by plain
CIDEr (no clipping, no length penalty: a positive semi-definite kernel),
giving an m x m matrix K; with ``lambda`` its eigenvalues (clipped at 0),

    Self-CIDEr = -log_m( sqrt(lambda_max) / sum_i sqrt(lambda_i) )

from 0 (all captions alike: one direction) to 1 (all orthogonal).  This is
the evaluation code of the authors' group (``eval_self_cider`` in
ruotianluo/self-critical.pytorch, ``captioning/utils/eval_multi.py``, with
the ``my_self_cider`` scorer of ruotianluo/cider, commit e9b736d): the
kernel is ``CiderScorer.my_get_self_cider`` (each order's cosine of tf-idf
vectors, the mean over orders 1..4, times 10), the eigenvalues are those of
``K / 10`` (``numpy.linalg.eigvalsh``), and the document frequencies are
those of the dataset's references (for COCO: every image of
``captions_val2014.json``, PTB-tokenized: ``df="coco-val2014"``).

The kernel entries are the engine's statistics of a corpus whose
references are its candidates (:func:`sparsecider.core.corpus.as_candidate_sets`);
the eigenvalues of all sets of one size come from one stacked
``numpy.linalg.eigvalsh`` call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core import reduce
from ..core.advice import advise, check_id_strings
from ..core.corpus import as_candidate_sets
from ..core.engine import statistics
from ..core.frequencies import DocumentFrequencies
from ..core.result import Signature
from ..core.validate import check_n_jobs, check_options
from ..tokenizers import TokenizerLike

__all__ = ["SelfCiderResult", "kernel_diversity", "self_cider"]

CandidateSets = Sequence[Sequence[str]] | Mapping[object, Sequence[str]]


@dataclass(frozen=True, eq=False)
class SelfCiderResult:
    """Self-CIDEr of each image's candidate set.

    Attributes
    ----------
    score : float
        The mean of ``scores`` over the images that have one (a set of one
        caption has none); ``nan`` only when no image has one.
    scores : ndarray of float64, shape (n_images,)
        Each set's diversity, in input order: 0 for identical captions, up
        to 1.  ``nan`` for a set of one caption (``log_1`` is undefined) and
        for a set whose captions all have zero tf-idf vectors (e.g. all
        empty), as in the authors' code.
    sizes : ndarray of int64, shape (n_images,)
        The number of candidates in each set.
    signature : Signature
        ``Self-CIDEr|n:4|df:...|tok:...|version:...``.
    ids : tuple or None
        The image ids, when the input was a mapping.
    kernels : tuple of ndarray or None
        With ``kernels=True``: each set's m x m CIDEr matrix (entry (a, b):
        plain CIDEr of caption a with caption b as its only reference, times
        10, as the authors' ``self_cider_mat``); symmetric.

    Examples
    --------
    >>> import sparsecider
    >>> dog, cats = "a dog runs on the grass", "two cats sleep inside"
    >>> r = sparsecider.self_cider([[dog, dog], [dog, cats]], df="coco-val2014", kernels=True)
    >>> r.scores.tolist(), r.sizes.tolist()
    ([0.0, 1.0], [2, 2])
    >>> r.kernels[1].tolist()  # no shared n-gram: the identity matrix, times 10
    [[10.0, 0.0], [0.0, 10.0]]
    >>> print(r)
    Self-CIDEr = 0.5000 | Self-CIDEr|n:4|df:coco-val2014(n_images=40504)|tok:ptb|version:...
    """

    score: float
    scores: np.ndarray
    sizes: np.ndarray
    signature: Signature
    ids: tuple | None = None
    kernels: tuple | None = None

    def __post_init__(self) -> None:
        for arr in (self.scores, self.sizes, *(self.kernels or ())):
            arr.setflags(write=False)

    @property
    def n_images(self) -> int:
        return int(self.scores.shape[0])

    def __str__(self) -> str:
        return f"Self-CIDEr = {self.score:.4f} | {self.signature}"

    def __float__(self) -> float:
        return self.score


def self_cider(
    candidate_sets: CandidateSets,
    *,
    df: str | DocumentFrequencies,
    n: int = 4,
    tokenizer: TokenizerLike = "ptb",
    kernels: bool = False,
    n_jobs: int | None = -1,
) -> SelfCiderResult:
    """Self-CIDEr diversity of each image's set of candidates, as the authors compute it.

    Parameters
    ----------
    candidate_sets : list of list of str, or dict
        Each image's captions (sampled, beam search, or human); or a dict
        from image id to its list.  Sets may differ in size.
    df : str or DocumentFrequencies
        Document frequencies of the kernel's tf-idf vectors, required: the
        authors use the dataset's references, for COCO every image of COCO
        val 2014 (``df="coco-val2014"``, shipped in the package).  For other
        data fit them on its references:
        ``DocumentFrequencies.from_references(references)``.  ``"corpus"``
        has no meaning here (the sets have no references) and is refused.
    n : int, default 4
        Highest n-gram order.
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
        As in :func:`sparsecider.cider_d`; all captions are tokenized as one
        sequence, set after set (as the authors' ``PTBTokenizer`` call).
    kernels : bool, default False
        Also return each set's CIDEr matrix (``result.kernels``).
    n_jobs : int or None, default -1
        Threads, as in :func:`sparsecider.cider_d`.

    Returns
    -------
    SelfCiderResult

    Raises
    ------
    TypeError
        ``candidate_sets`` is not a list (or dict) of caption lists: a bare
        string where a set is expected, or a caption that is not a string.
    ValueError
        An empty set, no sets, ``df="corpus"`` or another invalid option.

    Notes
    -----
    Each set's kernel holds its m * m pairs, all computed at once (memory
    grows with the sum of m**2).  Where two captions of a set are identical
    (or, generally, where two kernel rows are equal bit for bit), the
    kernel is exactly singular; its exact zero eigenvalues are taken as 0
    (:func:`kernel_diversity`) instead of the square roots of rounding
    noise (about 1e-8) that a plain ``eigvalsh`` returns, which the
    authors' numbers then carry (an error up to about 1e-9 on such sets).

    Examples
    --------
    Two identical captions have no diversity; two captions of 4 words or
    more sharing no n-gram are orthogonal (K / 10 = I: eigenvalues 1 and
    1, ``-log_2(1 / 2) = 1``); in the third set two captions overlap
    (kernel entry 2.38 of 10) and the third shares only "a" (idf near 0):

    >>> import sparsecider
    >>> sets = [["a dog runs on the grass", "a dog runs on the grass"],
    ...         ["a dog runs on the grass", "two cats sleep inside"],
    ...         ["a man rides a horse", "a man riding a horse", "a woman on a bike"]]
    >>> sparsecider.self_cider(sets, df="coco-val2014").scores.round(4).tolist()
    [0.0, 1.0, 0.8984]
    """
    if isinstance(df, str) and df == "corpus":
        raise ValueError(
            "self_cider needs document frequencies from a corpus of references: the "
            "candidate sets have none to count (df='corpus'). Use df='coco-val2014' (the "
            "authors' choice for COCO: every image of COCO val 2014) or "
            "df=DocumentFrequencies.from_references(your references)"
        )
    options = check_options(n=n, sigma=None, scale=10.0, df=df, tokenizer=tokenizer, plain=True)
    jobs = check_n_jobs(n_jobs)
    corpus = as_candidate_sets(candidate_sets)
    check_id_strings(corpus.candidates, options.df)
    stats = statistics(
        corpus, n=options.n, clip=False, tokenizer=options.tokenizer, df=options.df, n_jobs=jobs
    )
    advise(corpus.candidates, (), options.tokenizer, options.df)
    # the authors' kernel: each pair's per-order cosines, their mean, times 10
    pair_kernel = reduce.pair_values(stats, None).mean(axis=0)
    pair_kernel *= 10.0
    sizes = np.diff(corpus.reference_offsets)
    starts = np.concatenate(([0], np.cumsum(sizes * sizes)))
    scores = np.empty(sizes.shape[0])
    kept: list[np.ndarray | None] = [None] * sizes.shape[0]
    for m in np.unique(sizes).tolist():
        sets = np.flatnonzero(sizes == m)
        # each set's m * m pairs are contiguous, candidate-major: (a, b) at a * m + b
        rows = starts[sets][:, None] + np.arange(m * m)
        stacked = pair_kernel[rows].reshape(sets.shape[0], m, m)
        scores[sets] = kernel_diversity(stacked / 10.0)
        if kernels:
            for s, matrix in zip(sets.tolist(), stacked, strict=True):
                kept[s] = matrix
    signature = options.signature(corpus.n_images).replace(metric="Self-CIDEr")
    defined = np.isfinite(scores)
    return SelfCiderResult(
        score=float(scores[defined].mean()) if defined.any() else float("nan"),
        scores=scores,
        sizes=sizes,
        signature=signature,
        ids=corpus.ids,
        kernels=tuple(kept) if kernels else None,
    )


def kernel_diversity(kernels: np.ndarray) -> np.ndarray:
    """Self-CIDEr of stacked kernel matrices: ``-log_m(sqrt(l_max) / sum sqrt(l_i))``.

    ``l`` are the eigenvalues of each matrix, clipped at 0, as the authors'
    ``get_div``.  A matrix whose rows a and b are equal bit for bit (two
    identical captions) has the exact null vector ``e_a - e_b``: such rows
    are merged (the eigenvalues of ``K = P' K_u P``, P the indicator of which
    distinct row each row repeats, are those of ``D^1/2 K_u D^1/2``, D the
    multiplicities, and zeros), and all-zero rows (captions with a zero
    vector) dropped, so exact zero eigenvalues are 0, not rounding noise.
    Matrices with the same number of distinct rows share one stacked
    ``numpy.linalg.eigvalsh`` call.  Cost: O(s m**2) to find equal rows
    (more only for sets with many of them), O(s m**3) for the eigenvalues.

    Parameters
    ----------
    kernels : ndarray of float64, shape (s, m, m)
        Symmetric positive semi-definite matrices (the authors' ``K / 10``).

    Returns
    -------
    ndarray of float64, shape (s,)
        ``nan`` for m = 1 (``log_1``) and for an all-zero matrix.

    Examples
    --------
    >>> kernel_diversity(np.array([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])).tolist()
    [0.0, 1.0]
    """
    s, m = kernels.shape[0], kernels.shape[1]
    out = np.full(s, np.nan)
    if m < 2 or s == 0:
        return out
    diag = np.diagonal(kernels, axis1=1, axis2=2)
    # rows b < a that row a may repeat: equal entries at (a, a), (a, b), (b, b)
    maybe = (kernels == diag[:, :, None]) & (kernels == diag[:, None, :])
    maybe &= np.tri(m, k=-1, dtype=bool)
    set_, a, b = np.nonzero(maybe)
    equal = (kernels[set_, a] == kernels[set_, b]).all(axis=1)
    # equality is transitive: each row's group is led by its first row
    first = np.tile(np.arange(m), (s, 1))
    np.minimum.at(first, (set_[equal], a[equal]), b[equal])
    # a group's weight: its number of rows; zero vectors (all-zero rows) weigh nothing
    weight = np.zeros((s, m))
    np.add.at(weight, (np.arange(s)[:, None], first), (diag != 0).astype(np.float64))
    distinct = weight > 0
    counts = distinct.sum(axis=1)
    for u in np.unique(counts).tolist():
        sets = np.flatnonzero(counts == u)
        if u == 0:
            continue  # every vector is zero: 0 / 0, nan as in the authors' code
        if u == m:  # nothing merged (the common case): the matrices as they are
            matrices = kernels[sets]
        else:
            # each set's distinct rows first (stable), then the weighted u x u block
            keep = np.argsort(~distinct[sets], axis=1, kind="stable")[:, :u]
            root = np.sqrt(np.take_along_axis(weight[sets], keep, axis=1))
            matrices = kernels[sets[:, None, None], keep[:, :, None], keep[:, None, :]]
            matrices = root[:, :, None] * matrices * root[:, None, :]
        eig = np.clip(np.linalg.eigvalsh(matrices), 0.0, None)
        roots = np.sqrt(eig)
        out[sets] = -np.log(roots[:, -1] / roots.sum(axis=1)) / np.log(m) + 0.0
    return out
