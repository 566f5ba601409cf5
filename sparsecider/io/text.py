"""Reading and writing whole files: strict UTF-8 text in, complete files out.

``read_text`` reads a caption file (``-`` is standard input, ``.gz`` is
decompressed) and names the line of any byte that is not UTF-8;
``open_output`` opens an output: a regular file is written under no name
(or a hidden temporary one) and renamed into place when complete, so an
error never leaves a partial output (through a symlink it replaces the file
the link points to), while ``-``, a FIFO or a device such as
``/dev/stdout`` receives the output as it is written (a pipe streams);
``check_output`` refuses, before any work, an output that is one of the
inputs or cannot be written.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import secrets
import shutil
import stat
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

__all__ = [
    "MAX_TEXT_BYTES",
    "CaptionFileError",
    "atomic_write",
    "check_output",
    "is_terminal",
    "open_output",
    "read_text",
    "writes_to_stdout",
]

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


@contextlib.contextmanager
def open_output(path: str, *, text: bool = False) -> Iterator[IO]:
    """Open an output; a regular file appears only once complete.

    ``-`` (or ``/dev/stdout``, even redirected by the shell: ``>> log``
    appends) is standard output; ``/dev/fd/N`` is appended to; a FIFO, a
    device or a socket is written in place.  These receive the output as it
    is flushed, so a reader downstream of a pipe starts at once (if the work
    then fails, the exit status says so, as with any Unix filter).  Any other
    path is written to a temporary file in the target's folder, synced and
    renamed over the target when the ``with`` block ends without an error;
    through a symlink, the file it points to is replaced and the link kept.
    On Linux the temporary file has no name until it is complete
    (``O_TMPFILE``), so even SIGKILL leaves no partial file behind (but for
    the instant between naming and renaming it); elsewhere it is a hidden
    ``.NAME.xxxx.tmp``, removed on any error, Ctrl-C or SIGTERM (which the
    CLI turns into an exit).

    Parameters
    ----------
    path : str
        The output file, or ``-`` for standard output.
    text : bool, default False
        Yield a UTF-8 text file with ``\\n`` line ends instead of a binary one.

    Yields
    ------
    file object
        Binary, or text when ``text=True``.

    Raises
    ------
    Exception
        Whatever the ``with`` block raises, after the temporary file is removed
        (the target is untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = os.path.join(folder, "scores.txt")
    ...     with open_output(out, text=True) as f:
    ...         _ = f.write("6.5\\n")
    ...     try:
    ...         with open_output(out, text=True) as f:
    ...             _ = f.write("half")
    ...             raise RuntimeError("interrupted")
    ...     except RuntimeError:
    ...         pass
    ...     print(repr(open(out).read()), os.listdir(folder))  # the first output, intact
    '6.5\\n' ['scores.txt']
    """
    stream = _standard_stream(path)
    if stream is not None:  # "-", or /dev/stdout (/dev/stderr) however it is redirected
        if text:  # the stream itself (a notebook's or a test's may have no binary buffer)
            yield stream
            stream.flush()
            return
        if getattr(stream, "buffer", None) is None:
            raise CaptionFileError(
                f"{path}: standard output takes no binary data here (a notebook or a "
                "redirected stream); give a file name"
            )
        if is_terminal(stream):
            raise CaptionFileError(
                f"{path}: standard output is a terminal, and this output is binary; "
                "redirect it (> FILE, | ...) or give a file name"
            )
        stream.flush()
        yield stream.buffer
        stream.buffer.flush()
        return
    if _open_descriptor(path) or _is_special(path):
        # /dev/fd/N is appended to, never truncated; a FIFO or a device written
        raw = open(path, "ab" if _open_descriptor(path) else "wb")
        try:
            with _as_text(raw, text) as f:
                yield f
            raw.close()  # an error here is the output's own (a full disk, a closed pipe)
        except BaseException:
            with contextlib.suppress(OSError, ValueError):
                raw.close()  # ... but must not replace the error being raised
            raise
        return
    # through a symlink: replace the file it points to, keep the link
    target = Path(os.path.realpath(path))
    raw, name = _temporary(target)
    try:
        with _as_text(raw, text) as f:
            yield f
        raw.flush()
        os.fsync(raw.fileno())  # on disk before it is named: a crash leaves the old file
        if name is None:  # nameless: give it a name only now, then rename it
            try:
                name = _link_anonymous(raw, target)
            except OSError:  # /proc refused: copy it to a named temporary file
                name = _copy_to_named(raw, target)
        else:
            os.chmod(name, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
        raw.close()
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            raw.close()
        if name is not None:
            Path(name).unlink(missing_ok=True)
        raise


def atomic_write(path: str, write: Callable[[IO[bytes]], object]) -> None:
    """``write(f)`` to the binary output :func:`open_output` opens for ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = os.path.join(folder, "scores.txt")
    ...     atomic_write(out, lambda f: f.write(b"6.5\\n"))
    ...     print(open(out).read().strip(), os.listdir(folder))
    6.5 ['scores.txt']
    """
    with open_output(path) as f:
        write(f)


@contextlib.contextmanager
def _as_text(raw: IO[bytes], text: bool) -> Iterator[IO]:
    """``raw`` as UTF-8 text with ``\\n`` line ends if asked; ``raw`` stays open
    (its owner closes it).  Each ``flush()`` reaches ``raw``'s file."""
    if not text:
        yield raw
        raw.flush()
        return
    f = io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=True)
    try:
        yield f
        f.flush()
    finally:
        # on an error a failing flush (a closed pipe, a full disk) must not
        # replace the error being raised
        with contextlib.suppress(OSError, ValueError):
            f.detach()


