"""What a new user met (issue 27): no silent wrong number, and the papercuts.

Each test below failed on the code before that issue; each expected value is
the reference's (pycocoevalcap's scorer, through ``twin.py`` or the parity
fixtures), a hand computation shown beside it, or the same number reached by
another, already verified, path (the list form of several candidates, the
Python API for the command line).
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import sparsecider
from sparsecider import DocumentFrequencies, TokenizerWarning
from sparsecider._demo_cjk import coco_files, corpus
from sparsecider.cli import build_parser, main
from sparsecider.tokenizers import registered

# ---- A1: captions the tokenizer cannot see ---------------------------------------------


def test_chinese_under_ptb_warns_and_names_the_tokenizers():
    cands, refs = corpus("zh", 120)
    with pytest.warns(TokenizerWarning, match=r"Chinese or Japanese written without spaces; "
                      r"tokenizer 'ptb' .*tokenizer='char' .*'jieba' .*'mecab'"):  # fmt: skip
        ptb = sparsecider.cider_d(cands, refs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        char = sparsecider.cider_d(cands, refs, tokenizer="char")
    assert char.score > 5 * ptb.score  # the number the warning is about


def test_segmented_text_under_whitespace_does_not_warn():
    # text segmented with spaces already (COCO-CN, STAIR's tokenized_caption) is fine
    cands, refs = corpus("zh", 120)
    segment = sparsecider.get_tokenizer if False else None  # noqa: F841 (no jieba needed)
    spaced = [" ".join(c) for c in cands]
    spaced_refs = [[" ".join(r) for r in rs] for rs in refs]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sparsecider.cider_d(spaced, spaced_refs, tokenizer="whitespace")


def test_the_command_line_warns_as_the_api(tmp_path, capsys):
    annotations, results = coco_files("zh")
    (tmp_path / "r.json").write_text(json.dumps(annotations, ensure_ascii=False))
    (tmp_path / "c.json").write_text(json.dumps(results, ensure_ascii=False))
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # as when the command runs (the suite makes them errors)
        assert main(["score", "-r", str(tmp_path / "r.json"), "-c", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert "sparsecider: TokenizerWarning: " in err and "tokenizer='char'" in err


def test_every_scoring_function_gives_the_advice():
    cands, refs = corpus("zh", 30)
    ptb_df = DocumentFrequencies.from_references(refs)
    calls = [
        lambda: sparsecider.bleu(cands, refs),
        lambda: sparsecider.rouge_l(cands, refs),
        lambda: sparsecider.cider_r(cands, refs),
        lambda: sparsecider.self_cider([[c, c + "吗"] for c in cands], df=ptb_df),
        lambda: sparsecider.mbr_select([[c, c] for c in cands]),
    ]
    for call in calls:
        with pytest.warns(TokenizerWarning, match="written without spaces"):
            call()


# ---- A2: several candidates per image on the command line ---------------------------------


@pytest.fixture
def files(tmp_path):
    refs = [["a dog runs on the grass", "the dog runs"], ["a red bus on the road"],
            ["a cat sleeps on a sofa", "a sleeping cat"]]  # fmt: skip
    cands = [["a dog runs", "a dog on grass"], ["a red bus"], ["a cat", "two cats", "a sofa"]]
    return tmp_path, refs, cands


def _score(argv, capsys) -> dict:
    assert main([*argv, "--df", "coco-val2014"]) == 0
    return json.loads(capsys.readouterr().out)


def test_tabs_in_a_text_file_are_several_candidates_everywhere(files, capsys):
    tmp, refs, cands = files
    (tmp / "r.txt").write_text("".join("\t".join(r) + "\n" for r in refs))
    (tmp / "c.txt").write_text("".join("\t".join(c) + "\n" for c in cands))
    got = _score(["score", "-r", str(tmp / "r.txt"), "-c", str(tmp / "c.txt")], capsys)
    want = sparsecider.cider_d(cands, refs, df="coco-val2014")
    assert got["score"] == want.score and got["n_candidates"] == 6  # was one caption with a tab
    assert got["score_is_mean_over"] == "candidates"
    # diversity reads the same file the same way: three sets, of 2, 1 and 3 captions
    assert main(["diversity", "-c", str(tmp / "c.txt"), "--df", "coco-val2014"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["set_sizes"] == {"1": 1, "2": 1, "3": 1} and report["images_without_score"] == 1


def test_coco_results_lists_repeated_ids_and_json_lines(files, capsys):
    tmp, refs, cands = files
    ids = [10, 20, 30]
    annotations = {"images": [{"id": i} for i in ids],
                   "annotations": [{"image_id": i, "id": 100 * i + k, "caption": c}
                                   for i, rs in zip(ids, refs, strict=True)
                                   for k, c in enumerate(rs)]}  # fmt: skip
    (tmp / "r.json").write_text(json.dumps(annotations))
    want = sparsecider.cider_d(cands, refs, df="coco-val2014")
    # a list as the caption of a results entry
    listed = [{"image_id": i, "caption": c} for i, c in zip(ids, cands, strict=True)]
    (tmp / "list.json").write_text(json.dumps(listed))
    # repeated rows of one image, with --several
    rows = [{"image_id": i, "caption": x} for i, c in zip(ids, cands, strict=True) for x in c]
    (tmp / "rows.json").write_text(json.dumps(rows))
    # JSON lines: a list, or repeated lines with --several
    (tmp / "list.jsonl").write_text("".join(json.dumps({"id": i, "candidate": c}) + "\n"
                                            for i, c in zip(ids, cands, strict=True)))  # fmt: skip
    (tmp / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    for name, extra in [("list.json", []), ("rows.json", ["--several"]),
                        ("list.jsonl", []), ("rows.jsonl", ["--several"])]:  # fmt: skip
        got = _score(["score", "-r", str(tmp / "r.json"), "-c", str(tmp / name), *extra], capsys)
        assert got["score"] == want.score and got["n_candidates"] == 6, name
    assert main(["score", "-r", str(tmp / "r.json"), "-c", str(tmp / "rows.json")]) == 1
    assert "or use --several" in capsys.readouterr().err


def test_per_image_lines_bootstrap_and_paired_with_several(files, capsys):
    tmp, refs, cands = files
    (tmp / "r.txt").write_text("".join("\t".join(r) + "\n" for r in refs))
    (tmp / "c.txt").write_text("".join("\t".join(c) + "\n" for c in cands))
    (tmp / "d.txt").write_text("".join(c[0] + "\n" for c in cands))
    argv = ["score", "-r", str(tmp / "r.txt"), "-c", str(tmp / "c.txt"), "--df", "coco-val2014"]
    assert main([*argv, "--per-image", str(tmp / "pi.jsonl"), "--bootstrap", "200"]) == 0
    report = json.loads(capsys.readouterr().out)
    want = sparsecider.cider_d(cands, refs, df="coco-val2014")
    lines = [json.loads(x) for x in (tmp / "pi.jsonl").read_text().splitlines()]
    assert [row["id"] for row in lines] == [1, 2, 3]
    assert lines[0]["scores"] == want.scores[:2].tolist() and "score" not in lines[0]
    assert lines[1]["score"] == want.scores[2] and len(lines[2]["scores"]) == 3
    # the bootstrap resamples images, each with all its candidates: its interval is
    # around the reported mean over the 6 candidates
    assert report["ci"]["low"] <= report["score"] == want.score <= report["ci"]["high"]
    paired = [*argv[:3], "-c", str(tmp / "d.txt"), "-c", str(tmp / "c.txt"),
              "--df", "coco-val2014", "--paired"]  # fmt: skip
    assert main(paired) == 0
    delta = json.loads(capsys.readouterr().out)["paired"][0]["delta"]
    # per-image means: image 1 (mean of 2) - its first, image 2 the same caption, image 3
    single = sparsecider.cider_d([c[0] for c in cands], refs, df="coco-val2014").scores
    assert delta == pytest.approx(float(np.mean(want.image_scores() - single)), abs=1e-12)


# ---- A3: document frequencies of the wrong kind ----------------------------------------------


def test_token_ids_refuse_a_table_of_words():
    refs = [np.array([[4, 5, 6, 0]]), np.array([[7, 8, 0, 0]])]
    with pytest.raises(ValueError, match=r"counts words \(tokenizer 'ptb'\), but token ids"):
        sparsecider.cider_d_ids(np.array([[4, 5, 0]]), refs, df="coco-val2014", eos=0)


def test_the_small_corpus_advice_for_ids_is_about_ids():
    refs = [np.array([[4, 5, 6, 0]]), np.array([[7, 8, 0, 0]])]
    with pytest.warns(sparsecider.SmallCorpusWarning) as caught:
        sparsecider.cider_d_ids(np.array([[4, 5, 0], [7, 8, 0]]), refs, df="corpus", eos=0)
    message = str(caught[0].message)
    assert "from_id_references" in message and "coco-val2014" not in message


def test_an_id_table_refuses_words_and_other_eos_policies():
    refs = [np.array([[4, 5, 6, 0]]), np.array([[7, 8, 0, 0]])]
    df = DocumentFrequencies.from_id_references(refs, eos=0)
    assert df.tokenizer == "ids(eos=0)"
    with pytest.raises(ValueError, match=r"counts token ids as ids\(eos=0\), but this call reads "
                                         r"them as ids\(eos=0,with-eos\)"):  # fmt: skip
        sparsecider.cider_d_ids(np.array([[4, 5, 0]]), refs[:1], df=df, eos=0, include_eos=True)
    with pytest.raises(ValueError, match=r"counts token ids .*captions are words tokenized with "
                                         r"'ptb'"):  # fmt: skip
        sparsecider.cider_d(["a dog"], [["a dog"]], df=df)
    with pytest.raises(ValueError, match=r"but the captions hold words \(e.g. 'a dog'\)"):
        sparsecider.cider_d(["a dog"], [["a dog"]], df=df, tokenizer="whitespace")
    # space-joined id strings (the self-critical code's strings) are what it fits
    ids = sparsecider.cider_d_ids(np.array([[4, 5, 0]]), refs[:1], df=df, eos=0)
    strings = sparsecider.cider_d(["4 5"], [["4 5 6"]], df=df, tokenizer="whitespace")
    assert ids.scores.tolist() == strings.scores.tolist()


def test_a_converted_idxs_pickle_is_a_table_of_ids(tmp_path, capsys):
    table = {("5",): 1, ("0",): 2, ("7",): 1, ("5", "0"): 1, ("7", "0"): 1}
    path = tmp_path / "coco-train-idxs.p"
    path.write_bytes(pickle.dumps({"document_frequency": table, "ref_len": 2}))
    assert main(["df", "convert", str(path), "-o", str(tmp_path / "idxs.df.npz")]) == 0
    assert json.loads(capsys.readouterr().out)["tokenizer"] == "ids(eos=0,with-eos)"
    df = DocumentFrequencies.load(tmp_path / "idxs.df.npz")
    refs = [np.array([[5, 0]]), np.array([[7, 0]])]
    # by hand, n=2 (the table's): "5 0" against its own reference "5 0": unigrams 5
    # (df 1, idf log 2) and 0 (df 2 = N, idf 0), bigram "5 0" (df 1, idf log 2): both
    # orders have cosine 1, no length penalty: 10 * (1 + 1) / 2
    got = sparsecider.cider_d_ids(np.array([[5, 0]]), refs[:1], df=df, eos=0, include_eos=True, n=2)
    assert got.scores.tolist() == [10.0]
    with pytest.raises(ValueError, match="include_eos=True"):
        sparsecider.cider_d_ids(np.array([[5, 0]]), refs[:1], df=df, eos=0, n=2)


def test_a_ptb_table_and_captions_split_on_whitespace_warn_alike(tmp_path, capsys):
    refs = [[f"A dog runs near the river {i}.", f"The dog is running! ({i})"] for i in range(40)]
    cands = [f"A dog runs by the river {i}." for i in range(40)]
    df = DocumentFrequencies.from_references(refs)  # PTB tokens
    with pytest.warns(TokenizerWarning, match=r"count PTB tokens, but \d+ of \d+ captions .* are "
                                              r"not PTB-tokenized"):  # fmt: skip
        sparsecider.cider_d(cands, refs, df=df, tokenizer="whitespace")
    df.save(tmp_path / "ptb.df.npz")
    (tmp_path / "r.txt").write_text("".join("\t".join(r) + "\n" for r in refs))
    (tmp_path / "c.txt").write_text("".join(c + "\n" for c in cands))
    argv = ["score", "-r", str(tmp_path / "r.txt"), "-c", str(tmp_path / "c.txt"),
            "--df", str(tmp_path / "ptb.df.npz"), "--tokenizer", "whitespace"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("always")  # as when the command runs (the suite makes them errors)
        assert main(argv) == 0
    assert "TokenizerWarning: the document frequencies" in capsys.readouterr().err
    # captions tokenized by PTB beforehand (pycocoevalcap's own setup) do not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sparsecider.cider_d(
            sparsecider.ptb_tokenize(cands), [sparsecider.ptb_tokenize(r) for r in refs],
            df=df, tokenizer="whitespace",
        )  # fmt: skip


# ---- A4: df= takes what --df takes --------------------------------------------------------------


def test_df_as_a_path_in_every_entry_point(tmp_path, capsys):
    refs = [["a dog runs on the grass", "the dog runs"], ["a red bus on the road"]] * 60
    cands = ["a dog runs", "a red bus"] * 60
    df = DocumentFrequencies.from_references(refs)
    path = df.save(tmp_path / "demo.df.npz")
    want = sparsecider.cider_d(cands, refs, df=df)
    for given in (path, str(path)):
        assert sparsecider.cider_d(cands, refs, df=given).scores.tolist() == want.scores.tolist()
    assert sparsecider.compat.Cider(df=str(path)).compute_score(
        dict(enumerate(refs)), {i: [c] for i, c in enumerate(cands)}
    )[0] == pytest.approx(want.score, abs=1e-12)
    vec = sparsecider.CiderVectorizer(df=str(path)).fit([])
    assert vec.score(cands, refs) == want.score
    records = [{"id": i, "candidate": c, "references": r} for i, (c, r) in
               enumerate(zip(cands, refs, strict=True))]  # fmt: skip
    assert sparsecider.stream.cider_d(records, df=str(path)).scores.tolist() == want.scores.tolist()
    (tmp_path / "r.txt").write_text("".join("\t".join(r) + "\n" for r in refs))
    (tmp_path / "c.txt").write_text("".join(c + "\n" for c in cands))
    assert main(["score", "-r", str(tmp_path / "r.txt"), "-c", str(tmp_path / "c.txt"),
                 "--df", str(path)]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["score"] == want.score
    with pytest.raises(ValueError, match=r"df='nothere.npz': no such file"):
        sparsecider.cider_d(cands, refs, df="nothere.npz")
    with pytest.raises(ValueError, match=r"is a legacy pickle: convert it once"):
        sparsecider.cider_d(cands, refs, df="coco-train-idxs.p")


# ---- B: examples and warnings -----------------------------------------------------------


def test_no_warning_just_before_an_error():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a SmallCorpusWarning would be raised instead
        with pytest.raises(ValueError, match="every reference is empty after tokenization"):
            sparsecider.cider_d(["a", "b"], [[""], [" "]])


def test_demo_write_gives_the_files_and_never_overwrites(tmp_path, capsys):
    assert main(["demo", "--write", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(sparsecider.demo.EXAMPLE_FILES)
    assert main(["demo", "--write", str(tmp_path)]) == 1
    assert "exist already" in capsys.readouterr().err


def test_the_spec_the_tests_cite_is_in_the_repository():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert (root / "tests" / "SPEC.md").is_file()
    for path in (root / "sparsecider").rglob("*.py"):
        if path.name != "ptb.py":
            assert "SPEC.md" not in path.read_text(encoding="utf-8"), path


# ---- C: the papercuts --------------------------------------------------------------------


def test_a_result_formats_as_its_score():
    r = sparsecider.cider_d(["a dog runs fast"], [["a dog runs fast"]], df="coco-val2014")
    assert f"{r:.3f}" == "10.000" and f"{r:.1f}" == "10.0" and f"{r}" == str(r)


def test_the_submodules_a_user_reaches_for_are_attributes():
    code = ("import sparsecider as s; print(s.stream.cider_d.__name__, "
            "s.compat.Cider.__name__, s.significance.bootstrap_ci.__name__)")  # fmt: skip
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["cider_d", "Cider", "bootstrap_ci"]


@pytest.mark.parametrize("name", registered())
def test_tokens_for_every_registered_tokenizer(name):
    if name in ("jieba", "mecab", "kiwi"):
        pytest.importorskip({"jieba": "jieba", "mecab": "fugashi", "kiwi": "kiwipiepy"}[name])
    captions = ["A man's dog runs.", "一只狗在草地上跑。"]
    got = sparsecider.tokens(captions, name)
    hashed = sparsecider.tokenizers.tokenize(captions, name)
    # the strings are what the scores hash: the same count per caption
    assert [len(t) for t in got] == hashed.lengths.tolist()
    assert sparsecider.tokenizers.split_whitespace([" ".join(t) for t in got]).hashes.tolist() == (
        hashed.hashes.tolist()
    )
    expected_first = {"ptb": ["a", "man", "'s", "dog", "runs"],
                      "whitespace": ["A", "man's", "dog", "runs."]}  # fmt: skip
    if name in expected_first:
        assert got[0] == expected_first[name]


def test_every_option_has_help_and_tokenizer_help_lists_the_names():
    parser = build_parser()
    commands = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    seen = 0

    def visit(p, where):
        nonlocal seen
        for action in p._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, sub in action.choices.items():
                    visit(sub, f"{where} {name}")
            elif action.dest not in ("help", "version", "format") or where != "sparsecider":
                assert action.help, f"{where}: {action.option_strings or action.dest} has no help"
                seen += 1
                if action.dest == "tokenizer":
                    assert all(n in action.help for n in registered()), where

    visit(parser, "sparsecider")
    assert commands and seen > 60
    helps = {name: sub.description for name, sub in commands[0].choices.items()}
    assert helps["diversity"] != helps["select"]


def test_bad_numbers_exit_2_alike(capsys):
    for argv in (["--n", "0"], ["--sigma", "-1"], ["--confidence", "2"]):
        with pytest.raises(SystemExit) as stop:
            main(["score", "-r", "r.txt", "-c", "c.txt", *argv])
        assert stop.value.code == 2, argv
    assert "must be a finite number > 0, got -1" in capsys.readouterr().err


def test_stream_has_no_progress(tmp_path):
    args = build_parser().parse_args(["stream", "r.jsonl", "-o", "o.jsonl", "--no-progress"])
    assert args.progress is False


def test_diversity_of_one_caption_per_image_is_null_and_says_why(tmp_path, capsys):
    (tmp_path / "c.txt").write_text("a dog runs\na red bus\n")
    out = tmp_path / "per.jsonl"
    assert main(["diversity", "-c", str(tmp_path / "c.txt"), "--df", "coco-val2014",
                 "--per-image", str(out)]) == 0  # fmt: skip
    report = json.loads(capsys.readouterr().out)  # valid JSON: no NaN
    assert report["score"] is None and report["images_without_score"] == 2
    assert [json.loads(x)["self_cider"] for x in out.read_text().splitlines()] == [None, None]
    assert main(["diversity", "-c", str(tmp_path / "c.txt"), "--df", "coco-val2014",
                 "--format", "text"]) == 0  # fmt: skip
    assert "no image has two non-empty captions to compare" in capsys.readouterr().out


def test_release_metadata():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cff = (root / "CITATION.cff").read_text(encoding="utf-8")
    for key in (
        "cff-version:",
        "title: sparsecider",
        "license: BSD-3-Clause",
        "references:",
    ):
        assert key in cff
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## {sparsecider.__version__}" in changelog
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert "[project.urls]" in pyproject
