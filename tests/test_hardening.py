"""Adversarial inputs: no silent wrong number, no lost file, no hang, no traceback.

Each case is one a user (or an attacker) can give; expected behaviour is a
precise error naming the item and the fix, or the reference's number.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import re
import signal
import struct
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


CAPTION_PARTS = st.one_of(
    st.sampled_from(LENGTH_CHANGING), st.sampled_from(KEYWORDS),
    st.sampled_from(["a", "dog", "runs", "the", "cat", ".", "", " ", "can't"]),
)  # fmt: skip
CAPTIONS = st.lists(CAPTION_PARTS, min_size=0, max_size=6).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(CAPTIONS, st.lists(CAPTIONS, min_size=1, max_size=3)), min_size=2, max_size=9
    ),
    st.integers(2, 4),
)
def test_forced_shards_equal_one_thread_with_length_changing_characters(images, n_jobs):
    """Shards of one image or more (normally 2,000): each shard is tokenized
    inside the whole sequence (PTB reads ahead across captions), its document
    frequencies are merged with the others': every statistic equals one pass."""
    from unittest import mock

    cands = [c for c, _ in images]
    refs = [r for _, r in images]
    if not any(t for r in ptb_tokenize([x for rs in refs for x in rs]) for t in r.split()):
        return  # every reference empty: refused the same way in both (tested elsewhere)
    one = sparsecider.cider_d(cands, refs, n_jobs=1)
    with mock.patch("sparsecider.core.engine.MIN_SHARD_IMAGES", 1):
        sharded = sparsecider.cider_d(cands, refs, n_jobs=n_jobs)
    assert np.array_equal(one.per_order, sharded.per_order)
    assert one.n_empty_candidates == sharded.n_empty_candidates


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


def _shared_tuples(depth: int) -> bytes:
    """Opcodes building ``t = ('a',)``, then ``t = (t, t)`` ``depth`` times: O(depth)
    bytes, but hashing or printing the result takes 2**depth steps."""
    return b"\x8c\x01a" + pickle.TUPLE1 + (pickle.DUP + pickle.TUPLE2) * depth


def _shared_lists(depth: int) -> bytes:
    """The same with lists: ``l = [l, l]`` through the memo."""
    step = pickle.BINPUT + b"\x00" + pickle.POP + pickle.MARK
    step += (pickle.BINGET + b"\x00") * 2 + pickle.LIST
    return pickle.EMPTY_LIST + step * depth


def _float(x: float) -> bytes:
    return pickle.BINFLOAT + struct.pack(">d", x)


def _unicode(s: str) -> bytes:
    return b"\x8c" + bytes([len(s)]) + s.encode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # a dict key: the unpickler hashes it while building the dict (52 s at depth 26 before)
        (pickle.EMPTY_DICT + _shared_tuples(60) + _float(1.0) + pickle.SETITEM,
         "a tuple holds a tuple: n-gram tuples hold only words"),
        # a count: never hashed, but printed in the error message
        (pickle.EMPTY_DICT + _unicode("a") + pickle.TUPLE1 + _shared_tuples(60) + pickle.SETITEM,
         "a tuple holds a tuple"),
        # ref_len: a list of shared lists, printed in the error message before
        (pickle.EMPTY_DICT + _unicode("df") + pickle.EMPTY_DICT + pickle.SETITEM
         + _unicode("ref_len") + _shared_lists(30) + pickle.SETITEM,
         "containers nested more than 4 deep"),
    ],
    ids=["key", "count", "ref_len"],
)  # fmt: skip
def test_legacy_pickles_of_shared_structure_are_refused_at_once(tmp_path, body, message):
    path = tmp_path / "df.p"
    path.write_bytes(pickle.PROTO + b"\x04" + body + pickle.STOP)
    assert path.stat().st_size < 400  # the reported attack: 272 bytes
    with pytest.raises(ValueError, match=message):
        DocumentFrequencies.from_pickle(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a readable document frequency pickle (EOFError)"),
        (pickle.dumps({("a",): 1.0})[:-5], "not a readable document frequency pickle"),
        (pickle.PROTO + b"\x04" + pickle.TUPLE1 + pickle.STOP, "not a readable"),  # empty stack
        (b"\x8c\xff" + b"a" * 10, "not a readable"),  # a string longer than the file
    ],
    ids=["empty", "truncated", "stack-underflow", "short-string"],
)
def test_damaged_legacy_pickles_are_one_line(tmp_path, data, message):
    path = tmp_path / "df.p"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        DocumentFrequencies.from_pickle(path)
    assert str(err.value).startswith(f"{path}: ") and "\n" not in str(err.value)


