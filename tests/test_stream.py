# ruff: noqa: E501  (the table of bad records reads best one per line)
"""Chunked (streaming) scoring and n_jobs: equal, bit for bit, to the in-memory path.

The in-memory path is itself checked against pycocoevalcap in
test_reference_parity; here the expected values are its results on the same
records.  Equality is exact (``np.array_equal``), not approximate: columns
follow key order in every chunk, so every sum adds the same terms in the
same order.
"""

from __future__ import annotations

import gzip
import itertools
import json
import random

import numpy as np
import pytest

import sparsecider
from sparsecider import stream
from sparsecider.tokenizers import tokenize, tokenize_slice
from sparsecider.tokenizers.ptb import ptb_tokenize

WORDS = "a an the dog cat man woman bus red blue runs sits on in with of park street".split()


def random_records(n_images: int, seed: int = 0, multi: bool = False) -> list[dict]:
    rng = random.Random(seed)

    def caption() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 9)))

    records = []
    for i in range(n_images):
        cand: str | list[str] = caption()
        if multi and i % 3 == 0:
            cand = [caption() for _ in range(rng.randint(1, 3))]
        records.append(
            {"id": f"img{i}", "candidate": cand, "references": [caption() + " x"]
             + [caption() for _ in range(rng.randint(0, 4))]}
        )  # fmt: skip
    return records


def in_memory(records, metric=sparsecider.cider_d, **kw):
    """The in-memory result, in one thread unless ``n_jobs`` says otherwise."""
    kw.setdefault("n_jobs", 1)
    return metric(
        {r["id"]: r["candidate"] for r in records},
        {r["id"]: r["references"] for r in records},
        **kw,
    )


def assert_same(a: sparsecider.CiderResult, b: sparsecider.CiderResult) -> None:
    assert np.array_equal(a.scores, b.scores)
    assert np.array_equal(a.per_order, b.per_order)
    assert np.array_equal(a.image_index, b.image_index)
    assert a.score == b.score
    assert a.signature == b.signature
    assert a.ids == b.ids
    assert a.n_images == b.n_images


@pytest.mark.parametrize("chunk_size", [1, 7, 64, 10_000])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_chunked_equals_in_memory(chunk_size, n_jobs):
    records = random_records(150, seed=chunk_size, multi=True)
    whole = in_memory(records, tokenizer="whitespace")
    chunked = stream.cider_d(records, tokenizer="whitespace", chunk_size=chunk_size, n_jobs=n_jobs)
    assert_same(chunked, whole)


def test_plain_cider_and_options_chunked():
    records = random_records(60, seed=3)
    kw = dict(tokenizer="whitespace", n=3, scale=1.0)
    assert_same(
        stream.cider(records, chunk_size=9, **kw), in_memory(records, sparsecider.cider, **kw)
    )
    kw = dict(tokenizer="whitespace", n=2, sigma=2.5)
    assert_same(stream.cider_d(records, chunk_size=9, **kw), in_memory(records, **kw))


def test_precomputed_df_one_pass_over_an_iterator():
    records = random_records(80, seed=5)
    df = sparsecider.DocumentFrequencies.from_references(
        [r["references"] for r in random_records(200, seed=6)], tokenizer="whitespace"
    )
    got = stream.cider_d(iter(records), df=df, tokenizer="whitespace", chunk_size=11)
    assert_same(got, in_memory(records, df=df, tokenizer="whitespace"))


def test_fit_df_equals_from_references():
    records = random_records(333, seed=8)
    expected = sparsecider.DocumentFrequencies.from_references(
        [r["references"] for r in records], tokenizer="whitespace", n=3
    )
    for chunk_size, n_jobs in [(1, 1), (10, 2), (1000, 1)]:
        got = stream.fit_df(
            records, n=3, tokenizer="whitespace", chunk_size=chunk_size, n_jobs=n_jobs
        )
        assert got == expected


