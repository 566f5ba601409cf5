"""Differential fuzz of sparsecider's PTB tokenizer against the reference jar.

Generates (one seeded run) strings from real captions of ``../shared/data``
with inserted punctuation, digits, quotes, brackets, hyphens, apostrophes and
clitics, URLs and e-mail addresses, abbreviations, letter case changes and
Unicode (accents, other scripts, emoji, unusual spaces, marks, symbols), and
the shapes of web and informal text: slash lists, mentions and hashtags,
HTML entities, contractions and dialect apostrophes (straight, curly and
``&apos;``), money and numbers before punctuation, runs of curly quotes,
guillemets and backticks, emoticons, and other forms (fractions after a
hyphen, underscores, ...).  The
strings are fed in batches, each batch as ONE sequence in order, to the jar
(``benchmarks/ptb_jar.py``, pycocoevalcap's exact pipeline) and to
``sparsecider.ptb_tokenize``; every caption whose outputs differ is counted.
A mismatch is classed by the mutations its string went through (and by those
of the next string, which the reference reads ahead into).  Writes
``benchmarks/results/ptb_fuzz.json``: the counts, the mismatch rate, the
rate per mutation kind (among the strings that went through it), and every
class (the set of kinds of a differing string) with its count and up to five
examples.

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
# ---- the classes added for issue 35 (shapes of web and informal text) ----
WORDS = ["red", "white", "blue", "green", "he", "she", "they", "them", "on", "off", "and", "or",
         "yes", "no", "cat", "dog", "x", "a", "in", "out", "A", "B", "Red", "GREEN", "hi-fi",
         "e-mail", "t-shirt", "2", "10", "1st", "4x4", "3.5", "v2"]  # fmt: skip
HANDLE_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789______..-"
ENTITIES = ["&eacute;", "&Eacute;", "&uuml;", "&Uuml;", "&agrave;", "&ouml;", "&iacute;",
            "&ntilde;", "&ccedil;", "&szlig;", "&aelig;", "&copy;", "&reg;", "&hellip;",
            "&amp;", "&AMP;", "&lt;", "&gt;", "&quot;", "&apos;", "&nbsp;", "&mdash;", "&ndash;",
            "&#39;", "&#8220;", "&#x27;", "&#233;", "&foo;", "&eacute", "&amp", "&Amp;",
            "&laquo;", "&rsquo;", "&yacute;", "&ocirc;"]  # fmt: skip
ENTITY_WORDS = ["&eacute;cole", "caf&eacute;", "&uuml;ber", "na&iuml;ve", "&apos;Mom&apos;",
                "It&apos;s", "don&apos;t", "&apos;90s", "rock&apos;n&apos;roll",
                "&Aring;ngstr&ouml;m", "AT&amp;T", "S&amp;P", "&quot;hi&quot;"]  # fmt: skip
DIALECT = ["li'l", "Li'l", "LI'L", "nat'l", "ev'ry", "ma'am", "Ma'am", "o'clock", "O'Clock",
           "y'all", "Y'all", "ne'er", "e'er", "o'er", "'twas", "'Twas", "'tis", "ol'", "d'",
           "j'", "l'", "o'o", "rock'n'roll", "cap'n", "gov't", "int'l", "can't", "won't",
           "ain't", "y'know", "c'mon", "'cause", "'em", "'bout", "goin'", "'n'", "O'Neil",
           "d'Artagnan", "l'amour", "qu'il", "Hawai'i", "somethin'", "'til", "'90s", "'85",
           "she'd've", "I'm", "they're", "we'll", "who's", "it'd", "ya'll", "'round",
           "fo'c'sle", "bo's'n", "ha'penny"]  # fmt: skip
MONEY = ["$5", "$5.", "$5.,", "$5.;", "$5.:", "$1,000.", "$3.50.", "2020.", "2020.,", "2020.;",
         "5.:", "10.,", "3.5.,", "1,000.,", "No. 5.,", "#1.,", "£3.", "€10.,", "¥5", "US$5",
         "A$5.", "5¢", "10%.", "10%.,", "-5.,", "+5.,", "1/2.,", "2:30.,", "5th.,", "5pm.,",
         "$.99", "$5.99/lb", "5.-", "5..", "5.!", "(5.)", "1990s.,", "'90s.,", "5.'s"]  # fmt: skip
QUOTE_RUN_CHARS = ["\u201c", "\u201d", "\u2018", "\u2019", "\xab", "\xbb", "\u2039",
                   "\u203a", "\u201e", "\u201a", "\u201f", "\u201b", "`", "'", '"']  # fmt: skip
EMOTICONS = [":)", ":-)", ":(", ":-(", ";)", ";-)", ":D", ":-D", ":P", ":p", ":-P", ":o", ":O",
             ":/", ":-/", ":\\", ":*", ":'(", ":')", "=)", "=(", "XD", "xD", "<3", "</3",
             "^_^", "^^", "-_-", "o_O", "O_o", "T_T", ":]", ":[", ":{", ":}", "8)", "B-)",
             ":S", ":$", ":|", ":-|", ">:(", ">:)", ":3", "D:", "(:", ":))", ":-)))", ";D",
             "\\o/", "\xaf\\_(\u30c4)_/\xaf", "(^_^)", "(-_-)", ">_<", "x_x", ":-)x"]  # fmt: skip
OTHERS = ["snake_case", "_x_", "a__b", "x-1/2", "1-1/2", "1-1/2-inch", "a/b-1", "1/2-3/4",
          "ab-c1/d", "a-b/c", "w/o", "and/or", "24/7", "file_name.txt", "v1.2.3", "3D", "2x",
          "e.g.,", "i.e.,", "U.S.A.", "a.m.,", "#hashtag", "C++", "C#", ".NET", "Wi-Fi", "50/50",
          "~5", "5~", "x^2", "a+b", "a=b", "a|b", "1.5x", "x1.5", "100k", "5'11\"", "6'2",
          "5 o'clock", "9-to-5", "24-7", "1990-91", "'60s-style", "mid-'90s"]  # fmt: skip


def slash_list(rng: random.Random) -> str:
    """Two to seven words joined by "/" (a slash list: red/white/blue/green)."""
    return "/".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))


def mention(rng: random.Random) -> str:
    """A mention or hashtag: "@" or "#", then letters, digits, underscores, dots."""
    body = "".join(rng.choice(HANDLE_CHARS) for _ in range(rng.randint(1, 12)))
    tail = rng.choice(["", "", "", "'s", ".", ",", ":", "!"])
    return rng.choice("@@@##") + body + tail


def entity(rng: random.Random) -> str:
    """An entity alone, or glued to letters at a word's start, middle or end."""
    if rng.random() < 0.3:
        return rng.choice(ENTITY_WORDS)
    e, w = rng.choice(ENTITIES), rng.choice(["", "ab", "cole", "x"])
    return rng.choice([e, e + w, w + e, w + e + w])