def test_legacy_pickles_above_the_size_limit_are_not_read(tmp_path, monkeypatch):
    import sparsecider.io.legacy as legacy

    monkeypatch.setattr(legacy, "MAX_PICKLE_BYTES", 100)
    path = tmp_path / "df.p"
    path.write_bytes(pickle.dumps({("w" * 200,): 1.0}))
    with pytest.raises(ValueError, match="more than a document frequency pickle"):
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
    """pycocoevalcap extracts 1..4-grams whatever its n (tests/SPEC.md, section 1); run with n
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
    assert np.array_equal(vec.evaluate(cands, refs).scores, plain.scores)
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
    out, err = capsys.readouterr()
    # standard output carries the data only (a pipe gets JSON lines); the summary goes to stderr
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1, 2]
    assert err.startswith("CIDEr-D = ")
    assert not (tmp / "-").exists()


def test_dash_streams_records_as_they_are_scored(tmp_path):
    """``stream - -o -``: the first image's line arrives while standard input is
    still open (the PTB tokenizer reads a few hundred characters ahead: 40 records)."""
    record = {"id": 0, "candidate": "a dog on a bed", "references": ["a dog lies on a bed"]}
    cmd = [sys.executable, "-m", "sparsecider", "stream", "-", "-o", "-", "--df", "coco-val2014",
           "--chunk-size", "1", "--n-jobs", "1"]  # fmt: skip
    with subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path
    ) as proc:  # fmt: skip
        try:
            for i in range(40):
                proc.stdin.write((json.dumps({**record, "id": i}) + "\n").encode())
            proc.stdin.flush()
            first = []
            reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()))
            reader.start()
            reader.join(timeout=60)
            assert first and json.loads(first[0])["id"] == 0, "no line before the input ended"
            assert proc.poll() is None  # still running: the input is open
            proc.stdin.close()
            rest = proc.stdout.read().decode().splitlines()
            assert proc.wait(timeout=60) == 0
        finally:
            proc.kill()
    assert [json.loads(line)["id"] for line in rest] == list(range(1, 40))


def test_standard_input_cannot_feed_a_corpus_df(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(["stream", "-", "-o", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "standard input ('-'), which can be read only once" in err and "--df" in err


def test_a_df_written_to_a_pipe_loads(captions):
    tmp, refs, _ = captions
    cmd = [sys.executable, "-m", "sparsecider", "df", "fit", refs, "--tokenizer", "whitespace"]
    piped = subprocess.run([*cmd, "-o", "-"], capture_output=True, check=True, cwd=tmp)
    assert json.loads(piped.stderr)["n_images"] == 2  # the summary on stderr, the file on stdout
    (tmp / "piped.npz").write_bytes(piped.stdout)
    subprocess.run([*cmd, "-o", "file.npz"], capture_output=True, check=True, cwd=tmp)
    assert DocumentFrequencies.load(tmp / "piped.npz") == DocumentFrequencies.load(tmp / "file.npz")


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
        "import sparsecider.core.frequencies as f\n"
        "from sparsecider.cli import main\n"
        "def save(self, f):\n"
        "    f.write(b'partial')\n"
        "    f.flush()\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "f.DocumentFrequencies.save = save\n"
        "sys.exit(main(['df', 'fit', sys.argv[1], '-o', sys.argv[2]]))\n"
    )
    out = tmp / "df.npz"
    run = subprocess.run([sys.executable, "-c", script, refs, str(out)], capture_output=True)
    assert run.returncode == 128 + signal.SIGTERM
    assert sorted(p.name for p in tmp.iterdir()) == ["cands.txt", "refs.txt"]


@pytest.mark.skipif(
    not hasattr(os, "O_TMPFILE"), reason="nameless temporary files (O_TMPFILE) are Linux-only"
)
def test_sigkill_leaves_no_temporary_file(tmp_path):
    """SIGKILL cannot be caught: the output has no name until it is complete."""
    script = (
        "import os, signal, sys\n"
        "from sparsecider.io.text import open_output\n"
        "with open_output(sys.argv[1]) as f:\n"
        "    f.write(b'partial' * 100_000)\n"
        "    f.flush()\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    (tmp_path / "scores.jsonl").write_text("previous\n")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "scores.jsonl")])
    assert run.returncode == -signal.SIGKILL
    assert [p.name for p in tmp_path.iterdir()] == ["scores.jsonl"]
    assert (tmp_path / "scores.jsonl").read_text() == "previous\n"


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


# ---- progress for long runs ----------------------------------------------------------------


@pytest.mark.parametrize(("n_jobs", "steps"), [(1, 2 + 2 * 4), (2, 2 * (1 + 2 * 4))])
def test_the_api_progress_bar_counts_every_engine_step(tqdm_bars, n_jobs, steps):
    """Single thread: tokenize, hash, then count and score each of 4 orders;
    two shards (4,000 images): per shard, tokenize + hash, then count and score."""
    bars = tqdm_bars
    cands, refs = ["a dog runs"] * 4000, [["a dog runs fast", "the cat"]] * 4000
    got = sparsecider.cider_d(cands, refs, progress=True, n_jobs=n_jobs)
    plain = sparsecider.cider_d(cands, refs, n_jobs=n_jobs)
    assert np.array_equal(got.per_order, plain.per_order)  # the bar changes nothing
    (shown,) = bars
    assert (shown.total, shown.n, shown.desc) == (steps, steps, "CIDEr-D")


def test_progress_is_checked_and_says_what_to_install(monkeypatch):
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        sparsecider.cider(["a"], [["a"]], progress="yes")
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if not installed
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    with pytest.raises(ImportError, match=r"pip install 'sparsecider\[progress\]'"):
        sparsecider.cider_d(["a"], [["a"]], progress=True)
    assert sparsecider.cider_d(["a b"], [["a b"]], df="coco-val2014", progress=None).score > 0


# ---- found by the audit of this issue's cases (second pass) --------------------------------


def test_dev_stdout_redirected_to_a_file_is_appended_to_not_replaced(captions):
    tmp, refs, cands = captions
    (tmp / "log.txt").write_text("previous\n")
    cmd = (f"{sys.executable} -m sparsecider score -r {refs} -c {cands} "
           "--per-image /dev/stdout --format text >> log.txt")  # fmt: skip
    run = subprocess.run(cmd, shell=True, cwd=tmp, capture_output=True, text=True, check=True)
    lines = (tmp / "log.txt").read_text().splitlines()
    assert lines[0] == "previous" and [json.loads(x)["id"] for x in lines[1:]] == [1, 2]
    assert "CIDEr-D = " in run.stderr  # the summary is not mixed into the data


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs a folder no one can write: /proc")
def test_an_unwritable_folder_is_found_before_the_work_even_as_root(captions, capsys):
    _, refs, cands = captions  # os.access says yes to root; a real attempt does not
    assert main(["score", "-r", refs, "-c", cands, "--per-image", "/proc/scores.jsonl"]) == 1
    err = capsys.readouterr().err
    assert "the folder /proc is not writable" in err and ".tmp" not in err


def test_every_command_refuses_to_write_over_an_input(captions, capsys):
    tmp, refs, cands = captions
    records = tmp / "records.jsonl"
    records.write_text('{"id": 1, "candidate": "a dog", "references": ["a dog runs"]}\n')
    pickled = tmp / "df.p"
    pickled.write_bytes(pickle.dumps({("a",): 1.0}))
    before = {p: Path(p).read_bytes() for p in (refs, cands, records, pickled)}
    for argv in [
        ["stream", str(records), "-o", str(records)],
        ["df", "convert", str(pickled), "-o", str(pickled), "--n-images", "2"],
        ["select", "-c", cands, "-o", cands],
        ["diversity", "-c", cands, "--per-image", cands],
        ["score", "-r", refs, "-c", cands, "--per-image", cands],
    ]:
        assert main(argv) == 1, argv
        assert "it is also an input" in capsys.readouterr().err, argv
    assert {p: Path(p).read_bytes() for p in before} == before


def test_a_hard_link_to_an_input_is_replaced_not_written_through(captions, capsys):
    tmp, refs, cands = captions
    os.link(refs, tmp / "same.txt")
    before = Path(refs).read_bytes()
    assert main(["score", "-r", refs, "-c", cands, "--per-image", str(tmp / "same.txt")]) == 0
    assert Path(refs).read_bytes() == before  # the link is broken, the input kept


@pytest.mark.parametrize("sigma", ["1e-170", "1e200", "nan", "inf", "-1"])
def test_cli_sigma_out_of_range_is_a_usage_error(captions, capsys, sigma):
    # refused when the command line is parsed, as --n 0 (exit 2, issue 27), in one line
    # after the usage
    _, refs, cands = captions
    with pytest.raises(SystemExit) as stop:
        main(["score", "-r", refs, "-c", cands, f"--sigma={sigma}"])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err.splitlines()[-1].startswith("sparsecider score: error: argument --sigma: must")


@pytest.mark.parametrize(
    "image_id", [[1, 2], {"a": 1}], ids=["list", "dict"]
)  # fmt: skip
def test_unhashable_coco_ids_are_named(tmp_path, capsys, image_id):
    coco = {"images": [{"id": 1}], "annotations": [{"image_id": image_id, "id": 9, "caption": "a"}]}
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps(coco))
    assert main(["score", "-r", str(refs), "-c", str(refs)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("sparsecider: error: ") and err.count("\n") == 1 and "refs.json" in err


def test_df_info_on_a_caption_file_says_what_it_is_not(captions, capsys):
    _, refs, _ = captions
    assert main(["df", "info", refs]) == 1
    err = capsys.readouterr().err
    assert "not a sparsecider document frequency file" in err and "'sparsecider df fit'" in err
    assert "pickled (object) data" not in err  # what it said before: misleading


def test_huge_counts_and_orders_are_one_clear_error(tmp_path):
    path = tmp_path / "df.p"
    path.write_bytes(pickle.dumps({"document_frequency": {("a",): 10**400}, "ref_len": 3}))
    with pytest.raises(ValueError, match=r"has count of 1329 bits, not in 0\.\.3"):
        DocumentFrequencies.from_pickle(path)
    with pytest.raises(ValueError, match="n must be <= 64, got 1000000"):
        sparsecider.bleu(["a b"], [["a b"]], n=10**6)


def test_a_json_lines_file_with_one_enormous_line_is_refused_before_it_is_held(
    tmp_path, monkeypatch, capsys
):
    import gzip

    import sparsecider.io.records as records

    monkeypatch.setattr(records, "MAX_LINE_BYTES", 1000)  # 64 MiB in use
    bomb = tmp_path / "bomb.jsonl.gz"
    bomb.write_bytes(gzip.compress(b'{"id": 1, "candidate": "' + b"a " * 100_000))
    assert main(["stream", str(bomb), "-o", str(tmp_path / "out.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "bomb.jsonl.gz:1: a line longer than" in err
    assert not (tmp_path / "out.jsonl").exists()


def test_one_line_reports_say_what_the_mean_is_over(tmp_path, captions, capsys):
    _, refs, _ = captions
    empty = tmp_path / "empty.txt"
    empty.write_text("a dog\n \n")
    assert main(["score", "-r", refs, "-c", str(empty), "--format", "text"]) == 0
    assert "[1 empty candidate scored 0] | CIDEr-D|" in capsys.readouterr().out
    several = tmp_path / "several.jsonl"
    several.write_text(
        '{"id": 1, "candidate": ["a dog", "a cat", "a bus"], "references": ["a dog runs"]}\n'
        '{"id": 2, "candidate": "a bus", "references": ["a red bus"]}\n'
    )
    assert main(["stream", str(several), "-o", str(tmp_path / "out.jsonl")]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["score_is_mean_over"] == "candidates"
    assert (summary["n_candidates"], summary["n_images"]) == (4, 2)


def test_ctrl_c_is_one_line_and_status_130(captions, capsys, monkeypatch):
    import sparsecider.cli as cli

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    _, refs, cands = captions
    assert main(["score", "-r", refs, "-c", cands]) == 130
    assert capsys.readouterr().err == "sparsecider: interrupted\n"


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_empty_candidates_score_zero_and_are_counted_in_every_face(tmp_path, capsys, n_jobs):
    # "" and "..." have no token after PTB tokenization (punctuation is dropped);
    # 4,000 images so that n_jobs=2 really shards
    cands = ["", "...", "a dog runs"] + ["a red bus"] * 3997
    refs = [["a dog runs fast", "the dog"]] * 3 + [["a red bus stops"]] * 3997
    got = sparsecider.cider_d(cands, refs, n_jobs=n_jobs)
    assert got.n_empty_candidates == 2 and got.scores[:2].tolist() == [0.0, 0.0]
    assert sparsecider.cider(cands, refs, n_jobs=n_jobs).n_empty_candidates == 2
    assert sparsecider.bleu(cands, refs).n_empty_candidates is None  # not counted there
    records = [{"id": i, "candidate": c, "references": r}
               for i, (c, r) in enumerate(zip(cands, refs, strict=True))]  # fmt: skip
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    from sparsecider import stream

    streamed = stream.cider_d(path, chunk_size=1000, n_jobs=n_jobs)
    assert streamed.n_empty_candidates == 2
    assert main(["stream", str(path), "-o", str(tmp_path / "out.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["empty_candidates"] == 2


# ---- found by the review of the second pass -------------------------------------------------


def test_sets_are_refused_in_legacy_pickles(tmp_path):
    # shared frozensets as dict keys compare (and print) in 2**depth steps
    path = tmp_path / "df.p"
    path.write_bytes(pickle.dumps({frozenset({"a"}): 1.0}))
    with pytest.raises(ValueError, match="a set or frozenset: a document frequency pickle"):
        DocumentFrequencies.from_pickle(path)


def test_the_checked_opcodes_exist_in_this_python():
    """The unpickler overrides entries of CPython's private dispatch table: if a
    future Python renames them, this fails instead of silently checking nothing."""
    from sparsecider.io.legacy import RestrictedUnpickler

    base = pickle._Unpickler.dispatch
    for op in (pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3, pickle.FROZENSET,
               pickle.EMPTY_SET, pickle.ADDITEMS):  # fmt: skip
        assert op[0] in base and RestrictedUnpickler.dispatch[op[0]] is not base[op[0]]


def test_dash_works_when_stdout_is_a_text_stream_only():
    """In a notebook or under redirect_stdout, sys.stdout has no binary buffer."""
    import contextlib

    from sparsecider.io.text import CaptionFileError, open_output

    captured = io.StringIO()
    with contextlib.redirect_stdout(captured), open_output("-", text=True) as f:
        f.write('{"id": 1}\n')
    assert captured.getvalue() == '{"id": 1}\n'
    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(CaptionFileError, match="binary"):
        with open_output("-") as f:
            f.write(b"PK")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a full disk)")
def test_a_failing_flush_does_not_hide_the_error_being_raised():
    from sparsecider.io.text import open_output

    with pytest.raises(KeyboardInterrupt):
        with open_output("/dev/full", text=True) as f:
            f.write("x" * 100)
            raise KeyboardInterrupt
    with pytest.raises(OSError, match="No space left"):  # ... but is an error of its own
        with open_output("/dev/full", text=True) as f:
            f.write("x" * 100)


def test_a_closed_pipe_ends_the_command_quietly(tmp_path):
    records = "".join(
        json.dumps({"id": i, "candidate": "a dog", "references": ["a dog runs"]}) + "\n"
        for i in range(30_000)
    )  # about 2 MB of output: more than a pipe holds
    (tmp_path / "r.jsonl").write_text(records)
    cmd = (f"{sys.executable} -m sparsecider stream r.jsonl -o - --df coco-val2014 "
           "--tokenizer whitespace 2>err.txt | head -1; "
           "echo ${PIPESTATUS[0]} > status.txt")  # fmt: skip
    run = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, capture_output=True, text=True)
    assert json.loads(run.stdout)["id"] == 0
    assert (tmp_path / "status.txt").read_text().strip() == str(128 + signal.SIGPIPE)
    err = (tmp_path / "err.txt").read_text()
    assert "Broken pipe" not in err and "Traceback" not in err


def test_the_line_cap_does_not_count_the_newline(tmp_path, monkeypatch):
    import sparsecider.io.records as records

    monkeypatch.setattr(records, "MAX_LINE_BYTES", 10)
    ok = tmp_path / "ok.jsonl"
    ok.write_bytes(b'{"id": 12}\n{"id": 3}\n')  # 10 bytes, then the newline
    assert [row["id"] for _, row in records.read_jsonl(ok)] == [12, 3]
    long = tmp_path / "long.jsonl"
    long.write_bytes(b'{"id": 123}\n')  # 11 bytes
    with pytest.raises(ValueError, match=r"long\.jsonl:1: a line longer than"):
        list(records.read_jsonl(long))


def test_an_unopened_descriptor_is_refused_before_the_work(captions, capsys):
    _, refs, cands = captions
    assert main(["score", "-r", refs, "-c", cands, "--per-image", "/dev/fd/97"]) == 1
    assert "/dev/fd/97: not an open file descriptor" in capsys.readouterr().err


# ---- found by the second audit ----------------------------------------------------------------


def test_an_output_descriptor_open_on_an_input_is_refused(captions):
    tmp, refs, cands = captions
    before = Path(cands).read_bytes()
    fd = os.open(cands, os.O_RDONLY)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "sparsecider", "score", "-r", refs, "-c", cands,
             "--per-image", f"/dev/fd/{fd}"],
            pass_fds=(fd,), capture_output=True, text=True, cwd=tmp,
        )  # fmt: skip
    finally:
        os.close(fd)
    assert run.returncode == 1 and f"/dev/fd/{fd}: it is the input {cands}" in run.stderr
    assert Path(cands).read_bytes() == before


def test_every_report_format_counts_empty_candidates(captions, capsys):
    tmp, refs, _ = captions
    cands = tmp / "punct.txt"
    cands.write_text("a dog\n...\n")  # no token left after PTB tokenization: scores 0
    assert main(["score", "-r", refs, "-c", str(cands)]) == 0
    assert json.loads(capsys.readouterr().out)["empty_candidates"] == 1
    assert main(["score", "-r", refs, "-c", str(cands), "--format", "tsv"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert dict(zip(header.split("\t"), row.split("\t"), strict=True))["empty_candidates"] == "1"
    argv = ["score", "-r", refs, "-c", str(cands), "--metric", "cider-d,bleu"]
    assert main([*argv, "--format", "text"]) == 0
    assert "note: 1 empty candidate scored 0" in capsys.readouterr().out
    assert main([*argv, "--format", "tsv"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert all(dict(zip(rows[0], r, strict=True))["empty_candidates"] == "1" for r in rows[1:])


def test_select_writes_null_not_nan_for_a_set_of_one(tmp_path, capsys):
    sets = tmp_path / "sets.jsonl"
    sets.write_text(
        '{"id": 1, "candidate": ["a dog runs", "a dog sits", "a cat"]}\n'
        '{"id": 2, "candidate": ["a red bus"]}\n'
    )
    argv = ["select", "-c", str(sets), "-o", str(tmp_path / "out.json"), "--per-image", "-"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]  # strict JSON: NaN would fail
    assert rows[1] == {"id": 2, "index": 0, "score": None} and rows[0]["score"] > 0
    assert json.loads(err)["score"] == rows[0]["score"]  # the mean over the sets with a score


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({(10**5000,): 1.0}, "keys must be non-empty tuples of strings, found a tuple of int"),
        ({("a",): float("nan")}, "has count nan"),
    ],
    ids=["huge-int-word", "nan-count"],
)
def test_legacy_table_errors_name_the_file(tmp_path, table, message):
    path = tmp_path / "df.p"
    path.write_bytes(pickle.dumps({"document_frequency": table, "ref_len": 3}))
    with pytest.raises(ValueError, match=re.escape(message)) as err:
        DocumentFrequencies.from_pickle(path)
    assert str(err.value).startswith(f"{path}: ")


def test_a_pickle_of_many_small_containers_is_refused(tmp_path):
    # 20 million empty lists in 20 MB took 1.5 GB; a df pickle has a dict or two
    path = tmp_path / "df.p"
    junk = [[] for _ in range(100)]
    path.write_bytes(pickle.dumps({"document_frequency": {("a",): 1.0}, "ref_len": 3, "x": junk}))
    with pytest.raises(ValueError, match="more than 64 lists, dicts or calls"):
        DocumentFrequencies.from_pickle(path)


def test_progress_without_tqdm_names_the_option_and_draws_no_empty_bar(
    captions, capsys, monkeypatch, tqdm_bars
):
    _, refs, cands = captions
    assert main(["score", "-r", refs, "-c", cands, "--progress", "--n-jobs", "1"]) == 0
    assert "0step" not in capsys.readouterr().err  # one bar, drawn with its total
    assert [b.total for b in tqdm_bars] == [10]
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    assert main(["score", "-r", refs, "-c", cands, "--progress"]) == 1
    assert "--progress needs tqdm: pip install 'sparsecider[progress]'" in capsys.readouterr().err


def test_a_binary_output_is_not_written_to_a_terminal(captions):
    tmp, refs, _ = captions
    leader, follower = os.openpty()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "sparsecider", "df", "fit", refs, "-o", "-"],
            stdout=follower, stderr=subprocess.PIPE, text=True, cwd=tmp,
        )  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    assert run.returncode == 1 and "standard output is a terminal" in run.stderr


# ---- issue 28: no crash, no quadratic input, no spoofed signature, no double count -------

#: run a snippet in a fresh interpreter with 4 GiB of address space at most
_LIMITED = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
    "import warnings; warnings.simplefilter('ignore')\n"
)


def _run_limited(code: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run(
        [sys.executable, "-c", _LIMITED + code], capture_output=True, text=True,
        timeout=timeout, env=env,
    )  # fmt: skip


def test_mecab_survives_long_captions_up_to_10_mb():
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    # MeCab segfaulted (exit 139) on 1 MB of "a " and on ~290k Han characters.
    # By hand (N = 2 images, every n-gram in one image: idf = log 2):
    # - 'x' against 'x': order 1 cosine 1, orders 2-4 empty: 10 * 1 / 4 = 2.5;
    # - 5,000,000 words against the one word 'a': the length penalty
    #   exp(-(5e6 - 1)**2 / 72) is 0.0 in float64, so the score is 0.0;
    # - the Han caption against itself: same tokens on both sides (cut alike),
    #   cosine 1 in each of the 4 orders, equal lengths: 10 * 4 / 4 = 10.0
    code = (
        "import sparsecider\n"
        "r = sparsecider.cider_d(['a ' * 5_000_000, 'x'], [['a'], ['x']], tokenizer='mecab')\n"
        "han = '犬' * 350_000\n"
        "s = sparsecider.cider_d([han, 'x'], [[han], ['x']], tokenizer='mecab')\n"
        "print(r.scores.tolist(), s.scores.tolist())\n"
    )
    done = _run_limited(code, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "[0.0, 2.5] [10.0, 2.5]"


def test_mecab_pieces_give_the_tokens_of_an_unsplit_parse():
    pytest.importorskip("fugashi")
    from sparsecider._demo_cjk import corpus
    from sparsecider.tokenizers import ja

    cands, refs = corpus("ja", 3000, seed=1)
    captions = cands + [r for rs in refs for r in rs]
    parse = ja.load().parse  # MeCab itself on the whole text: the reference
    for sep, size in ((" ", 120_000), ("\n", 120_000), ("。", 30_000)):
        text = sep.join(captions)[:size]
        assert len(text) > ja.PIECE
        assert ja.segment([text])[0].split() == parse(text).split()


def test_mecab_keeps_what_follows_a_nul_as_jieba_and_kiwi_do():
    pytest.importorskip("fugashi")
    # before: ['a'] (MeCab reads a C string); jieba and kiwi make NUL a token
    assert sparsecider.tokens(["a\x00b c"], tokenizer="mecab") == [["a", "\x00", "b", "c"]]


@pytest.mark.parametrize("tokenizer", ["mecab", "kiwi"])
def test_a_lone_surrogate_names_the_caption(tokenizer):
    pytest.importorskip({"mecab": "fugashi", "kiwi": "kiwipiepy"}[tokenizer])
    # the list given is named as such (issue 35: not "caption 1 of the 2 tokenized together")
    with pytest.raises(ValueError, match=r"^captions\[1\] \('a\\ud800b c'\) holds a lone "
                       r"surrogate, U\+D800 at character 1.*errors='replace'"):  # fmt: skip
        sparsecider.tokens(["ok", "a\ud800b c"], tokenizer=tokenizer)


def test_one_long_token_costs_linear_time(monkeypatch):
    # 8 MB token in a candidate and its reference: 27 s before (a numpy step
    # per 8 bytes, a million vectorised steps), about 1 s now.  Work is
    # counted, not timed (a 12 s limit failed on a busy machine, issue 35):
    # the vectorised SplitMix64 steps must not grow with the token's length.
    # By hand: each image's only n-gram is its own unigram, in 1 of N = 2
    # images: idf = log 2 on both sides, cosine 1 for order 1, empty orders
    # 2-4 add 0: 10 * 1 / 4 = 2.5
    from sparsecider._kernels import hashing

    steps = []
    mix = hashing._mix

    def counted(z, scratch):
        steps.append(z.shape[0])
        mix(z, scratch)

    monkeypatch.setattr(hashing, "_mix", counted)
    for size in (80_000, 8_000_000):
        steps.clear()
        t = "a" * size
        r = sparsecider.cider_d([t, "x"], [[t], ["x"]], tokenizer="whitespace", n_jobs=1)
        assert r.scores.tolist() == [2.5, 2.5]
        # a few block passes for the short words, none per 8 bytes of the long token
        assert len(steps) <= 40, (size, len(steps))


def _scheme_twin(token: bytes) -> int:
    """utf8-splitmix64-v2 of one token, from the scheme's description, in Python ints."""
    mask = (1 << 64) - 1

    def splitmix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    h = (len(token) * 0x9E3779B97F4A7C15) & mask
    padded = token + bytes(-len(token) % 8)
    for j in range(0, len(padded), 8):
        h = splitmix(h ^ int.from_bytes(padded[j : j + 8], "little"))
    return h


