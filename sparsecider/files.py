"""Reading caption files for the command line, detected by content.

Formats (``fmt="auto"`` detects them; a name forces one):

``coco``
    A COCO annotation file (``{"images": [...], "annotations": [...]}``) for
    references, or a COCO results file (``[{"image_id", "caption"}]``) for
    candidates.
``jsonl``
    JSON lines: ``{"id" or "image_id": ..., "caption": ...}`` (several lines
    per image for references), or ``{"id": ..., "references": [...]}``.
``text``
    One caption per line, images aligned by line number.  References: several
    aligned files (one reference each), or one file with the references of an
    image separated by tabs.

``-`` reads standard input; a ``.gz`` name is decompressed.  Text is read as
UTF-8, and split into lines on ``\\n`` only (``\\r\\n`` endings are fine):
other line separators inside a caption stay in the caption.  Every problem is
a :class:`CaptionFileError` whose message names the file and the line or id.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .inputs import describe_keys

__all__ = [
    "CaptionFileError",
    "Captions",
    "atomic_write",
    "read_candidates",
    "read_references",
]

FORMATS = ("auto", "coco", "jsonl", "text")


class CaptionFileError(ValueError):
    """A caption file cannot be used; the message says where and why.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> read_references([])
    Traceback (most recent call last):
    ...
    sparsecider.files.CaptionFileError: no references given (-r FILE)
    """


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


def read_text(path: str) -> str:
    """A file's text (``-``: stdin; ``.gz``: decompressed), strictly UTF-8.

    Parameters
    ----------
    path : str
        A file name, or ``-`` for standard input.

    Returns
    -------
    str
        The decoded text (a leading byte order mark removed).

    Raises
    ------
    CaptionFileError
        No such file, a directory, unreadable, or not UTF-8 (naming the line).

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "caps.txt.gz")
    ...     with gzip.open(path, "wt", encoding="utf-8") as f:
    ...         _ = f.write("a dog\\nthe dog\\n")
    ...     read_text(path)
    'a dog\\nthe dog\\n'
    """
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
            if path.endswith(".gz"):
                data = gzip.decompress(data)
    except FileNotFoundError:
        raise CaptionFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise CaptionFileError(f"{name}: is a directory, not a caption file") from None
    except (OSError, EOFError) as err:
        raise CaptionFileError(f"{name}: cannot read it ({err})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise CaptionFileError(
            f"{name}:{line}: not UTF-8 text (byte {data[err.start : err.start + 1]!r} at offset "
            f"{err.start}); convert the file to UTF-8"
        ) from None


def atomic_write(path: str, write) -> None:
    """``write(temporary_path)`` in the target's folder, renamed when complete:
    an error leaves no partial output.

    Parameters
    ----------
    path : str
        The output file; replaced only when ``write`` returns.
    write : callable
        Called with the temporary file's ``pathlib.Path``; writes the output there.

    Raises
    ------
    Exception
        Whatever ``write`` raises, after the temporary file is removed.

    Examples
    --------
    >>> import os, tempfile
    >>> def broken(tmp_path):
    ...     tmp_path.write_text("half")
    ...     raise RuntimeError("interrupted")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = os.path.join(folder, "scores.txt")
    ...     atomic_write(out, lambda tmp_path: tmp_path.write_text("6.5\\n"))
    ...     try:
    ...         atomic_write(out, broken)
    ...     except RuntimeError:
    ...         pass
    ...     print(repr(open(out).read()), os.listdir(folder))  # the first output, intact
    '6.5\\n' ['scores.txt']
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; outputs get the usual mode
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _detect(text: str, name: str, fmt: str) -> tuple[str, object]:
    """The format of a file's text, and its parsed JSON document if it is one."""
    head = text.lstrip()[:1]
    if fmt == "text" or (fmt == "auto" and head not in ("[", "{")):
        return "text", None
    if fmt == "jsonl":
        return "jsonl", None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        if fmt == "auto" and head == "{":
            return "jsonl", None  # several JSON objects, one per line
        raise CaptionFileError(
            f"{name}:{err.lineno}:{err.colno}: malformed JSON ({err.msg})"
        ) from None
    if isinstance(data, dict) and ("caption" in data or "references" in data):
        return "jsonl", None  # JSON lines with a single line
    return "coco", data


