"""The CJK tokenizers ("char", "jieba", "mecab", "kiwi"): agreement with the reference.

Expected values: pycocoevalcap's ``Cider`` run on the same captions
segmented by the library directly and joined with spaces (the way users do
it today: ``" ".join(jieba.cut(c))``), with the documented options written
out here with the standard library (NFKC by ``unicodedata``, punctuation by
Unicode category, ``str.lower``), on generated corpora of 120 images per
language (``sparsecider/_demo_cjk.py``).  The ``"char"`` rule is
checked against a slow character-by-character twin.  Each library is in the
``test`` extra; without it (outside CI) its tests skip with that reason.
"""

# ruff: noqa: RUF001  (full-width characters are the point of these tests)
from __future__ import annotations

import importlib
import json
import os
import pickle
import sys
import unicodedata
from importlib import metadata

import numpy as np
import pytest

import sparsecider
from sparsecider._demo_cjk import coco_files, corpus
from sparsecider.cli import main
from sparsecider.tokenizers import (
    get_tokenizer,
    ja,
    ko,
    registered,
    registry,
    split_whitespace,
    tokenize,
    zh,
)
from tests.twin import char_twin

TOL = 1e-12


def need(module: str, extra: str):
    """Import an optional library; skip without it, except in CI (which installs it)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs the `{extra}` extra, which provides {module}")
        pytest.skip(f"{module} is not installed (pip install 'sparsecider[{extra}]')")


@pytest.fixture(scope="module")
def reference_cider():
    return need("pycocoevalcap.cider.cider", "ref").Cider


# ---- the libraries called directly, as users do ------------------------------


@pytest.fixture(scope="module")
def direct():
    """name -> function(caption, **own options) -> the library's tokens joined by spaces."""

    def jieba_words(caption, hmm=True):
        jieba = need("jieba", "jieba")
        return " ".join(jieba.cut(caption, cut_all=False, HMM=hmm))

    tagger = []

    def mecab_words(caption):
        if not tagger:
            need("unidic_lite", "mecab")
            tagger.append(need("fugashi", "mecab").Tagger())
        return " ".join(word.surface for word in tagger[0](caption))

    kiwi = []

    def kiwi_words(caption):
        if not kiwi:
            kiwi.append(need("kiwipiepy", "kiwi").Kiwi())
        return " ".join(token.form for token in kiwi[0].tokenize(caption))

    return {"jieba": jieba_words, "mecab": mecab_words, "kiwi": kiwi_words, "char": char_twin}


def documented(words, caption, normalize=None, punctuation="drop", lowercase=True, **own):
    """The documented pipeline around a segmenter, written out with the standard library."""
    if normalize == "nfkc":
        caption = unicodedata.normalize("NFKC", caption)
    tokens = words(caption, **own).split()
    if punctuation == "drop":
        tokens = [t for t in tokens if not all(unicodedata.category(ch)[0] == "P" for ch in t)]
    if lowercase:
        tokens = [t.lower() for t in tokens]
    return " ".join(tokens)


CASES = [("jieba", "zh"), ("char", "zh"), ("char", "ja"), ("mecab", "ja"), ("kiwi", "ko")]
OPTIONS = [
    {},  # the defaults
    {"punctuation": "keep", "lowercase": False},  # the library's output as it is
    {"normalize": "nfkc"},
    {"normalize": "nfkc", "punctuation": "keep"},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "defaults")
@pytest.mark.parametrize(("name", "language"), CASES, ids=[f"{n}-{lang}" for n, lang in CASES])
def test_scores_equal_pycocoevalcap_on_the_library_output(
    name, language, options, direct, reference_cider
):
    cands, refs = corpus(language, 120)
    tokenizer = get_tokenizer(name, **options)
    seg = [documented(direct[name], c, **options) for c in cands]
    seg_refs = [[documented(direct[name], r, **options) for r in rs] for rs in refs]
    # the same tokens, hash for hash
    flat = cands + [r for rs in refs for r in rs]
    got = tokenizer.split(flat)
    want = split_whitespace(seg + [r for rs in seg_refs for r in rs])
    assert np.array_equal(got.lengths, want.lengths) and np.array_equal(got.hashes, want.hashes)
    # and the same scores as the reference scorer on the space-joined output
    mean, scores = reference_cider().compute_score(
        {i: rs for i, rs in enumerate(seg_refs)}, {i: [c] for i, c in enumerate(seg)}
    )
    result = sparsecider.cider_d(cands, refs, tokenizer=tokenizer)
    assert np.abs(result.scores - scores).max() <= TOL
    assert abs(result.score - mean) <= TOL
    assert result.signature.tokenizer == tokenizer.name