@pytest.mark.parametrize("n_tokens", [1, 3, 40])
def test_long_tokens_hash_as_the_scheme_says(n_tokens):
    from sparsecider._kernels import hashing

    rng = np.random.default_rng(n_tokens)
    lengths = rng.integers(1, 400, size=n_tokens)
    starts = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
    buffer = rng.integers(0, 256, size=int(starts[-1] + lengths[-1] + 8)).astype(np.uint8)
    got = hashing.hash_byte_tokens(buffer, starts, lengths).tolist()
    tokens = [buffer[a : a + n].tobytes() for a, n in zip(starts, lengths, strict=True)]
    assert got == [_scheme_twin(token) for token in tokens]


def _legacy(tmp_path, data: bytes) -> Path:
    path = tmp_path / "df.p"
    path.write_bytes(data)
    return path


def test_a_hash_flooding_pickle_is_refused_before_any_dict_is_built(tmp_path):
    # 60,000 keys (i * (2**61 - 1),) all hash to 0: 50 s to be refused before.
    # The opcodes are written by hand: building that dict here would flood too
    item = b"".join(
        pickle.dumps((i * (2**61 - 1),), protocol=2)[2:-1] + pickle.dumps(1.0, protocol=2)[2:-1]
        for i in range(60_000)
    )
    path = _legacy(tmp_path, b"\x80\x02}(" + item + b"u.")
    code = (
        "from sparsecider import DocumentFrequencies\n"
        f"DocumentFrequencies.from_pickle({str(path)!r})\n"
    )
    done = _run_limited(code, timeout=20)
    assert done.returncode == 1
    assert re.search(r"df\.p: keys must be non-empty tuples of strings, found a tuple of int "
                     r"\(checked before any dict is built", done.stderr)  # fmt: skip


