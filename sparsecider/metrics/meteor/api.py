"""``sparsecider.meteor``: METEOR 1.5 as pycocoevalcap's ``Meteor`` reports it, without Java.

The public face of the package: captions in every shape the other metrics
take (checked by :func:`sparsecider.core.corpus.as_corpus`), tokenized as
``COCOEvalCap`` does, then the 23 statistics of each candidate
(:func:`~.score.segment_statistics`) and the scores made of them
(:mod:`.stats`).  The corpus score comes from the statistics summed over all
candidates, as the jar's ``EVAL`` line computes it (specification 4.4), not
from the mean of the segment scores.

What the extra needs is checked here before any work, so that every face
(function, ``compat.Meteor``, ``COCOEvalCap``, the command line, the
accumulator) fails the same way: :func:`resources`.
"""

from __future__ import annotations

import importlib.machinery
from collections.abc import Mapping, Sequence
from itertools import pairwise

import numpy as np

from ...core.corpus import Corpus, as_corpus
from ...core.result import CiderResult, Signature
from ...tokenizers import ptb_tokenize
from .data import INSTALL_HINT, MeteorDataError, Sources, locate
from .matchers import STEMMER_VERSION, check_stemmer
from .resources import Resources, load
from .score import segment_statistics
from .stats import corpus_score, segment_scores, summed

__all__ = ["TOKENIZERS", "check_tokenizer", "data_checksum", "meteor",
           "meteor_result", "meteor_statistics", "missing_extra", "resources"]  # fmt: skip

#: ``"ptb"``: raw text, tokenized as ``COCOEvalCap`` does first; ``"whitespace"``:
#: captions already tokenized, given to METEOR as they are (as its ``Meteor`` takes them).
TOKENIZERS = ("ptb", "whitespace")


def _sources() -> Sources:
    """The real pycocoevalcap's METEOR files (:func:`.data.locate`), an ``ImportError``
    naming the extra when pycocoevalcap is not installed at all."""
    if importlib.machinery.PathFinder.find_spec("pycocoevalcap") is None:
        raise ImportError(
            "METEOR reads its data (meteor-1.5.jar, paraphrase-en.gz) from pycocoevalcap 1.2, "
            f"which is not installed: {INSTALL_HINT}"
        )
    return locate()


def missing_extra() -> str | None:
    """Why METEOR cannot run here (the ``meteor`` extra is missing), or None;
    reads no data."""
    try:
        check_stemmer()
        _sources()
    except (ImportError, MeteorDataError) as err:
        return str(err)
    return None


def resources() -> Resources:
    """METEOR's data, loaded once per process, after checking the extra.

    Raises
    ------
    ImportError
        snowballstemmer 2.2.0 or pycocoevalcap is missing (the message says
        ``pip install "sparsecider[meteor]"``).
    MeteorDataError
        A data file is missing, damaged or truncated (the message names it
        and what to reinstall).
    """
    check_stemmer()
    return load(_sources())


def data_checksum(res: Resources) -> str:
    """The first 8 hex digits of the SHA-256 of the jar and of the paraphrase
    table (``sha256sum`` prints the same), joined by ``+``."""
    sums = res.checksums
    return f"{sums[res.sources.jar.name][:8]}+{sums[res.sources.paraphrase.name][:8]}"


def _signature(tokenizer: str, res: Resources) -> Signature:
    params = (("lang", "en"), ("norm", "yes"), ("data", data_checksum(res)),
              ("snowball", STEMMER_VERSION))  # fmt: skip
    return Signature("METEOR-1.5", params=params, tokenizer=tokenizer, scale=None)


def check_tokenizer(tokenizer: object) -> str:
    if not isinstance(tokenizer, str) or tokenizer not in TOKENIZERS:
        raise ValueError(
            f"tokenizer={tokenizer!r:.60}: METEOR takes 'ptb' (raw text, tokenized as "
            "COCOEvalCap does) or 'whitespace' (captions already tokenized, given to METEOR "
            "as they are); METEOR 1.5 normalises English text itself (-norm)"
        )
    return tokenizer


