"""Differential fuzz of sparsecider's PTB tokenizer against the reference jar.

Generates (one seeded run) strings from real captions of ``../shared/data``
with inserted punctuation, digits, quotes, brackets, hyphens, apostrophes and
clitics, URLs and e-mail addresses, abbreviations, letter case changes and
Unicode (accents, other scripts, emoji, unusual spaces, marks, symbols).  The
strings are fed in batches, each batch as ONE sequence in order, to the jar
(``benchmarks/ptb_jar.py``, pycocoevalcap's exact pipeline) and to
``sparsecider.ptb_tokenize``; every caption whose outputs differ is counted.
A mismatch is classed by the mutations its string went through (and by those
of the next string, which the reference reads ahead into).  Writes
``benchmarks/results/ptb_fuzz.json``: the counts, the mismatch rate, every
class with its count and up to five examples.

Usage (needs Java, ``pip install -e .[ref]`` and ``../shared/data``)::

    python -m benchmarks.bench_ptb_fuzz [--n 200000] [--seed 26] [--batch 20000]
"""

from __future__ import annotations

import argparse
import random
import shutil
import time
from collections import Counter, defaultdict

import sparsecider
from benchmarks import common, datasets
from benchmarks.ptb_jar import jar_tokenize

PUNCT = [*".,;:!?", "...", "..", "?!", "!!", " .", " ,", "--", " - ", "-", "/", "&", "*", "%"]
DIGITS = ["1", "2", "10", "3.5", "1,000", "2:30", "3/4", "5pm", "1st", "1990s", "24/7", "-5",
          "+44", "555 123 4567", "(555) 123-4567", "1 1/2", "12 345 123 456", ".5", "$5",
          "5%", "#1", "No. 5", "4x4", "3-4", "10-20", "2.5-inch", "'90s", "1990's"]  # fmt: skip
QUOTES = ['"', "'", "`", "``", "''", "\u2018", "\u2019", "\u201c", "\u201d", "\xab", "\xbb",
          "\u201e", "\u2039", "\u203a"]  # fmt: skip
BRACKETS = [*"()[]{}<>", "-LRB-", "-rrb-", "<b>", "</b>", "<br/>", '<a href="x">']
HYPHENS = ["-", "--", "---", "-----", "\u2013", "\u2014", "\u2010", "\xad", " - ", "- ", " -"]
APOSTROPHES = ["'s", "'S", "n't", "'re", "'ve", "'ll", "'d", "'m", "s'", "'", "\u2019s", "o'",
               "'n'", "y'", "in'", "'em", "'tis"]  # fmt: skip
URLS = ["http://www.example.com", "https://x.org/a?b=c&d=e", "www.site.co.uk/path",
        "example.com", "john.doe@mail.com", "a@b.c", "mailto:x@y.z", "ftp://a.b",
        "www.a.uk/hL.Accoi", "http://x.com/a.b.", "file.txt"]  # fmt: skip
ABBREVIATIONS = ["Mr.", "Dr.", "St.", "etc.", "Inc.", "U.S.", "p.m.", "e.g.", "K.", "a.",
                 "I.", "no.", "Fig.", "Jan.", "vs.", "Ph.D.", "Cont'd.", "Calif.", "Ark.",
                 "Mass."]  # fmt: skip
UNICODE = ["é", "ñ", "ü", "Å", "ß", "ẞ", "İ", "Σ", "ΑΣ", "ΟΔΟΣ", "\u03c3", "中文", "日本", "한국",
           "\U0001f415", "\U0001f44d\U0001f3fd", "\u2764\ufe0f", "\xa0", "\u2002", "\u3000",
           "\u200b", "\ufeff", "\u0301", "e\u0301", "½", "¼", "£", "€", "¢", "¥", "°", "\u00d7",
           "…", "•", "™", "©", "²", "₂", "\u037f", "\u13a0", "Ⅻ", "Ⓐ", "ǅ", "ﬁ", "\ufffd", "\x00",
           "\t", "\x7f", "\x85", "\u2028", "\r\n", "\u202f", "\u2044", "\u0130",
           "\uff21\uff22\uff23",
           "¡", "¿", "§", "¶", "→", "★", "♥", "\u05d0", "\u0627", "\u0e01"]  # fmt: skip
