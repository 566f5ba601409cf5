"""Mutations of real captions for the METEOR differential fuzz (``bench_meteor_fuzz``).

Each mutator takes a caption, a seeded :class:`random.Random` and the word lists
(:class:`Words`), and returns the mutated caption with a ``detail`` record of what it
changed, or ``None`` when the caption offers nothing to change (the caller draws
another).  The classes aim at the jar's stages and quirks: inflections (the stem
stage and WordNet's irregular forms), synonyms sharing a synset of the jar's
``synonym/english.synsets``, phrases of the paraphrase table, word order and
repetition (the alignment search), the jar's function words, and what ``-norm``
and pycocoevalcap's line protocol do with punctuation, hyphens, numbers, case and
``|||``.  The word lists (:mod:`benchmarks.meteor_words`) are read from the user's
pycocoevalcap; nothing of them is stored in the repository.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from benchmarks.meteor_words import Words

__all__ = ["CLASSES", "MUTATORS", "ngrams"]

_WORD = re.compile(r"^(\W*)(.*?)(\W*)$", re.S)
_ALPHA = re.compile(r"[a-z]+")  # a word -norm leaves as one token
#: Longest paraphrase-table phrase substituted (the table has up to 7 words; captions
#: rarely share longer ones).
MAX_PHRASE = 4
PUNCT = [".", ",", ";", ":", "!", "?", "...", "'", '"', "(", ")", "[", "]", "/", "&", "*",
         "#", "$", "%", "`", "``", "''", "!!", "?!", ".."]  # fmt: skip
QUOTES = [('"', '"'), ("'", "'"), ("(", ")"), ("[", "]"), ("``", "''"), ("`", "'")]
DASHES = ["-", "--", "\u2013", "\u2014"]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                "nine", "ten", "eleven", "twelve", "twenty", "hundred"]  # fmt: skip
NUMBER_DIGITS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "20",
                 "100"]  # fmt: skip
NUMBERS = ["2", "3", "10", "100", "1,000", "10,000", "3.5", "0.5", ".5", "2:30", "1st", "2nd",
           "50%", "$5", "1990s", "'90s", "24/7", "5-10", "#1", "1/2", "007", "3d", "4x4",
           "-5", "+1", "1.5m", "12th", "2015"]  # fmt: skip
PIPES = ["|||", "||||", "|||||", "||", "| | |", "|||  |||"]


def ngrams(caption: str, longest: int = MAX_PHRASE) -> set[str]:
    """The phrases :func:`paraphrase` may replace in a caption (lower-case word runs)."""
    cores = [_core(t)[1].lower() for t in caption.split()]
    out = set()
    for i in range(len(cores)):
        for j in range(i + 1, min(i + longest, len(cores)) + 1):
            out.add(" ".join(cores[i:j]))
    return out


# -- helpers ---------------------------------------------------------------------------------


def _core(token: str) -> tuple[str, str, str]:
    """(leading punctuation, word, trailing punctuation) of a whitespace token."""
    m = _WORD.match(token)
    return m.group(1), m.group(2), m.group(3)


def _styled(new: str, old: str) -> str:
    """``new`` with the capitalisation of ``old`` (all caps, or a capital first letter)."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def _replace(tokens: list[str], i: int, new: str) -> None:
    pre, core, post = _core(tokens[i])
    tokens[i] = pre + _styled(new, core) + post


def _plain(tokens: list[str], i: int) -> str | None:
    """The lower-case word of token i when it is letters only, else None."""
    core = _core(tokens[i])[1].lower()
    return core if _ALPHA.fullmatch(core) else None


# -- the classes -----------------------------------------------------------------------------