def meteor_statistics(corpus: Corpus, tokenizer: str, res: Resources) -> np.ndarray:
    """The 23 statistics of each candidate of a checked corpus, shape (n_candidates, 23).

    Each candidate is scored against its image's references; with
    ``tokenizer="ptb"`` references and candidates are tokenized each as one
    sequence, as :func:`sparsecider.bleu` does.
    """
    refs, cands = corpus.references, corpus.candidates
    if tokenizer == "ptb":
        with corpus.naming("references"):
            refs = ptb_tokenize(refs)
        with corpus.naming("candidates"):
            cands = ptb_tokenize(cands)
    offsets = corpus.reference_offsets.tolist()
    per_image = [refs[lo:hi] for lo, hi in pairwise(offsets)]
    references = [per_image[i] for i in corpus.candidate_image.tolist()]
    return segment_statistics(cands, references, resources=res)


def meteor_result(
    stats: np.ndarray, *, tokenizer: str, n_images: int, image_index: np.ndarray,
    ids: tuple | None, res: Resources | None = None,
) -> CiderResult:  # fmt: skip
    """The :class:`~sparsecider.CiderResult` of :func:`meteor` from its statistics,
    whose rows may come from several calls (:class:`sparsecider.CiderAccumulator`):
    the corpus score sums them."""
    stats = np.array(stats, dtype=np.int64).reshape(-1, 23)
    scores = segment_scores(stats)
    return CiderResult(
        score=float(corpus_score(summed(stats))),
        scores=scores,
        per_order=scores[:, None].copy(),
        signature=_signature(tokenizer, resources() if res is None else res),
        n_images=n_images,
        image_index=image_index,
        ids=ids,
        metric="METEOR",
        statistics=stats,
    )


def meteor(
    candidates: Sequence | Mapping,
    references: Sequence | Mapping,
    *,
    tokenizer: str = "ptb",
) -> CiderResult:
    """METEOR 1.5, as pycocoevalcap's ``Meteor`` (its jar, ``-l en -norm``) computes it.

    Without Java: a clean-room rewrite from the jar's observed behaviour,
    reading the jar's word lists and its paraphrase table from the
    installed pycocoevalcap (the ``meteor`` extra).  The first call builds
    an index of the paraphrase table (a minute or so, once; cached).

    Parameters
    ----------
    candidates, references
        As :func:`sparsecider.cider_d`: one caption (or several) per image,
        and each image's references; lists or dicts keyed by image id.
    tokenizer : {"ptb", "whitespace"}, default "ptb"
        ``"ptb"``: raw text through the PTB tokenizer first, as
        ``COCOEvalCap`` does; ``"whitespace"``: captions already tokenized,
        given to METEOR as they are, as pycocoevalcap's ``Meteor`` takes
        them.

    Returns
    -------
    CiderResult
        ``score``: the corpus METEOR, from the statistics summed over all
        candidates (pycocoevalcap's ``score``; not the mean of ``scores``);
        ``scores``: each candidate's METEOR; ``per_order``: the scores as
        one column; ``statistics``: the 23 statistics of each candidate
        (int64); ``signature`` such as
        ``METEOR-1.5|lang:en|norm:yes|data:...|snowball:2.2.0|tok:ptb|version:...``
        (``data``: the first 8 hex digits of the SHA-256 of the jar and of
        the paraphrase table read).

    Raises
    ------
    TypeError, ValueError
        As :func:`sparsecider.cider_d` for the captions; an unknown tokenizer.
    ImportError
        The ``meteor`` extra is missing: ``pip install "sparsecider[meteor]"``.
    MeteorDataError
        pycocoevalcap's METEOR files are damaged or truncated (named).

    Notes
    -----
    The known differences from the jar are listed in the README and in
    ``METEOR_BEHAVIOUR.md``.  Several candidates of one image are scored each
    on its own, and each adds its statistics to the corpus score.

    Examples
    --------
    Values as pycocoevalcap's jar gives them; the statistics are those of the
    best-scoring reference, here "the dog runs" (3 words, 3 matched):

    >>> import sparsecider
    >>> r = sparsecider.meteor(["a dog runs on the grass"],
    ...                        [["a dog is running on grass", "the dog runs"]])
    >>> round(r.score, 6), r.statistics.shape, r.statistics[0, [0, 1, 21, 22]].tolist()
    (0.403503, (1, 23), [6, 3, 3, 3])
    """
    tokenizer = check_tokenizer(tokenizer)
    corpus = as_corpus(candidates, references)
    res = resources()
    stats = meteor_statistics(corpus, tokenizer, res)
    return meteor_result(
        stats, tokenizer=tokenizer, n_images=corpus.n_images,
        image_index=corpus.candidate_image, ids=corpus.ids, res=res,
    )  # fmt: skip
