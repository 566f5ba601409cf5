"""The ``sparsecider`` command line (also ``python -m sparsecider``).

::

    sparsecider score -r captions_val2014.json -c results.json [--bootstrap 1000]
    sparsecider score -r refs.jsonl -c sys_a.jsonl -c sys_b.jsonl --paired --format text
    sparsecider score -r captions_val2014.json -c results.json --metric bleu,rouge-l,cider-d
    sparsecider df fit -o coco-train.df.npz train_annotations.json
    sparsecider df info coco-train.df.npz
    sparsecider df convert coco-train-idxs.p -o coco-train-idxs.df.npz
    sparsecider diversity -c samples.json -r captions_val2014.json [--per-image OUT]
    sparsecider select -c nbest.json -o chosen.json [--against references -r REFS]
    sparsecider --demo

Errors are one line on stderr naming the file and the line or image id, with
exit status 1 (2 for a wrong command line); no output file is left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import sys
import threading
import warnings

from .common import UsageError, metric_list
from .parser import build_parser

__all__ = ["main"]


# ---- sparsecider score -----------------------------------------------------------


# ---- sparsecider score --metric bleu,rouge-l,cider-d: the paper table -----------------


# ---- sparsecider df --------------------------------------------------------------


# ---- sparsecider stream ----------------------------------------------------------


# ---- sparsecider diversity / select: several captions per image ----------------------


# ---- the demo ------------------------------------------------------------------------


# ---- the parser --------------------------------------------------------------------------


def _terminate(signum, frame) -> None:
    # SIGTERM unwinds like Ctrl-C, so temporary outputs are removed on the way
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if sys.stdout is None and getattr(args, "output", None) is not None:
        # closed standard output (>&-) with results going to -o: only the summary is lost
        sys.stdout = open(os.devnull, "w")  # kept open for the rest of the process
    if sys.stdout is None:  # started with standard output closed (>&-): print() would drop it all
        if sys.stderr is not None:
            print(
                "sparsecider: error: standard output is closed; the results are written "
                "there: redirect it to a file (> scores.txt) or to /dev/null instead",
                file=sys.stderr,
            )
        return 1
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with warnings.catch_warnings():
            # one line per warning, as the errors (not the Python source line behind it)
            warnings.showwarning = _show_warning
            return _run(parser, args)
    except KeyboardInterrupt:  # Ctrl-C: outputs already cleaned up on the way out
        print("sparsecider: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly, like other filters
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sparsecider: {category.__name__}: {message}", file=file or sys.stderr)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    # a subcommand's module, and the scoring code under it, is imported when it
    # runs: --help and --version never load scipy or the core
    from ..io.captions import CaptionFileError

    try:
        if getattr(args, "progress", None) is True and importlib.util.find_spec("tqdm") is None:
            raise UsageError("--progress needs tqdm: pip install 'sparsecider[progress]'")
        if args.demo:
            from .demo import score_demo

            return score_demo(args.format)
        if args.command == "score":
            from .score import run_score

            args.metrics = metric_list(args.metric)
            args.metric = args.metrics[0]
            return run_score(args)
        if args.command == "df":
            from .df import run_df

            return run_df(args)
        if args.command == "diversity":
            from .sets import run_diversity

            return run_diversity(args)
        if args.command == "select":
            from .sets import run_select

            return run_select(args)
        if args.command == "stream":
            from .stream import run_stream

            return run_stream(args)
        if args.command == "demo":
            from .demo import run_demo

            return run_demo(args)
    except BrokenPipeError:
        raise
    except (UsageError, CaptionFileError, ValueError, TypeError, OSError, ImportError) as err:
        print(f"sparsecider: error: {err}", file=sys.stderr)
        return 1
    parser.print_help(sys.stderr)
    return 2
