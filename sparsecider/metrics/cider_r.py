"""CIDEr-R: CIDEr-D with the repetition and length penalties of Santos et al. (W-NUT 2021).

"CIDEr-R: Robust Consensus-based Image Description Evaluation" (G. O. dos
Santos, E. L. Colombini, S. Avila) replaces CIDEr-D's Gaussian length
penalty by a product of two penalties, per candidate-reference pair:

- length: ``exp(-(L_r - L_c)**2 / (alpha * L_r**2))``, relative to the
  reference's length, so a short caption is not crushed by a fixed width;
- repetition: the geometric mean, over the distinct words of the candidate,
  of ``1 / (1 + |f_r(w) - f_c(w)|)`` for a word the reference holds and of
  ``1 / f_c(w)`` for one it does not (f: the word's count);

combined as ``repetition**repeat_coeff * length**length_coeff`` and applied
to each order's clipped cosine.  Defaults and arithmetic are those of
SacreEOS's pure-Python ``CiderR`` (``pip install sacreeos``), itself the
scorer of the authors' coco-caption fork (gabrielsantosrv/coco-caption,
``pycocoevalcap/ciderR``).

Where its tokenization differs from CIDEr-D's: the n-grams, their document
frequencies, the clipped cosines and the lengths are CIDEr-D's (the
captions' tokens split on whitespace; L = the number of bigrams + 1, i.e.
the number of tokens, except an empty caption, of length 1), but the
repetition penalty counts *words* found by the regular expression ``\\w+``
(nltk's ``RegexpTokenizer``) in the space-joined tokens: a token such as
``'s``, ``-lrb-``, ``e.g.``, ``3.5`` or ``black-and-white`` gives the words
``s``, ``lrb``, ``e`` and ``g``, ``3`` and ``5``, ``black``, ``and`` and
``white``, and a punctuation token gives none.  Everything is computed from
the engine's statistics (the cosines) and one more join of the two sides'
word counts (:func:`sparsecider._kernels.pairs.column_pair_entries`).
"""

from __future__ import annotations

import re

import numpy as np

from .._checks import check_real
from .._kernels.pairs import candidate_reference_pairs, column_pair_entries, sum_by
from .._kernels.tokens import Tokens
from ..core import reduce
from ..core.advice import advise, check_id_strings, warn_small_corpus
from ..core.corpus import Corpus, as_corpus
from ..core.engine import statistics
from ..core.frequencies import DocumentFrequencies
from ..core.result import CiderResult
from ..core.stages import count_order, prepare
from ..core.validate import check_n_jobs, check_options
from ..tokenizers import (
    Tokenizer,
    TokenizerLike,
    get_tokenizer,
    ptb_tokenize,
    split_whitespace,
    tokenize,
)
from .cider import Candidates, References

__all__ = [
    "DEFAULTS",
    "cider_r",
    "length_penalty",
    "repetition_penalty",
    "token_text",
    "word_tokens",
]

#: SacreEOS's defaults (``sacreeos.metric.cider_r.CiderR``), those of the paper.
DEFAULTS = {"n": 4, "repeat_coeff": 0.8, "length_coeff": 0.2, "alpha": 1.0}

# not a word character (``\w``: Unicode letters, digits and "_"); and its ASCII
# part as a byte table, NUL (the separator between texts) and wider bytes kept
_NOT_WORD = re.compile(r"\W+")
_ASCII_NOT_WORD = bytes(
    b if b == 0 or b >= 128 or chr(b).isalnum() or b == ord("_") else ord(" ") for b in range(256)
)