def test_sources_paths_gzip_and_callables(tmp_path):
    records = random_records(40, seed=9)
    lines = [json.dumps(r) for r in records]
    plain = tmp_path / "a.jsonl"
    plain.write_text("\n".join(lines[:25]) + "\n\n", encoding="utf-8")  # a blank line is fine
    packed = tmp_path / "b.jsonl.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines[25:]) + "\n")
    whole = in_memory(records, tokenizer="whitespace")
    assert_same(stream.cider_d([plain, str(packed)], tokenizer="whitespace", chunk_size=6), whole)
    assert_same(stream.cider_d(lambda: iter(records), tokenizer="whitespace", chunk_size=6), whole)
    one = tmp_path / "one.jsonl"
    one.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert_same(stream.cider_d(one, tokenizer="whitespace"), whole)


def test_output_file(tmp_path):
    records = random_records(30, seed=10, multi=True)
    out = tmp_path / "scores.jsonl"
    result = stream.cider_d(records, tokenizer="whitespace", chunk_size=4, output=out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["id"] for row in rows] == [r["id"] for r in records]
    flat = []
    for row, rec in zip(rows, records, strict=True):
        if isinstance(rec["candidate"], str):
            assert set(row) == {"id", "score"}
            flat.append(row["score"])
        else:
            assert len(row["scores"]) == len(rec["candidate"])
            flat.extend(row["scores"])
    assert np.array_equal(np.array(flat), result.scores)  # JSON floats round-trip exactly


def test_error_leaves_no_partial_output(tmp_path):
    records = random_records(30, seed=11)
    records[25]["references"] = []  # fails in the second chunk
    out = tmp_path / "scores.jsonl"
    df = sparsecider.DocumentFrequencies.from_references([["a dog"]], tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"records\[25\] \(id 'img25'\): 'references' is empty"):
        stream.cider_d(records, df=df, tokenizer="whitespace", chunk_size=5, output=out)
    assert list(tmp_path.iterdir()) == []


# ---- PTB tokenization across chunk boundaries ---------------------------------------


def test_tokenize_slice_reads_ahead_like_the_whole_sequence():
    # tests/SPEC.md, section 4: "A sign that reads K." followed by "A dog runs." gives
    # "a sign that reads k", but alone (or before "a dog runs.") "a sign that reads k."
    assert ptb_tokenize(["A sign that reads K.", "A dog runs."])[0] == "a sign that reads k"
    assert ptb_tokenize(["A sign that reads K."]) == ["a sign that reads k."]
    alone = tokenize(["a sign that reads k."], "whitespace")
    joined = tokenize(["a sign that reads k"], "whitespace")
    sliced = tokenize_slice(["A sign that reads K."], "ptb", ["A dog runs.", "More."])
    assert np.array_equal(sliced.hashes, joined.hashes)
    assert np.array_equal(tokenize_slice(["A sign that reads K."], "ptb", []).hashes, alone.hashes)
    # blank captions in between do not stop the lexer from looking further
    sliced = tokenize_slice(["A sign that reads K."], "ptb", iter(["", "  ", "A dog runs."]))
    assert np.array_equal(sliced.hashes, joined.hashes)


def test_ptb_chunk_boundaries_on_adversarial_captions():
    from pathlib import Path

    fixture = Path(__file__).parent / "fixtures" / "ptb_adversarial.json"
    captions = [row["caption"] for row in json.loads(fixture.read_text(encoding="utf-8"))]
    captions += ["A sign that reads K.", "A dog runs.", "They're", "they're"]
    whole = tokenize(captions, "ptb")
    ends = np.concatenate(([0], np.cumsum(whole.lengths)))
    rng = np.random.default_rng(0)
    cuts = np.unique(np.concatenate(([0, len(captions)], rng.integers(0, len(captions), 200))))
    cuts = np.union1d(cuts, [len(captions) - 3, len(captions) - 2])  # around "reads K."
    for a, b in itertools.pairwise(cuts):
        got = tokenize_slice(captions[a:b], "ptb", iter(captions[b:]))
        assert np.array_equal(got.lengths, whole.lengths[a:b]), (a, b)
        assert np.array_equal(got.hashes, whole.hashes[ends[a] : ends[b]]), (a, b)


