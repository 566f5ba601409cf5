"""The one model of a caption file (:class:`Captions`) and the checks of its
items (a caption, an image id) that every reader shares."""

from __future__ import annotations

from dataclasses import dataclass

from .text import CaptionFileError

__all__ = ["Captions", "caption_or_empty", "caption_text", "hashable_id", "id_of"]


@dataclass
class Captions:
    """Captions per image from one or more files.

    ``ids`` are image ids (for text files: the 1-based line numbers),
    ``captions[i]`` the captions of image ``ids[i]``; ``kind`` is the
    detected format (``coco-annotations``, ``coco-results``, ``jsonl``, ``text``).

    Attributes
    ----------
    ids : list
        Image ids, in file order.
    captions : list of list of str
        The captions of each image (one each for candidates).
    kind : str
        The detected format.
    source : str
        The file name(s), for messages.

    Examples
    --------
    >>> c = Captions(ids=[1, 2], captions=[["a dog"], ["a bus"]], kind="text", source="c.txt")
    >>> c.by_line, Captions([7], [["a cat"]], "jsonl", "c.jsonl").by_line
    (True, False)
    """

    ids: list
    captions: list[list[str]]
    kind: str
    source: str

    @property
    def by_line(self) -> bool:
        """True for plain text, whose images are aligned by line number, not by id.

        Examples
        --------
        >>> Captions([1], [["a dog"]], "text", "c.txt").by_line
        True
        """
        return self.kind == "text"

    # pycocotools' COCO interface, as far as caption evaluation uses it

    def getImgIds(self) -> list:
        """The image ids, in order (as pycocotools' ``COCO.getImgIds()``).

        Examples
        --------
        >>> Captions(["b", "a"], [[], ["a dog"]], "coco-annotations", "x").getImgIds()
        ['b', 'a']
        """
        return list(self.ids)

    @property
    def imgToAnns(self) -> dict:
        """Image id -> ``[{"image_id", "caption"}, ...]`` (as pycocotools' ``COCO``).

        Examples
        --------
        >>> Captions([1, 2], [["a dog"], []], "coco-annotations", "x").imgToAnns
        {1: [{'image_id': 1, 'caption': 'a dog'}], 2: []}
        """
        return {
            i: [{"image_id": i, "caption": c} for c in caps]
            for i, caps in zip(self.ids, self.captions, strict=True)
        }


def caption_text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise CaptionFileError(f"{where}: the caption must be a string, got {type(value).__name__}")
    if not value.strip():
        raise CaptionFileError(f"{where}: empty caption; remove the entry or give it text")
    return value


def id_of(row: dict, where: str) -> object:
    """The image id of a row whose aliases are mapped (:func:`as_record`)."""
    if "id" not in row:
        raise CaptionFileError(f"{where}: no 'image_id' or 'id'")
    value = row["id"]
    if isinstance(value, list | dict):
        raise CaptionFileError(f"{where}: 'id' must be a string or a number")
    return value


def caption_or_empty(value: object, where: str, allow_empty: bool) -> str:
    if allow_empty and isinstance(value, str):
        return value
    return caption_text(value, where)


def hashable_id(value: object, where: str) -> object:
    if isinstance(value, list | dict):
        raise CaptionFileError(f"{where}: an image id must be a string or a number")
    return value
