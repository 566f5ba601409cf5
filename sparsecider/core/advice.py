"""What the captions themselves say about the options: advice a number cannot give.

A score computed with a tokenizer that cannot see the words, or with
document frequencies of another kind of token, is a wrong number that looks
like a right one.  The checks here look at a few captions (at most
:data:`SAMPLE` per side, evenly spaced, so their cost does not grow with the
corpus) and speak up:

- :func:`check_id_strings` (an error, before any work): the kind of the
  document frequencies (words or token ids) must be that of the captions,
  candidates and references alike: a table of ids needs space-joined
  decimal ids, and a table of words refuses captions that are all such ids
  (self-critical code moved over with a table of words);
- :func:`advise` (warnings, once the scores exist, so that no warning comes
  before an error): Chinese or Japanese written without spaces under a
  tokenizer that splits only at spaces and punctuation; captions that are
  not PTB-tokenized scored with ``"whitespace"`` against frequencies of PTB
  tokens.

Both are :class:`~sparsecider.TokenizerWarning` / ``ValueError`` messages
naming an example caption and the fix.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import numpy as np

from ..tokenizers import Tokenizer, ptb_tokenize, tokenize
from ..tokenizers.ids import counts_ids
from .frequencies import DocumentFrequencies
from .validate import SmallCorpusWarning, TokenizerWarning, warn_tokenizer_mismatch

__all__ = [
    "SAMPLE",
    "SMALL_CORPUS",
    "advise",
    "check_id_strings",
    "sample",
    "unspaced_cjk",
    "warn_small_corpus",
]

#: Captions looked at per side (candidates, references).
SAMPLE = 128

# Han (with extensions and compatibility ideographs), hiragana, katakana (with
# its phonetic extensions and the half-width forms): the scripts of Chinese and
# Japanese, written without spaces between words
_CJK = (
    "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0003134f"
)
#: Six such characters in a row: a pre-segmented text (words joined by
#: spaces) almost never has a word that long; an unsegmented caption almost
#: always has such a run.
_UNSPACED = re.compile(f"[{_CJK}]{{6,}}")
_DECIMAL_IDS = re.compile(r"\s*(?:-?\d+(?:\s+-?\d+)*)?\s*")

# the tokenizers that split only at spaces (and, for "ptb", punctuation)
_SPACE_SPLITTING = ("ptb", "whitespace")


def sample(captions: Sequence[str], size: int = SAMPLE) -> list[str]:
    """At most ``size`` captions, evenly spaced (the same ones every run).

    Examples
    --------
    >>> sample([str(i) for i in range(10)], 4)
    ['0', '3', '6', '9']
    """
    n = len(captions)
    if n <= size:
        return list(captions)
    return [captions[i * (n - 1) // (size - 1)] for i in range(size)]


def unspaced_cjk(captions: Sequence[str]) -> list[str]:
    """The captions holding Chinese or Japanese written without spaces.

    Examples
    --------
    >>> unspaced_cjk(["一只狗在草地上跑。", "一只 狗 在 草地 上 跑", "a dog"])
    ['一只狗在草地上跑。']
    """
    return [c for c in captions if _UNSPACED.search(c)]


def _shown(text: str, width: int = 40) -> str:
    """``text`` quoted, cut to ``width`` characters."""
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def check_id_strings(
    captions: Sequence[str], df: DocumentFrequencies | None, references: Sequence[str] = ()
) -> None:
    """The table-kind rule for captions, the same at every entry point.

    - ``df`` counts token ids: every caption looked at, candidate or
      reference, must be space-joined decimal ids (the strings of
      self-critical training code);
    - ``df`` counts words: the captions looked at must not all be such ids
      (with at least one id among them): token ids written as text are not
      the table's words, and their score would mean nothing.

    ``captions`` are the candidates; ``references`` the references, flat.
    At most ``4 * SAMPLE`` of each are looked at.

    Raises
    ------
    ValueError
        Naming a caption of the wrong kind (and whether it is a candidate or
        a reference), and the fix.

    Examples
    --------
    >>> import numpy as np
    >>> df = DocumentFrequencies.from_id_references([np.array([[4, 5, 0]])], eos=0)
    >>> check_id_strings(["4 5", "17 2 0"], df)
    >>> check_id_strings(["4 5", "a dog"], df)
    Traceback (most recent call last):
    ...
    ValueError: df=precomputed(...) counts token ids (ids(eos=0)), but the captions hold words ...
    >>> check_id_strings(["4 5 6"], DocumentFrequencies.named("coco-val2014"), ["4 5"])
    Traceback (most recent call last):
    ...
    ValueError: df=coco-val2014(n_images=40504) counts words (tokenizer 'ptb'), but every ...
    """
    if df is None:
        return
    looked_at = {
        "captions": sample(captions, 4 * SAMPLE),
        "references": sample(references, 4 * SAMPLE),
    }
    if counts_ids(df.tokenizer):
        for side, some in looked_at.items():
            for caption in some:
                if not _DECIMAL_IDS.fullmatch(caption):
                    raise ValueError(
                        f"df={df.describe()} counts token ids ({df.tokenizer}), but the {side} "
                        f"hold words (e.g. {_shown(caption)}); score words with frequencies "
                        "fitted on words (DocumentFrequencies.from_references, "
                        "df='coco-val2014'), or pass token ids (cider_d_ids, or the ids as "
                        "space-joined decimal strings)"
                    )
        return
    every = looked_at["captions"] + looked_at["references"]
    if (
        any(not c.isspace() and c for c in every)
        and all(map(_DECIMAL_IDS.fullmatch, every))
        and not _words_are_numbers(df)
    ):
        example = next(c for c in every if c and not c.isspace())
        raise ValueError(
            f"df={df.describe()} counts words (tokenizer {df.tokenizer!r}), but every caption "
            f"looked at ({len(every)}, candidates and references) is token ids written as "
            f"text (e.g. {_shown(example)}): ids are not the table's words, so the score "
            "would mean nothing; for ids use frequencies of ids (df='corpus', or "
            "DocumentFrequencies.from_id_references on the training references; cider_d_ids "
            "takes the id arrays), or decode the ids to words first"
        )


#: Decimal strings looked up by :func:`_words_are_numbers`.
_PROBE = 2000


def _words_are_numbers(df: DocumentFrequencies) -> bool:
    """Whether a table of words was fitted on id strings (its words are numbers).

    Such a table (``DocumentFrequencies.from_references`` on space-joined
    ids) holds most of "0" .. "1999" among its words, or most of its words
    are among them; a table of real words holds a few dozen numbers
    (coco-val2014: 35 of 2,000, among 10,000 words).  Looked at only when
    every caption is ids, so it costs nothing on the usual path.
    """
    probe = tokenize([" ".join(map(str, range(_PROBE)))], "whitespace").hashes
    found = int(np.count_nonzero(df.lookup(probe, 1)))
    return 2 * found >= min(df.keys(1).shape[0], _PROBE)


def advise(
    candidates: Sequence[str],
    references: Sequence[str],
    tokenizer: Tokenizer,
    df: DocumentFrequencies | None = None,
    stacklevel: int = 1,
) -> None:
    """Warn when the tokenizer cannot see the captions' words (see the module).

    ``stacklevel``: frames between the caller and the user's code (1: the
    caller is the function the user called).

    Examples
    --------
    >>> import warnings
    >>> from sparsecider.tokenizers import get_tokenizer
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     advise(["一只狗在草地上跑。"], ["一只黑色的狗在草地上奔跑。"], get_tokenizer("ptb"))
    >>> print(caught[0].message)
    2 of 2 captions looked at (e.g. '一只狗在草地上跑。') are Chinese or Japanese written ...
    """
    looked_at = sample(candidates) + sample(references)
    name = tokenizer.name
    level = stacklevel + 2
    if df is not None:
        warn_tokenizer_mismatch(df, name, stacklevel=level + 1)
    if name in _SPACE_SPLITTING:
        unspaced = unspaced_cjk(looked_at)
        if 2 * len(unspaced) >= len(looked_at) > 0:
            warnings.warn(
                f"{len(unspaced)} of {len(looked_at)} captions looked at (e.g. "
                f"{_shown(unspaced[0])}) are Chinese or Japanese written without spaces; "
                f"tokenizer {name!r} splits only at spaces and punctuation, so each becomes "
                "one or a few long tokens that almost never match, and scores are near 0. "
                "Use tokenizer='char' (built in), 'jieba' (Chinese) or 'mecab' (Japanese); "
                "'whitespace' only for text segmented with spaces already",
                TokenizerWarning,
                stacklevel=level,
            )
    if df is not None and df.tokenizer == "ptb" and name == "whitespace":
        few = sample(looked_at, 64)
        differ = [
            (c, t) for c, t in zip(few, ptb_tokenize(few), strict=True) if " ".join(c.split()) != t
        ]
        if 4 * len(differ) > len(few):
            caption, tokens = differ[0]
            warnings.warn(
                f"the document frequencies ({df.describe()}) count PTB tokens, but {len(differ)} "
                f"of {len(few)} captions looked at are not PTB-tokenized (e.g. {_shown(caption)} "
                f"is {_shown(tokens)} after PTB), and tokenizer 'whitespace' keeps them as they "
                "are, so their n-grams miss the table; score raw captions with "
                "tokenizer='ptb', or tokenize them first (sparsecider.ptb_tokenize)",
                TokenizerWarning,
                stacklevel=level,
            )


#: Below this many images, ``df="corpus"`` warns (:func:`warn_small_corpus`):
#: on COCO val, the median corpus score of random subsets of 2 to 99 images is
#: 13-26% away from the same captions scored with the frequencies of all 40,504
#: images (5.3% at 1,000 images, 1.5% at 5,000; the README's table,
#: ``benchmarks/small_sets.py``).
SMALL_CORPUS = 100


def warn_small_corpus(
    n_images: int, df: DocumentFrequencies | None, stacklevel: int = 4, *, ids: bool = False
) -> None:
    """Warn when document frequencies come from so few images that the scores
    mean little: one image scores 0 (every idf is log 1 = 0), fewer than
    :data:`SMALL_CORPUS` images are unstable.  Each warning names the fix:
    for token ids (``ids=True``) frequencies fitted on the training ids, for
    captions also the shipped ``df="coco-val2014"``.  Callers warn once the
    scores exist, so no warning comes before an error."""
    if df is not None or n_images >= SMALL_CORPUS:
        return
    if ids:
        fix = (
            "fit frequencies on the training references once "
            "(DocumentFrequencies.from_id_references) and pass df="
        )
    else:
        fix = "use df='coco-val2014' (COCO-like captions) or frequencies of a larger corpus"
    if n_images == 1:
        warnings.warn(
            "scoring a single image with df='corpus' gives 0: every idf is "
            f"log(1) - log(1) = 0; {fix}",
            UserWarning,
            stacklevel=stacklevel,
        )
        return
    warnings.warn(
        f"scoring {n_images} images with df='corpus': frequencies of fewer than "
        f"{SMALL_CORPUS} images make scores unstable (13-26% off on COCO val); {fix}",
        SmallCorpusWarning,
        stacklevel=stacklevel,
    )
