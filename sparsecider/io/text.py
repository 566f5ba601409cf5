"""Reading and writing whole files: strict UTF-8 text in, complete files out.

``read_text`` reads a caption file (``-`` is standard input, ``.gz`` is
decompressed) and names the line of any byte that is not UTF-8;
``atomic_write`` writes an output through a temporary file renamed into
place, so an error never leaves a partial output (through a symlink it
replaces the file the link points to; a FIFO, a device such as
``/dev/stdout`` or ``-`` receives the output whole once it is complete);
``check_output`` refuses, before any work, an output that is one of the
inputs or cannot be written.
"""

from __future__ import annotations

import gzip
import os
import shutil
import stat
import sys
import tempfile
import zlib
from pathlib import Path

__all__ = ["MAX_TEXT_BYTES", "CaptionFileError", "atomic_write", "check_output", "read_text"]

#: The most text (after decompression) a caption file read whole may hold:
#: 1 GiB, fifty times COCO val's annotations.  Larger sets stream.
MAX_TEXT_BYTES = 1 << 30


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
            data = sys.stdin.buffer.read(MAX_TEXT_BYTES + 1)
        else:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as f:
                # read at most the cap (+1 to know it was exceeded): a small
                # .gz can expand to gigabytes
                data = f.read(MAX_TEXT_BYTES + 1)
    except FileNotFoundError:
        raise CaptionFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise CaptionFileError(f"{name}: is a directory, not a caption file") from None
    except (OSError, EOFError, zlib.error) as err:
        raise CaptionFileError(f"{name}: cannot read it ({err})") from None
    if len(data) > MAX_TEXT_BYTES:
        raise CaptionFileError(
            f"{name}: more than {MAX_TEXT_BYTES >> 20} MiB of text (decompressed); score it in "
            "chunks with 'sparsecider stream' (JSON lines), or split the file"
        )
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
    if path == "-" or _is_special(path):
        _write_special(path, write)
        return
    # through a symlink: replace the file it points to, keep the link
    target = Path(os.path.realpath(path))
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
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


def _is_special(path: str) -> bool:
    """A FIFO, a character device (``/dev/stdout``, a terminal) or a socket:
    written in place, never replaced by a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


def _write_special(path: str, write) -> None:
    """Write to a temporary file, then copy it whole to ``path`` (``-``: standard
    output): a reader never sees a partial output."""
    with tempfile.TemporaryDirectory(prefix="sparsecider-") as folder:
        tmp = Path(folder) / "output"
        write(tmp)
        with open(tmp, "rb") as src:
            if path == "-":
                sys.stdout.flush()
                shutil.copyfileobj(src, sys.stdout.buffer)
                sys.stdout.buffer.flush()
            else:
                with open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst)


def check_output(path: str, inputs: list[str] = ()) -> None:
    """Refuse, before any work, an output that cannot be written or that is one of the inputs.

    Raises
    ------
    CaptionFileError
        ``path`` is one of ``inputs`` (also through a link), a directory, or
        in a folder that does not exist or is not writable.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     refs = os.path.join(tmp, "refs.json")
    ...     _ = open(refs, "w").write("[]")
    ...     check_output(os.path.join(tmp, "out.jsonl"), [refs])  # fine
    ...     try:
    ...         check_output(refs, [refs])
    ...     except CaptionFileError as err:
    ...         print(str(err).split(": ", 1)[1])
    it is also an input; writing it would destroy that input (choose another output)
    """
    if path == "-" or _is_special(path):
        return
    real = os.path.realpath(path)
    for given in inputs:
        if given != "-" and os.path.exists(given) and os.path.realpath(given) == real:
            raise CaptionFileError(
                f"{path}: it is also an input; writing it would destroy that input "
                "(choose another output)"
            )
    if os.path.isdir(real):
        raise CaptionFileError(f"{path}: is a directory; give a file name for the output")
    folder = os.path.dirname(real) or "."
    if not os.path.isdir(folder):
        raise CaptionFileError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CaptionFileError(f"{path}: the folder {folder} is not writable")
