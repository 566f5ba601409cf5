from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import sparsecider
from sparsecider import DocumentFrequencies
from sparsecider.cli import main
from sparsecider.demo import PUBLISHED_CIDER_D


def test_demo_reproduces_the_published_number(capsys):
    assert main(["--demo", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == PUBLISHED_CIDER_D == 0.5997905185184199
    assert out["matches_published"] is True
    assert out["n_images"] == 1000 and out["signature"].startswith(
        "CIDEr-D|n:4|sigma:6|df:corpus(n_images=1000)|"
    )


def test_demo_text_as_a_module():
    run = subprocess.run(
        [sys.executable, "-m", "sparsecider", "--demo"], capture_output=True, text=True, check=True
    )
    assert run.stdout.startswith(
        "CIDEr-D = 0.5997905185184199 | "
        f"CIDEr-D|n:4|sigma:6|df:corpus(n_images=1000)|tok:ptb|version:{sparsecider.__version__}"
    )


def test_no_arguments_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "usage: sparsecider" in capsys.readouterr().err


# ---- sparsecider score / df ---------------------------------------------------------

REFS = [
    ["A dog runs on grass.", "The dog runs!"],
    ["A red bus.", "A bus stops."],
    ["A cat sleeps."],
]
CANDS = ["A dog runs.", "A red bus stops.", "A cat."]
OTHER = ["A dog.", "A bus.", "A cat sleeps."]


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    refs = _jsonl(
        tmp_path / "refs.jsonl", [{"id": f"im{i}", "references": r} for i, r in enumerate(REFS)]
    )
    cands = _jsonl(
        tmp_path / "a.jsonl", [{"image_id": f"im{i}", "caption": c} for i, c in enumerate(CANDS)]
    )
    other = _jsonl(
        tmp_path / "b.jsonl", [{"id": f"im{i}", "caption": c} for i, c in enumerate(OTHER)]
    )
    return tmp_path, refs, cands, other


def test_score_jsonl_equals_the_api(files, capsys):
    _, refs, cands, _ = files
    code, out, err = _run(capsys, "score", "-r", refs, "-c", cands)
    assert code == 0 and err == ""
    result = json.loads(out)
    want = sparsecider.cider_d(CANDS, REFS)
    assert result["score"] == want.score and result["signature"] == want.signature
    assert result["n_images"] == 3 and set(result["timings"]) == {"read_s", "score_s"}


def test_score_text_formats_stdin_and_gzip(files, capsys, monkeypatch):
    tmp, *_ = files
    (tmp / "r1.txt").write_text("\n".join(r[0] for r in REFS) + "\n", encoding="utf-8")
    (tmp / "r2.txt").write_text("\r\n".join(r[-1] for r in REFS), encoding="utf-8")
    (tmp / "tabs.txt").write_text("\n".join("\t".join(r) for r in REFS), encoding="utf-8")
    (tmp / "c.txt.gz").write_bytes(gzip.compress("\n".join(CANDS).encode()))
    two_refs = [[r[0], r[-1]] for r in REFS]
    _, out, _ = _run(capsys, "score", "-r", str(tmp / "r1.txt"), "-r", str(tmp / "r2.txt"),
                     "-c", str(tmp / "c.txt.gz"))  # fmt: skip
    assert json.loads(out)["score"] == sparsecider.cider_d(CANDS, two_refs).score
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\n".join(CANDS).encode())))
    _, out, _ = _run(capsys, "score", "-r", str(tmp / "tabs.txt"), "-c", "-")
    assert json.loads(out)["score"] == sparsecider.cider_d(CANDS, REFS).score


def test_coco_files_reproduce_the_published_number(coco_data, capsys, tmp_path):
    coco = coco_data.coco_dir()
    per_image = tmp_path / "per_image.jsonl"
    code, out, _ = _run(capsys, "score", "-r", str(coco / "captions_val2014_reconstructed.json.gz"),
                        "-c", str(coco / "captions_val2014_fakecap_results.json"),
                        "--per-image", str(per_image))  # fmt: skip
    result = json.loads(out)
    assert code == 0 and abs(result["score"] - 0.5997905185184199) <= 1e-12
    # as COCOEvalCap: the images of the results are scored, the other annotated ones reported
    assert result["n_images"] == 1000 and result["unscored_reference_images"] == 39504
    rows = [json.loads(line) for line in per_image.read_text().splitlines()]
    assert len(rows) == 1000 and abs(np.mean([r["score"] for r in rows]) - result["score"]) < 1e-12
    assert len(rows[0]["per_order"]) == 4 and isinstance(rows[0]["id"], int)


def test_bootstrap_text_and_signature(files, capsys):
    _, refs, cands, _ = files
    code, out, _ = _run(capsys, "score", "-r", refs, "-c", cands, "--bootstrap", "200",
                        "--seed", "3", "--format", "text")  # fmt: skip
    assert code == 0
    assert out.startswith("CIDEr-D = ") and "(95% CI " in out
    # bootstrap settings are signature fields; df appears once (it was also
    # appended as "df:fixed" before the Signature object existed)
    assert "|bootstrap:200|seed:3|ci:0.95|version:" in out
    assert out.count("df:") == 1


def test_paired_systems(files, capsys):
    _, refs, cands, other = files
    _, out, _ = _run(capsys, "score", "-r", refs, "-c", cands, "-c", other, "--paired",
                     "--bootstrap", "100")  # fmt: skip
    result = json.loads(out)
    assert [s["candidates"] for s in result["systems"]] == [cands, other]
    (pair,) = result["paired"]
    assert pair["delta"] == pytest.approx(
        result["systems"][1]["score"] - result["systems"][0]["score"]
    )
    # 3 images: the randomization test enumerates all 8 sign patterns
    assert pair["n_randomizations"] == 8 and 0 < pair["p_approximate_randomization"] <= 1
    _, out, _ = _run(
        capsys, "score", "-r", refs, "-c", cands, "-c", other, "--paired", "--format", "text"
    )
    assert "(paired bootstrap)" in out and "(approximate randomization)" in out
    _, out, _ = _run(capsys, "score", "-r", refs, "-c", cands, "-c", other, "--format", "tsv")
    assert (
        out.splitlines()[0].startswith("candidates\tmetric\tscore") and len(out.splitlines()) == 3
    )


def test_df_fit_info_convert_and_score_with_it(files, capsys):
    tmp, refs, cands, _ = files
    path = tmp / "train.df.npz"
    code, out, _ = _run(capsys, "df", "fit", refs, "-o", str(path))
    assert code == 0 and json.loads(out)["n_images"] == 3
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # as any file the user writes
    code, out, _ = _run(capsys, "df", "info", str(path))
    assert json.loads(out)["ngrams"] == len(DocumentFrequencies.load(path))
    _, out, _ = _run(capsys, "score", "-r", refs, "-c", cands, "--df", str(path))
    want = sparsecider.cider_d(CANDS, REFS, df=DocumentFrequencies.load(path))
    assert json.loads(out)["score"] == want.score and "precomputed(n_images=3" in want.signature
    legacy = tmp / "legacy.p"
    legacy.write_bytes(
        pickle.dumps({"document_frequency": {("dog",): 1.0, ("a",): 2.0}, "ref_len": 3})
    )
    code, out, _ = _run(capsys, "df", "convert", str(legacy), "-o", str(tmp / "legacy.npz"))
    assert code == 0 and json.loads(out)["ngrams"] == 2


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda t: t.joinpath("bad.json").write_text('[{"image_id": 1, "caption": "a"'),
            r"bad\.json:1:\d+: malformed JSON",
        ),
        (
            lambda t: _jsonl(
                t / "bad.json", [{"id": "im0", "caption": "a"}, {"id": "zz", "caption": "b"}]
            ),
            r"1 image id\(s\) not in .*refs\.jsonl: \['zz'\]",
        ),
        (
            lambda t: _jsonl(
                t / "bad.json", [{"id": "im0", "caption": "a"}, {"id": "im1", "caption": "b"}]
            ),
            r"refs\.jsonl: 1 image id\(s\) have no candidate in .*: \['im2'\]",
        ),
        (
            lambda t: _jsonl(
                t / "bad.json", [{"id": "im0", "caption": "a"}, {"id": "im0", "caption": "b"}]
            ),
            r"bad\.json:2: a second entry for image 'im0' \(first at .*bad\.json:1\)",
        ),
        (
            lambda t: t.joinpath("bad.json").write_bytes(b"a dog\ncaf\xe9\n"),
            r"bad\.json:2: not UTF-8 text",
        ),
    ],
)
def test_bad_input_is_one_line_and_leaves_no_output(files, capsys, make, message):
    tmp, refs, _, _ = files
    make(tmp)
    out_file = tmp / "out.jsonl"
    code, out, err = _run(
        capsys, "score", "-r", refs, "-c", str(tmp / "bad.json"), "--per-image", str(out_file)
    )
    assert code == 1 and out == ""
    assert err.startswith("sparsecider: error: ") and err.count("\n") == 1
    assert re.search(message, err), err
    assert not out_file.exists()


