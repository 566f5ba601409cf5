"""Adversarial inputs: no silent wrong number, no lost file, no hang, no traceback.

Each case is one a user (or an attacker) can give; expected behaviour is a
precise error naming the item and the fix, or the reference's number.
"""

from __future__ import annotations

import io
import math
import os
import pickle
import signal
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparsecider
from sparsecider import CiderVectorizer, DocumentFrequencies
from sparsecider.cli import main
from sparsecider.tokenizers.ptb import _exact_tokenize, ptb_tokenize

# ---- the PTB fast path never works on shifted positions --------------------------------

#: every character whose case mapping changes the length of a string
LENGTH_CHANGING = [
    chr(c) for c in range(0x110000)
    if not 0xD800 <= c <= 0xDFFF and (len(chr(c).lower()) != 1 or len(chr(c).upper()) != 1)
]  # fmt: skip
KEYWORDS = ["gonna", "gotta", "cannot", "lemme", "gimme", "wanna", "GONNA", "Cannot"]


def test_the_length_changing_characters_are_known():
    assert "\u0130" in LENGTH_CHANGING and "ß" in LENGTH_CHANGING  # İ lower, ß upper
    assert len(LENGTH_CHANGING) > 100


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(LENGTH_CHANGING),
            st.sampled_from(KEYWORDS),
            st.sampled_from(["a dog", "the cat sat", "", "they're", "A sign that reads K."]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_fast_path_equals_the_exact_lexer_with_length_changing_characters(captions):
    assert ptb_tokenize(captions) == _exact_tokenize(captions)


def test_the_reported_case():
    caps = ["\u0130"] * 6 + ["gonna", ""]
    assert ptb_tokenize(caps)[6] == "gon na" == _exact_tokenize(caps)[6]


def test_scores_do_not_depend_on_the_thread_count_with_such_characters():
    rng = np.random.default_rng(18)
    words = ["a", "dog", "gonna", "run", "\u0130", "cat", "wanna", "sit", "ß", "ﬁsh"]
    refs = [[" ".join(rng.choice(words, 6)) for _ in range(3)] for _ in range(4200)]
    cands = [" ".join(rng.choice(words, 5)) for _ in range(4200)]
    one = sparsecider.cider_d(cands, refs, n_jobs=1)
    two = sparsecider.cider_d(cands, refs, n_jobs=2)  # two shards of 2,100 images
    assert np.array_equal(one.scores, two.scores)


# ---- document frequencies: no silent conversion ------------------------------------------

KEYS = np.array([3, 9, 12], dtype=np.uint64)


@pytest.mark.parametrize(
    ("keys", "counts", "message"),
    [
        (KEYS[::-1], [1, 1, 1], "strictly increasing"),  # np.diff on uint64 would wrap
        (np.array([2**63, 5], dtype=np.uint64), [1, 1], "strictly increasing"),
        (KEYS.astype(float), [1, 1, 1], "keys must be a uint64 array, got float64"),
        (KEYS, [1.5, 1.0, 1.0], "counts must be integers, got float64"),
        (KEYS, [-1, 1, 1], r"counts must lie in 1..n_images=3"),
        (KEYS, [2**40, 1, 1], r"counts must lie in 1..n_images=3"),
    ],
)
def test_the_constructor_refuses_what_it_would_convert(keys, counts, message):
    with pytest.raises(ValueError, match=message):
        DocumentFrequencies([keys], [np.asarray(counts)], n_images=3, tokenizer="whitespace")


def test_orders_outside_the_range_are_refused():
    df = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
    for bad in (0, -1, 5):
        with pytest.raises(ValueError, match=r"order must be in 1..4"):
            df.keys(bad)
    with pytest.raises(TypeError, match=r"order must be an integer"):
        df.counts(1.0)


def _npz(path: Path, meta: dict | bytes, arrays: dict) -> Path:
    import json

    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    with open(path, "wb") as f:
        np.savez(f, metadata=np.frombuffer(raw, dtype=np.uint8), **arrays)
    return path


GOOD_META = {"format": "sparsecider.DocumentFrequencies", "format_version": 1, "n": 1,
             "n_images": 3, "tokenizer": "whitespace", "hashing": None}  # fmt: skip


@pytest.fixture
def meta():
    from sparsecider._kernels.hashing import SCHEME

    return {**GOOD_META, "hashing": SCHEME}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n": 1.5}, r"metadata 'n' must be an integer, got 1.5"),
        ({"n": True}, r"metadata 'n' must be an integer, got True"),
        ({"n": 10**6}, r"metadata 'n' = 1000000 is out of range"),
        ({"n_images": -3}, r"metadata 'n_images' = -3 is out of range"),
        ({"tokenizer": ["x"]}, r"metadata 'tokenizer' must be a string"),
    ],
)
def test_bad_metadata_is_named(tmp_path, meta, change, message):
    path = _npz(tmp_path / "df.npz", {**meta, **change},
                {"keys_1": KEYS, "counts_1": np.ones(3, np.uint32)})  # fmt: skip
    with pytest.raises(ValueError, match=message):
        DocumentFrequencies.load(path)