def cider_r(
    candidates: Candidates,
    references: References,
    *,
    n: int = 4,
    repeat_coeff: float = 0.8,
    length_coeff: float = 0.2,
    alpha: float = 1.0,
    df: str | DocumentFrequencies = "corpus",
    tokenizer: TokenizerLike = "ptb",
    scale: float = 10.0,
    n_jobs: int | None = -1,
) -> CiderResult:
    """CIDEr-R, exactly as SacreEOS's pure-Python ``CiderR`` computes it.

    Parameters
    ----------
    candidates, references
        As in :func:`sparsecider.cider_d`.
    n : int, default 4
        Highest n-gram order, at least 2 (as SacreEOS requires: the lengths
        are bigram counts).
    repeat_coeff, length_coeff : float, default 0.8 and 0.2
        Exponents of the repetition and length penalties; positive, adding
        up to 1.
    alpha : float, default 1.0
        Width of the length penalty, relative to the reference's length.
    df : "corpus", a name, a path, or DocumentFrequencies, default "corpus"
        As in :func:`sparsecider.cider_d` (SacreEOS's ``corpus_refss``
        argument is a DocumentFrequencies here).
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
        As in :func:`sparsecider.cider_d`.  The repetition penalty needs the
        tokens' text (its words are ``\\w+`` runs of the space-joined
        tokens), so the other registered tokenizers are refused: wrap one in
        a callable returning token lists.
    scale, n_jobs
        As in :func:`sparsecider.cider_d`.

    Returns
    -------
    CiderResult
        With ``metric == "CIDEr-R"`` and the penalties' parameters in the
        signature.

    Raises
    ------
    TypeError, ValueError
        As :func:`sparsecider.cider_d`; also ``n < 2``, coefficients that are
        not positive or do not add up to 1, ``alpha <= 0``, or a tokenizer
        whose tokens have no text.

    Notes
    -----
    A candidate without any ``\\w`` word (empty, or only punctuation tokens)
    has no repetition to penalize: its penalty is 1 here, where SacreEOS
    takes the geometric mean of no numbers (``nan``, with a warning from
    scipy) and returns ``nan``; an empty candidate scores 0.

    Examples
    --------
    Repeating "red" costs the second candidate its repetition penalty
    (``1 / (1 + |1 - 3|)`` for "red", 1 for "a" and "bus": a geometric mean
    of 0.693) and some length (4 words against 6); CIDEr-D's length penalty
    is milder and it does not see the repetition:

    >>> import sparsecider
    >>> refs = [["a dog runs on the grass"], ["a red bus on the road"]]
    >>> cands = ["a dog runs on the grass", "a red red red bus"]
    >>> r = sparsecider.cider_r(cands, refs, tokenizer="whitespace")
    >>> r.scores.round(4).tolist(), r.metric
    ([10.0, 1.4345], 'CIDEr-R')
    >>> sparsecider.cider_d(cands, refs, tokenizer="whitespace").scores.round(4).tolist()
    [10.0, 1.9068]
    >>> r.signature
    'CIDEr-R|n:4|rc:0.8|lc:0.2|alpha:1|df:corpus(n_images=2)|tok:whitespace|version:...'
    """
    repeat_coeff, length_coeff, alpha = _check_penalties(n, repeat_coeff, length_coeff, alpha)
    options = check_options(n=n, sigma=None, scale=scale, df=df, tokenizer=tokenizer, plain=True)
    jobs = check_n_jobs(n_jobs)
    corpus = as_corpus(candidates, references)
    ref_text = token_text(corpus.references, options.tokenizer)
    check_id_strings(corpus.candidates, options.df, corpus.references)
    cand_text = token_text(corpus.candidates, options.tokenizer)
    # the n-grams of the tokens' text split on whitespace: those of the tokenizer
    texts = Corpus(cand_text, corpus.candidate_image, ref_text, corpus.reference_offsets, None)
    stats = statistics(
        texts, n=options.n, clip=True, tokenizer=get_tokenizer("whitespace"), df=options.df,
        n_jobs=jobs,
    )  # fmt: skip
    _, pair_reference = candidate_reference_pairs(corpus.candidate_image, corpus.reference_offsets)
    # SacreEOS's lengths: bigrams + 1 (the length delta is the engine's, in bigrams)
    ref_length = np.maximum(split_whitespace(ref_text).lengths - 1, 0) + 1
    penalty = np.power(
        repetition_penalty(
            word_tokens(ref_text), word_tokens(cand_text),
            corpus.candidate_image, corpus.reference_offsets,
        ),
        repeat_coeff,
    )  # fmt: skip
    penalty *= np.power(
        length_penalty(stats.length_delta, ref_length[pair_reference], alpha), length_coeff
    )
    values = reduce.pair_values(stats, None)
    values *= penalty
    warn_small_corpus(corpus.n_images, options.df, stacklevel=3)
    advise(corpus.candidates, corpus.references, options.tokenizer, options.df)
    signature = options.signature(corpus.n_images).replace(
        metric="CIDEr-R", params=(("rc", repeat_coeff), ("lc", length_coeff), ("alpha", alpha))
    )
    return CiderResult.from_per_order(
        reduce.reference_means(stats, values, options.scale),
        signature=signature,
        n_images=corpus.n_images,
        image_index=corpus.candidate_image,
        ids=corpus.ids,
        df=options.df,
        empty_candidates=stats.empty_candidates,
    )