def test_aligned_files_of_different_lengths_and_missing_files(files, capsys):
    tmp, *_ = files
    (tmp / "r1.txt").write_text("a dog\na cat\n")
    (tmp / "r2.txt").write_text("a dog\n")
    code, _, err = _run(
        capsys,
        "score",
        "-r",
        str(tmp / "r1.txt"),
        "-r",
        str(tmp / "r2.txt"),
        "-c",
        str(tmp / "r1.txt"),
    )
    assert (
        code == 1 and "aligned reference files differ in length" in err and "r2.txt: 1 lines" in err
    )
    code, _, err = _run(capsys, "score", "-r", str(tmp / "nope.json"), "-c", str(tmp / "r1.txt"))
    assert code == 1 and "nope.json: no such file" in err
    code, _, err = _run(capsys, "score", "-r", str(tmp / "r1.txt"), "-c", str(tmp / "r2.txt"))
    assert code == 1 and "has 1 lines but" in err and "aligned line by line" in err


def test_line_separators_inside_a_caption_do_not_shift_lines(files, capsys):
    tmp, *_ = files
    (tmp / "r.txt").write_text("a dog\u2028runs\na red bus\n", encoding="utf-8")
    (tmp / "c.txt").write_text("a dog runs\x0ba\na red bus\n", encoding="utf-8")
    _, out, _ = _run(capsys, "score", "-r", str(tmp / "r.txt"), "-c", str(tmp / "c.txt"))
    assert json.loads(out)["n_images"] == 2