def test_newobj_calls_count_against_the_container_cap(tmp_path):
    body = b"\x80\x02(" + b"ccollections\ndefaultdict\n)\x81" * 1000 + b"l."
    with pytest.raises(ValueError, match=r"df\.p: more than 64 lists, dicts or calls"):
        DocumentFrequencies.from_pickle(_legacy(tmp_path, body))


def test_a_ref_len_of_5000_digits_names_the_file(tmp_path):
    path = _legacy(tmp_path, pickle.dumps({"df": {("a",): 1.0}, "ref_len": 10**5000}))
    with pytest.raises(ValueError, match=r"df\.p: ref_len an integer of 16610 bits is not"):
        DocumentFrequencies.from_pickle(path)


def _df_file(path: Path, meta: dict, arrays: dict) -> Path:
    meta = {"format": "sparsecider.DocumentFrequencies", "format_version": 1, "n": 1,
            "n_images": 2, "tokenizer": "whitespace", "hashing": "utf8-splitmix64-v2",
            "library_version": "0.1.0", "source": "test", **meta}  # fmt: skip
    encoded = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    with open(path, "wb") as f:
        np.savez(f, metadata=encoded, **arrays)
    return path


def test_df_lengths_are_compared_from_the_headers(tmp_path):
    path = _df_file(tmp_path / "t.npz", {}, {
        "keys_1": np.array([1, 2], dtype=np.uint64),
        "counts_1": np.ones(3, dtype=np.uint32),
    })  # fmt: skip
    with pytest.raises(ValueError, match=r"t\.npz: order 1 has 2 keys but 3 counts"):
        DocumentFrequencies.load(path)


