"""Caption files: the one model (:class:`Captions`) and its readers.

The command line (``sparsecider score``, ``df fit``) and the drop-in
``compat.COCOEvalCap`` read files through this module, with the same checks
and messages; JSON lines follow the one schema of :mod:`sparsecider.io.records`.

Formats (``fmt="auto"`` detects them; a name forces one):

``coco``
    A COCO annotation file (``{"images": [...], "annotations": [...]}``) for
    references, or a COCO results file (``[{"image_id", "caption"}]``) for
    candidates.
``jsonl``
    JSON lines (:mod:`sparsecider.io.records`): ``{"id" or "image_id": ...,
    "caption" or "candidate": ...}`` (several lines per image for
    references), or ``{"id": ..., "references": [...]}``; records with all
    three fields serve as both.
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

import json

from .._checks import describe_keys, id_kind_mismatch
from .coco import annotation_captions, result_rows
from .model import Captions, caption_or_empty, caption_text, hashable_id, id_of
from .records import as_record, jsonl_rows, long_number
from .text import CaptionFileError, atomic_write, check_output, open_output, read_text

__all__ = [
    "FORMATS",
    "CaptionFileError",
    "Captions",
    "align",
    "atomic_write",
    "check_output",
    "open_output",
    "read_candidates",
    "read_references",
    "read_text",
]

FORMATS = ("auto", "coco", "jsonl", "text")


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


# a lone JSON object with any of these keys and none of COCO's is one JSON line
_RECORD_KEYS = {"id", "image_id", "caption", "candidate", "references"}
_COCO_KEYS = {"annotations", "images", "info", "licenses"}


def _detect(text: str, name: str, fmt: str) -> tuple[str, object]:
    """The format of a file's text, and its parsed JSON document if it is one."""
    head = text.lstrip()[:1]
    if fmt == "text" or (fmt == "auto" and head not in ("[", "{")):
        return "text", None
    if fmt == "jsonl":
        return "jsonl", None
    try:
        data = json.loads(text)
    except RecursionError:
        raise CaptionFileError(f"{name}: JSON nested too deeply for a caption file") from None
    except json.JSONDecodeError as err:
        if fmt == "auto" and head == "{":
            return "jsonl", None  # several JSON objects, one per line
        raise CaptionFileError(
            f"{name}:{err.lineno}:{err.colno}: malformed JSON ({err.msg})"
        ) from None
    except ValueError:  # an integer over Python's 4,300 digits
        if fmt == "auto" and head == "{" and "\n" in text.strip():
            return "jsonl", None  # the line reader names the line
        raise CaptionFileError(f"{name}: {long_number(text)}") from None
    if isinstance(data, dict) and data.keys() & _RECORD_KEYS and not data.keys() & _COCO_KEYS:
        return "jsonl", None  # JSON lines with a single line
    return "coco", data


def _jsonl_rows(text: str, name: str) -> list[tuple[int, dict]]:
    """The rows of JSON-lines text (see :mod:`sparsecider.io.records`), aliases mapped."""
    try:
        lines = [line.encode("utf-8", "surrogatepass") for line in text.split("\n")]
        return [(lineno, as_record(row)) for _, lineno, row in jsonl_rows(lines, name)]
    except ValueError as err:
        raise CaptionFileError(str(err)) from None


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
                [
                    caption_text(col[i], f"{n}:{i + 1}")
                    for col, n in zip(columns, names, strict=True)
                ]
            )
        return Captions(list(range(1, counts[0] + 1)), captions, "text", ", ".join(names))
    text, name, (kind, data) = texts[0], names[0], detected[0]
    if kind == "text":
        captions = []
        for lineno, line in enumerate(_lines(text), start=1):
            fields = line.split("\t")
            captions.append([caption_text(f, f"{name}:{lineno}") for f in fields])
        return Captions(list(range(1, len(captions) + 1)), captions, "text", name)
    if kind == "jsonl":
        grouped: dict = {}
        lines: dict = {}  # image -> (line of its first row, whether a 'references' row)
        for lineno, row in _jsonl_rows(text, name):
            where = f"{name}:{lineno}"
            image = id_of(row, where)
            first = lines.setdefault(hashable_id(image, where), (lineno, "references" in row))
            if first[0] != lineno and (first[1] or "references" in row):
                # one caption per line may repeat an id; a 'references' row holds them all
                raise CaptionFileError(
                    f"{name}: id {image!r:.60} on lines {first[0]} and {lineno}: an image's "
                    "'references' row must be its only row (merge the lines, or give one "
                    "caption per line with 'caption')"
                )
            if "references" in row:
                refs = row["references"]
                if not isinstance(refs, list) or not refs:
                    raise CaptionFileError(f"{where}: 'references' must be a non-empty list")
                grouped.setdefault(image, []).extend(caption_text(r, where) for r in refs)
            elif "candidate" in row:  # a caption line: one reference
                grouped.setdefault(image, []).append(caption_text(row["candidate"], where))
            else:
                raise CaptionFileError(f"{where}: no 'caption' or 'references'")
        return Captions(list(grouped), list(grouped.values()), "jsonl", name)
    if not isinstance(data, dict) or "annotations" not in data or "images" not in data:
        raise CaptionFileError(
            f"{name}: references in JSON must be a COCO annotation file with 'images' and "
            "'annotations' (or use JSON lines)"
        )
    return annotation_captions(data, name, allow_empty=False)


