"""The reference PTB tokenizer pipeline of caption evaluation, in pure Python.

Written from observed behaviour of the reference jar only (the clean-room
specification ``PTB_BEHAVIOUR.md`` beside this file), with no CoreNLP code or
specification, and verified against the jar on every real caption set of
the project, its adversarial and behaviour fixtures and a differential fuzz.

:func:`ptb_tokenize` gives, for each caption, what pycocoevalcap 1.2's
``PTBTokenizer`` gives (Stanford CoreNLP 3.4.1 ``PTBTokenizer -preserveLines
-lowerCase``, then pycocoevalcap's punctuation filter).  Two paths:

* the fast path (:mod:`._ptb_fast`) takes the captions made of ASCII words,
  spaces, hyphens and slashes inside words, ``'s`` / ``n't`` clitics, double
  quotes and word-final ``, . ; : ? !`` (about 99% of real captions), all at
  once, vectorised over the bytes of one joined buffer;
* every other caption goes through the exact path (:mod:`._ptb_exact`), the
  specification's token rules with longest-match semantics, read together
  with the captions after it (the reference looks past a caption's end).
"""

from __future__ import annotations

import re

from . import _ptb_exact, _ptb_fast

__all__ = ["LOOKAHEAD_CHARS", "LOOKAHEAD_NONBLANK", "ptb_tokenize"]

#: How far a caption's output may depend on the captions after it: the
#: reference reads on until 2 non-blank captions and 256 characters
#: (:func:`~sparsecider.tokenizers.registry.lookahead_captions` uses the same).
LOOKAHEAD_NONBLANK = 2
LOOKAHEAD_CHARS = 256


def _check(captions: list[str]) -> list[str]:
    """``captions`` as a list, or the TypeError naming what is wrong."""
    if isinstance(captions, str | bytes) or not hasattr(captions, "__iter__"):
        raise TypeError(f"captions must be a list of strings, got {type(captions).__name__}")
    captions = list(captions)
    try:
        "".join(captions)  # in C: the common case costs nothing more
    except TypeError:
        for i, caption in enumerate(captions):
            if not isinstance(caption, str):
                raise TypeError(
                    f"captions[{i}] must be a string, got {type(caption).__name__}"
                ) from None
        raise
    return captions


def _exact_tokenize(captions: list[str]) -> list[str]:
    """Every caption through the exact path (no fast path): for tests."""
    captions = _check(captions)
    if not captions:
        return []
    return _ptb_exact.tokenize_text("\n".join(_ptb_fast.clean(captions)), at_end=True)


def ptb_tokenize(captions: list[str]) -> list[str]:
    """Tokenize raw captions exactly as pycocoevalcap's ``PTBTokenizer`` does.

    The captions are one sequence: as in the reference, a caption's output
    may depend on the captions after it (a caption ending in ``"K."`` keeps
    the period unless the next one begins with a sentence starter such as
    ``"The"``).  ``\\n``, ``\\r``, ``\\v``, ``\\f``, U+0085, U+2028 and U+2029
    inside a caption are spaces (the Java reader would start a new line and
    shift every later caption); NUL and other control characters separate
    words and print nothing; lone surrogates, which the reference cannot
    even encode, are deleted like the characters it cannot tokenize.

    Parameters
    ----------
    captions : list of str

    Returns
    -------
    list of str
        One string per caption: its tokens, lower-cased, joined with single
        spaces (a token may hold U+00A0), punctuation tokens removed.

    Raises
    ------
    TypeError
        ``captions`` is a string rather than a list, or holds a non-string.

    Examples
    --------
    >>> ptb_tokenize(["A dog's toy.", "It can't be, can it?"])
    ["a dog 's toy", "it ca n't be can it"]
    >>> ptb_tokenize(["A sign that reads K.", "The dog runs."])
    ['a sign that reads k', 'the dog runs']
    """
    captions = _check(captions)
    if not captions:
        return []
    out, slow = _ptb_fast.tokenize(captions)
    n = len(captions)
    for start, stop in _runs(slow, n):
        run = _ptb_fast.clean(captions[start:stop])
        if stop < n and _needs_next(run):
            # read on past the run: the next captions can change its last one
            end = _lookahead_end(captions, stop)
            text = "\n".join(run + _ptb_fast.clean(captions[stop:end]))
        else:
            # only the line end after the run matters (section 15.1), not what follows
            end = stop
            text = "\n".join(run) + ("\n" if stop < n else "")
        lines = _ptb_exact.tokenize_text(text, at_end=end == n)
        out[start:stop] = lines[: stop - start]
    return out


def _needs_next(run: list[str]) -> bool:
    """Whether the next captions' text can change a run's output.

    Only a period at the end of the run (an abbreviation looking for a
    sentence starter or a digit, sections 12-15) and an SGML tag that may
    span captions (section 8) read past the line end; everything else needs
    to know only whether a line end or the end of the input follows.
    """
    return _LOOKS_AHEAD.search(run[-1]) is not None or any("<" in c for c in run)


# A caption end that reads the next captions: a single letter or a number
# abbreviation before a final period (the other abbreviation classes only get
# an extra "." token there, which the filter drops).
_LOOKS_AHEAD = re.compile(
    r"(?:(?<![A-Za-z])[A-Za-z]|(?i:art|ca|figs?|nos?|op|pp|prop))\.[\t \xa0\u2000-\u200a\u3000]*\Z"
)


def _runs(slow: list[int], n: int) -> list[tuple[int, int]]:
    """Consecutive slow caption indices as ``[start, stop)`` runs."""
    runs: list[tuple[int, int]] = []
    for i in slow:
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def _lookahead_end(captions: list[str], stop: int) -> int:
    """Where the text read for a run ending at ``stop`` may end.

    The same rule as :func:`~sparsecider.tokenizers.registry.lookahead_captions`
    (a slice of a corpus reads as far ahead as the whole corpus would).
    """
    nonblank = chars = 0
    end = stop
    while end < len(captions):
        caption = captions[end]
        end += 1
        chars += len(caption)
        nonblank += caption != "" and not caption.isspace()
        if nonblank >= LOOKAHEAD_NONBLANK and chars >= LOOKAHEAD_CHARS:
            break
    return end