def test_a_malformed_npy_header_names_the_file(tmp_path, capsys):
    path = _df_file(tmp_path / "t.npz", {}, {
        "keys_1": np.array([1, 2], dtype=np.uint64), "counts_1": np.ones(2, dtype=np.uint32),
    })  # fmt: skip
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    good = members["keys_1.npy"]
    header = b"{'descr': '<u8', 'fortran_order': False, 'shape': (2,), '''"
    members["keys_1.npy"] = good[:8] + struct.pack("<H", 118) + header.ljust(117) + b"\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(ValueError, match=r"t\.npz: not a sparsecider document frequency file"):
        DocumentFrequencies.load(path)
    assert main(["df", "info", str(path)]) == 1
    assert "t.npz: not a sparsecider document frequency file" in capsys.readouterr().err


def test_a_df_name_is_checked_on_load(tmp_path):
    spoof = "coco-val2014(n_images=40504)|tok:ptb|version:0.1.0\n#"
    path = _df_file(tmp_path / "t.npz", {"name": spoof}, {
        "keys_1": np.array([1], dtype=np.uint64), "counts_1": np.ones(1, dtype=np.uint32),
    })  # fmt: skip
    with pytest.raises(ValueError, match=r"t\.npz: name must be a non-empty string without '\|'"):
        DocumentFrequencies.load(path)