def read_candidates(path: str, fmt: str = "auto", *, several: bool = False) -> Captions:
    """Each image's candidate captions: one, or several written as a list.

    An image may have several candidates (n-best lists, sampled captions)
    in every format, written explicitly: a list as the ``caption`` of a COCO
    results entry or the ``candidate`` of a JSON line, or captions separated
    by tabs on a text line (a tab never stays inside a caption).  Repeated
    entries of one image (COCO results rows or JSON lines with the same id)
    add to its candidates only with ``several=True`` (the command line's
    ``--several``); otherwise they are an error, as a repeated row in a
    results file is usually a mistake.

    Parameters
    ----------
    path : str
        A COCO results file, JSON lines or plain text (one image per
        line); ``-`` is standard input.
    fmt : {"auto", "coco", "jsonl", "text"}, default "auto"
        The format; ``"auto"`` detects it from the content.
    several : bool, default False
        Repeated entries of an image add to its candidates, in file order.

    Returns
    -------
    Captions
        Each image's candidates, in file order; ``kind`` is
        ``"coco-results"``, ``"jsonl"`` or ``"text"``.

    Raises
    ------
    CaptionFileError
        An unreadable or malformed file, an entry without id or caption, a
        caption that is not a string, an empty list of captions, or (unless
        ``several``) a second entry for an image.

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
    >>> with tempfile.TemporaryDirectory() as tmp:  # several per image: a list, or tabs
    ...     path = os.path.join(tmp, "nbest.txt")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write("a dog\\tthe dog runs\\na bus\\n")
    ...     read_candidates(path).captions
    [['a dog', 'the dog runs'], ['a bus']]
    """
    text = read_text(path)
    name = "<stdin>" if path == "-" else path
    kind, data = _detect(text, name, fmt)
    if kind == "text":
        # an empty candidate scores 0, as in pycocoevalcap: kept, and counted by the caller
        captions = [
            [caption_or_empty(field, f"{name}:{i}", allow_empty=True) for field in line.split("\t")]
            for i, line in enumerate(_lines(text), start=1)
        ]
        return Captions(list(range(1, len(captions) + 1)), captions, "text", name)
    if kind == "jsonl":
        rows = [(f"{name}:{lineno}", row) for lineno, row in _jsonl_rows(text, name)]
        result_kind = "jsonl"
    else:
        rows = result_rows(data, name)
        result_kind = "coco-results"
    ids, captions = [], []
    seen: dict = {}  # image id -> (its position, where it first occurs)
    for where, row in rows:
        row = as_record(row)
        image = hashable_id(id_of(row, where), where)
        if "candidate" not in row:
            raise CaptionFileError(f"{where}: no 'caption' or 'candidate'")
        value = row["candidate"]
        values = value if isinstance(value, list) else [value]
        if not values:
            raise CaptionFileError(f"{where} (image {image!r}): an empty list of captions")
        found = [
            caption_or_empty(c, f"{where} (image {image!r})", allow_empty=True) for c in values
        ]
        if image in seen:
            if not several:
                raise CaptionFileError(
                    f"{where}: a second entry for image {image!r} (first at "
                    f"{seen[image][1]}); give one entry per image (its caption may be a list "
                    "of several), or use --several to add repeated entries to the image's "
                    "candidates"
                )
            captions[seen[image][0]].extend(found)
            continue
        seen[image] = (len(ids), where)
        ids.append(image)
        captions.append(found)
    return Captions(ids, captions, result_kind, name)


def align(
    references: Captions, candidates: Captions
) -> tuple[list, list[str | list[str]], list[list[str]], int]:
    """Pair candidates with references: by line for text, by id otherwise.

    Returns ``(ids, candidates, references, unscored)``; each image's
    candidates are a string when it has one, else the list (as
    :func:`sparsecider.cider_d` takes them).  A candidate whose
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
    >>> align(refs, Captions([1], [["one dog", "a dog"]], "coco-results", "c"))[1]
    [['one dog', 'a dog']]
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
        return candidates.ids, _per_image(candidates.captions), references.captions, 0
    ref_of = dict(zip(references.ids, references.captions, strict=True))
    missing = [i for i in candidates.ids if i not in ref_of]
    if missing:
        kinds = id_kind_mismatch(
            candidates.ids, references.ids, candidates.source, references.source
        )
        raise CaptionFileError(
            f"{candidates.source}: {len(missing)} image id(s) not in {references.source}: "
            f"{describe_keys(missing)}" + (f"; {kinds}" if kinds else "")
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
    return ids, _per_image([cand_of[i] for i in ids]), [ref_of[i] for i in ids], len(unscored)


def _per_image(captions: list[list[str]]) -> list[str | list[str]]:
    """Each image's candidates: its caption when it has one, else its list."""
    return [c[0] if len(c) == 1 else c for c in captions]


# ---- COCO objects for compat.COCOEvalCap -----------------------------------------------
