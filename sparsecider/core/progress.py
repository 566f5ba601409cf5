"""Progress bars: tqdm (the ``progress`` extra) when asked for, nothing otherwise.

Every face that shows progress goes through :func:`bar`: the functional API
and the ``score`` command (engine steps), streaming (chunks), the CLI over
several files.  The engine reports *steps* through the small
:class:`Progress` protocol, so it never imports tqdm.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator, Sized
from typing import Protocol

from ..io.text import is_terminal

__all__ = ["Progress", "bar", "check_progress", "iterate"]


class Progress(Protocol):
    """What the engine calls: ``start(total)`` once, then ``step()`` per step
    (from any thread)."""

    def start(self, total: int) -> None: ...

    def step(self) -> None: ...


def check_progress(progress: object) -> bool | None:
    """``progress`` as given to a public function: True, False or None
    ("auto": a bar when standard error is a terminal and tqdm is installed).

    Examples
    --------
    >>> check_progress(False), check_progress(None)
    (False, None)
    >>> check_progress("yes")
    Traceback (most recent call last):
    ...
    TypeError: progress must be True, False or None (automatic), got str
    """
    if progress is None or isinstance(progress, bool):
        return progress
    raise TypeError(
        f"progress must be True, False or None (automatic), got {type(progress).__name__}"
    )


def _tqdm(required: bool):
    try:
        if required:
            from tqdm.auto import tqdm
        else:  # automatic: a terminal bar on stderr
            from tqdm import tqdm
    except ImportError:
        if required:
            raise ImportError(
                "progress=True needs tqdm: pip install 'sparsecider[progress]'"
            ) from None
        return None
    return tqdm


class _Bar:
    """A tqdm bar, drawn once the total is known (``start``)."""

    def __init__(self, tqdm, desc: str, unit: str) -> None:
        self._make = lambda total: tqdm(
            total=total, desc=desc, unit=unit, file=sys.stderr, leave=False
        )
        self._bar = None
        self._lock = threading.Lock()  # steps come from the worker threads

    def start(self, total: int | None) -> None:
        self._bar = self._make(total)

    def step(self) -> None:
        with self._lock:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class _NoBar:
    def start(self, total: int) -> None:
        pass

    def step(self) -> None:
        pass

    def close(self) -> None:
        pass


def bar(progress: bool | None, desc: str, unit: str = "step") -> _Bar | _NoBar:
    """A bar for ``progress`` (see :func:`check_progress`); close it when done.

    Raises
    ------
    ImportError
        ``progress=True`` and tqdm is not installed (the message says how).

    Examples
    --------
    >>> b = bar(False, "scoring")
    >>> b.start(3); b.step(); b.close()
    """
    if progress is False:
        return _NoBar()
    if progress is None and not is_terminal(sys.stderr):
        return _NoBar()
    tqdm = _tqdm(required=progress is True)
    return _NoBar() if tqdm is None else _Bar(tqdm, desc, unit)


def iterate(items: Iterable, progress: bool | None, desc: str, unit: str = "it") -> Iterator:
    """``items``, with a bar for ``progress`` (see :func:`check_progress`)
    advanced as each is taken.

    Examples
    --------
    >>> list(iterate([1, 2], False, "files"))
    [1, 2]
    """
    shown = bar(progress, desc, unit)
    try:
        shown.start(len(items) if isinstance(items, Sized) else None)
        for item in items:
            yield item
            shown.step()
    finally:
        shown.close()
