"""Loaders for the real caption data in ``../shared/data`` (beside the repository).

Used by the benchmarks and by the parity tests.  Each loader returns plain
Python lists/dicts in the layout that both sparsecider and pycocoevalcap
accept.  ``DATA`` may be overridden with the ``SPARSECIDER_DATA`` environment
variable; :func:`available` tells whether the folder is there.
"""

from __future__ import annotations

import gzip
import json
import math
import os
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("SPARSECIDER_DATA", ROOT.parent / "shared" / "data"))
FIXTURES = ROOT / "tests" / "fixtures"
#: A copy of ``coco/`` kept in the repository (CC BY 4.0; see NOTICE), so a
#: fresh clone runs the COCO parity tests without ``../shared``.
VENDORED_COCO = ROOT / "tests" / "data" / "coco"
#: Copies of ``pascal50s/`` and ``abstract50s/`` (the CIDEr authors' release,
#: BSD-2-Clause; see NOTICE), so a fresh clone runs the paper's own data sets.
VENDORED = ROOT / "tests" / "data"


def coco_dir() -> Path:
    """The COCO folder: the shared data's, or the repository's copy."""
    shared = DATA / "coco"
    return (
        shared
        if (shared / "captions_val2014_reconstructed.ptb.json.gz").is_file()
        else VENDORED_COCO
    )


def data_dir(folder: str) -> Path:
    """A folder of the data: the shared data's, or the repository's copy
    (``coco``, ``pascal50s``, ``abstract50s``)."""
    shared = DATA / folder
    return shared if shared.is_dir() else VENDORED / folder


def fifty_s_available() -> bool:
    return all((data_dir(f) / n).is_file() for f, n in _FIFTY_S_FILES)


_FIFTY_S_FILES = [
    ("pascal50s", "pascal50S.ptb.json.gz"),
    ("abstract50s", "abstract48S.ptb.json.gz"),
]


def coco_available() -> bool:
    return (coco_dir() / "captions_val2014_reconstructed.ptb.json.gz").is_file()


def available() -> bool:
    """Whether the whole shared data folder is there (not only COCO)."""
    return (DATA / "flickr8k" / "Flickr8k.token.ptb.json.gz").is_file()