def test_jieba_without_hmm_equals_the_library(direct, reference_cider):
    cands, refs = corpus("zh", 120, seed=1)
    tokenizer = get_tokenizer("jieba", hmm=False)
    seg = [documented(direct["jieba"], c, hmm=False) for c in cands]
    seg_refs = [[documented(direct["jieba"], r, hmm=False) for r in rs] for rs in refs]
    _, scores = reference_cider().compute_score(
        dict(enumerate(seg_refs)), {i: [c] for i, c in enumerate(seg)}
    )
    result = sparsecider.cider_d(cands, refs, tokenizer=tokenizer)
    assert np.abs(result.scores - scores).max() <= TOL
    assert tokenizer.name.endswith("+no-hmm")


def test_the_corpora_hold_the_edge_cases():
    for language in ("zh", "ja", "ko"):
        cands, refs = corpus(language, 120)
        text = "".join(cands) + "".join(r for rs in refs for r in rs)
        assert "\u3000" in text  # full-width spaces
        assert any(c in ("。", "……", "！？", "...", "、。") for c in cands)  # empty once cleaned
        assert all(r in ("。", "……", "！？", "...", "、。") for r in refs[7])  # a whole image
        assert sum(map(len, refs)) >= 3 * 120
    assert "T恤" in "".join(corpus("zh")[0] + [r for rs in corpus("zh")[1] for r in rs])


# ---- signatures --------------------------------------------------------------


def test_signatures_name_the_library_version_and_the_options():
    jieba = need("jieba", "jieba")
    need("fugashi", "mecab")
    need("unidic_lite", "mecab")
    need("kiwipiepy", "kiwi")
    assert get_tokenizer("jieba").name == f"jieba-{jieba.__version__}"
    assert get_tokenizer("mecab").name == (
        f"mecab-fugashi-{metadata.version('fugashi')}-unidic-lite-{metadata.version('unidic-lite')}"
    )
    assert get_tokenizer("kiwi").name == (
        f"kiwi-{metadata.version('kiwipiepy')}-model-{metadata.version('kiwipiepy_model')}"
    )
    assert get_tokenizer("char").name == "char"
    full = get_tokenizer("jieba", normalize="nfkc", punctuation="keep", lowercase=False, hmm=False)
    assert full.name == f"jieba-{jieba.__version__}+nfkc+keep-punct+cased+no-hmm"
    # defaults given explicitly are the default tokenizer, not a new name
    assert get_tokenizer("char", normalize=None, punctuation="drop", lowercase=True) is (
        get_tokenizer("char")
    )
    result = sparsecider.cider_d(["一只狗"] * 2, [["一只狗在跑"], ["一只猫"]], tokenizer="char")
    assert "|tok:char|" in result.signature


def test_a_custom_callable_is_still_accepted():
    def chars(captions):
        return [[ch for ch in c if not ch.isspace()] for c in captions]

    a = tokenize(["一只 狗"], chars)
    b = tokenize(["一只 狗"], get_tokenizer("char"))
    assert np.array_equal(a.hashes, b.hashes)
    assert (
        get_tokenizer(chars).name
        == "custom:test_a_custom_callable_is_still_accepted.<locals>.chars"
    )


# ---- edge cases --------------------------------------------------------------

NAMES = ["char", "jieba", "mecab", "kiwi"]
LIBRARY = {
    "jieba": ("jieba", "jieba"),
    "mecab": ("fugashi", "mecab"),
    "kiwi": ("kiwipiepy", "kiwi"),
}


def resolve(name, **options):
    if name in LIBRARY:
        need(*LIBRARY[name])
    return get_tokenizer(name, **options)


def same(a, b) -> bool:
    return np.array_equal(a.lengths, b.lengths) and np.array_equal(a.hashes, b.hashes)


@pytest.mark.parametrize("name", NAMES)
def test_full_width_spaces_are_spaces(name):
    tokenizer = resolve(name)
    text = {"char": "一只狗 在跑", "jieba": "一只狗 在草地上跑", "mecab": "犬が 芝生を走る",
            "kiwi": "개가 잔디밭에서 달린다"}[name]  # fmt: skip
    wide = text.replace(" ", "\u3000")
    got = tokenizer.split([wide, "\u3000" + wide + "\u3000", "\u3000\u3000", " \u3000 "])
    want = tokenizer.split([text, text, "", ""])
    assert same(got, want)
    assert got.lengths[2:].tolist() == [0, 0]