def inflection_options(w: str, words: Words) -> list[tuple[str, str]]:
    """Other forms of ``w``: irregular ones from the exceptions file, then regular ones
    (plural or third person -s, -ing, -ed, and back to the base), each with how it was made."""
    out = [(b, "irregular-base") for b in words.base_of.get(w, ())]
    out += [(f, "irregular-form") for f in words.irregular.get(w, ())]
    known = words.synsets
    if w in known:  # a base form: inflect it
        if w.endswith(("s", "x", "z", "ch", "sh")):
            out.append((w + "es", "plural-es"))
        elif len(w) > 2 and w[-1] == "y" and w[-2] not in "aeiou":
            out.append((w[:-1] + "ies", "plural-ies"))
        else:
            out.append((w + "s", "plural-s"))
        stem = w[:-1] if w.endswith("e") and not w.endswith("ee") else w
        out.append((stem + "ing", "ing"))
        out.append((w + "d" if w.endswith("e") else stem + "ed", "past-ed"))
    for suffix, repl, how in (("ies", "y", "singular-ies"), ("es", "", "singular-es"),
                              ("s", "", "singular-s"), ("ing", "", "base-ing"),
                              ("ing", "e", "base-ing"), ("ed", "", "base-ed"),
                              ("ed", "e", "base-ed"), ("ied", "y", "base-ied")):  # fmt: skip
        if w.endswith(suffix) and not w.endswith("ss") and len(w) > len(suffix) + 2:
            base = w[: -len(suffix)] + repl
            if base in known:
                out.append((base, how))
            elif how in ("base-ing", "base-ed") and not repl and base[-1] == base[-2]:
                if base[:-1] in known:  # running -> run, stopped -> stop
                    out.append((base[:-1], how + "-undouble"))
    seen, uniq = {w}, []
    for form, how in out:
        if form not in seen:
            seen.add(form)
            uniq.append((form, how))
    return uniq