def test_a_saved_file_with_reversed_keys_is_refused(tmp_path, meta):
    path = _npz(tmp_path / "df.npz", meta,
                {"keys_1": KEYS[::-1].copy(), "counts_1": np.ones(3, np.uint32)})  # fmt: skip
    with pytest.raises(ValueError, match=r"keys must be strictly increasing"):
        DocumentFrequencies.load(path)


def test_damaged_files_are_one_clear_error(tmp_path, meta):
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match=r"the file is empty"):
        DocumentFrequencies.load(empty)
    good = DocumentFrequencies.from_references([["a dog"], ["a cat"]], tokenizer="whitespace")
    whole = good.save(tmp_path / "good.npz").read_bytes()
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match=r"not a sparsecider document frequency file"):
        DocumentFrequencies.load(truncated)
    incomplete = _npz(tmp_path / "incomplete.npz", {**meta, "n": 2},
                      {"keys_1": KEYS, "counts_1": np.ones(3, np.uint32)})  # fmt: skip
    with pytest.raises(ValueError, match=r"missing array 'keys_2'"):
        DocumentFrequencies.load(incomplete)
    jsonl = tmp_path / "refs.jsonl"
    jsonl.write_text('{"id": 1, "references": ["a"]}\n')
    with pytest.raises(ValueError, match=r"not a sparsecider document frequency file"):
        DocumentFrequencies.load(jsonl)


def test_a_header_claiming_more_entries_than_the_file_holds_allocates_nothing(tmp_path, meta):
    path = _npz(tmp_path / "df.npz", meta,
                {"keys_1": KEYS, "counts_1": np.ones(3, np.uint32)})  # fmt: skip
    # rewrite the keys' header to claim 10**12 entries, keeping the 24 bytes of data
    forged = tmp_path / "forged.npz"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(forged, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "keys_1.npy":
                buf = io.BytesIO()
                np.lib.format.write_array_header_1_0(
                    buf, {"descr": "<u8", "fortran_order": False, "shape": (10**12,)}
                )
                data = buf.getvalue() + KEYS.tobytes()
            dst.writestr(info.filename, data)
    with pytest.raises(ValueError, match=r"claims 1,000,000,000,000 entries"):
        DocumentFrequencies.load(forged)


# ---- legacy pickles ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"document_frequency": {("a",): 1}, "ref_len": 1e308}, r"ref_len 1e\+308 is not"),
        ({"df": {("a",): 1}, "ref_len": 1e308}, r"ref_len 1e\+308 is not the log"),
        ({"df": {("a",): 1}, "ref_len": float("inf")}, r"ref_len inf is not"),
        ({"document_frequency": {("a",): float("nan")}, "ref_len": 3}, r"has count nan"),
        ({"document_frequency": {("a",): float("inf")}, "ref_len": 3}, r"has count inf"),
        ({"document_frequency": {("w",) * 3000: 1}, "ref_len": 3}, r"has 3000 tokens"),
    ],
)
def test_legacy_pickles_with_impossible_values(tmp_path, payload, message):
    path = tmp_path / "df.p"
    path.write_bytes(pickle.dumps(payload))
    with pytest.raises(ValueError, match=message):
        DocumentFrequencies.from_pickle(path)


# ---- numbers in range ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"sigma": 1e-162}, ValueError, r"sigma must lie in \[1e-150, 1e\+150\]"),
        ({"sigma": 1e200}, ValueError, r"sigma must lie in"),
        ({"scale": 1e301}, ValueError, r"scale must lie in"),
        ({"n": 10**6}, ValueError, r"n must be <= 64, got 1000000"),
        ({"n": 2**63}, ValueError, r"n must be <= 64"),
        ({"n": np.int64(4)}, None, None),
    ],
)
def test_options_out_of_the_finite_range(kwargs, error, message):
    if error is None:
        got = sparsecider.cider_d(["a b", "c"], [["a b"], ["c"]], **kwargs)
        assert got.per_order.shape == (2, 4)
        return
    with pytest.raises(error, match=message):
        sparsecider.cider_d(["a b", "c"], [["a b"], ["c"]], **kwargs)