@pytest.mark.parametrize("name", NAMES)
def test_captions_of_punctuation_only_become_empty(name):
    tokenizer = resolve(name)
    captions = ["。", "……", "！？", "...", "、。", "「」", ""]
    assert tokenizer.split(captions).lengths.tolist() == [0] * len(captions)
    kept = resolve(name, punctuation="keep").split(captions).lengths
    assert (kept[:-1] > 0).all() and kept[-1] == 0
    assert tokenizer.split([]).lengths.tolist() == []


def test_punctuation_inside_a_token_keeps_the_token():
    # a hand computation of the rule: "3.5" and "T-shirt" mix punctuation with
    # other characters, "。" and "--" are punctuation only
    from sparsecider.tokenizers.cjk import TextOptions, finish

    got = finish(["3.5 米 。", "T-shirt -- ok"], TextOptions())
    assert same(got, split_whitespace(["3.5 米", "t-shirt ok"]))


def test_char_splits_mixed_scripts_by_hand():
    tokenizer = get_tokenizer("char")
    got = tokenizer.split(["穿着T恤的man在跑，3.5米", "ｉＰｈｏｎｅで撮った写真", "빨간 티셔츠"])
    want = split_whitespace(["穿 着 t 恤 的 man 在 跑 3 5 米", "ｉｐｈｏｎｅ で 撮 っ た 写 真",
                             "빨 간 티 셔 츠"])  # fmt: skip
    assert same(got, want)
    folded = get_tokenizer("char", normalize="nfkc").split(["ｉＰｈｏｎｅで撮った写真"])
    assert same(folded, split_whitespace(["iphone で 撮 っ た 写 真"]))
    # characters above U+FFFF: an extension-B ideograph is CJK, an emoji a symbol
    assert same(tokenizer.split(["𠀀狗😀ok"]), split_whitespace(["𠀀 狗 😀 ok"]))


@pytest.mark.parametrize(
    ("name", "caption", "latin"),
    [
        ("jieba", "一个穿着红色T恤的男人在用iPhone拍照", ["t恤", "iphone"]),
        ("mecab", "赤いTシャツの男性がiPhoneで写真を撮っている", ["iphone"]),
        ("kiwi", "남자가 iPhone으로 사진을 찍고 있다", ["iphone"]),
    ],
)
def test_latin_words_inside_cjk_text_stay_whole_and_lower_case(name, caption, latin):
    tokens = resolve(name).split([caption])
    assert set(split_whitespace([" ".join(latin)]).hashes) <= set(tokens.hashes)


# ---- options, errors, missing extras ---------------------------------------


def test_option_errors_name_the_option_and_the_fix():
    with pytest.raises(TypeError, match=r"tokenizer 'char' has no option 'hmm'; its options are"):
        get_tokenizer("char", hmm=False)
    with pytest.raises(ValueError, match=r"normalize must be None or 'nfkc', got 'nfc'"):
        get_tokenizer("char", normalize="nfc")
    with pytest.raises(TypeError, match=r"normalize must be None or 'nfkc', got bool"):
        get_tokenizer("char", normalize=True)
    with pytest.raises(ValueError, match=r"punctuation must be 'drop' or 'keep', got 'strip'"):
        get_tokenizer("char", punctuation="strip")
    with pytest.raises(TypeError, match=r"lowercase must be True or False, got int"):
        get_tokenizer("char", lowercase=1)
    with pytest.raises(TypeError, match=r"tokenizer 'ptb' takes no options; got lowercase"):
        get_tokenizer("ptb", lowercase=False)
    with pytest.raises(TypeError, match=r"a callable takes no options; got normalize \(options"):
        get_tokenizer(str.split, normalize="nfkc")
    with pytest.raises(ValueError, match=r"'char', 'jieba', 'mecab' or 'kiwi'"):
        get_tokenizer("jieba_fast")
    assert set(registered()) >= {"ptb", "whitespace", "char", "jieba", "mecab", "kiwi"}


