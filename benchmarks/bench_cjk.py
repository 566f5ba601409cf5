"""The CJK tokenizers: agreement with pycocoevalcap, then captions per second.

For each named tokenizer ("char" on Chinese and Japanese, "jieba" on
Chinese, "mecab" on Japanese, "kiwi" on Korean), on generated corpora
(``sparsecider/_demo_cjk.py``, deterministic; 4,000 images per
language, 3 to 6 references each):

1. agreement: ``sparsecider.cider_d(..., tokenizer=name)`` against
   pycocoevalcap's ``Cider`` on the captions segmented by the library
   directly (``" ".join(jieba.cut(c))``, fugashi's nodes, Kiwi's tokens;
   for "char", a character-by-character Python loop), with the documented
   default options written out with the standard library;
2. throughput: ``get_tokenizer(name).split`` over all captions (median of
   repeated runs), against the bare library loop users write today; and
   end to end, ``cider_d`` against that loop followed by pycocoevalcap;
3. the batching and threading choices of the code, measured: jieba on all
   captions joined into one call against one call per caption; MeCab
   (fugashi) in two threads against one; Kiwi given the whole batch (its
   own C++ threads) against one call per caption.

Writes ``benchmarks/results/cjk_tokenizers.json``.  Needs the ``cjk`` and
``ref`` extras (``pip install -e ".[cjk,ref]"``); no shared data.

Usage::

    python -m benchmarks.bench_cjk [--images 4000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import sparsecider
from benchmarks import common
from sparsecider._demo_cjk import corpus
from sparsecider.tokenizers import get_tokenizer
from tests.twin import char_twin

CASES = [("char", "zh"), ("char", "ja"), ("jieba", "zh"), ("mecab", "ja"), ("kiwi", "ko")]


def _direct(name: str):
    """The library called the way users call it: caption -> tokens joined by spaces."""
    if name == "jieba":
        import jieba

        jieba.initialize()
        return lambda c: " ".join(jieba.cut(c, cut_all=False))
    if name == "mecab":
        import fugashi

        tagger = fugashi.Tagger()
        return lambda c: " ".join(w.surface for w in tagger(c))
    if name == "kiwi":
        import kiwipiepy

        kiwi = kiwipiepy.Kiwi()
        return lambda c: " ".join(t.form for t in kiwi.tokenize(c))
    return char_twin  # the rule, one character at a time (the test suite's twin)


def _clean(segmented: str) -> str:
    """The documented defaults, written out: drop punctuation-only tokens, lower-case."""
    return " ".join(
        t.lower()
        for t in segmented.split()
        if not all(unicodedata.category(ch)[0] == "P" for ch in t)
    )


def _alternatives(repeat: int) -> dict:
    """The batching and threading choices, measured (captions per second)."""
    import fugashi
    import jieba
    import kiwipiepy

    out = {}
    cut = jieba.Tokenizer()
    cut.initialize()
    zh = corpus("zh", 4000)[0] * 5
    per = common.timed(lambda: [" ".join(cut.cut(c)) for c in zh], repeat)
    joined = common.timed(lambda: " ".join(cut.cut("\n".join(zh))).split("\n"), repeat)
    out["jieba"] = {
        "captions": len(zh),
        "one_call_per_caption_per_s": len(zh) / min(per),
        "all_joined_in_one_call_per_s": len(zh) / min(joined),
    }
    ja = corpus("ja", 4000)[0] * 5
    taggers = [fugashi.Tagger("-Owakati") for _ in range(2)]
    one = common.timed(lambda: [taggers[0].parse(c) for c in ja], repeat)

    def two_threads():
        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(lambda k: [taggers[k].parse(c) for c in ja[k::2]], (0, 1)))

    two = common.timed(two_threads, repeat)
    out["mecab"] = {
        "captions": len(ja),
        "one_thread_per_s": len(ja) / min(one),
        "two_threads_per_s": len(ja) / min(two),
    }
    ko = corpus("ko", 1000)[0] * 2
    kiwi = kiwipiepy.Kiwi()
    loop = common.timed(lambda: [kiwi.tokenize(c) for c in ko], repeat)
    batch = common.timed(lambda: list(kiwi.tokenize(ko)), repeat)
    out["kiwi"] = {
        "captions": len(ko),
        "threads": kiwi.num_workers,
        "one_call_per_caption_per_s": len(ko) / min(loop),
        "whole_batch_per_s": len(ko) / min(batch),
    }
    return out


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=4000, help="images per language")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each side")
    args = parser.parse_args(argv)
    from pycocoevalcap.cider.cider import Cider

    rows = []
    for name, language in CASES:
        cands, refs = corpus(language, args.images)
        flat = cands + [r for rs in refs for r in rs]
        tokenizer = get_tokenizer(name)  # the library loads here, outside the timings
        direct = _direct(name)
        common.log(f"{tokenizer.name} on {language}: {len(flat):,} captions")

        seg = [_clean(direct(c)) for c in cands]
        seg_refs = [[_clean(direct(r)) for r in rs] for rs in refs]
        gts, res = dict(enumerate(seg_refs)), {i: [c] for i, c in enumerate(seg)}
        mean, scores = Cider().compute_score(gts, res)
        result = sparsecider.cider_d(cands, refs, tokenizer=tokenizer)
        diff = float(np.abs(result.scores - scores).max())
        common.log(f"  agreement: max abs diff {diff:.1e}")
        if diff > 1e-12:
            raise SystemExit(f"{tokenizer.name}: disagreement with pycocoevalcap ({diff:.1e})")

        ours = common.timed(lambda t=tokenizer, f=flat: t.split(f), args.repeat)
        bare = common.timed(lambda d=direct, f=flat: [d(c) for c in f], args.repeat)

        def reference(d=direct, cs=cands, rs=refs):
            g = {i: [d(r) for r in r_] for i, r_ in enumerate(rs)}
            return Cider().compute_score(g, {i: [d(c)] for i, c in enumerate(cs)})

        end_ours = common.timed(
            lambda t=tokenizer, c=cands, r=refs: sparsecider.cider_d(c, r, tokenizer=t),
            args.repeat,
        )
        end_ref = common.timed(reference, max(1, args.repeat // 2))
        row = {
            "tokenizer": tokenizer.name,
            "language": language,
            "images": len(cands),
            "captions": len(flat),
            "agreement": common.agreement(diff, len(cands), result.score, mean),
            "split": common.summary(ours),
            "library_loop": common.summary(bare),
            "captions_per_s": len(flat) / common.summary(ours)["median_s"],
            "library_loop_captions_per_s": len(flat) / common.summary(bare)["median_s"],
            "cider_d_end_to_end": common.summary(end_ours),
            "library_loop_plus_pycocoevalcap": common.summary(end_ref),
        }
        row["end_to_end_ratio"] = (
            row["library_loop_plus_pycocoevalcap"]["median_s"]
            / row["cider_d_end_to_end"]["median_s"]
        )
        common.log(
            f"  {row['captions_per_s']:,.0f} captions/s (library loop "
            f"{row['library_loop_captions_per_s']:,.0f}/s); end to end "
            f"{row['cider_d_end_to_end']['median_s']:.2f} s vs "
            f"{row['library_loop_plus_pycocoevalcap']['median_s']:.2f} s"
        )
        rows.append(row)
    start = time.perf_counter()
    alternatives = _alternatives(max(3, args.repeat // 2))
    common.log(f"alternatives measured in {time.perf_counter() - start:.0f} s: {alternatives}")
    out = {
        "benchmark": "cjk_tokenizers",
        "machine": common.machine(),
        "versions": common.versions(
            "sparsecider",
            "pycocoevalcap",
            "numpy",
            "jieba",
            "fugashi",
            "unidic-lite",
            "kiwipiepy",
            "kiwipiepy_model",
        ),
        "sizes": {"images_per_language": args.images},
        "rows": rows,
        "alternatives": alternatives,
    }
    common.write("cjk_tokenizers", out)
    return out


if __name__ == "__main__":
    main()
