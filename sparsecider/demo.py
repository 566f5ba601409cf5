"""The bundled example: the coco-caption demo's 1,000 COCO val 2014 images.

COCO annotations are CC BY 4.0 (Lin et al. 2014, "Microsoft COCO: Common
Objects in Context").  The file holds raw captions and the reference
tokenizer's output for them (PTBTokenizer of pycocoevalcap 1.2).
:func:`write_examples` (``sparsecider demo --write DIR``) writes them as the
files the command line reads, so that every command of the README runs.

Examples
--------
>>> PUBLISHED_CIDER_D
0.5997905185184199
>>> round(PUBLISHED_CIDER_D, 3)  # as the demo notebook prints it
0.6
"""

from __future__ import annotations

import gzip
import json
import os
from importlib import resources
from pathlib import Path

from ._demo_cjk import coco_files
from .io.text import open_output

__all__ = ["EXAMPLE_FILES", "PUBLISHED_CIDER_D", "load_demo", "write_examples"]

#: CIDEr printed by coco-caption's demo notebook (0.600), full precision.
PUBLISHED_CIDER_D = 0.5997905185184199


def load_demo(tokenized: bool = True) -> tuple[list[int], list[str], list[list[str]]]:
    """Return ``(image_ids, candidates, references)`` of the bundled demo.

    Parameters
    ----------
    tokenized : bool, default True
        Captions as output by the reference tokenizer (score them with
        ``tokenizer="whitespace"``), or the raw text.

    Returns
    -------
    image_ids : list of int
        The 1,000 COCO image ids, in the demo's order.
    candidates : list of str
        One candidate caption per image.
    references : list of list of str
        The reference captions of each image.

    Examples
    --------
    >>> import sparsecider
    >>> from sparsecider.demo import load_demo
    >>> ids, cands, refs = load_demo(tokenized=False)
    >>> len(ids), len(refs[0])
    (1000, 5)
    >>> sparsecider.cider_d(cands, refs).score  # raw text, tokenized as the reference does
    0.5997905185184199

    The tokenized captions give the same score with the whitespace tokenizer:

    >>> ids, cands, refs = load_demo()
    >>> sparsecider.cider_d(cands, refs, tokenizer="whitespace").score == PUBLISHED_CIDER_D
    True
    """
    path = resources.files("sparsecider") / "data" / "coco_fakecap_demo.json.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        data = json.load(f)
    suffix = "_ptb" if tokenized else ""
    return data["image_ids"], data["candidates" + suffix], data["references" + suffix]


#: The files :func:`write_examples` writes, and what each holds.
EXAMPLE_FILES = {
    "captions_val2014_demo.json": "COCO annotations: the references of the 1,000 demo images "
    "(a subset of COCO val 2014's captions_val2014.json; scores are the same with either)",
    "captions_val2014_fakecap_results.json": "COCO results: the demo's one caption per image "
    "(coco-caption's fakecap results)",
    "captions_demo.jsonl": 'JSON lines, one record per image: {"id", "candidate", "references"}',
    "nbest_demo.json": "COCO results with three rows per image: the demo's caption, then the "
    "captions of two other images (distractors): several candidates per image",
    "captions_zh_demo.json": "COCO annotations of 120 generated Chinese scenes (3 to 6 "
    "references each)",
    "results_zh_demo.json": "COCO results: one generated Chinese caption per scene",
}


def write_examples(directory: str | os.PathLike) -> list[Path]:
    """Write the example files of :data:`EXAMPLE_FILES` into ``directory``.

    The folder is created if needed; no file is overwritten (if one exists,
    nothing is written).  Each file is complete or absent
    (:func:`sparsecider.io.text.open_output`).

    Returns
    -------
    list of Path
        The files written, in the order of :data:`EXAMPLE_FILES`.

    Raises
    ------
    FileExistsError
        One of the files exists already; it names them.
    NotADirectoryError
        ``directory`` is a file.
    ValueError
        ``directory`` is empty (an unset shell variable): the working folder
        is written to only when named, as ``"."``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in write_examples(tmp)][:2]
    ['captions_val2014_demo.json', 'captions_val2014_fakecap_results.json']
    """
    if not str(directory).strip():
        raise ValueError(
            "the folder to write the example files to is empty (an unset variable, such as "
            '"$DIR"?); name it, or "." for the working folder'
        )
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(
            f"{folder} is a file, not a folder: give a folder to write the example files to "
            "(it is created if needed)"
        )
    paths = [folder / name for name in EXAMPLE_FILES]
    existing = [p.name for p in paths if p.exists()]
    if existing:
        raise FileExistsError(
            f"{len(existing)} of the example files exist already in {folder} "
            f"({', '.join(existing)}); write them to another folder, or remove those"
        )
    folder.mkdir(parents=True, exist_ok=True)
    ids, candidates, references = load_demo(tokenized=False)
    annotations = _coco_annotations(ids, references)
    results = [{"image_id": i, "caption": c} for i, c in zip(ids, candidates, strict=True)]
    records = [
        {"id": i, "candidate": c, "references": r}
        for i, c, r in zip(ids, candidates, references, strict=True)
    ]
    # a 3-best list: the image's caption, then two captions of other images
    nbest = [
        {"image_id": i, "caption": candidates[(k + shift) % len(ids)]}
        for k, i in enumerate(ids)
        for shift in (0, 1, 500)
    ]
    zh_annotations, zh_results = coco_files("zh")
    contents = [
        json.dumps(annotations),
        json.dumps(results),
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in records),
        json.dumps(nbest),
        json.dumps(zh_annotations, ensure_ascii=False),
        json.dumps(zh_results, ensure_ascii=False),
    ]
    for path, text in zip(paths, contents, strict=True):
        with open_output(str(path), text=True) as f:
            f.write(text if text.endswith("\n") else text + "\n")
    return paths


def _coco_annotations(ids: list[int], references: list[list[str]]) -> dict:
    """A COCO annotation file of the images and their references."""
    images = [{"id": i, "file_name": f"COCO_val2014_{i:012d}.jpg"} for i in ids]
    anns = [
        {"image_id": i, "id": 10 * k + j, "caption": caption}
        for k, (i, refs) in enumerate(zip(ids, references, strict=True))
        for j, caption in enumerate(refs)
    ]
    return {
        "info": {"description": "The 1,000 COCO val 2014 images of the coco-caption demo "
                 "(sparsecider demo --write); MS-COCO captions, CC BY 4.0"},
        "licenses": [{"id": 1, "name": "CC BY 4.0"}],
        "type": "captions",
        "images": images,
        "annotations": anns,
    }  # fmt: skip
