"""COCO-format caption files: annotation files and results files.

A light stand-in for the parts of pycocotools' ``COCO`` that caption
evaluation uses (``getImgIds()`` and ``imgToAnns``), built from a path, a
JSON string's parsed dict/list, or a pycocotools object (duck-typed).
pycocotools is not a dependency.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from .files import read_text
from .inputs import describe_keys

__all__ = ["CaptionSet", "load_annotations", "load_results"]


class CaptionSet:
    """Captions keyed by image, in a fixed image order (like pycocotools' ``COCO``).

    Attributes
    ----------
    imgToAnns : dict
        Image id -> list of ``{"image_id", "caption", ...}`` dicts.
    """

    def __init__(self, image_ids: list, anns: list[dict], source: str) -> None:
        self.source = source
        self.imgToAnns: dict = {i: [] for i in image_ids}
        for k, ann in enumerate(anns):
            if not isinstance(ann, Mapping) or "image_id" not in ann or "caption" not in ann:
                raise ValueError(
                    f"{source}: entry {k} must be an object with 'image_id' and 'caption', "
                    f"got {ann!r:.80}"
                )
            if not isinstance(ann["caption"], str):
                raise ValueError(
                    f"{source}: entry {k} (image {ann['image_id']!r}) has a caption of type "
                    f"{type(ann['caption']).__name__}; captions must be strings"
                )
            if ann["image_id"] not in self.imgToAnns:
                raise ValueError(
                    f"{source}: entry {k} names image {ann['image_id']!r}, which is not "
                    "in the file's 'images' list"
                )
            self.imgToAnns[ann["image_id"]].append(ann)

    def getImgIds(self) -> list:
        return list(self.imgToAnns)


def _read_json(obj: object, what: str) -> tuple[object, str]:
    """A parsed JSON document from a path (read as the command line reads files),
    or the object itself."""
    if isinstance(obj, str | os.PathLike):
        name = os.fspath(obj)
        text = read_text(name)
        try:
            return json.loads(text), name
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{name}:{err.lineno}:{err.colno}: malformed JSON ({err.msg})"
            ) from None
    return obj, f"the {what}"


def load_annotations(obj: object) -> CaptionSet:
    """A COCO annotation file (``{"images": [...], "annotations": [...]}``).

    ``obj``: a path (``.gz`` allowed), the parsed dict, a :class:`CaptionSet`
    or a pycocotools ``COCO`` object (returned as is).
    """
    if hasattr(obj, "imgToAnns") and hasattr(obj, "getImgIds"):
        return obj  # type: ignore[return-value]
    data, source = _read_json(obj, "annotation")
    if not isinstance(data, Mapping) or "annotations" not in data or "images" not in data:
        raise ValueError(f"{source}: a COCO annotation file needs 'images' and 'annotations'")
    ids = []
    for k, img in enumerate(data["images"]):
        if not isinstance(img, Mapping) or "id" not in img:
            raise ValueError(f"{source}: images[{k}] has no 'id'")
        ids.append(img["id"])
    return CaptionSet(ids, list(data["annotations"]), source)


def load_results(obj: object, annotations: CaptionSet) -> CaptionSet:
    """A COCO results file (``[{"image_id", "caption"}, ...]``) for ``annotations``.

    Images follow the annotation file's order, restricted to those with
    results (as pycocotools' ``loadRes``).  A result for an image absent from
    the annotations is an error listing the ids.
    """
    if hasattr(obj, "imgToAnns") and hasattr(obj, "getImgIds"):
        return obj  # type: ignore[return-value]
    data, source = _read_json(obj, "results")
    if isinstance(data, Mapping) and "annotations" in data:
        data = data["annotations"]
    if not isinstance(data, list):
        raise ValueError(f"{source}: a results file is a list of {{'image_id', 'caption'}} objects")
    for k, ann in enumerate(data):
        if not isinstance(ann, Mapping) or "image_id" not in ann:
            raise ValueError(f"{source}: entry {k} has no 'image_id'")
    wanted = {ann["image_id"] for ann in data}
    known = set(annotations.getImgIds())
    unknown = [i for i in dict.fromkeys(ann["image_id"] for ann in data) if i not in known]
    if unknown:
        raise ValueError(
            f"{source}: {len(unknown)} result image id(s) are not in the annotations: "
            f"{describe_keys(unknown)}"
        )
    order = [i for i in annotations.getImgIds() if i in wanted]
    return CaptionSet(order, data, source)
