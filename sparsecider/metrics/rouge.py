"""ROUGE-L exactly as pycocoevalcap 1.2's ``Rouge``: LCS statistics, then a pure score.

Per candidate-reference pair, the length of the longest common subsequence
of their tokens (:mod:`sparsecider._kernels.lcs`, every pair at once);
per candidate, the precision ``lcs / len(candidate)`` and the recall
``lcs / len(reference)``, each maximised over the image's references
*separately* (the two maxima may come from different references); then
the F-measure ``(1 + beta**2) P R / (R + beta**2 P)`` with beta = 1.2,
0 when P or R is 0.  The corpus score is the plain mean.

Tokens, as the reference makes them.  pycocoevalcap's ``Rouge`` splits a
caption with ``caption.split(" ")``, on single spaces only, not with
``str.split()`` as its ``Bleu`` and ``Cider`` do (:func:`split_space`):

- ``tokenizer="whitespace"`` (captions already tokenized) splits so: a run
  of spaces gives empty tokens, and other whitespace stays inside a token;
- ``tokenizer="ptb"`` splits the output of the PTB pipeline so, as
  ``COCOEvalCap`` does: a PTB token may hold a non-breaking space
  (``1\xa01/2`` from "1 1/2"), one token here, two for BLEU and CIDEr;
- so an empty caption is one empty token: an empty candidate scores 0
  against non-empty references, but 1 against an empty reference.  A
  callable tokenizer's token lists keep that rule (no tokens: one empty
  token), which is the reference on the tokens joined by single spaces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .._kernels.arrays import exclusive_cumsum, ranges
from .._kernels.hashing import hash_byte_tokens
from .._kernels.lcs import lcs_lengths
from .._kernels.pairs import candidate_reference_pairs
from .._kernels.tokens import Tokens
from ..core.advice import advise
from ..core.corpus import Corpus, as_corpus
from ..core.result import CiderResult, Signature
from ..core.shards import per_candidate
from ..core.validate import check_beta, check_n_jobs
from ..tokenizers import Tokenizer, TokenizerLike, get_tokenizer, ptb_tokenize

__all__ = [
    "EMPTY_TOKEN",
    "rouge_l",
    "rouge_l_result",
    "rouge_l_scores",
    "rouge_l_statistics",
    "rouge_l_tokenizer",
    "split_space",
]

# the hash of the empty string in the token scheme (length 0, no bytes: 0)
EMPTY_TOKEN = np.uint64(0)


def split_space(captions: Sequence[str]) -> Tokens:
    """``caption.split(" ")`` of every caption, hashed: pycocoevalcap's ``Rouge`` split.

    Only the space U+0020 separates tokens; a run of spaces, or a space at
    either end, gives empty tokens, and an empty caption is one empty token
    (hash :data:`EMPTY_TOKEN`); other whitespace stays inside tokens.
    Tokens hash as in every tokenizer (:mod:`sparsecider._kernels.hashing`).
    Cost: one join and one UTF-8 encode, then vectorised passes over the
    bytes; no Python object per token.

    Returns
    -------
    Tokens
        ``lengths[i] == len(captions[i].split(" "))``.

    Examples
    --------
    >>> t = split_space(["a  dog\\tbarks", "", " é "])
    >>> t.lengths.tolist()
    [3, 1, 3]
    >>> [int(h) == 0 for h in t.hashes]  # "a", "", "dog\\tbarks"; ""; "", "é", ""
    [False, True, False, True, True, False, True]
    """
    n = len(captions)
    if n == 0:
        return Tokens(hashes=np.empty(0, dtype=np.uint64), lengths=np.empty(0, dtype=np.int64))
    text = " ".join(captions)
    # "a b" + " " + "c" splits into the tokens of "a b", then those of "c"
    # 8 bytes of padding: the hash reads 8 bytes at a time, from any token start
    data = (text + "\0" * 8).encode("utf-8", "surrogatepass")
    buffer = np.frombuffer(data, dtype=np.uint8)
    n_bytes = buffer.shape[0] - 8
    spaces = np.flatnonzero(buffer[:n_bytes] == 0x20)
    starts = np.concatenate(([0], spaces + 1))
    lengths = np.concatenate((spaces, [n_bytes])) - starts
    caption_start = exclusive_cumsum(np.fromiter(map(len, captions), np.int64, n) + 1)[:-1]
    if n_bytes != len(text):  # characters to bytes: add the continuation bytes before
        wide = np.flatnonzero(buffer[:n_bytes] >= 0x80)
        continuation = wide[(buffer[wide] & 0xC0) == 0x80]
        owner_end = continuation - np.arange(continuation.shape[0])
        caption_start = caption_start + np.searchsorted(owner_end, caption_start, side="right")
    # a caption's first token: one after each space before it
    first_token = np.searchsorted(spaces, caption_start)
    # an empty token is hashed as one byte (the next), then given the empty string's hash
    hashes = hash_byte_tokens(buffer, starts, np.maximum(lengths, 1))
    hashes[lengths == 0] = EMPTY_TOKEN
    return Tokens(hashes=hashes, lengths=np.diff(first_token, append=starts.shape[0]))


def _ptb_split_space(captions: list[str]) -> Tokens:
    return split_space(ptb_tokenize(captions))


# the registered names, split as pycocoevalcap's Rouge splits their text
_ROUGE_SPLIT = {
    "ptb": Tokenizer("ptb", _ptb_split_space, lookahead=True),
    "whitespace": Tokenizer("whitespace", split_space),
}


def rouge_l_tokenizer(tokenizer: TokenizerLike) -> Tokenizer:
    """The tokenizer :func:`rouge_l` uses for a ``tokenizer`` argument.

    ``"ptb"`` and ``"whitespace"`` keep their names (and signatures) but end
    in :func:`split_space`, as pycocoevalcap's ``Rouge`` reads text; any
    other name or a callable resolves as everywhere
    (:func:`sparsecider.tokenizers.get_tokenizer`).

    Examples
    --------
    >>> rouge_l_tokenizer("whitespace").split(["a  b", "1\xa01/2"]).lengths.tolist()
    [3, 1]
    >>> rouge_l_tokenizer("ptb").split(["A Dog  runs.", "1 1/2 cups"]).lengths.tolist()
    [3, 2]
    """
    if isinstance(tokenizer, str) and tokenizer in _ROUGE_SPLIT:
        return _ROUGE_SPLIT[tokenizer]
    return get_tokenizer(tokenizer)


def _empty_as_token(tokens: Tokens) -> Tokens:
    """Every caption without tokens given one empty token, as ``"".split(" ")`` is ``[""]``."""
    empty = tokens.lengths == 0
    if not empty.any():
        return tokens
    lengths = np.maximum(tokens.lengths, 1)
    hashes = np.full(int(lengths.sum()), EMPTY_TOKEN, dtype=np.uint64)
    hashes[ranges(exclusive_cumsum(lengths)[:-1], tokens.lengths)] = tokens.hashes
    return Tokens(hashes=hashes, lengths=lengths)


def _measure(
    ref_tokens: Tokens, cand_tokens: Tokens, candidate_image: np.ndarray,
    reference_offsets: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Each candidate's best precision and best recall over its image's references."""
    refs, cands = _empty_as_token(ref_tokens), _empty_as_token(cand_tokens)
    pair_c, pair_r = candidate_reference_pairs(candidate_image, reference_offsets)
    tokens = np.concatenate((refs.hashes, cands.hashes))
    ref_start = exclusive_cumsum(refs.lengths)[:-1]
    cand_start = exclusive_cumsum(cands.lengths)[:-1] + refs.hashes.shape[0]
    cand_len, ref_len = cands.lengths[pair_c], refs.lengths[pair_r]
    lcs = lcs_lengths(tokens, cand_start[pair_c], cand_len, ref_start[pair_r], ref_len)
    n_candidates = cands.lengths.shape[0]
    first_pair = exclusive_cumsum(np.bincount(pair_c, minlength=n_candidates))[:-1]
    # as the reference: lcs / float(len), maximised over references separately
    precision = np.maximum.reduceat(lcs / cand_len, first_pair)
    recall = np.maximum.reduceat(lcs / ref_len, first_pair)
    return precision, recall