@pytest.mark.parametrize(
    ("name", "blocked", "module", "extra"),
    [
        ("jieba", "jieba", zh, "jieba"),
        ("mecab", "fugashi", ja, "mecab"),
        ("mecab", "unidic_lite", ja, "mecab"),
        ("kiwi", "kiwipiepy", ko, "kiwi"),
    ],
)
def test_a_missing_library_names_the_extra(name, blocked, module, extra, monkeypatch):
    monkeypatch.setitem(sys.modules, blocked, None)  # import raises ImportError
    monkeypatch.setattr(module, {"jieba": "_segmenter", "mecab": "_tagger", "kiwi": "_kiwi"}[name],
                        None)  # fmt: skip
    monkeypatch.setattr(registry, "_built", {})
    with pytest.raises(ImportError, match=rf"pip install 'sparsecider\[{extra}\]'"):
        get_tokenizer(name)
    with pytest.raises(ImportError, match=rf"tokenizer '{name}' needs"):
        sparsecider.cider_d(["a"], [["a"]], tokenizer=name)


def test_a_resolved_tokenizer_pickles():
    need("jieba", "jieba")
    tokenizer = get_tokenizer("jieba", normalize="nfkc")
    again = pickle.loads(pickle.dumps(tokenizer))
    captions = corpus("zh", 10)[0]
    assert again.name == tokenizer.name and same(again.split(captions), tokenizer.split(captions))


@pytest.mark.parametrize("name", NAMES)
def test_threads_and_chunks_give_the_same_scores(name):
    # the tokenizers read no caption past their own, so slices score as the whole
    from sparsecider import stream

    resolve(name)
    language = {"char": "zh", "jieba": "zh", "mecab": "ja", "kiwi": "ko"}[name]
    cands, refs = corpus(language, 120)
    whole = sparsecider.cider_d(cands, refs, tokenizer=name, n_jobs=1)
    threads = sparsecider.cider_d(cands, refs, tokenizer=name, n_jobs=2)
    records = [
        {"id": i, "candidate": c, "references": r}
        for i, (c, r) in enumerate(zip(cands, refs, strict=True))
    ]
    chunked = stream.cider_d(records, tokenizer=name, chunk_size=25, n_jobs=2)
    assert np.array_equal(threads.scores, whole.scores)
    assert np.abs(chunked.scores - whole.scores).max() <= TOL


# ---- the command line --------------------------------------------------------


def test_cli_scores_chinese_coco_files_with_jieba(tmp_path, capsys, direct, reference_cider):
    annotations, results = coco_files("zh", 120)
    refs_path, res_path = tmp_path / "captions_zh.json", tmp_path / "results_zh.json"
    refs_path.write_text(json.dumps(annotations, ensure_ascii=False), encoding="utf-8")
    res_path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    per_image = tmp_path / "per_image.jsonl"
    code = main(["score", "-r", str(refs_path), "-c", str(res_path), "--tokenizer", "jieba",
                 "--per-image", str(per_image)])  # fmt: skip
    out = capsys.readouterr()
    assert code == 0, out.err
    got = json.loads(out.out)
    cands, refs = corpus("zh", 120)
    seg = [documented(direct["jieba"], c) for c in cands]
    seg_refs = [[documented(direct["jieba"], r) for r in rs] for rs in refs]
    mean, scores = reference_cider().compute_score(
        dict(enumerate(seg_refs)), {i: [c] for i, c in enumerate(seg)}
    )
    assert abs(got["score"] - mean) <= TOL and got["n_images"] == 120
    assert f"|tok:{get_tokenizer('jieba').name}|" in got["signature"]
    rows = [json.loads(line) for line in per_image.read_text().splitlines()]
    by_id = {r["id"]: r["score"] for r in rows}
    assert max(abs(by_id[1000 + i] - s) for i, s in enumerate(scores)) <= TOL


def test_cli_reports_a_missing_extra_on_one_line(tmp_path, capsys, monkeypatch):
    annotations, results = coco_files("zh", 3)
    refs_path, res_path = tmp_path / "r.json", tmp_path / "c.json"
    refs_path.write_text(json.dumps(annotations, ensure_ascii=False), encoding="utf-8")
    res_path.write_text(json.dumps(results, ensure_ascii=False), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "kiwipiepy", None)
    monkeypatch.setattr(ko, "_kiwi", None)
    monkeypatch.setattr(registry, "_built", {})
    code = main(["score", "-r", str(refs_path), "-c", str(res_path), "--tokenizer", "kiwi"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip() == (
        "sparsecider: error: tokenizer 'kiwi' needs the kiwipiepy package: "
        "pip install 'sparsecider[kiwi]' (or 'sparsecider[cjk]' for every CJK tokenizer)"
    )
