"""COCO files and objects: annotations (references) and results (candidates),
read from a path or taken as the in-memory objects pycocoevalcap passes
(``COCO`` / ``loadRes``), for the command line and ``compat.COCOEvalCap``."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from .._checks import describe_keys
from .model import Captions, caption_or_empty, hashable_id, id_of
from .records import as_record, long_number
from .text import CaptionFileError, read_text

__all__ = [
    "annotation_captions",
    "is_coco",
    "load_annotations",
    "load_results",
    "read_json",
    "result_rows",
]


def annotation_captions(data: Mapping, name: str, *, allow_empty: bool) -> Captions:
    """A parsed COCO annotation file as :class:`Captions`, images in file order."""
    images, annotations = data["images"], data["annotations"]
    if not isinstance(images, list) or not isinstance(annotations, list):
        raise CaptionFileError(f"{name}: 'images' and 'annotations' must be lists")
    grouped: dict = {}
    for k, img in enumerate(images):
        if not isinstance(img, Mapping) or "id" not in img:
            raise CaptionFileError(f"{name}: images[{k}] has no 'id'")
        grouped[hashable_id(img["id"], f"{name}: images[{k}]")] = []
    for k, ann in enumerate(annotations):
        where = f"{name}: annotations[{k}]"
        if not isinstance(ann, Mapping) or "image_id" not in ann:
            raise CaptionFileError(f"{where} has no 'image_id'")
        image = ann["image_id"]
        if hashable_id(image, where) not in grouped:
            raise CaptionFileError(f"{where} names image {image!r}, absent from 'images'")
        grouped[image].append(
            caption_or_empty(ann.get("caption"), f"{where} (image {image!r})", allow_empty)
        )
    return Captions(list(grouped), list(grouped.values()), "coco-annotations", name)


def result_rows(data: object, name: str) -> list[tuple[str, dict]]:
    """``(where, row)`` of a parsed COCO results file, each row with an image id."""
    if isinstance(data, Mapping) and "annotations" in data:
        data = data["annotations"]
    if not isinstance(data, list):
        raise CaptionFileError(
            f"{name}: a results file is a JSON list of {{'image_id', 'caption'}} objects"
        )
    rows = []
    for k, row in enumerate(data):
        if not isinstance(row, Mapping):
            raise CaptionFileError(f"{name}: entry {k} is not an object")
        rows.append((f"{name}: entry {k}", as_record(dict(row))))
    return rows


def read_json(obj: object, what: str) -> tuple[object, str]:
    """A parsed JSON document from a path (read as the command line reads
    files), or the object itself."""
    if isinstance(obj, str | os.PathLike):
        name = os.fspath(obj)
        text = read_text(name)
        try:
            return json.loads(text), name
        except RecursionError:
            raise CaptionFileError(f"{name}: JSON nested too deeply for a caption file") from None
        except json.JSONDecodeError as err:
            raise CaptionFileError(
                f"{name}:{err.lineno}:{err.colno}: malformed JSON ({err.msg})"
            ) from None
        except ValueError:  # an integer over Python's 4,300 digits
            raise CaptionFileError(f"{name}: {long_number(text)}") from None
    return obj, f"the {what}"


def is_coco(obj: object) -> bool:
    return hasattr(obj, "imgToAnns") and hasattr(obj, "getImgIds")


def load_annotations(obj: object) -> Captions:
    """A COCO annotation file (``{"images": [...], "annotations": [...]}``).

    Parameters
    ----------
    obj : str, os.PathLike, dict, Captions or pycocotools ``COCO``
        A path (read as the command line reads files: strict UTF-8, ``.gz``
        decompressed), the parsed dict, or an object already loaded
        (returned as is).

    Returns
    -------
    Captions
        Images in the order of the file's ``images`` list, each with its
        captions (empty ones kept, as the reference keeps them; images
        without any keep an empty list).

    Raises
    ------
    CaptionFileError
        No ``images`` or ``annotations``, an image without ``id``, malformed
        JSON, an annotation naming an unknown image or without a string
        caption; or the file cannot be read.

    Examples
    --------
    >>> data = {
    ...     "images": [{"id": 1}, {"id": 2}],
    ...     "annotations": [
    ...         {"id": 10, "image_id": 1, "caption": "a dog"},
    ...         {"id": 11, "image_id": 1, "caption": "the dog"},
    ...     ],
    ... }
    >>> anns = load_annotations(data)
    >>> anns.getImgIds()
    [1, 2]
    >>> [a["caption"] for a in anns.imgToAnns[1]], anns.imgToAnns[2]
    (['a dog', 'the dog'], [])
    >>> load_annotations(anns) is anns
    True
    """
    if is_coco(obj):
        return obj  # type: ignore[return-value]
    data, source = read_json(obj, "annotation")
    if not isinstance(data, Mapping) or "annotations" not in data or "images" not in data:
        raise CaptionFileError(f"{source}: a COCO annotation file needs 'images' and 'annotations'")
    return annotation_captions(data, source, allow_empty=True)


def load_results(obj: object, annotations: Captions) -> Captions:
    """A COCO results file (``[{"image_id", "caption"}, ...]``) for ``annotations``.

    Images follow the annotation file's order, restricted to those with
    results (as pycocotools' ``loadRes``).  A result for an image absent from
    the annotations is an error listing the ids.

    Parameters
    ----------
    obj : str, os.PathLike, list, dict, Captions or pycocotools ``COCO``
        The results: a path, the parsed list, a dict holding it under
        ``annotations``, or an object already loaded (returned as is).
    annotations : Captions or pycocotools ``COCO``
        The annotations the results are for (from :func:`load_annotations`).

    Returns
    -------
    Captions
        The images that have results, in the annotations' order.

    Raises
    ------
    CaptionFileError
        Not a list, an entry without ``image_id`` or a string ``caption``, a
        result for an image the annotations do not have; or the file cannot
        be read.

    Examples
    --------
    >>> anns = load_annotations({"images": [{"id": 1}, {"id": 2}, {"id": 3}], "annotations": []})
    >>> res = load_results(
    ...     [{"image_id": 3, "caption": "a cat"}, {"image_id": 1, "caption": "a dog"}], anns
    ... )
    >>> res.getImgIds()
    [1, 3]
    >>> load_results([{"image_id": 4, "caption": "a bus"}], anns)
    Traceback (most recent call last):
    ...
    sparsecider.io.text.CaptionFileError: the results: 1 result image id(s) are not in the ...: [4]
    """
    if is_coco(obj):
        return obj  # type: ignore[return-value]
    data, source = read_json(obj, "results")
    grouped: dict = {}
    for where, row in result_rows(data, source):
        image = hashable_id(id_of(row, where), where)
        if "candidate" not in row:
            raise CaptionFileError(f"{where}: no 'caption'")
        caption = caption_or_empty(row["candidate"], f"{where} (image {image!r})", allow_empty=True)
        grouped.setdefault(image, []).append(caption)
    known = set(annotations.getImgIds())
    unknown = [i for i in grouped if i not in known]
    if unknown:
        raise CaptionFileError(
            f"{source}: {len(unknown)} result image id(s) are not in the annotations: "
            f"{describe_keys(unknown)}"
        )
    order = [i for i in annotations.getImgIds() if i in grouped]
    return Captions(order, [grouped[i] for i in order], "coco-results", source)