def _check_penalties(
    n: object, repeat_coeff: object, length_coeff: object, alpha: object
) -> tuple[float, float, float]:
    """SacreEOS's checks of ``CiderR``'s arguments, in this library's message style."""
    if isinstance(n, int) and not isinstance(n, bool) and n < 2:
        raise ValueError(
            f"n must be at least 2 for CIDEr-R, got {n}: its length penalty counts bigrams "
            "(SacreEOS refuses n < 2 too)"
        )
    # finite and > 0, as SacreEOS requires too
    rc = check_real("repeat_coeff", repeat_coeff)
    lc = check_real("length_coeff", length_coeff)
    a = check_real("alpha", alpha)
    # SacreEOS demands rc + lc == 1.0 exactly, which refuses 0.7 and 0.3
    if abs(rc + lc - 1.0) > 1e-12:
        raise ValueError(
            f"repeat_coeff and length_coeff must add up to 1 (they weigh a geometric mean "
            f"of the two penalties), got {rc!r} and {lc!r}"
        )
    return rc, lc, a


def token_text(captions: list[str], tokenizer: Tokenizer) -> list[str]:
    """Each caption's tokens joined by single spaces: the text SacreEOS is given.

    ``"whitespace"``: the captions themselves (their whitespace-split tokens
    and ``\\w+`` words are those of the joined tokens).  ``"ptb"``:
    :func:`sparsecider.ptb_tokenize` of all the captions as one sequence.
    A callable: its token lists, checked as every custom tokenizer's are.

    Raises
    ------
    ValueError
        Another registered tokenizer (its tokens exist only as hashes).
    """
    if tokenizer.custom is not None:
        token_lists = tokenizer.custom(captions)
        tokenize(captions, lambda _: token_lists)  # the checks of a custom tokenizer's output
        return [" ".join(tokens) for tokens in token_lists]
    if tokenizer.base_name == "whitespace":
        return captions
    if tokenizer.base_name == "ptb":
        return ptb_tokenize(captions)
    raise ValueError(
        f"cider_r needs the tokens' text for its repetition penalty; tokenizer="
        f"{tokenizer.name!r} gives only hashes. Use 'ptb', 'whitespace' or a callable "
        "returning token lists"
    )


def word_tokens(texts: list[str]) -> Tokens:
    """The ``\\w+`` words of each text (nltk's ``RegexpTokenizer(r'\\w+')``), hashed.

    Every character that is not a word character becomes a space, then the
    words are split and hashed as the whitespace tokenizer does.  ASCII is
    done in one ``bytes.translate`` over all texts joined by NUL characters;
    only the texts holding wider characters go through the regular
    expression ``\\W`` (Python's Unicode definition, the one nltk uses).

    Examples
    --------
    >>> texts = ["a dog 's toy -lrb- e.g. -rrb-", ". ,", "3.5 black-and-white"]
    >>> word_tokens(texts).lengths.tolist()  # a dog s toy lrb e g rrb; none; 3 5 black and white
    [8, 0, 5]
    """
    joined = "\x00".join(texts)
    if not texts or joined.count("\x00") != len(texts) - 1:  # a NUL inside a text: one at a time
        return split_whitespace([_NOT_WORD.sub(" ", text) for text in texts])
    data = joined.encode("utf-8", "surrogatepass")
    spaced = data.translate(_ASCII_NOT_WORD)
    if len(data) == len(joined):
        return split_whitespace(spaced.decode("ascii").split("\x00"))
    words = spaced.decode("utf-8", "surrogatepass").split("\x00")
    for i, text in enumerate(words):
        if not text.isascii():
            words[i] = _NOT_WORD.sub(" ", text)
    return split_whitespace(words)


