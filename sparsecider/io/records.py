"""JSON lines: the one schema of the command line, the streaming and Dask backends.

One JSON object per line (UTF-8; ``.gz`` files decompressed; blank lines
skipped; lines split on ``\\n`` only, so any other line separator inside a
caption stays in the caption).  Fields:

``id`` (or ``image_id``)
    The image: a string or an integer.
``candidate`` (or ``caption``)
    A candidate caption, or a list of them (several candidates per image).
``references``
    The image's reference captions, a non-empty list of strings.

A *record* (``sparsecider stream``, :mod:`sparsecider.stream`,
:mod:`sparsecider.dask`) has all three, one line per image.
``sparsecider score`` reads the same lines: references from ``references``
(or from ``caption`` lines, several per image), candidates from
``candidate``/``caption``; so one file of records serves as both ``-r`` and
``-c``.  :func:`jsonl_rows` is the one parser; :func:`as_record` maps the
aliases onto a record, which :func:`sparsecider.core.corpus.check_record` checks.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import zlib
from collections.abc import Iterable, Iterator, Sequence

__all__ = ["as_record", "jsonl_rows", "long_number", "read_jsonl"]


def jsonl_rows(lines: Iterable[bytes], name: str) -> Iterator[tuple[str, int, dict]]:
    """``(name, line number, object)`` for every non-blank line of raw bytes.

    Raises
    ------
    ValueError
        A line that is not UTF-8, not JSON, or not a JSON object, naming
        ``name:line``.

    Examples
    --------
    >>> list(jsonl_rows([b'{"id": 1}\\n', b'\\n', b'{"id": 2}'], "x.jsonl"))
    [('x.jsonl', 1, {'id': 1}), ('x.jsonl', 3, {'id': 2})]
    >>> list(jsonl_rows([b'{"id": 1,\\n'], "x.jsonl"))
    Traceback (most recent call last):
    ...
    ValueError: x.jsonl:1: malformed JSON (Expecting property name enclosed in double quotes ...
    """
    lineno = 0
    lines = iter(lines)
    while True:
        try:
            raw = next(lines, None)
        except (OSError, EOFError, zlib.error) as err:
            raise ValueError(f"{name}:{lineno + 1}: cannot read it ({err})") from None
        if raw is None:
            return
        lineno += 1
        try:
            line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
        except UnicodeDecodeError as err:
            raise ValueError(f"{name}:{lineno}: not UTF-8 text ({err.reason})") from None
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(
                f"{name}:{lineno}: malformed JSON ({err.msg} at column {err.colno})"
            ) from None
        except RecursionError:
            raise ValueError(f"{name}:{lineno}: JSON nested too deeply for a record") from None
        except ValueError:  # Python's limit on the digits of an integer
            raise ValueError(f"{name}:{lineno}: {long_number(line)}") from None
        if not isinstance(row, dict):
            raise ValueError(
                f"{name}:{lineno}: expected a JSON object with 'id', 'candidate' and "
                f"'references', got {type(row).__name__}"
            )
        yield name, lineno, row


_LONG_NUMBER = re.compile(rb"[0-9]{4301,}")


def long_number(text: str | bytes) -> str:
    """What is wrong with JSON text that ``json.loads`` refused for a number
    over Python's 4,300 digits (``sys.get_int_max_str_digits``), and where
    (``line N: `` when ``text`` has several lines).

    Examples
    --------
    >>> long_number('{"id": ' + "7" * 5000 + "}")
    'a number of 5000 digits (Python reads at most 4,300): write such an id as a string'
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    found = _LONG_NUMBER.search(data)
    digits = len(found.group()) if found else "more than 4300"
    line = data.count(b"\n", 0, found.start()) + 1 if found else 1
    where = f"line {line}: " if b"\n" in data.strip() else ""
    return (
        f"{where}a number of {digits} digits (Python reads at most 4,300): write such an id "
        "as a string"
    )


def read_jsonl(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
) -> Iterator[tuple[str, dict]]:
    """``(where, object)`` for every non-blank line of JSON-lines files, lazily.

    ``where`` is ``"file:line"``; the path ``-`` is standard input.

    Raises
    ------
    ValueError
        A missing or unreadable file, or a bad line (see :func:`jsonl_rows`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp) / "val.jsonl"
    ...     _ = path.write_text('{"id": 1}\\n\\n{"id": 2, "candidate": "a\\u2028dog"}\\n')
    ...     rows = [(where.split("/")[-1], r) for where, r in read_jsonl(path)]
    >>> rows
    [('val.jsonl:1', {'id': 1}), ('val.jsonl:3', {'id': 2, 'candidate': 'a\\u2028dog'})]
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    for path in paths:
        name = os.fspath(path)
        if name == "-":  # standard input, read once, line by line as it arrives
            for _, lineno, row in jsonl_rows(
                _bounded_lines(sys.stdin.buffer, "<stdin>"), "<stdin>"
            ):
                yield f"<stdin>:{lineno}", row
            continue
        opener = gzip.open if name.endswith(".gz") else open
        try:
            f = opener(name, "rb")
        except FileNotFoundError:
            raise ValueError(f"{name}: no such file") from None
        except OSError as err:
            raise ValueError(f"{name}: cannot read it ({err})") from None
        with f:  # binary: split on b"\n" only
            for _, lineno, row in jsonl_rows(_bounded_lines(f, name), name):
                yield f"{name}:{lineno}", row


#: The longest line a JSON-lines file may have: 64 MiB (a record of COCO
#: captions is a few hundred bytes).  A longer line is refused before it is
#: held whole (a small ``.gz`` can hold one line of gigabytes).
MAX_LINE_BYTES = 64 << 20


def _bounded_lines(f, name: str) -> Iterator[bytes]:
    """The lines of binary file ``f``, none longer than :data:`MAX_LINE_BYTES`."""
    lineno = 0
    while True:
        try:  # the cap does not count the line's "\n"
            line = f.readline(MAX_LINE_BYTES + 2)
        except (OSError, EOFError, zlib.error) as err:
            raise ValueError(f"{name}:{lineno + 1}: cannot read it ({err})") from None
        if not line:
            return
        lineno += 1
        if len(line) - line.endswith(b"\n") > MAX_LINE_BYTES:
            raise ValueError(
                f"{name}:{lineno}: a line longer than {MAX_LINE_BYTES >> 20} MiB; a record "
                "is one image's captions (is the file JSON lines, one record per line?)"
            )
        yield line


def as_record(row: object) -> object:
    """The row with the schema's aliases mapped: ``image_id`` -> ``id``,
    ``caption`` -> ``candidate``.

    ``image_id`` wins over ``id`` when a line has both (COCO files carry an
    annotation ``id`` beside the image's), ``candidate`` over ``caption``.

    Examples
    --------
    >>> as_record({"image_id": 3, "id": 70, "caption": "a dog", "references": ["a dog"]})
    {'id': 3, 'candidate': 'a dog', 'references': ['a dog']}
    >>> row = {"id": 3, "candidate": "x", "references": []}
    >>> as_record(row) is row
    True
    """
    if not isinstance(row, dict) or ("image_id" not in row and "caption" not in row):
        return row  # anything else is checked (and named) by corpus.check_record
    out = {}
    for canonical, alias in (("id", "image_id"), ("candidate", "caption")):
        first, second = (alias, canonical) if canonical == "id" else (canonical, alias)
        if first in row:
            out[canonical] = row[first]
        elif second in row:
            out[canonical] = row[second]
    aliases = ("id", "image_id", "candidate", "caption")
    out.update((k, v) for k, v in row.items() if k not in aliases)
    return out