@pytest.mark.parametrize(("field", "value"), [
    ("metric", "CIDEr|x"), ("metric", "CIDEr\nx"), ("df", "a|b"), ("df", "a\u2028b"),
    ("tokenizer", "a|b"), ("tokenizer", "a\rb"), ("tokenizer", "a\x0bb"), ("version", "1|2"),
    ("params", (("r|c", 1.0),)),
])  # fmt: skip
def test_no_signature_field_holds_a_bar_or_a_line_break(field, value):
    fields = {"metric": "CIDEr", "tokenizer": "ptb", field: value}
    with pytest.raises(ValueError, match=r"signature field .* holds '\|' or a line break"):
        sparsecider.Signature(fields.pop("metric"), **fields)


def test_a_custom_tokenizer_name_cannot_forge_signature_fields():
    def words(captions):
        return [c.split() for c in captions]

    words.__qualname__ = "x|df:coco-val2014(n_images=40504)"
    with pytest.raises(ValueError, match=r"signature field 'tok:custom:x\|df"):
        sparsecider.cider_d(["a b"], [["a b"]], tokenizer=words)


@pytest.mark.parametrize("edit", [{"min_count": 1}, {"tokenizer": "jieba"}])
def test_the_shipped_table_name_needs_its_metadata(tmp_path, edit):
    shipped = DocumentFrequencies.named("coco-val2014")
    path = shipped.save(tmp_path / "copy.npz")
    with zipfile.ZipFile(path) as z:
        arrays = {name[:-4]: np.load(io.BytesIO(z.read(name))) for name in z.namelist()}
    meta = json.loads(arrays.pop("metadata").tobytes())
    _df_file(path, {**meta, **edit}, arrays)
    copy = DocumentFrequencies.load(path)
    assert copy.digest == shipped.digest and copy.name == "coco-val2014"
    # before: 'coco-val2014(n_images=40504)', the shipped table's signature
    assert copy.describe() == f"coco-val2014(n_images=40504,sha={shipped.digest})"
    assert DocumentFrequencies.load(shipped.save(tmp_path / "same.npz")).describe() == (
        "coco-val2014(n_images=40504)"
    )


