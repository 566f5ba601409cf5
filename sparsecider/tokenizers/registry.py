"""The tokenizer registry: a name (or a callable) -> how captions become tokens.

Every entry point takes ``tokenizer=`` as a registered name or a callable;
:func:`get_tokenizer` resolves it once, to a :class:`Tokenizer` that knows
how to turn a list of captions into :class:`~sparsecider._kernels.tokens.Tokens`,
the name and version a signature records, and whether a caption's tokens can
depend on the captions after it (then slices of a corpus read ahead:
:func:`tokenize_slice`).

Registered names:

``"ptb"`` (the default of the scoring functions)
    The reference captioning pipeline: pycocoevalcap's ``PTBTokenizer``
    (Stanford CoreNLP 3.4.1, lower-cased, punctuation removed), reproduced
    in pure Python by :func:`sparsecider.ptb_tokenize`.  Use it on raw text.
``"whitespace"``
    Split on runs of whitespace exactly like ``str.split()`` (the same set of
    Unicode whitespace characters).  pycocoevalcap's scorer does this to its
    already tokenized input, so pre-tokenized captions score exactly as there.
``"char"``
    Chinese, Japanese (or Korean) text, one token per CJK character and one
    per run of other letters and digits: the language-neutral baseline, no
    dependency (:mod:`.char`).
``"jieba"``
    Chinese words through jieba in accurate mode, as the AI Challenger
    evaluation code (:mod:`.zh`; the ``jieba`` extra).
``"mecab"``
    Japanese morphemes through MeCab (fugashi) with UniDic-lite (:mod:`.ja`;
    the ``mecab`` extra).
``"kiwi"``
    Korean morphemes through Kiwi (:mod:`.ko`; the ``kiwi`` extra).
callable
    Any function taking the list of captions and returning one list of token
    strings per caption, in order.  Tokens must be non-empty and contain no
    whitespace.  Its signature name is ``custom:<qualified name>``.

The four CJK tokenizers take keyword options, given to
:func:`get_tokenizer` (``get_tokenizer("jieba", normalize="nfkc")``):
``normalize``, ``punctuation`` and ``lowercase`` (:mod:`.cjk`), and jieba's
``hmm``.  A library is imported, and its version read, when its name is
first resolved; the signature records both the version and every option
that differs from its default: ``jieba-0.42.1``, ``jieba-0.42.1+nfkc+no-hmm``.

``TokenizerLike`` is the type of such an argument: one of the names, or a callable.

Examples
--------
>>> def letters(captions):  # a custom tokenizer: one token per letter
...     return [[ch for ch in c if ch.isalpha()] for c in captions]
>>> for tokenizer in ("ptb", "whitespace", letters):
...     print(tokenizer_name(tokenizer), tokenize(["A dog."], tokenizer).lengths.tolist())
ptb [2]
whitespace [2]
custom:letters [4]
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .._checks import caption_list
from .._kernels.tokens import Tokens
from . import char, ja, ko, zh
from .cjk import check_options
from .ptb import LOOKAHEAD_CHARS, LOOKAHEAD_NONBLANK, ptb_tokenize
from .whitespace import split_whitespace

__all__ = [
    "Tokenizer",
    "TokenizerLike",
    "get_tokenizer",
    "lookahead_captions",
    "lookahead_complete",
    "registered",
    "resolve_tokenizer",
    "tokenize",
    "tokenizer_name",
    "tokens",
]


@dataclass(frozen=True, eq=False)
class Tokenizer:
    """A resolved tokenizer.

    Attributes
    ----------
    name : str
        What a signature records (``tok:<name>``): the registered name, or
        ``custom:<qualified name>`` for a callable; followed by
        ``-<version>`` when ``version`` is set, then by ``options``.
    split : callable
        ``list[str] -> Tokens``: tokenizes and hashes a list of captions as
        one sequence.
    lookahead : bool
        Whether a caption's tokens may depend on the captions after it (the
        PTB lexer's trailing context); slices then read ahead
        (:func:`tokenize_slice`).
    custom : callable or None
        The user's callable, for a custom tokenizer.
    version : str or None
        The version of the third-party library doing the work, which can
        change tokens; None for the built-ins, which are versioned with
        sparsecider itself (the signature's ``version:`` field).
    options : str
        The markers of the options that differ from their defaults and
        change tokens (``"+nfkc+no-hmm"``); ``""`` for none.
    text : callable
        ``list[str] -> list[str]``: each caption's tokens as text, separated
        by whitespace (what :attr:`split` hashes; :meth:`tokens`).

    Examples
    --------
    >>> t = get_tokenizer("ptb")
    >>> t.name, t.lookahead, t.split(["A dog's toy."]).lengths.tolist()
    ('ptb', True, [4])
    >>> t.tokens(["A dog's toy."])
    [['a', 'dog', "'s", 'toy']]
    """

    base_name: str
    split: Callable[[list[str]], Tokens]
    lookahead: bool = False
    custom: Callable | None = None
    version: str | None = None
    options: str = ""
    text: Callable[[list[str]], list[str]] = list

    @property
    def name(self) -> str:
        versioned = self.base_name if self.version is None else f"{self.base_name}-{self.version}"
        return versioned + self.options

    def tokens(self, captions: list[str]) -> list[list[str]]:
        """Each caption's tokens as strings: what the n-grams are made of
        (the hashes of :attr:`split`, before hashing).  Cost: that of the
        tokenizer, then one ``str.split`` per caption."""
        return [caption.split() for caption in self.text(captions)]


TokenizerLike = str | Callable[[list[str]], Sequence[Sequence[str]]] | Tokenizer


def _ptb(captions: list[str]) -> Tokens:
    # the PTB pipeline's output is space-joined tokens, split as the scorer does
    return split_whitespace(ptb_tokenize(captions))


_REGISTRY: dict[str, Tokenizer] = {
    "ptb": Tokenizer("ptb", _ptb, lookahead=True, text=ptb_tokenize),
    "whitespace": Tokenizer("whitespace", split_whitespace),
}

# The CJK tokenizers, built on first use: each module has OPTIONS (its own
# options and their defaults), load() (imports its library, or raises an
# ImportError naming the extra), version(), markers(**own) and
# split(captions, text_options, **own).
_SEGMENTERS = {"char": char, "jieba": zh, "mecab": ja, "kiwi": ko}
_built: dict[tuple, Tokenizer] = {}
_building = threading.Lock()


def registered() -> tuple[str, ...]:
    """The registered tokenizer names.

    Examples
    --------
    >>> registered()
    ('ptb', 'whitespace', 'char', 'jieba', 'mecab', 'kiwi')
    """
    return (*_REGISTRY, *_SEGMENTERS)


def _known() -> str:
    return ", ".join(repr(name) for name in registered())


def _segmenter(name: str, options: dict[str, object]) -> Tokenizer:
    """The CJK tokenizer ``name`` with ``options`` (one object per distinct options)."""
    module = _SEGMENTERS[name]
    text, own = check_options(name, options, module.OPTIONS)
    key = (name, text, tuple(sorted(own.items())))
    with _building:
        found = _built.get(key)
    if found is not None:
        return found
    module.load()  # an ImportError naming the extra when the library is missing
    built = Tokenizer(
        name,
        functools.partial(module.split, text=text, **own),
        version=module.version(),
        options=text.markers + module.markers(**own),
        text=functools.partial(module.token_text, text=text, **own),
    )
    with _building:
        return _built.setdefault(key, built)


def get_tokenizer(tokenizer: TokenizerLike, **options: object) -> Tokenizer:
    """Resolve a ``tokenizer`` argument (a registered name or a callable).

    Parameters
    ----------
    tokenizer : str, callable or Tokenizer
        A registered name (:func:`registered`), a callable (see the module's
        description), or an already resolved :class:`Tokenizer` (returned
        as it is).
    **options
        Options of a CJK tokenizer (``"char"``, ``"jieba"``, ``"mecab"``,
        ``"kiwi"``): ``normalize`` (None or ``"nfkc"``), ``punctuation``
        (``"drop"`` or ``"keep"``), ``lowercase`` (bool), and for
        ``"jieba"`` ``hmm`` (bool); see :mod:`sparsecider.tokenizers.cjk`.
        The returned tokenizer is what the scoring functions take as
        ``tokenizer=``.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones), or an option
        value out of range.
    TypeError
        Neither a string nor a callable; an option the tokenizer does not
        have, or of the wrong type.
    ImportError
        The library of a CJK tokenizer is not installed; the message names
        the pip extra.

    Examples
    --------
    >>> get_tokenizer(str.split).name
    'custom:str.split'
    >>> t = get_tokenizer("char", normalize="nfkc")
    >>> t.name, t.split(["ＡＢＣ的狗。"]).lengths.tolist()
    ('char+nfkc', [3])
    >>> get_tokenizer("spacy")
    Traceback (most recent call last):
    ...
    ValueError: tokenizer='spacy' is not known; use 'ptb' (raw text, as pycocoevalcap), ...
    >>> get_tokenizer("ptb", lowercase=False)
    Traceback (most recent call last):
    ...
    TypeError: tokenizer 'ptb' takes no options; got lowercase (options go with 'char', ...
    """
    if options and not (isinstance(tokenizer, str) and tokenizer in _SEGMENTERS):
        if isinstance(tokenizer, str):
            what = f"tokenizer {tokenizer!r}"
        else:
            what = "a resolved Tokenizer" if isinstance(tokenizer, Tokenizer) else "a callable"
        raise TypeError(
            f"{what} takes no options; got {', '.join(options)} (options go with 'char', "
            "'jieba', 'mecab' or 'kiwi')"
        )
    if isinstance(tokenizer, Tokenizer):
        return tokenizer
    if isinstance(tokenizer, str):
        found = _REGISTRY.get(tokenizer)
        if found is not None:
            return found
        if tokenizer in _SEGMENTERS:
            return _segmenter(tokenizer, options)
        raise ValueError(
            f"tokenizer={tokenizer!r} is not known; use 'ptb' (raw text, as pycocoevalcap), "
            "'whitespace' (already tokenized text), 'char', 'jieba', 'mecab' or 'kiwi' "
            "(Chinese, Japanese, Korean), "
            "or a callable mapping a list of captions to a list of token lists "
            f"(registered: {_known()})"
        )
    if callable(tokenizer):
        name = "custom:" + getattr(tokenizer, "__qualname__", type(tokenizer).__name__)
        return Tokenizer(
            name,
            lambda captions: _custom(tokenizer, captions)[1],
            custom=tokenizer,
            text=lambda captions: _custom(tokenizer, captions)[0],
        )
    raise TypeError(
        "tokenizer must be a name such as 'whitespace' or a callable, "
        f"got {type(tokenizer).__name__}"
    )


def resolve_tokenizer(
    tokenizer: TokenizerLike,
) -> Callable[[list[str]], Sequence[Sequence[str]]] | None:
    """Check a tokenizer argument; return the callable (None for a registered name).

    Examples
    --------
    >>> resolve_tokenizer("ptb") is None, resolve_tokenizer(str.split) is str.split
    (True, True)
    """
    return get_tokenizer(tokenizer).custom


def tokenizer_name(tokenizer: TokenizerLike) -> str:
    """The name used in signatures: the registered name, or ``custom:<qualname>``.

    Examples
    --------
    >>> tokenizer_name("whitespace"), tokenizer_name(str.split)
    ('whitespace', 'custom:str.split')
    """
    return get_tokenizer(tokenizer).name


def _custom(fn: Callable, captions: list[str]) -> tuple[list[str], Tokens]:
    """A user's tokenizer, its output checked: each caption's tokens joined by
    spaces, and hashed."""
    token_lists = fn(captions)
    if isinstance(token_lists, str) or not isinstance(token_lists, Sequence):
        raise TypeError(
            f"the tokenizer must return a list of token lists, got {type(token_lists).__name__}"
        )
    if len(token_lists) != len(captions):
        raise ValueError(
            f"the tokenizer returned {len(token_lists)} token lists for {len(captions)} "
            "captions; it must return exactly one per caption, in order"
        )
    joined = []
    for i, toks in enumerate(token_lists):
        if (
            isinstance(toks, str)
            or not isinstance(toks, Sequence)
            or not all(isinstance(t, str) for t in toks)
        ):
            raise TypeError(
                f"the tokenizer's output [{i}] must be a list of strings, got {toks!r:.80}"
            )
        joined.append(" ".join(toks))
    tokens = split_whitespace(joined)
    expected = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    bad = np.flatnonzero(tokens.lengths != expected)
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"the tokenizer's output [{i}] = {list(token_lists[i])!r:.80} holds an empty token "
            "or one with whitespace inside; tokens must be non-empty and whitespace-free"
        )
    return joined, tokens


def tokenize(captions: list[str], tokenizer: TokenizerLike) -> Tokens:
    """Tokenize and hash a list of captions as one sequence.

    Parameters
    ----------
    captions : list of str
    tokenizer : {"ptb", "whitespace"}, another registered name, or callable
        See the module's description.  No default: say which (the scoring
        functions default to "ptb").

    Returns
    -------
    Tokens

    Raises
    ------
    TypeError, ValueError
        If a custom tokenizer returns the wrong number of captions, or
        something other than lists of non-empty, whitespace-free strings.

    Examples
    --------
    "ptb" splits off the clitic and drops the period (``a dog 's toy``);
    "whitespace" keeps ``dog's`` and ``toy.`` whole:

    >>> captions = ["A dog's toy."]
    >>> [tokenize(captions, t).lengths.tolist() for t in ("ptb", "whitespace")]
    [[4], [3]]
    >>> tokenize(["a b"], lambda captions: [["a b"]])
    Traceback (most recent call last):
    ...
    ValueError: the tokenizer's output [0] = ['a b'] holds an empty token or one with ...
    """
    return get_tokenizer(tokenizer).split(captions)


def tokens(
    captions: Sequence[str], tokenizer: TokenizerLike = "ptb", **options: object
) -> list[list[str]]:
    """The tokens a tokenizer makes of captions: what CIDEr's n-grams are made of.

    The scoring functions hash these tokens; this shows them, for every
    registered tokenizer and for a callable, so that a surprising score can
    be traced to its tokens.  The captions are tokenized as one sequence, as
    the scoring functions do (for ``"ptb"`` a caption's tokens can depend on
    the next caption).

    Parameters
    ----------
    captions : list of str
    tokenizer : str, callable or Tokenizer, default "ptb"
        As the scoring functions' ``tokenizer=`` (:func:`get_tokenizer`).
    **options
        Options of a CJK tokenizer (see :func:`get_tokenizer`).

    Returns
    -------
    list of list of str
        One list of tokens per caption, in order.

    Raises
    ------
    TypeError
        ``captions`` is a string or holds something else than strings.

    Examples
    --------
    >>> tokens(["A man's dog doesn't bark (loudly)!"])
    [['a', 'man', "'s", 'dog', 'does', "n't", 'bark', '-lrb-', 'loudly', '-rrb-']]
    >>> tokens(["A man's dog."], "whitespace")
    [['A', "man's", 'dog.']]
    >>> tokens(["穿着红色T恤的男人。"], "char")
    [['穿', '着', '红', '色', 't', '恤', '的', '男', '人']]
    """
    return get_tokenizer(tokenizer, **options).tokens(caption_list(captions, "captions"))


# How far past a slice of captions the PTB lexer may need to read (see
# :func:`lookahead_captions`).
# LOOKAHEAD_NONBLANK (2) and LOOKAHEAD_CHARS (256) live in .ptb, which reads ahead by them


def lookahead_captions(following: Iterable[str]) -> list[str]:
    """The captions after a slice that decide how the slice's last captions tokenize.

    The reference PTB tokenizer looks past the end of a caption, so a
    caption's tokens may depend on the captions after it
    (``PTB_BEHAVIOUR.md``, sections 15 and 20): a single letter or a number
    abbreviation before a final period looks across any number of blank
    captions at the next non-blank one (a sentence starter such as ``The``,
    or a digit), and needs to know whether a line end follows that one's
    first word; a few endings (``they're``, ``'85``, ``:)``) need to know
    only whether the input ends there.  This takes captions from
    ``following`` until it holds ``LOOKAHEAD_NONBLANK`` (2) captions with
    non-blank text and at least ``LOOKAHEAD_CHARS`` (256) characters, or
    ``following`` runs out: enough for all of these, whatever the blank
    captions in between; only an SGML tag whose quoted attribute value
    spans captions over more than 256 characters reaches further.  Cost:
    O(length of the captions taken).

    Parameters
    ----------
    following : iterable of str
        The captions after the slice, in order.

    Returns
    -------
    list of str
        The first captions of ``following`` (all of them if it is short).

    Examples
    --------
    >>> lookahead_captions(["A dog.", "", "The cat."])  # fewer than 256 characters: all
    ['A dog.', '', 'The cat.']
    >>> [len(c) for c in lookahead_captions(["x" * 300, "y", "z", "w"])]  # 2 non-blank, 301 chars
    [300, 1]
    """
    taken: list[str] = []
    nonblank = chars = 0
    for caption in following:
        taken.append(caption)
        chars += len(caption)
        nonblank += not caption.isspace() and caption != ""
        if nonblank >= LOOKAHEAD_NONBLANK and chars >= LOOKAHEAD_CHARS:
            break
    return taken


def lookahead_complete(captions: Sequence[str]) -> bool:
    """Whether ``captions`` already hold all that :func:`lookahead_captions` takes."""
    nonblank = sum(1 for c in captions if c and not c.isspace())
    return nonblank >= LOOKAHEAD_NONBLANK and sum(map(len, captions)) >= LOOKAHEAD_CHARS
