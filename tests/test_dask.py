"""The Dask backend on a distributed.LocalCluster with worker processes.

Worker processes make every task argument and result go through pickle, as
on a real cluster.  Expected values: the single-machine sparsecider results
on the same records (themselves checked against pycocoevalcap in
test_reference_parity).  Per-image scores must be bit-identical; the corpus
mean, summed per partition, within 1e-12.
"""

from __future__ import annotations

import gzip
import json

import dask
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import sparsecider
import sparsecider.dask as sdask
from tests.test_stream import in_memory, random_records


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        silence_logs=40,
    )  # fmt: skip
    with Client(cluster) as c:
        yield c
    cluster.close()


def check(result: sparsecider.CiderResult, records: list[dict], **kw) -> None:
    single = in_memory(records, **kw)
    # the mean is now reduced on the client from the same per-order values:
    # bit-identical, not only within 1e-12
    assert result.score == single.score
    assert result.signature == single.signature
    assert result.n_images == len(records)
    assert result.n_candidates == single.n_candidates
    assert result.n_empty_candidates == single.n_empty_candidates
    assert list(result.ids) == [r["id"] for r in records]
    # each record's candidates, in order, under its image
    n_cands = [1 if isinstance(r["candidate"], str) else len(r["candidate"]) for r in records]
    assert result.image_index.tolist() == np.repeat(np.arange(len(records)), n_cands).tolist()
    assert np.array_equal(result.scores, single.scores)
    assert np.array_equal(result.per_order, single.per_order)


def test_bag_with_several_partitions(client):
    records = random_records(400, seed=21, multi=True)
    bag = db.from_sequence(records, npartitions=7)
    check(sdask.cider_d(bag, tokenizer="whitespace"), records, tokenizer="whitespace")
    check(sdask.cider(bag, tokenizer="whitespace", n=3), records, metric=sparsecider.cider,
          tokenizer="whitespace", n=3)  # fmt: skip
    df = sdask.fit_df(bag, tokenizer="whitespace", split_every=2)
    assert df == sparsecider.DocumentFrequencies.from_references(
        [r["references"] for r in records], tokenizer="whitespace"
    )


def test_ptb_across_partition_boundaries(client):
    # "reads K." keeps its period unless the next caption starts with a capital
    # (tests/SPEC.md, section 4): the next caption lives in the next partition here
    records = random_records(12, seed=22)
    for i in (2, 5, 8):
        records[i]["references"][-1] = "A sign that reads K."
        records[i]["candidate"] = "A sign that reads K."
        records[i + 1]["references"][0] = "A dog runs."
        records[i + 1]["candidate"] = "A dog runs."
    records[11]["references"][-1] = "they're"
    # the same two captions inside a partition: "k" there either way, so the
    # document frequency of "k" is wrong if a boundary is tokenized wrongly
    records[1]["references"] += ["A sign that reads K.", "A dog runs."]
    records[1]["candidate"] = "A sign that reads K"
    bag = db.from_sequence(records, partition_size=3)
    assert bag.npartitions == 4
    check(sdask.cider_d(bag), records)


def test_empty_partitions_and_precomputed_df(client):
    records = random_records(50, seed=23)
    bag = db.from_sequence(records, npartitions=5).filter(lambda r: not r["id"].endswith("3"))
    kept = [r for r in records if not r["id"].endswith("3")]
    df = sparsecider.DocumentFrequencies.from_references(
        [r["references"] for r in random_records(300, seed=24)], tokenizer="whitespace"
    )
    result = sdask.cider_d(bag, df=df, tokenizer="whitespace")
    assert result.df is df
    check(result, kept, df=df, tokenizer="whitespace")


def test_dataframe_input(client):
    records = random_records(90, seed=25)
    # by default Dask turns object columns (lists of references) into strings
    frame = dd.from_pandas(pd.DataFrame(records), npartitions=4)
    # refused on the client before anything is computed (not inside distributed's
    # "Compute Failed" tracebacks): dask.compute is never called
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dask, "compute", lambda *a, **k: pytest.fail("a task was submitted"))
        with pytest.raises(TypeError, match=r"'references' column has dtype .*convert-string"):
            sdask.cider_d(frame, tokenizer="whitespace")
    with dask.config.set({"dataframe.convert-string": False}):
        frame = dd.from_pandas(pd.DataFrame(records), npartitions=4)
    result = sdask.cider_d(frame, tokenizer="whitespace")
    check(result, records, tokenizer="whitespace")
    out = result.to_pandas()
    assert out["id"].tolist() == [r["id"] for r in records]


def test_jsonl_paths(client, tmp_path):
    records = random_records(60, seed=26, multi=True)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz"
    a.write_text("\n".join(json.dumps(r) for r in records[:35]) + "\n")
    with gzip.open(b, "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in records[35:]) + "\n")
    check(sdask.cider_d([str(a), b]), records)


@pytest.mark.realdata
def test_coco_val_subset(client, coco_data):
    cands, refs = coco_data.coco_val_raw()
    ids = list(refs)[:4000]
    records = [{"id": i, "candidate": cands[i], "references": refs[i]} for i in ids]
    check(sdask.cider_d(db.from_sequence(records, npartitions=6)), records)


def test_errors_name_partition_and_id(client):
    records = random_records(20, seed=27)
    records[13]["references"] = []
    with pytest.raises(
        ValueError, match=r"partition 2, record 3 \(id 'img13'\): 'references' is empty"
    ):
        sdask.cider_d(db.from_sequence(records, partition_size=5), tokenizer="whitespace")
    frame = dd.from_pandas(pd.DataFrame({"id": [1], "candidate": ["a"]}), npartitions=1)
    with pytest.raises(ValueError, match=r"no column\(s\) \['references'\]"):
        sdask.cider_d(frame)
    with pytest.raises(TypeError, match=r"records must be a dask\.bag"):
        sdask.cider_d(records)
    with pytest.raises(ValueError, match="records is empty"):
        sdask.cider_d(db.from_sequence([], npartitions=1), tokenizer="whitespace")
    with pytest.raises(ValueError, match="split_every must be >= 2"):
        sdask.cider_d(db.from_sequence(records), split_every=1)