STARTERS = ["The", "A", "He", "It", "This", "There", "Mr.", "THE", "An", "We"]
KINDS = {
    "punct": PUNCT, "digits": DIGITS, "quotes": QUOTES, "brackets": BRACKETS,
    "hyphens": HYPHENS, "apostrophes": APOSTROPHES, "urls": URLS,
    "abbreviations": ABBREVIATIONS, "unicode": UNICODE, "starters": STARTERS,
}  # fmt: skip


def real_captions() -> list[str]:
    """Every caption of the shared sets with a reference output, deduplicated, in order."""
    seen: dict[str, None] = {}
    for raw, _ in datasets.ptb_ground_truth().values():
        seen.update(dict.fromkeys(raw))
    return list(seen)


def mutate(caption: str, rng: random.Random) -> tuple[str, list[str]]:
    """``caption`` with one to four insertions or changes; the kinds applied."""
    kinds = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice([*KINDS, "case", "glue", "ending"])
        kinds.append(kind)
        if kind == "case":
            caption = rng.choice([str.upper, str.lower, str.title, str.capitalize])(caption)
            continue
        if kind == "glue":  # remove a space: words and punctuation touch
            spaces = [i for i, ch in enumerate(caption) if ch == " "]
            if spaces:
                i = rng.choice(spaces)
                caption = caption[:i] + caption[i + 1 :]
            continue
        if kind == "ending":  # a construct at the very end, where the look-ahead matters
            piece = rng.choice(ABBREVIATIONS + APOSTROPHES + [":)", " :-)", ";)", " 'S", "'85"])
            caption = caption.rstrip(" .") + (" " if rng.random() < 0.5 else "") + piece
            continue
        piece = rng.choice(KINDS[kind])
        where = rng.random()
        if where < 0.4:  # between words
            words = caption.split(" ")
            k = rng.randint(0, len(words))
            words.insert(k, piece)
            caption = " ".join(words)
        else:  # anywhere, touching letters
            k = rng.randint(0, len(caption))
            caption = caption[:k] + piece + caption[k:]
    return caption, kinds


def generate(n: int, seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    pool = real_captions()
    strings, kinds = [], []
    for _ in range(n):
        r = rng.random()
        if r < 0.03:
            s, k = rng.choice(["", " ", "\t", "."]), ["blank"]
        else:
            s, k = mutate(rng.choice(pool), rng)
        strings.append(s)
        kinds.append(k)
    return strings, kinds


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000, help="strings to generate")
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--batch", type=int, default=20_000, help="strings per jar run")
    args = parser.parse_args(argv)
    if shutil.which("java") is None:
        raise SystemExit("this benchmark compares with the Java tokenizer: java must be on PATH")
    strings, kinds = generate(args.n, args.seed)
    common.log(f"{len(strings)} strings generated (seed {args.seed})")
    mismatches = []
    t_jar = t_ours = 0.0
    for start in range(0, len(strings), args.batch):
        batch = strings[start : start + args.batch]
        t = time.perf_counter()
        want = jar_tokenize(batch)
        t_jar += time.perf_counter() - t
        t = time.perf_counter()
        got = sparsecider.ptb_tokenize(batch)
        t_ours += time.perf_counter() - t
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            if g != w:
                i = start + k
                nxt = strings[i + 1] if i + 1 < min(start + args.batch, len(strings)) else None
                mismatches.append((i, strings[i], nxt, g, w))
        common.log(f"{start + len(batch)} done, {len(mismatches)} differ so far")
    classes: dict[str, list] = defaultdict(list)
    for i, s, nxt, g, w in mismatches:
        key = "+".join(sorted(set(kinds[i])))
        classes[key].append({"caption": s, "next": nxt, "ours": g, "jar": w})
    counts = Counter({k: len(v) for k, v in classes.items()})
    out = {
        "benchmark": "ptb_fuzz",
        "machine": common.machine(),
        "versions": common.versions("sparsecider", "pycocoevalcap"),
        "seed": args.seed,
        "strings": len(strings),
        "batch": args.batch,
        "mismatches": len(mismatches),
        "mismatch_rate": len(mismatches) / len(strings),
        "seconds": {"jar": t_jar, "sparsecider": t_ours},
        "classes": [
            {"mutations": k, "count": c, "examples": classes[k][:5]}
            for k, c in counts.most_common()
        ],
    }
    path = common.write("ptb_fuzz", out)
    common.log(
        f"{len(mismatches)} of {len(strings)} differ ({out['mismatch_rate']:.2e}); "
        f"{len(counts)} classes; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