def dialect(rng: random.Random) -> str:
    """A contraction or dialect word, its apostrophe straight, curly or &apos;."""
    word = rng.choice(DIALECT)
    r = rng.random()
    if r < 0.2:
        return word.replace("'", "\u2019")
    if r < 0.3:
        return word.replace("'", "&apos;")
    return word


def money(rng: random.Random) -> str:
    """Money and numbers before punctuation (2020., costs $5., it)."""
    return rng.choice(MONEY) + rng.choice(["", "", ",", ";", ":", ".", " ,"])


def quote_run(rng: random.Random) -> str:
    """A run of one to five curly quotes, guillemets, low quotes and backticks."""
    return "".join(rng.choice(QUOTE_RUN_CHARS) for _ in range(rng.randint(1, 5)))


KINDS = {
    "punct": PUNCT, "digits": DIGITS, "quotes": QUOTES, "brackets": BRACKETS,
    "hyphens": HYPHENS, "apostrophes": APOSTROPHES, "urls": URLS,
    "abbreviations": ABBREVIATIONS, "unicode": UNICODE, "starters": STARTERS,
    "slashlists": slash_list, "mentions": mention, "entities": entity,
    "dialect": dialect, "money": money, "quoteruns": quote_run, "emoticons": EMOTICONS,
    "others": OTHERS,
}  # fmt: skip
#: The classes added for issue 35 (its targets: no difference on them).
NEW_KINDS = ("slashlists", "mentions", "entities", "dialect", "money", "quoteruns",
             "emoticons", "others")  # fmt: skip


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
        source = KINDS[kind]
        piece = source(rng) if callable(source) else rng.choice(source)
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
    # per mutation kind: the strings that went through it, and how many of them differ
    total, differ = Counter(), Counter()
    for k in kinds:
        total.update(set(k))
    for i, *_ in mismatches:
        differ.update(set(kinds[i]))
    per_kind = {
        k: {"strings": total[k], "differ": differ[k], "rate": differ[k] / total[k]}
        for k in sorted(total)
    }
    # the same among the strings that went through that kind alone, and the
    # strings that went through none of the new kinds (the earlier generator's)
    alone = Counter(next(iter(set(k))) for k in kinds if len(set(k)) == 1)
    alone_differ = Counter(
        next(iter(set(kinds[i]))) for i, *_ in mismatches if len(set(kinds[i])) == 1
    )
    for k, v in per_kind.items():
        v["alone"] = {"strings": alone[k], "differ": alone_differ[k]}
    old = [i for i, k in enumerate(kinds) if not set(k) & set(NEW_KINDS)]
    old_differ = sum(not set(kinds[i]) & set(NEW_KINDS) for i, *_ in mismatches)
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
        "without_new_kinds": {"strings": len(old), "differ": old_differ},
        "per_kind": per_kind,
        "classes": [
            {"mutations": k, "count": c, "examples": classes[k][:5]}
            for k, c in counts.most_common()
        ],
    }
    path = common.write("ptb_fuzz", out)
    for k, v in per_kind.items():
        new = " (new)" if k in NEW_KINDS else ""
        a = v["alone"]
        common.log(
            f"  {k:14} {v['differ']:6} of {v['strings']:7} differ ({v['rate']:.2%}); "
            f"alone {a['differ']} of {a['strings']}{new}"
        )
    common.log(f"  without the new kinds: {old_differ} of {len(old)} differ")
    common.log(
        f"{len(mismatches)} of {len(strings)} differ ({out['mismatch_rate']:.2e}); "
        f"{len(counts)} classes; written to {path}"
    )
    return out


if __name__ == "__main__":
    main()
