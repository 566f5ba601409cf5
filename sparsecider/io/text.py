"""Reading and writing whole files: strict UTF-8 text in, complete files out.

``read_text`` reads a caption file (``-`` is standard input, ``.gz`` is
decompressed) and names the line of any byte that is not UTF-8;
``atomic_write`` writes an output through a temporary file renamed into
place, so an error never leaves a partial output.
"""

from __future__ import annotations

import gzip
import os
import sys
import tempfile
from pathlib import Path

__all__ = ["CaptionFileError", "atomic_write", "read_text"]


class CaptionFileError(ValueError):
    """A caption file cannot be used; the message says where and why.

    A subclass of ``ValueError``.

    Examples
    --------
    >>> from sparsecider.io.captions import read_references
    >>> read_references([])
    Traceback (most recent call last):
    ...
    sparsecider.io.text.CaptionFileError: no references given (-r FILE)
    """


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