def _json(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


@cache
def coco_val() -> tuple[dict[int, str], dict[int, list[str]]]:
    """COCO val 2014 (40,504 images x 5 references), reference-tokenized.

    References: the shared ``.ptb.json.gz`` file.  Candidates: the
    random-submission file (one human caption per image, from another image),
    tokenized by the reference pipeline (``tests/fixtures``).  Both dicts are
    in the annotation file's image order.
    """
    ann = _json(coco_dir() / "captions_val2014_reconstructed.json.gz")
    ptb = _json(coco_dir() / "captions_val2014_reconstructed.ptb.json.gz")
    refs: dict[int, list[str]] = {img["id"]: [] for img in ann["images"]}
    for a in ann["annotations"]:
        refs[a["image_id"]].append(ptb[str(a["id"])])
    cand = _json(FIXTURES / "coco_random_submission.ptb.json.gz")
    return {i: cand[str(i)] for i in refs}, refs


def coco_val_raw() -> tuple[dict[int, str], dict[int, list[str]]]:
    """COCO val 2014 as raw (untokenized) text, same layout as :func:`coco_val`."""
    ann = _json(coco_dir() / "captions_val2014_reconstructed.json.gz")
    refs: dict[int, list[str]] = {img["id"]: [] for img in ann["images"]}
    for a in ann["annotations"]:
        refs[a["image_id"]].append(a["caption"])
    sub = {
        r["image_id"]: r["caption"]
        for r in _json(coco_dir() / "captions_val2014_random_submission.json.gz")
    }
    return {i: sub[i] for i in refs}, refs


def coco_fakecap() -> tuple[dict[str, str], dict[str, list[str]]]:
    """The coco-caption demo's 1,000-image results, tokenized as its demo does."""
    f = _json(FIXTURES / "coco_fakecap.ptb.json.gz")
    return f["candidates"], f["references"]


@cache
def _flickr_tokens() -> dict[str, str]:
    """Flickr8K caption text (whitespace-normalised) -> reference tokenizer output."""
    tok = _json(DATA / "flickr8k" / "Flickr8k.token.ptb.json.gz")
    out: dict[str, str] = {}
    with open(DATA / "flickr8k" / "Flickr8k.token.txt", encoding="utf-8") as f:
        for line in f:
            key, caption = line.rstrip("\n").split("\t")
            text = " ".join(caption.split())
            if out.setdefault(text, tok[key]) != tok[key]:
                raise ValueError(f"caption {text!r} tokenizes two ways")
    return out


def flickr8k(kind: str, raw: bool = False) -> tuple[list[str], list[list[str]], list[float]]:
    """Flickr8K human-judgment rows: (candidates, references, human scores).

    ``kind="expert"``: 16,992 rows (5,664 pairs x 3 experts), dropping rows
    whose candidate is one of the image's own references.
    ``kind="crowdflower"``: 47,830 rows (the file's references already
    exclude the image's own candidate).  Each row is its own document, as in
    the public correlation scripts; captions are reference-tokenized, or the
    raw text (whitespace-normalised, as those scripts do) with ``raw=True``.
    """
    fname = {"expert": "flickr8k.json.gz", "crowdflower": "crowdflower_flickr8k.json.gz"}[kind]
    tok = {} if raw else _flickr_tokens()
    cands: list[str] = []
    refs: list[list[str]] = []
    human: list[float] = []
    for entry in _json(DATA / "flickr8k" / fname).values():
        gt = [" ".join(g.split()) for g in entry["ground_truth"]]
        for row in entry["human_judgement"]:
            if math.isnan(row["rating"]):
                continue
            cand = " ".join(row["caption"].split())
            if kind == "expert" and cand in gt:
                continue
            cands.append(cand if raw else tok[cand])
            refs.append(gt if raw else [tok[g] for g in gt])
            human.append(row["rating"])
    return cands, refs, human


def fifty_s(name: str) -> tuple[list[str], list[list[str]], list[str]]:
    """PASCAL-50S (``"pascal"``) or ABSTRACT-50S (``"abstract"``), tokenized.

    Returns one row per candidate entry of candidate files B and C (so images
    repeat): candidates, that image's references, and the image ids.
    """
    folder, refs_file, prefix = {
        "pascal": ("pascal50s", "pascal50S", "pascal_cands"),
        "abstract": ("abstract50s", "abstract48S", "abstract_cands"),
    }[name]
    by_image: dict[str, list[str]] = {}
    for row in _json(data_dir(folder) / f"{refs_file}.ptb.json.gz"):
        by_image.setdefault(row["image_id"], []).append(row["caption"])
    cands, refs, ids = [], [], []
    for part in "BC":
        for row in _json(data_dir(folder) / f"{prefix}{part}.ptb.json"):
            cands.append(row["caption"])
            refs.append(by_image[row["image_id"]])
            ids.append(row["image_id"])
    return cands, refs, ids


def ptb_ground_truth() -> dict[str, tuple[list[str], list[str]]]:
    """Raw captions and the reference tokenizer's output for them, per data set.

    Each list is in file order, the order in which the reference pipeline
    tokenized it as one sequence.
    """
    sets: dict[str, tuple[list[str], list[str]]] = {}
    ann = _json(coco_dir() / "captions_val2014_reconstructed.json.gz")
    ptb = _json(coco_dir() / "captions_val2014_reconstructed.ptb.json.gz")
    sets["coco_val"] = (
        [a["caption"] for a in ann["annotations"]],
        [ptb[str(a["id"])] for a in ann["annotations"]],
    )
    tok = _json(DATA / "flickr8k" / "Flickr8k.token.ptb.json.gz")
    with open(DATA / "flickr8k" / "Flickr8k.token.txt", encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f]
    sets["flickr8k"] = ([c for _, c in rows], [tok[k] for k, _ in rows])
    for name, raw, tokenized in [
        ("pascal50s", "pascal50s/pascal50S.json.gz", "pascal50s/pascal50S.ptb.json.gz"),
        ("pascal_candsB", "pascal50s/pascal_candsB.json", "pascal50s/pascal_candsB.ptb.json"),
        ("pascal_candsC", "pascal50s/pascal_candsC.json", "pascal50s/pascal_candsC.ptb.json"),
        ("abstract48s", "abstract50s/abstract48S.json.gz", "abstract50s/abstract48S.ptb.json.gz"),
        (
            "abstract_candsB",
            "abstract50s/abstract_candsB.json",
            "abstract50s/abstract_candsB.ptb.json",
        ),
        (
            "abstract_candsC",
            "abstract50s/abstract_candsC.json",
            "abstract50s/abstract_candsC.ptb.json",
        ),
    ]:
        x, y = _json(DATA / raw), _json(DATA / tokenized)
        sets[name] = ([r["caption"] for r in x], [r["caption"] for r in y])
    for name in ("clipscore", "pacscore"):
        folder = DATA / "examples" / name
        want = _json(folder / "examples.ptb.json")
        refs = _json(folder / "refs.json")
        sets[f"examples_{name}_refs"] = (
            [c for v in refs.values() for c in v],
            [c for v in want["refs"].values() for c in v],
        )
        for part in ("good", "bad"):
            raw = _json(folder / f"{part}_captions.json")
            sets[f"examples_{name}_{part}"] = (list(raw.values()), list(want[part].values()))
    return sets