def length_penalty(delta: np.ndarray, ref_length: np.ndarray, alpha: float) -> np.ndarray:
    """CIDEr-R's length penalty ``e ** (-delta**2 / (alpha * L_r**2))`` of each pair.

    ``np.power(e, x)``, like SacreEOS's ``np.e ** x`` (the C ``pow``), not ``exp``.

    Examples
    --------
    >>> length_penalty(np.array([0, 2]), np.array([5, 4]), 1.0).round(4).tolist()
    [1.0, 0.7788]
    """
    x = -(delta.astype(np.float64) ** 2) / (alpha * ref_length.astype(np.float64) ** 2)
    return np.power(np.e, x)


def repetition_penalty(
    ref_words: Tokens,
    cand_words: Tokens,
    candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
) -> np.ndarray:
    """CIDEr-R's repetition penalty of every (candidate, reference) pair, shape (n_pairs,).

    The geometric mean over the candidate's distinct words of
    ``1 / (1 + |f_r - f_c|)`` (word in the reference) or ``1 / f_c`` (not in
    it), as ``exp`` of the mean of logs::

        sum_w log(1 / f_c(w)) + sum_{w shared} [log f_c(w) - log(1 + |f_r(w) - f_c(w)|)]

    The first sum is the candidate's alone; the second joins, per distinct
    word, each candidate's count with the counts of its image's references
    (the engine's layout and join, on order-1 counts of the words).  A
    candidate without words gets 1.  Pairs are grouped by candidate, as the
    engine's.

    Examples
    --------
    "a dog dog" against "a dog": words a (1 vs 1: 1) and dog (2 vs 1: 1/2),
    geometric mean sqrt(1/2); against "the cat": 1 / 1 and 1 / 2 again:

    >>> from sparsecider.tokenizers import tokenize
    >>> refs = tokenize(["a dog", "the cat"], "whitespace")
    >>> cands = tokenize(["a dog dog"], "whitespace")
    >>> repetition_penalty(refs, cands, np.array([0]), np.array([0, 2])).round(4).tolist()
    [0.7071, 0.7071]
    """
    prepared = prepare(ref_words, cand_words, candidate_image, reference_offsets, n=1)
    n_pairs = prepared.pair_candidate.shape[0]
    n_cands = candidate_image.shape[0]
    count_order(prepared, 0, local_df=False)
    order, slots = prepared.orders[0], prepared.slots
    runs, candidate = order.entry_groups(slots)
    counts, rows = order.counts.data, order.counts.indices
    # each candidate's own sum over its distinct words, and how many there are
    own = np.flatnonzero(candidate)
    cand_of_slot = np.zeros(slots.n_slots, dtype=np.int64)
    cand_of_slot[slots.candidate_slot] = np.arange(n_cands)
    owner = cand_of_slot[rows[own]]
    base = -sum_by(owner, np.log(counts[own]), n_cands)
    distinct = np.bincount(owner, minlength=n_cands)
    # the words a pair shares
    c_entry, r_entry = column_pair_entries(runs, candidate)
    c, r = counts[c_entry], counts[r_entry]
    shared = np.log(c) - np.log(1.0 + np.abs(r - c))
    pair = slots.slot_pair_base[rows[c_entry]] + slots.slot_pair_base[rows[r_entry]]
    total = sum_by(pair, shared, n_pairs)
    total += base[prepared.pair_candidate]
    words = distinct[prepared.pair_candidate]
    mean = np.divide(total, words, out=np.zeros(n_pairs), where=words > 0)
    return np.exp(mean)