def test_from_references_takes_numpy_integers_and_refuses_strings():
    assert DocumentFrequencies.from_references([["a"]], n=np.int64(2)).n == 2
    with pytest.raises(TypeError, match=r"n must be an integer, got str '4'"):
        DocumentFrequencies.from_references([["a"]], n="4")


def test_token_ids_beyond_int64_are_refused():
    refs = [np.array([[4, 5, 0]], dtype=np.uint64)]
    with pytest.raises(ValueError, match=r"candidates holds ids above 2\*\*63 - 1"):
        sparsecider.cider_d_ids(np.array([[2**64 - 1, 0]], dtype=np.uint64), refs,
                                df="corpus", eos=0)  # fmt: skip
    with pytest.raises(ValueError, match=r"eos must fit in a signed 64-bit integer"):
        sparsecider.cider_d_ids(np.array([[4, 0]]), refs, df="corpus", eos=2**64 - 1)


def test_n_one_has_no_length_penalty_like_the_reference_with_n_honoured(monkeypatch):
    """pycocoevalcap extracts 1..4-grams whatever its n (SPEC 1); run with n
    honoured, its length (the bigram count) is 0 at n = 1 for every caption."""
    cs = pytest.importorskip("pycocoevalcap.cider.cider_scorer", reason="the `ref` extra")
    original = cs.precook
    monkeypatch.setattr(cs, "precook", lambda s, n=4, out=False: original(s, 1, out))
    cands = ["a dog runs on the grass today", "a cat", "the red bus"]
    refs = [["a dog runs", "the dog runs on grass"], ["a cat sleeps on a mat"],
            ["a red bus on the road", "the bus"]]  # fmt: skip
    scorer = cs.CiderScorer(n=1, sigma=6.0)
    for c, r in zip(cands, refs, strict=True):
        scorer.cook_append(c, r)
    _, want = scorer.compute_score()
    got = sparsecider.cider_d(cands, refs, n=1, tokenizer="whitespace").scores
    assert np.abs(got - want).max() <= 1e-12
    assert want[0] == pytest.approx(got[0]) and want[0] > 0


# ---- inputs ---------------------------------------------------------------------------------


def test_pandas_series_are_accepted_like_numpy_arrays():
    pd = pytest.importorskip("pandas", reason="pandas comes with the `test` extra (dask)")
    cands = ["a dog runs", "a red bus"]
    refs = [["a dog runs fast"], ["the red bus"]]
    want = sparsecider.cider_d(cands, refs, tokenizer="whitespace")
    got = sparsecider.cider_d(pd.Series(cands), pd.Series(refs), tokenizer="whitespace")
    assert np.array_equal(got.scores, want.scores)


def test_the_vectorizer_follows_set_params_after_fit():
    refs = [["a dog runs fast", "the dog runs"], ["a red bus stops"], ["a cat sleeps"]]
    cands = ["a dog runs", "a red bus", "a cat"]
    vec = CiderVectorizer(tokenizer="whitespace").fit(refs)
    vec.set_params(variant="cider")
    plain = sparsecider.cider(cands, refs, tokenizer="whitespace", df=vec.df_)
    assert np.array_equal(vec.score(cands, refs).scores, plain.scores)
    sim = vec.similarity(["a dog runs"], ["a dog runs fast"])
    one = sparsecider.cider(["a dog runs"], [["a dog runs fast"]], df=vec.df_,
                            tokenizer="whitespace")  # fmt: skip
    assert sim[0, 0] == pytest.approx(one.score, abs=1e-12)
    with pytest.raises(ValueError, match=r"scale must be a finite number > 0, got -1"):
        vec.similarity(["a"], ["a"], scale=-1)


# ---- caption files -----------------------------------------------------------------------------


def test_corrupt_gzip_deep_json_and_bombs_are_one_line(tmp_path, capsys, monkeypatch):
    refs = tmp_path / "refs.json.gz"
    refs.write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 40)
    assert main(["score", "-r", str(refs), "-c", str(refs)]) == 1
    assert "refs.json.gz: cannot read it" in capsys.readouterr().err
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert main(["score", "-r", str(deep), "-c", str(deep)]) == 1
    assert "deep.json: JSON nested too deeply" in capsys.readouterr().err
    from sparsecider.io import text

    monkeypatch.setattr(text, "MAX_TEXT_BYTES", 1000)
    import gzip

    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"a dog\n" * 10_000))
    assert main(["score", "-r", str(bomb), "-c", str(bomb)]) == 1
    assert "more than 0 MiB of text (decompressed)" in capsys.readouterr().err