def test_bootstrap_has_an_upper_bound(tmp_path, capsys):
    from sparsecider.significance import MAX_RESAMPLES, bootstrap_ci

    with pytest.raises(ValueError, match=r"n_resamples must be at most 1,000,000"):
        bootstrap_ci([1.0, 2.0], n_resamples=MAX_RESAMPLES + 1)
    (tmp_path / "r.txt").write_text("a dog\na cat\n")
    with pytest.raises(SystemExit) as exit_:
        main(["score", "-r", str(tmp_path / "r.txt"), "-c", str(tmp_path / "r.txt"),
              "--bootstrap", "1000000000"])  # fmt: skip
    assert exit_.value.code == 2
    assert "--bootstrap: must be at most 1,000,000, got 1,000,000,000" in capsys.readouterr().err


def test_dask_refuses_duplicate_ids_as_the_stream_does():
    db = pytest.importorskip("dask.bag")
    import sparsecider.dask
    import sparsecider.stream

    rows = [{"id": i % 50, "candidate": "a dog", "references": ["a dog"]} for i in range(100)]
    with pytest.raises(ValueError, match=r"duplicate id 0 at records\[0\] and records\[50\]"):
        sparsecider.stream.cider_d(rows, tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"duplicate id 0 at partition 0, record 0 and "
                       r"partition \d, record \d+: every record needs its own id"):  # fmt: skip
        sparsecider.dask.cider_d(db.from_sequence(rows, npartitions=3), tokenizer="whitespace")