def test_progress_bar_only_on_an_interactive_terminal(monkeypatch):
    from sparsecider.core.progress import bar

    assert type(bar(None, "scoring")).__name__ == "_NoBar"  # captured stderr: not a terminal
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    shown = bar(None, "scoring")
    assert type(shown).__name__ == "_Bar"
    shown.close()
    assert type(bar(False, "scoring")).__name__ == "_NoBar"


def test_score_shows_the_engine_steps_of_one_file(files, capsys, tqdm_bars):
    # one candidates file: the bar follows tokenize, hash, and count + score per order
    bars = tqdm_bars
    _, refs, cands, _ = files
    code, out, err = _run(capsys, "score", "-r", refs, "-c", cands, "--progress", "--n-jobs", "1")
    assert code == 0 and json.loads(out)["metric"] == "CIDEr-D"
    assert "CIDEr-D" in err  # drawn on stderr
    assert [(b.total, b.n) for b in bars] == [(10, 10)]  # 2 + 2 x 4 steps, all done
    code, _, err = _run(capsys, "score", "-r", refs, "-c", cands, "--no-progress")
    assert code == 0 and err == ""


def test_an_empty_candidate_scores_zero_and_is_counted(files, capsys):
    # pycocoevalcap scores an empty candidate 0 (it keeps the image in the
    # mean); the command line used to refuse it, and its advice (remove the
    # entry) raised the corpus score
    tmp, refs, _, _ = files
    cands = tmp / "cands.jsonl"
    _jsonl(cands, [{"id": "im0", "caption": "  "}, {"id": "im1", "caption": "b"},
                   {"id": "im2", "caption": "c"}])  # fmt: skip
    code, out, _ = _run(capsys, "score", "-r", refs, "-c", str(cands), "--per-image",
                        str(tmp / "per.jsonl"))  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert report["empty_candidates"] == 1 and report["n_images"] == 3
    first = json.loads((tmp / "per.jsonl").read_text().splitlines()[0])
    assert first["id"] == "im0" and first["score"] == 0.0