def _umask() -> int:
    """The process's umask: read from /proc where it can be (setting it to read
    it would change it for every thread for a moment)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def _temporary(target: Path) -> tuple[IO[bytes], str | None]:
    """A binary file in ``target``'s folder: nameless (``O_TMPFILE``, name None)
    where the system allows it, else a hidden named one."""
    flags = getattr(os, "O_TMPFILE", 0)
    if flags and os.path.isdir("/proc/self/fd"):
        try:
            fd = os.open(target.parent, flags | os.O_RDWR | os.O_CLOEXEC, 0o666)
        except OSError:  # the file system does not support it
            pass
        else:
            return os.fdopen(fd, "w+b"), None
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    return os.fdopen(fd, "wb"), name


def _copy_to_named(raw: IO[bytes], target: Path) -> str:
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as named:
            raw.seek(0)
            shutil.copyfileobj(raw, named)
        os.chmod(name, 0o666 & ~_umask())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return name


def _link_anonymous(raw: IO[bytes], target: Path) -> str:
    """Give the nameless file ``raw`` a hidden name beside ``target``; return it."""
    # a folder descriptor makes os.link call linkat(AT_SYMLINK_FOLLOW), which
    # links the file behind /proc/self/fd/N (plain link() refuses the magic link)
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for _ in range(100):
            name = f".{target.name}.{secrets.token_hex(4)}.tmp"
            try:
                os.link(f"/proc/self/fd/{raw.fileno()}", name, dst_dir_fd=folder)
            except FileExistsError:
                continue
            return str(target.parent / name)
    finally:
        os.close(folder)
    raise FileExistsError(f"{target}: cannot find a free temporary name beside it")


def writes_to_stdout(path: str) -> bool:
    """Whether ``path`` is standard output: ``-``, or a name of it such as
    ``/dev/stdout`` (even when the shell redirected it to a file).

    Examples
    --------
    >>> writes_to_stdout("-"), writes_to_stdout("scores.jsonl")
    (True, False)
    """
    return _standard_stream(path) is sys.stdout


def _standard_stream(path: str):
    """``sys.stdout`` for ``-`` or a name of file descriptor 1, ``sys.stderr``
    for a name of descriptor 2, else None.  Compared by identity (device and
    inode), so ``--out /dev/stdout >> log`` appends to ``log`` through the
    shell's descriptor instead of replacing ``log``."""
    if path == "-":
        return sys.stdout
    if not _open_descriptor(path):
        return None
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        try:
            if os.path.samestat(os.stat(path), os.fstat(fd)):
                return stream
        except OSError:
            continue
    return None


def _open_descriptor(path: str) -> bool:
    """A name of an already open file: ``/dev/stdout``, ``/dev/fd/N``, ``/proc/PID/fd/N``."""
    parts = Path(path).parts
    return path in ("/dev/stdout", "/dev/stderr") or (
        len(parts) >= 3 and parts[-2] == "fd" and parts[1] in ("dev", "proc")
    )


def _check_not_an_input(path: str, inputs: list[str]) -> None:
    """For outputs written in place: refuse one that is the same file as an input."""
    try:
        out = os.fstat(1) if path == "-" else os.stat(path)
    except OSError:
        return
    if not stat.S_ISREG(out.st_mode):  # a pipe, a terminal, a device: never an input file
        return
    for given in inputs:
        try:
            same = given != "-" and os.path.samestat(os.stat(given), out)
        except OSError:
            continue
        if same:
            raise CaptionFileError(
                f"{path}: it is the input {given}; writing it would destroy that input "
                "(choose another output)"
            )


def _is_special(path: str) -> bool:
    """A FIFO, a character device (``/dev/stdout``, a terminal) or a socket:
    written in place, never replaced by a regular file."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISSOCK(mode)


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
    if _open_descriptor(path) and path not in ("/dev/stdout", "/dev/stderr"):
        try:  # /dev/fd/N: N must be open
            os.stat(path)
        except OSError as err:
            raise CaptionFileError(
                f"{path}: not an open file descriptor ({err.strerror}); open it in the "
                "shell (e.g. 3>>scores.jsonl) or give a file name"
            ) from None
    if path == "-" or _open_descriptor(path) or _is_special(path):
        # written in place: refuse if it is an input (e.g. --out /dev/fd/3 3<input)
        _check_not_an_input(path, inputs)
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
    try:  # a real attempt: os.access trusts root, and knows nothing of read-only mounts
        tempfile.TemporaryFile(dir=folder).close()
    except OSError as err:
        raise CaptionFileError(
            f"{path}: the folder {folder} is not writable ({err.strerror or err})"
        ) from None


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is an interactive terminal (False for a replaced or
    closed stream).

    Examples
    --------
    >>> import io
    >>> is_terminal(io.StringIO())
    False
    """
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