def test_ptb_chunked_scores_equal_in_memory():
    records = [
        {"id": 1, "candidate": "A sign that reads K.", "references": ["A sign that reads K."]},
        {"id": 2, "candidate": "A dog runs.", "references": ["A dog runs.", "A dog, running!"]},
        {"id": 3, "candidate": "A sign that reads K.", "references": ["A sign reading K."]},
        {"id": 4, "candidate": "a dog runs.", "references": ["They're running."]},
    ]
    whole = in_memory(records)
    for size in (1, 2, 3):
        assert_same(stream.cider_d(records, chunk_size=size), whole)


def test_n_jobs_in_memory_is_bit_identical():
    records = random_records(6000, seed=12, multi=True)
    for kw in [dict(tokenizer="whitespace"), dict(tokenizer="ptb", n=2)]:
        serial = in_memory(records, **kw)
        assert_same(in_memory(records, n_jobs=2, **kw), serial)
        assert_same(in_memory(records, n_jobs=3, **kw), serial)
    df = sparsecider.DocumentFrequencies.from_references(
        [r["references"] for r in records[:100]], tokenizer="whitespace"
    )
    kw = dict(tokenizer="whitespace", df=df)
    assert_same(in_memory(records, n_jobs=2, **kw), in_memory(records, **kw))
    kw = dict(tokenizer="whitespace")
    assert_same(in_memory(records, sparsecider.cider, n_jobs=-1, **kw),
                in_memory(records, sparsecider.cider, **kw))  # fmt: skip


@pytest.mark.realdata
def test_coco_val_chunked_and_threaded(coco_data):
    cands, refs = coco_data.coco_val()
    ids = list(refs)[:12000]
    records = [{"id": i, "candidate": cands[i], "references": refs[i]} for i in ids]
    whole = in_memory(records, tokenizer="whitespace")
    assert_same(in_memory(records, tokenizer="whitespace", n_jobs=2), whole)
    assert_same(stream.cider_d(records, tokenizer="whitespace", chunk_size=2500, n_jobs=2), whole)


@pytest.mark.realdata
def test_coco_raw_text_chunked_ptb(coco_data):
    cands, refs = coco_data.coco_val_raw()
    ids = list(refs)[:3000]
    records = [{"id": i, "candidate": cands[i], "references": refs[i]} for i in ids]
    whole = in_memory(records)
    assert_same(stream.cider_d(records, chunk_size=700, n_jobs=2), whole)


# ---- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "error", "message"),
    [
        ("a dog", TypeError, r"records\[1\]: a record must be a dict"),
        ({"id": 1, "candidate": "a"}, ValueError, r"records\[1\]: the record has no 'references'"),
        ({"candidate": "a", "references": ["b"]}, ValueError, r"records\[1\]: the record has no 'id'"),
        ({"id": [1], "candidate": "a", "references": ["b"]}, TypeError, r"'id' must be a string or an integer"),
        ({"id": 5, "candidate": 3, "references": ["b"]}, TypeError, r"records\[1\] \(id 5\): 'candidate' must be"),
        ({"id": 5, "candidate": "a", "references": "b"}, TypeError, r"\(id 5\): 'references' is a string"),
        ({"id": 5, "candidate": [], "references": ["b"]}, ValueError, r"\(id 5\): 'candidate' is an empty list"),
        ({"id": 5, "candidate": "a", "references": ["b", None]}, TypeError, r"'references'\[1\] must be a string"),
        ({"id": 0, "candidate": "a", "references": ["b"]}, ValueError, r"duplicate id 0"),
    ],
)  # fmt: skip
def test_bad_records_are_named(record, error, message):
    records = [{"id": 0, "candidate": "a dog", "references": ["a dog"]}, record]
    with pytest.raises(error, match=message):
        stream.cider_d(records, tokenizer="whitespace")


