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

    Usually made by :func:`load_annotations` or :func:`load_results`.

    Parameters
    ----------
    image_ids : list
        The images, in order; each gets an entry in ``imgToAnns``, with or
        without captions.
    anns : list of dict
        ``{"image_id", "caption", ...}`` dicts, kept as they are, each
        appended to its image's list in input order.
    source : str
        Where the captions come from (a path, or a description), for messages.

    Attributes
    ----------
    imgToAnns : dict
        Image id -> list of ``{"image_id", "caption", ...}`` dicts.
    source : str
        As given.

    Raises
    ------
    ValueError
        An entry without ``image_id`` or ``caption``, a caption that is not
        a string, or an image id absent from ``image_ids``.

    Examples
    --------
    >>> anns = [{"image_id": 2, "caption": "a bus"}, {"image_id": 1, "caption": "a dog"}]
    >>> cs = CaptionSet([1, 2, 3], anns, "example")
    >>> cs.getImgIds()
    [1, 2, 3]
    >>> cs.imgToAnns[1], cs.imgToAnns[3]
    ([{'image_id': 1, 'caption': 'a dog'}], [])
    >>> CaptionSet([1], anns, "example")
    Traceback (most recent call last):
    ...
    ValueError: example: entry 0 names image 2, which is not in the file's 'images' list
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
        """The image ids, in order (as pycocotools' ``COCO.getImgIds()``).

        Returns
        -------
        list
            A new list, so changing it leaves the set unchanged.

        Examples
        --------
        >>> CaptionSet(["b", "a"], [], "example").getImgIds()
        ['b', 'a']
        """
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

    Parameters
    ----------
    obj : str, os.PathLike, dict, CaptionSet or pycocotools ``COCO``
        The annotations.  A path is read as the command line reads files
        (strict UTF-8, ``.gz`` decompressed).

    Returns
    -------
    CaptionSet
        Images in the order of the file's ``images`` list, each with its
        annotations (images without any keep an empty list).

    Raises
    ------
    ValueError
        No ``images`` or ``annotations``, an image without ``id``, malformed
        JSON, or a bad annotation (see :class:`CaptionSet`).  A file that
        cannot be read raises :class:`sparsecider.files.CaptionFileError`,
        a ``ValueError``.

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

    Parameters
    ----------
    obj : str, os.PathLike, list, dict, CaptionSet or pycocotools ``COCO``
        The results: a path, the parsed list, a dict holding it under
        ``annotations``, or an object already loaded (returned as is).
    annotations : CaptionSet
        The annotations the results are for (from :func:`load_annotations`).

    Returns
    -------
    CaptionSet
        The images that have results, in the annotations' order.

    Raises
    ------
    ValueError
        Not a list, an entry without ``image_id``, a result for an image the
        annotations do not have, or a bad entry (see :class:`CaptionSet`).
        A file that cannot be read raises
        :class:`sparsecider.files.CaptionFileError`, a ``ValueError``.

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
    ValueError: the results: 1 result image id(s) are not in the annotations: [4]
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