def _caption(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise CaptionFileError(f"{where}: the caption must be a string, got {type(value).__name__}")
    if not value.strip():
        raise CaptionFileError(f"{where}: empty caption; remove the entry or give it text")
    return value


def _id_of(row: dict, where: str) -> object:
    for key in ("image_id", "id"):
        if key in row:
            value = row[key]
            if isinstance(value, list | dict):
                raise CaptionFileError(f"{where}: '{key}' must be a string or a number")
            return value
    raise CaptionFileError(f"{where}: no 'image_id' or 'id'")


def _jsonl_rows(text: str, name: str) -> list[tuple[int, dict]]:
    rows = []
    for lineno, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise CaptionFileError(
                f"{name}:{lineno}:{err.colno}: malformed JSON line ({err.msg})"
            ) from None
        if not isinstance(row, dict):
            raise CaptionFileError(f"{name}:{lineno}: each line must be a JSON object")
        rows.append((lineno, row))
    return rows


def read_references(paths: list[str], fmt: str = "auto") -> Captions:
    """References of every image from one file, or from aligned text files.

    Parameters
    ----------
    paths : list of str
        One file (any format; for text, an image's references separated by
        tabs on its line), or several aligned text files, one reference of
        each image per file.  ``-`` is standard input.
    fmt : {"auto", "coco", "jsonl", "text"}, default "auto"
        The format; ``"auto"`` detects it from the content.

    Returns
    -------
    Captions
        ``kind`` is ``"coco-annotations"``, ``"jsonl"`` or ``"text"``.

    Raises
    ------
    CaptionFileError
        No file, an unreadable or malformed file, an empty caption, aligned
        files of different lengths, or an annotation for an unknown image.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "refs.txt")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write("a dog runs\\tthe dog runs\\na red bus\\n")
    ...     refs = read_references([path])
    >>> refs.ids, refs.captions, refs.kind
    ([1, 2], [['a dog runs', 'the dog runs'], ['a red bus']], 'text')
    """
    if not paths:
        raise CaptionFileError("no references given (-r FILE)")
    texts = [read_text(p) for p in paths]
    names = ["<stdin>" if p == "-" else p for p in paths]
    detected = [_detect(t, n, fmt) for t, n in zip(texts, names, strict=True)]
    if len(paths) > 1:
        if {kind for kind, _ in detected} != {"text"}:
            raise CaptionFileError(
                "several -r files must all be plain text, one reference per line, aligned by line"
            )
        columns = [_lines(t) for t in texts]
        counts = [len(c) for c in columns]
        if len(set(counts)) > 1:
            listing = ", ".join(f"{n}: {c} lines" for n, c in zip(names, counts, strict=True))
            raise CaptionFileError(f"aligned reference files differ in length ({listing})")
        captions = []
        for i in range(counts[0]):
            captions.append(
                [_caption(col[i], f"{n}:{i + 1}") for col, n in zip(columns, names, strict=True)]
            )
        return Captions(list(range(1, counts[0] + 1)), captions, "text", ", ".join(names))
    text, name, (kind, data) = texts[0], names[0], detected[0]
    if kind == "text":
        captions = []
        for lineno, line in enumerate(_lines(text), start=1):
            fields = line.split("\t")
            captions.append([_caption(f, f"{name}:{lineno}") for f in fields])
        return Captions(list(range(1, len(captions) + 1)), captions, "text", name)
    if kind == "jsonl":
        grouped: dict = {}
        for lineno, row in _jsonl_rows(text, name):
            where = f"{name}:{lineno}"
            image = _id_of(row, where)
            if "references" in row:
                refs = row["references"]
                if not isinstance(refs, list) or not refs:
                    raise CaptionFileError(f"{where}: 'references' must be a non-empty list")
                grouped.setdefault(image, []).extend(_caption(r, where) for r in refs)
            elif "caption" in row:
                grouped.setdefault(image, []).append(_caption(row["caption"], where))
            else:
                raise CaptionFileError(f"{where}: no 'caption' or 'references'")
        return Captions(list(grouped), list(grouped.values()), "jsonl", name)
    if not isinstance(data, dict) or "annotations" not in data or "images" not in data:
        raise CaptionFileError(
            f"{name}: references in JSON must be a COCO annotation file with 'images' and "
            "'annotations' (or use JSON lines)"
        )
    grouped = {}
    for k, img in enumerate(data["images"]):
        if not isinstance(img, dict) or "id" not in img:
            raise CaptionFileError(f"{name}: images[{k}] has no 'id'")
        grouped[img["id"]] = []
    for k, ann in enumerate(data["annotations"]):
        where = f"{name}: annotations[{k}]"
        if not isinstance(ann, dict) or "image_id" not in ann:
            raise CaptionFileError(f"{where} has no 'image_id'")
        if ann["image_id"] not in grouped:
            raise CaptionFileError(f"{where} names image {ann['image_id']!r}, absent from 'images'")
        grouped[ann["image_id"]].append(
            _caption(ann.get("caption"), f"{where} (image {ann['image_id']!r})")
        )
    return Captions(list(grouped), list(grouped.values()), "coco-annotations", name)


def read_candidates(path: str, fmt: str = "auto") -> Captions:
    """One candidate caption per image (a duplicate image is an error).

    Parameters
    ----------
    path : str
        A COCO results file, JSON lines or plain text (one caption per
        line); ``-`` is standard input.
    fmt : {"auto", "coco", "jsonl", "text"}, default "auto"
        The format; ``"auto"`` detects it from the content.

    Returns
    -------
    Captions
        One caption per image; ``kind`` is ``"coco-results"``, ``"jsonl"``
        or ``"text"``.

    Raises
    ------
    CaptionFileError
        An unreadable or malformed file, an entry without id or caption, an
        empty caption, or a second caption for an image.

    Examples
    --------
    >>> import json, os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "results.json")
    ...     results = [{"image_id": 7, "caption": "a dog"}, {"image_id": 3, "caption": "a bus"}]
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         json.dump(results, f)
    ...     cands = read_candidates(path)
    >>> cands.ids, cands.captions, cands.kind
    ([7, 3], [['a dog'], ['a bus']], 'coco-results')
    """
    text = read_text(path)
    name = "<stdin>" if path == "-" else path
    kind, data = _detect(text, name, fmt)
    if kind == "text":
        captions = [[_caption(line, f"{name}:{i}")] for i, line in enumerate(_lines(text), start=1)]
        return Captions(list(range(1, len(captions) + 1)), captions, "text", name)
    if kind == "jsonl":
        rows = [(f"{name}:{lineno}", row) for lineno, row in _jsonl_rows(text, name)]
        result_kind = "jsonl"
    else:
        if isinstance(data, dict) and "annotations" in data:
            data = data["annotations"]
        if not isinstance(data, list):
            raise CaptionFileError(
                f"{name}: a results file is a JSON list of {{'image_id', 'caption'}} objects"
            )
        rows = []
        for k, row in enumerate(data):
            if not isinstance(row, dict):
                raise CaptionFileError(f"{name}: entry {k} is not an object")
            rows.append((f"{name}: entry {k}", row))
        result_kind = "coco-results"
    ids, captions, seen = [], [], {}
    for where, row in rows:
        image = _id_of(row, where)
        if image in seen:
            raise CaptionFileError(
                f"{where}: a second caption for image {image!r} (first at {seen[image]}); "
                "give one caption per image"
            )
        seen[image] = where
        if "caption" not in row:
            raise CaptionFileError(f"{where}: no 'caption'")
        ids.append(image)
        captions.append([_caption(row["caption"], f"{where} (image {image!r})")])
    return Captions(ids, captions, result_kind, name)


def align(
    references: Captions, candidates: Captions
) -> tuple[list, list[str], list[list[str]], int]:
    """Pair candidates with references: by line for text, by id otherwise.

    Returns ``(ids, candidates, references, unscored)``.  A candidate whose
    image has no references is an error; images with references but no
    candidate are an error too, except for a COCO annotation file, where (as
    ``COCOEvalCap``) only the images of the results are scored and
    ``unscored`` counts the others.

    Raises
    ------
    CaptionFileError
        Text against ids, text files of different lengths, or ids that do
        not match (as above).

    Examples
    --------
    >>> refs = Captions([1, 2, 3], [["a dog"], ["a bus"], ["a cat"]], "coco-annotations", "r")
    >>> cands = Captions([3, 1], [["one cat"], ["one dog"]], "coco-results", "c")
    >>> align(refs, cands)  # image order of the annotations; image 2 unscored
    ([1, 3], ['one dog', 'one cat'], [['a dog'], ['a cat']], 1)
    """
    if references.by_line != candidates.by_line:
        raise CaptionFileError(
            f"cannot align {candidates.source} ({candidates.kind}) with {references.source} "
            f"({references.kind}): use image ids in both, or plain text lines in both"
        )
    if references.by_line:
        if len(references.ids) != len(candidates.ids):
            raise CaptionFileError(
                f"{candidates.source} has {len(candidates.ids)} lines but {references.source} "
                f"has {len(references.ids)}; text files are aligned line by line"
            )
        return candidates.ids, [c[0] for c in candidates.captions], references.captions, 0
    ref_of = dict(zip(references.ids, references.captions, strict=True))
    missing = [i for i in candidates.ids if i not in ref_of]
    if missing:
        raise CaptionFileError(
            f"{candidates.source}: {len(missing)} image id(s) not in {references.source}: "
            f"{describe_keys(missing)}"
        )
    cand_of = dict(zip(candidates.ids, candidates.captions, strict=True))
    unscored = [i for i in references.ids if i not in cand_of]
    if unscored and references.kind != "coco-annotations":
        raise CaptionFileError(
            f"{references.source}: {len(unscored)} image id(s) have no candidate in "
            f"{candidates.source}: {describe_keys(unscored)}"
        )
    ids = [i for i in references.ids if i in cand_of]
    empty = [i for i in ids if not ref_of[i]]
    if empty:
        raise CaptionFileError(
            f"{references.source}: {len(empty)} image(s) with results have no reference caption: "
            f"{describe_keys(empty)}"
        )
    return ids, [cand_of[i][0] for i in ids], [ref_of[i] for i in ids], len(unscored)