def test_bad_files_are_named(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": 1, "candidate": "a", "references": ["a"]}\n{"id": 2,\n')
    with pytest.raises(ValueError, match=r"r\.jsonl:2: malformed JSON"):
        stream.cider_d(path)
    path.write_text('{"id": 1, "candidate": "a", "references": ["a"]}\n[1, 2]\n')
    with pytest.raises(ValueError, match=r"r\.jsonl:2: expected a JSON object"):
        stream.cider_d(path)
    path.write_bytes(b'{"id": 1, "candidate": "a", "references": ["a"]}\n{"id": "\xff"}\n')
    with pytest.raises(ValueError, match=r"r\.jsonl:2: not UTF-8"):
        stream.cider_d(path)
    with pytest.raises(ValueError, match=r"nope\.jsonl: no such file"):
        stream.cider_d(tmp_path / "nope.jsonl")


def test_line_separators_inside_a_caption_stay_in_it(tmp_path):
    records = [
        {"id": 1, "candidate": "a dog\u2028runs", "references": ["a dog runs", "a cat"]},
        {"id": 2, "candidate": "a cat", "references": ["a cat\rsits"]},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    got = stream.cider_d(path, chunk_size=1)
    assert got.ids == (1, 2)
    assert_same(got, in_memory(records))


def test_usage_errors():
    records = random_records(5)
    with pytest.raises(TypeError, match="one-shot iterator"):
        stream.cider_d(iter(records))
    with pytest.raises(ValueError, match="records is empty"):
        stream.cider_d([], tokenizer="whitespace")
    with pytest.raises(ValueError, match="records is empty"):
        stream.fit_df(lambda: iter(()))
    with pytest.raises(TypeError, match="not a single dict"):
        stream.cider_d({"id": 1, "candidate": "a", "references": ["a"]})
    with pytest.raises(ValueError, match="chunk_size must be >= 1"):
        stream.cider_d(records, chunk_size=0)
    with pytest.raises(ValueError, match="n_jobs must be a non-zero integer"):
        stream.cider_d(records, n_jobs=0)
    with pytest.raises(ValueError, match="n_jobs must be a non-zero integer"):
        sparsecider.cider_d(["a"], [["a"]], n_jobs=1.5)
    with pytest.raises(ValueError, match="every reference is empty"):
        stream.cider_d([{"id": 1, "candidate": "a", "references": [" "]},
                        {"id": 2, "candidate": "a", "references": [""]}])  # fmt: skip


def test_cli_stream(tmp_path, capsys):
    from sparsecider import cli

    records = random_records(50, seed=13, multi=True)
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    out = tmp_path / "scores.jsonl"
    argv = ["stream", str(path), "-o", str(out), "--tokenizer", "whitespace", "--chunk-size", "8"]
    assert cli.main([*argv, "--n-jobs", "2"]) == 0
    summary = json.loads(capsys.readouterr().out)
    whole = in_memory(records, tokenizer="whitespace")
    assert summary["score"] == whole.score and summary["signature"] == whole.signature
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["id"] for row in rows] == [r["id"] for r in records]
    # fit once, then score against the saved file
    df_path = tmp_path / "df.npz"
    assert cli.main([*argv[:2], "-o", str(df_path), "--tokenizer", "whitespace", "--fit-only"]) == 0
    capsys.readouterr()
    assert cli.main([*argv, "--df", str(df_path)]) == 0
    fitted = sparsecider.DocumentFrequencies.load(df_path)
    summary = json.loads(capsys.readouterr().out)
    assert summary["score"] == in_memory(records, tokenizer="whitespace", df=fitted).score
    # a bad record: exit status 1 and the line named
    path.write_text(json.dumps(records[0]) + '\n{"id": 2, "candidate": "a"}\n')
    assert cli.main(argv) == 1
    assert "records.jsonl:2: the record has no 'references'" in capsys.readouterr().err
