"""The public scoring functions: validate -> Corpus -> engine -> reduce -> result.

:func:`cider_d` and :func:`cider` check their options once
(:mod:`sparsecider.core.validate`), normalise the captions into a
:class:`~sparsecider.core.corpus.Corpus`, compute pair statistics
(:mod:`sparsecider.core.engine`), reduce them to scores (:mod:`sparsecider.core.reduce`)
and wrap them in a :class:`~sparsecider.core.result.CiderResult`.
:func:`score_corpus` is that pipeline for an already normalised corpus; the
other faces (vectorizer, drop-ins, command line) call it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..core import reduce
from ..core.advice import advise, check_id_strings, warn_small_corpus
from ..core.corpus import Corpus, as_corpus
from ..core.engine import statistics
from ..core.frequencies import DocumentFrequencies
from ..core.progress import Progress, check_progress
from ..core.progress import bar as progress_bar
from ..core.result import CiderResult, Signature
from ..core.validate import Options, check_n_jobs, check_options
from ..tokenizers import TokenizerLike

__all__ = ["cider", "cider_d", "score_corpus"]

Candidates = Sequence[str] | Sequence[Sequence[str]] | Mapping[object, str | Sequence[str]]
References = Sequence[Sequence[str]] | Mapping[object, Sequence[str]]


def score_corpus(
    corpus: Corpus, options: Options, *, n_jobs: int = 1, progress: Progress | None = None,
    stacklevel: int = 1, signature: Signature | None = None,
) -> CiderResult:  # fmt: skip
    """Score a normalised corpus with checked options, in ``n_jobs`` threads
    (``progress``: see :func:`sparsecider.core.engine.statistics`).  A
    :class:`~sparsecider.SmallCorpusWarning` or
    :class:`~sparsecider.TokenizerWarning` points ``stacklevel`` frames above
    the caller (1: the caller's caller, the user of a public function).
    ``signature``: ``options.signature(corpus.n_images)``, when the caller
    has made it already.

    Examples
    --------
    >>> from sparsecider.core.validate import check_options
    >>> from sparsecider.core.corpus import as_corpus
    >>> options = check_options(n=4, sigma=6.0, scale=10.0, df="corpus", tokenizer="whitespace")
    >>> corpus = as_corpus(["a dog runs", "a red bus"], [["a dog runs"], ["a blue car"]])
    >>> score_corpus(corpus, options).scores.round(12).tolist()  # "a" is in both images: idf 0
    [7.5, 0.0]

    Image 0 matches its reference in orders 1-3 (cosine 1) and has no
    4-gram: 10 * 3 / 4.  Image 1 shares only "a", whose idf is 0.
    """
    n_images = corpus.n_images
    if signature is None:
        signature = options.signature(n_images)
    check_id_strings(corpus.candidates, options.df, corpus.references)
    stats = statistics(
        corpus, n=options.n, clip=options.clip, tokenizer=options.tokenizer, df=options.df,
        n_jobs=n_jobs, progress=progress,
    )  # fmt: skip
    # advice once the scores exist: no warning just before an error
    warn_small_corpus(n_images, options.df, stacklevel=3 + stacklevel)
    advise(
        corpus.candidates, corpus.references, options.tokenizer, options.df,
        stacklevel=1 + stacklevel,
    )  # fmt: skip
    return CiderResult.from_per_order(
        reduce.per_order_values(stats, options.sigma, options.scale),
        signature=signature,
        n_images=n_images,
        image_index=corpus.candidate_image,
        ids=corpus.ids,
        df=options.df,
        empty_candidates=stats.empty_candidates,
    )


def cider_d(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    sigma: float = 6.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    n_jobs: int | None = -1,
    progress: bool | None = False,
) -> CiderResult:
    """CIDEr-D, exactly as pycocoevalcap's ``Cider`` class computes it.

    Parameters
    ----------
    candidates : list of str, list of list of str, or dict
        One caption per image; or several per image (n-best lists, sampled
        captions), each scored against that image's references; or a dict
        from image id to a caption or a list of captions.
    references : list of list of str, or dict
        The reference captions of each image, aligned with ``candidates``;
        or a dict from image id to its references (then the ids must match
        those of ``candidates`` exactly; output follows the candidates' order).
    n : int, default 4
        Highest n-gram order, 1 to 64; orders 1..n are averaged.  With
        ``n=1`` there is no length penalty (pycocoevalcap's length counts
        bigrams: as its code does with ``n`` honoured).
    sigma : float, default 6.0
        Width of the Gaussian length penalty, from 1e-150 to 1e150 (beyond,
        ``sigma**2`` under- or overflows).
    df : "corpus", a name, a path, or DocumentFrequencies, default "corpus"
        ``"corpus"``: document frequencies from the references being scored
        (one document per image).  ``"coco-val2014"``: those of all of COCO
        val 2014, shipped in the package (see
        :meth:`DocumentFrequencies.named`): the choice for one caption or a
        few.  A :class:`DocumentFrequencies` fitted on another corpus (e.g.
        the training captions for RL rewards): each image then scores
        exactly as it would inside that corpus; or the path of one saved
        (:meth:`DocumentFrequencies.save`, ``sparsecider df fit``: what the
        command line's ``--df`` takes).  A table of token ids
        (:meth:`DocumentFrequencies.from_id_references`) is refused here,
        but for space-joined id strings with ``tokenizer="whitespace"``.
    tokenizer : str or callable, default "ptb"
        How captions become tokens.  ``"ptb"``: raw text through the
        reference pipeline (pycocoevalcap's ``PTBTokenizer``, in pure Python:
        see :func:`sparsecider.ptb_tokenize`); the references, flattened
        image after image, are tokenized as one sequence and the candidates
        as another, as ``COCOEvalCap`` does.  ``"whitespace"``: captions
        already tokenized (``str.split``), as pycocoevalcap's scorer takes
        them.  The other registered names (:func:`sparsecider.tokenizers.registered`):
        ``"char"``, ``"jieba"``, ``"mecab"``, ``"kiwi"`` for Chinese, Japanese
        and Korean.  A callable maps the list of captions to a list of token
        lists.
    scale : float, default 10.0
        Final multiplier (pycocoevalcap uses 10), above 0 up to 1e300.
    n_jobs : int or None, default -1
        Threads for large corpora: -1 (the default) one per CPU, -2 all but
        one, None or 1 a single thread.  The images are split into that many
        contiguous shards, tokenized, counted and scored in parallel (most of
        the work runs in numpy without the GIL); the result is bit-identical
        for every value.  Corpora under 4,000 images (an RL batch, a
        notebook cell) are always scored in the calling thread, and no
        shard gets fewer than 2,000 images.  A callable ``tokenizer`` is then
        called from the worker threads, once per shard: it must be
        thread-safe and tokenize each caption on its own.
    progress : bool or None, default False
        A tqdm progress bar on standard error over the engine's steps
        (tokenize; hash; count and score each order; per shard when
        threaded), for corpora that take a while.  None: a bar only when
        standard error is a terminal and tqdm is installed.  True needs
        tqdm (``pip install 'sparsecider[progress]'``).

    Returns
    -------
    CiderResult
        ``score`` (corpus mean), ``scores`` (one per candidate, input order),
        ``per_order`` (shape (n_candidates, n)), ``signature`` and more.

    Raises
    ------
    TypeError
        A bare string where a list is expected, or a non-string caption.
    ValueError
        Misaligned or mismatched inputs, an image without references, every
        reference empty, or an invalid parameter.

    Notes
    -----
    A corpus of one image scores 0 with ``df="corpus"`` (every idf is
    ``log 1 = 0``); a warning says so.

    Examples
    --------
    >>> import sparsecider
    >>> r = sparsecider.cider_d(
    ...     ["A dog runs on the grass.", "A red bus."],
    ...     [["A dog running on grass.", "The dog runs!"], ["A red bus on the road."]],
    ... )
    >>> round(r.score, 4), r.scores.shape, r.per_order.shape
    (3.3234, (2,), (2, 4))
    >>> r.signature
    'CIDEr-D|n:4|sigma:6|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    """
    options = check_options(n=n, sigma=sigma, scale=scale, df=df, tokenizer=tokenizer)
    return _score(candidates, references, options, n_jobs, progress)


def cider(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    n_jobs: int | None = -1,
    progress: bool | None = False,
) -> CiderResult:
    """Plain CIDEr: as :func:`cider_d` without clipping and without the length penalty.

    Each order's value is the plain cosine of the tf-idf vectors, as in the
    CIDEr authors' own ``Cider`` scorer (not pycocoevalcap's ``Cider``, which
    is CIDEr-D).  Parameters, return value and errors as :func:`cider_d`.

    Examples
    --------
    >>> import sparsecider
    >>> r = sparsecider.cider(["a dog runs", "a red bus"], [["a dog runs fast"], ["a bus"]])
    >>> r.signature
    'CIDEr|n:4|df:corpus(n_images=2)|tok:ptb|version:0.1.0'
    """
    options = check_options(n=n, sigma=None, scale=scale, df=df, tokenizer=tokenizer, plain=True)
    return _score(candidates, references, options, n_jobs, progress)


def _score(
    candidates: Candidates, references: References, options: Options, n_jobs: object,
    progress: object,
) -> CiderResult:  # fmt: skip
    jobs = check_n_jobs(n_jobs)
    show = check_progress(progress)
    corpus = as_corpus(candidates, references)
    signature = options.signature(corpus.n_images)
    bar = progress_bar(show, signature.metric)
    try:
        return score_corpus(
            corpus, options, n_jobs=jobs, progress=bar, stacklevel=2, signature=signature
        )
    finally:
        bar.close()