def test_a_references_file_refuses_an_id_on_two_lines(tmp_path, capsys):
    (tmp_path / "r.jsonl").write_text(
        '{"id": 1, "references": ["a dog"]}\n{"id": 2, "references": ["a cat"]}\n'
        '{"id": 1, "references": ["the dog"]}\n'
    )
    (tmp_path / "c.jsonl").write_text('{"id": 1, "candidate": "a dog"}\n'
                                      '{"id": 2, "candidate": "a cat"}\n')  # fmt: skip
    argv = ["score", "-r", str(tmp_path / "r.jsonl"), "-c", str(tmp_path / "c.jsonl")]
    assert main(argv) == 1
    assert "r.jsonl: id 1 on lines 1 and 3" in capsys.readouterr().err


@pytest.mark.parametrize("metric", ["cider_d", "cider", "bleu", "rouge_l", "cider_r"])
def test_series_with_other_indexes_are_refused(metric):
    pd = pytest.importorskip("pandas")
    cands = pd.Series(["a dog runs", "a red bus"], index=["x", "y"])
    refs = pd.Series([["a red bus"], ["a dog runs"]], index=["y", "x"])
    with pytest.raises(ValueError, match=r"different indexes \(they first differ at position 0: "
                       r"label 'x' vs 'y'\).*reindex"):  # fmt: skip
        getattr(sparsecider, metric)(cands, refs, tokenizer="whitespace")
    # the same labels in the same order pair as the lists do
    same = pd.Series([["a dog runs"], ["a red bus"]], index=["x", "y"])
    assert getattr(sparsecider, metric)(cands, same, tokenizer="whitespace").scores.shape == (2,)
    # a Series against a list pairs by position, as two lists do
    as_list = [["a dog runs"], ["a red bus"]]
    assert getattr(sparsecider, metric)(cands, as_list, tokenizer="whitespace").scores.shape == (2,)


def test_a_series_index_message_names_the_first_label_that_differs():
    # NaN labels match NaN labels: the first difference is at position 2 (2 vs 3), and
    # labels print as written, not as np.float64(2.0)
    pd = pytest.importorskip("pandas")
    cands = pd.Series(["a dog", "a cat", "a bus"], index=[np.nan, 1, 2])
    refs = pd.Series([["a dog"], ["a cat"], ["a bus"]], index=[np.nan, 1, 3])
    with pytest.raises(ValueError, match=r"differ at position 2: label 2\.0 vs 3\.0\)"):
        sparsecider.cider_d(cands, refs, tokenizer="whitespace")


@pytest.mark.parametrize("face", ["cider_d", "cider_d_ids", "stream", "vectorizer", "reward"])
def test_sigma_none_is_a_type_error_not_plain_cider(face):
    import sparsecider.stream

    calls = {
        "cider_d": lambda: sparsecider.cider_d(["a b"], [["a b"]], sigma=None),
        "cider_d_ids": lambda: sparsecider.cider_d_ids(
            np.array([[1, 2, 0]]), [[np.array([1, 2, 0])]], sigma=None, df="corpus", eos=0
        ),
        "stream": lambda: sparsecider.stream.cider_d(
            [{"id": 1, "candidate": "a", "references": ["a"]}], sigma=None
        ),
        "vectorizer": lambda: (
            CiderVectorizer(sigma=None).fit([["a b"]]).similarity(["a b"], [["a b"]])
        ),
        "reward": lambda: sparsecider.RewardScorer.from_texts([["a b"]], sigma=None, df="corpus"),
    }
    with pytest.raises(TypeError, match=r"sigma must be a number .* got None; for plain CIDEr"):
        calls[face]()


def test_rouge_beta_has_a_documented_range():
    from sparsecider.core.validate import BETA_RANGE

    assert BETA_RANGE == (1e-150, 1e150)
    with pytest.raises(ValueError, match=r"beta must lie in \[1e-150, 1e\+150\]"):
        sparsecider.rouge_l(["a b"], [["a b"]], beta=1e200)


def test_a_5000_digit_id_names_the_file_and_line(tmp_path, capsys):
    big = "7" * 5000
    (tmp_path / "c.jsonl").write_text(f'{{"id": 1, "candidate": "a"}}\n{{"id": {big}}}\n')
    (tmp_path / "r.json").write_text(f'{{"images": [{{"id": {big}}}], "annotations": []}}')
    argv = ["score", "-r", str(tmp_path / "r.json"), "-c", str(tmp_path / "c.jsonl")]
    assert main(argv) == 1
    assert "r.json: a number of 5000 digits (Python reads at most 4,300)" in (
        capsys.readouterr().err
    )
    (tmp_path / "r.txt").write_text("a\nb\n")
    assert main(["score", "-r", str(tmp_path / "r.txt"), "-c", str(tmp_path / "c.jsonl")]) == 1
    assert "c.jsonl:2: a number of 5000 digits" in capsys.readouterr().err


def test_a_closed_stdout_is_an_error(tmp_path):
    (tmp_path / "r.txt").write_text("a dog\na cat\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m sparsecider score -r r.txt -c r.txt >&-'],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 1
    assert "standard output is closed" in done.stderr


def test_a_closed_stdout_is_no_error_when_the_results_go_to_a_file(tmp_path):
    # df fit writes its table to -o; standard output only carries a summary line
    (tmp_path / "r.txt").write_text("a dog\na cat\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m sparsecider df fit r.txt -o out.df.npz '
                       "--tokenizer whitespace >&-"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sparsecider.DocumentFrequencies.load(tmp_path / "out.df.npz").n_images == 2


def test_a_one_line_json_lines_file_is_not_taken_for_coco(tmp_path, capsys):
    (tmp_path / "c.jsonl").write_text('{"id":0,"candidate":"a dog"}\n')
    (tmp_path / "r.jsonl").write_text('{"id":0,"references":["a dog","the dog"]}\n')
    argv = ["score", "-r", str(tmp_path / "r.jsonl"), "-c", str(tmp_path / "c.jsonl"),
            "--df", "coco-val2014", "--format", "json"]  # fmt: skip
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["n_images"] == 1