def inflection(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    fw = words.function_set
    spots = []
    for i in range(len(tokens)):
        w = _plain(tokens, i)
        if w and len(w) > 2 and w not in fw:
            opts = inflection_options(w, words)
            if opts:
                spots.append((i, w, opts))
    if not spots:
        return None
    changes = []
    for i, w, opts in rng.sample(spots, min(len(spots), rng.choice([1, 1, 2]))):
        form, how = rng.choice(opts)
        _replace(tokens, i, form)
        changes.append({"position": i, "word": w, "form": form, "how": how})
    return " ".join(tokens), {"changes": changes}


def synonym(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    fw = words.function_set
    spots = []
    for i in range(len(tokens)):
        w = _plain(tokens, i)
        if w and w not in fw:
            sets = [s for s in words.synsets.get(w, ()) if len(words.members[s]) > 1]
            if sets:
                spots.append((i, w, sets))
    if not spots:
        return None
    changes = []
    for i, w, sets in rng.sample(spots, min(len(spots), rng.choice([1, 1, 2]))):
        s = rng.choice(sets)
        other = rng.choice([m for m in words.members[s] if m != w])
        _replace(tokens, i, other)
        changes.append({"position": i, "word": w, "synonym": other, "synset": s})
    return " ".join(tokens), {"changes": changes}


def paraphrase(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    cores = [_core(t) for t in tokens]
    by_length: dict[int, list[tuple[int, int, str]]] = {}
    for i in range(len(tokens)):
        for j in range(i + 1, min(i + MAX_PHRASE, len(tokens)) + 1):
            # inner tokens carry no punctuation: the phrase is a run of plain words
            if any(cores[k][0] or (k < j - 1 and cores[k][2]) for k in range(i, j)):
                break
            phrase = " ".join(c[1].lower() for c in cores[i:j])
            if phrase in words.paraphrases:
                by_length.setdefault(j - i, []).append((i, j, phrase))
    if not by_length:
        return None
    i, j, phrase = rng.choice(by_length[rng.choice(sorted(by_length))])
    new = rng.choice(words.paraphrases[phrase])
    tail = cores[j - 1][2]
    tokens[i:j] = (_styled(new, cores[i][1]) + tail).split()
    return " ".join(tokens), {"start": i, "end": j, "phrase": phrase, "paraphrase": new}


def reorder(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    if len(set(tokens)) < 2:
        return None
    for _ in range(10):
        t = list(tokens)
        op = rng.choice(["swap_adjacent", "swap", "move_span", "reverse_span", "shuffle"])
        n = len(t)
        if op == "swap_adjacent":
            i = rng.randrange(n - 1)
            t[i], t[i + 1] = t[i + 1], t[i]
        elif op == "swap":
            i, j = rng.sample(range(n), 2)
            t[i], t[j] = t[j], t[i]
        elif op == "move_span":
            i = rng.randrange(n)
            j = min(n, i + rng.randint(1, 4))
            span, rest = t[i:j], t[:i] + t[j:]
            k = rng.randint(0, len(rest))
            t = rest[:k] + span + rest[k:]
        elif op == "reverse_span":
            i = rng.randrange(n - 1)
            j = min(n, i + rng.randint(2, 6))
            t[i:j] = t[i:j][::-1]
        else:
            rng.shuffle(t)
        if t != tokens:
            return " ".join(t), {"op": op}
    return None


def repeat(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    if not tokens:
        return None
    op = rng.choice(["word", "word_run", "span", "far", "whole"])
    n = len(tokens)
    i = rng.randrange(n)
    if op == "word":
        new = [*tokens[: i + 1], tokens[i], *tokens[i + 1 :]]
    elif op == "word_run":
        new = tokens[: i + 1] + [tokens[i]] * rng.randint(2, 5) + tokens[i + 1 :]
    elif op == "span":
        j = min(n, i + rng.randint(2, 4))
        k = rng.randint(0, n)
        new = tokens[:k] + tokens[i:j] + tokens[k:]
    elif op == "far":
        k = rng.randint(0, n)
        new = [*tokens[:k], tokens[i], *tokens[k:]]
    else:
        new = tokens + tokens
    return " ".join(new), {"op": op}


def function_words(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    fw = words.function_set
    present = [i for i, t in enumerate(tokens) if t in fw or _core(t)[1].lower() in fw]
    ops = ["insert", "insert"] + (["remove", "replace"] if present else [])
    op = rng.choice(ops)
    if op == "insert":
        added = [rng.choice(words.function_words) for _ in range(rng.randint(1, 3))]
        for w in added:
            tokens.insert(rng.randint(0, len(tokens)), w)
        return " ".join(tokens), {"op": op, "words": added}
    if op == "remove":
        gone = sorted(rng.sample(present, min(len(present), rng.randint(1, 3))))
        removed = [tokens[i] for i in gone]
        tokens = [t for i, t in enumerate(tokens) if i not in set(gone)]
        return " ".join(tokens), {"op": op, "words": removed}
    i = rng.choice(present)
    pre, old, post = _core(tokens[i])
    if not old:  # a punctuation token (",", "'s", ...) is replaced whole
        pre, old, post = "", tokens[i], ""
    new = rng.choice([w for w in words.function_words if w != old.lower()])
    tokens[i] = pre + new + post
    return " ".join(tokens), {"op": op, "word": old, "by": new}


def punctuation(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    if not tokens:
        return None
    op = rng.choice(["token", "attach", "strip", "end", "quote", "glue"])
    i = rng.randrange(len(tokens))
    p = rng.choice(PUNCT)
    if op == "token":
        tokens.insert(rng.randint(0, len(tokens)), p)
    elif op == "attach":
        tokens[i] = tokens[i] + p if rng.random() < 0.7 else p + tokens[i]
    elif op == "strip":
        new = re.sub(r"[^\w\s]", "", caption)
        if new.split() == tokens:
            return None
        return new, {"op": op}
    elif op == "end":
        p = rng.choice(["", " .", "!", "?", "...", " ?!", ".."])
        tokens[-1] = tokens[-1].rstrip(".") + p
    elif op == "quote":
        left, right = rng.choice(QUOTES)
        p = left + right
        j = min(len(tokens), i + rng.randint(1, 3))
        tokens[i] = left + tokens[i]
        tokens[j - 1] = tokens[j - 1] + right
    else:  # punctuation inside a word
        w = tokens[i]
        k = rng.randint(0, len(w))
        tokens[i] = w[:k] + p + w[k:]
    new = " ".join(tokens)
    if new.split() == caption.split():  # "end" on a caption without a final period
        return None
    return new, {"op": op, "marks": p}


def hyphens(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    hyphenated = [i for i, t in enumerate(tokens) if "-" in t.strip("-")]
    ops = ["join", "chain", "spaced", "edge"] + (["split"] * 2 if hyphenated else [])
    if len(tokens) < 3:
        ops = ["edge"]
    op = rng.choice(ops)
    d = rng.choice(DASHES) if op != "split" else "-"
    if op in ("join", "chain"):
        n = 2 if op == "join" else rng.randint(3, 4)
        i = rng.randrange(max(1, len(tokens) - n + 1))
        tokens[i : i + n] = [d.join(tokens[i : i + n])]
    elif op == "spaced":
        i = rng.randrange(1, len(tokens))
        tokens.insert(i, d)
    elif op == "edge":
        i = rng.randrange(len(tokens))
        tokens[i] = d + tokens[i] if rng.random() < 0.5 else tokens[i] + d
    else:
        i = rng.choice(hyphenated)
        tokens[i : i + 1] = tokens[i].replace("-", " ").split()
    return " ".join(tokens), {"op": op, "dash": d}


def numbers(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    if not tokens:
        return None
    lower = [_core(t)[1].lower() for t in tokens]
    as_word = [i for i, w in enumerate(lower) if w in NUMBER_WORDS]
    as_digits = [i for i, w in enumerate(lower) if w in NUMBER_DIGITS]
    ops = ["insert", "insert"] + ["to_digits"] * 2 * bool(as_word) + ["to_words"] * bool(as_digits)
    op = rng.choice(ops)
    if op == "insert":
        n = rng.choice(NUMBERS)
        k = rng.randint(0, len(tokens))
        tokens.insert(k, n)
        return " ".join(tokens), {"op": op, "number": n}
    i = rng.choice(as_word if op == "to_digits" else as_digits)
    src, dst = (NUMBER_WORDS, NUMBER_DIGITS) if op == "to_digits" else (NUMBER_DIGITS, NUMBER_WORDS)
    new = dst[src.index(lower[i])]
    _replace(tokens, i, new)
    return " ".join(tokens), {"op": op, "word": lower[i], "by": new}


def case(caption: str, rng: random.Random, words: Words):
    ops: dict[str, Callable[[str], str]] = {
        "upper": str.upper,
        "lower": str.lower,
        "title": str.title,
        "swapcase": str.swapcase,
        "capitalize": str.capitalize,
        "random": lambda s: "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in s),
        "one_word_upper": lambda s: _one_word(s, rng, str.upper),
        "one_word_title": lambda s: _one_word(s, rng, str.capitalize),
    }
    for _ in range(5):
        op = rng.choice(list(ops))
        new = ops[op](caption)
        if new != caption and new.casefold() == caption.casefold():
            return new, {"op": op}
    return None


def _one_word(s: str, rng: random.Random, f: Callable[[str], str]) -> str:
    tokens = s.split(" ")
    i = rng.randrange(len(tokens))
    tokens[i] = f(tokens[i])
    return " ".join(tokens)


def pipes(caption: str, rng: random.Random, words: Words):
    tokens = caption.split()
    p = rng.choice(PIPES)
    op = rng.choice(["between", "glued", "start", "end", "inside", "only"])
    if op == "only" or not tokens:
        return p, {"op": "only", "pipes": p}
    if op == "between":
        tokens.insert(rng.randint(1, max(1, len(tokens) - 1)), p)
    elif op == "glued":
        i = rng.randrange(max(1, len(tokens) - 1))
        tokens[i : i + 2] = [p.join(tokens[i : i + 2])]
    elif op == "start":
        tokens.insert(0, p)
    elif op == "end":
        tokens.append(p)
    else:
        i = rng.randrange(len(tokens))
        k = rng.randint(0, len(tokens[i]))
        tokens[i] = tokens[i][:k] + p + tokens[i][k:]
    return " ".join(tokens), {"op": op, "pipes": p}


#: Mutation classes (``control``, an unmutated caption of the same image, has none).
MUTATORS = {
    "inflection": inflection,
    "synonym": synonym,
    "paraphrase": paraphrase,
    "reorder": reorder,
    "repeat": repeat,
    "function_words": function_words,
    "punctuation": punctuation,
    "hyphens": hyphens,
    "numbers": numbers,
    "case": case,
    "pipes": pipes,
}
CLASSES = ("control", *MUTATORS)