def rouge_l_scores(precision: np.ndarray, recall: np.ndarray, beta: float = 1.2) -> np.ndarray:
    """The ROUGE-L F-measure of each candidate from its best precision and recall.

    ``((1 + beta**2) * P * R) / (R + beta**2 * P)``, in the reference's
    order of operations (bit-identical), and 0 where P or R is 0.

    Examples
    --------
    P = 0.5, R = 0.25: 2.44 * 0.5 * 0.25 / (0.25 + 1.44 * 0.5) = 0.305 / 0.97:

    >>> rouge_l_scores(np.array([1.0, 0.5, 0.0]), np.array([1.0, 0.25, 1.0])).tolist()
    [1.0, 0.31443298969072164, 0.0]
    """
    b2 = beta**2
    numerator = (1 + b2) * precision
    numerator *= recall
    denominator = recall + b2 * precision
    out = np.zeros(precision.shape[0])
    both = (precision != 0) & (recall != 0)
    np.divide(numerator, denominator, out=out, where=both)
    return out


def rouge_l(
    candidates: Sequence | Mapping,
    references: Sequence | Mapping,
    *,
    beta: float = 1.2,
    tokenizer: TokenizerLike = "ptb",
    n_jobs: int | None = -1,
) -> CiderResult:
    """ROUGE-L, exactly as pycocoevalcap's ``Rouge`` computes it.

    Parameters
    ----------
    candidates, references
        As :func:`sparsecider.cider_d`: one caption (or several) per image,
        and each image's references; lists or dicts keyed by image id.
    beta : float, default 1.2
        Weight of recall against precision (pycocoevalcap's fixed 1.2), from
        1e-150 to 1e150 (beyond, ``beta**2`` overflows).
    tokenizer : {"ptb", "whitespace"} or callable, default "ptb"
        ``"ptb"``: raw text through the reference pipeline, ``"whitespace"``:
        captions already tokenized; both then split on single spaces, as
        ``Rouge`` does (see the module's description and
        :func:`rouge_l_tokenizer`).  A callable maps the list of captions to
        token lists; a caption without tokens counts as one empty token.
    n_jobs : int or None, default -1
        Threads, as :func:`sparsecider.bleu`; results are bit-identical for
        every value.

    Returns
    -------
    CiderResult
        ``score`` (mean over candidates), ``scores`` (one per candidate, in
        input order), ``per_order`` (the scores as one column),
        ``signature`` such as ``ROUGE-L|beta:1.2|tok:ptb|version:...``.

    Raises
    ------
    TypeError, ValueError
        As :func:`sparsecider.cider_d` for the captions; ``beta`` not a
        finite number > 0.

    Examples
    --------
    The first candidate's best precision (3/3, against the first reference)
    and best recall (2/3, "dog runs" of "the dog runs") come from different
    references (values as pycocoevalcap's):

    >>> import sparsecider
    >>> r = sparsecider.rouge_l(["a dog runs", "a red bus"],
    ...                         [["a dog runs on the grass", "the dog runs"], ["a red bus stops"]])
    >>> r.scores.round(6).tolist(), round(r.score, 6)
    ([0.772152, 0.835616], 0.803884)
    >>> r.signature
    'ROUGE-L|beta:1.2|tok:ptb|version:0.1.0'
    """
    beta = check_beta(beta)
    resolved = rouge_l_tokenizer(tokenizer)
    jobs = check_n_jobs(n_jobs)
    corpus = as_corpus(candidates, references)
    precision, recall = rouge_l_statistics(corpus, resolved, n_jobs=jobs)
    advise(corpus.candidates, corpus.references, resolved)
    return rouge_l_result(
        precision, recall, beta=beta, tokenizer=resolved.name, n_images=corpus.n_images,
        image_index=corpus.candidate_image, ids=corpus.ids,
    )  # fmt: skip


def rouge_l_statistics(
    corpus: Corpus, tokenizer: Tokenizer, *, n_jobs: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's best precision and best recall over its image's references
    (a normalised corpus, a tokenizer from :func:`rouge_l_tokenizer`), in
    ``n_jobs`` threads; bit-identical for every value."""
    return per_candidate(corpus, tokenizer, _measure, n_jobs=n_jobs)


def rouge_l_result(
    precision: np.ndarray, recall: np.ndarray, *, beta: float, tokenizer: str, n_images: int,
    image_index: np.ndarray, ids: tuple | None,
) -> CiderResult:  # fmt: skip
    """The :class:`~sparsecider.CiderResult` of :func:`rouge_l` from its statistics
    (:func:`rouge_l_statistics`), whose per-candidate rows may come from
    several calls (:class:`sparsecider.CiderAccumulator`)."""
    scores = rouge_l_scores(precision, recall, beta)
    return CiderResult(
        score=float(scores.mean()),
        scores=scores,
        per_order=scores[:, None].copy(),
        signature=Signature("ROUGE-L", beta=beta, tokenizer=tokenizer, scale=None),
        n_images=n_images,
        image_index=image_index,
        ids=ids,
        metric="ROUGE-L",
    )