# ---- outputs: never over an input, through links and pipes, checked first, no partials ------


@pytest.fixture
def captions(tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text("a dog runs\tthe dog runs\na red bus\n")
    cands = tmp_path / "cands.txt"
    cands.write_text("a dog\na bus\n")
    return tmp_path, str(refs), str(cands)


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(captions, capsys):
    tmp, refs, cands = captions
    before = Path(refs).read_bytes()
    assert main(["score", "-r", refs, "-c", cands, "--per-image", refs]) == 1
    assert "it is also an input" in capsys.readouterr().err
    link = tmp / "link.txt"
    link.symlink_to(refs)
    assert main(["df", "fit", refs, "-o", str(link)]) == 1
    assert "it is also an input" in capsys.readouterr().err
    assert Path(refs).read_bytes() == before


def test_outputs_go_through_symlinks_fifos_and_dash(captions, capsys):
    tmp, refs, cands = captions
    target = tmp / "scores.jsonl"
    target.write_text("old\n")
    link = tmp / "latest.jsonl"
    link.symlink_to(target)
    assert main(["score", "-r", refs, "-c", cands, "--per-image", str(link)]) == 0
    capsys.readouterr()
    assert link.is_symlink() and target.read_text().count("\n") == 2  # the link kept
    fifo = tmp / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    assert main(["score", "-r", refs, "-c", cands, "--per-image", str(fifo)]) == 0
    reader.join(timeout=30)
    assert fifo.exists() and not fifo.is_file() and got[0].count("\n") == 2
    capsys.readouterr()
    assert main(["score", "-r", refs, "-c", cands, "--per-image", "-", "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert '"id": 1' in out and "CIDEr-D = " in out
    assert not (tmp / "-").exists()


def test_a_missing_or_read_only_folder_is_found_before_the_work(captions, capsys):
    tmp, refs, cands = captions
    assert main(["score", "-r", refs, "-c", cands, "--per-image", str(tmp / "no" / "x")]) == 1
    err = capsys.readouterr().err
    assert "the folder" in err and "does not exist" in err and ".tmp" not in err
    if os.geteuid() != 0:  # root writes anywhere
        ro = tmp / "ro"
        ro.mkdir(mode=0o500)
        assert main(["df", "fit", refs, "-o", str(ro / "df.npz")]) == 1
        assert "is not writable" in capsys.readouterr().err


def test_sigterm_leaves_no_temporary_file(captions):
    tmp, refs, _ = captions
    script = (
        "import os, signal, sys\n"
        "import sparsecider.frequencies as f\n"
        "from sparsecider.cli import main\n"
        "def save(self, path):\n"
        "    open(path, 'wb').write(b'partial')\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "f.DocumentFrequencies.save = save\n"
        "sys.exit(main(['df', 'fit', sys.argv[1], '-o', sys.argv[2]]))\n"
    )
    out = tmp / "df.npz"
    run = subprocess.run([sys.executable, "-c", script, refs, str(out)], capture_output=True)
    assert run.returncode == 128 + signal.SIGTERM
    assert sorted(p.name for p in tmp.iterdir()) == ["cands.txt", "refs.txt"]


def test_seed_errors_name_the_option(captions, capsys):
    _, refs, cands = captions
    with pytest.raises(SystemExit) as exit_:
        main(["score", "-r", refs, "-c", cands, "--bootstrap", "10", "--seed", "-1"])
    assert exit_.value.code == 2
    assert "argument --seed: must be >= 0, got -1" in capsys.readouterr().err


def words(captions):
    return [c.split() for c in captions]


def test_a_tokenizer_mismatch_warns():
    df = DocumentFrequencies.from_references([["a b"], ["c"]], tokenizer=words)
    with pytest.warns(UserWarning, match=r"fitted on tokens of tokenizer 'custom:words', "
                                         r"but the captions are tokenized with 'ptb'"):  # fmt: skip
        sparsecider.cider_d(["a b"], [["a b"]], df=df)
    same = sparsecider.cider_d(["a b"], [["a b"]], df=df, tokenizer=words)
    assert same.scores.shape == (1,)
    assert math.isfinite(same.score)
