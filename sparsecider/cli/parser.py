"""The argument parser of every subcommand, and its argument types.

Light on purpose: building it imports no scipy and none of the scoring code,
so ``sparsecider --help`` and ``--version`` answer at once.
"""

from __future__ import annotations

import argparse
import math

from .._checks import MAX_N, SIGMA_RANGE
from .._version import __version__
from ..io.captions import FORMATS
from ..io.named import NAMED
from ..significance import DEFAULT_SEED, MAX_RESAMPLES
from ..tokenizers.names import REGISTERED
from .common import SCORE_METRICS

__all__ = ["build_parser"]


def _parsed(text: str, convert, what: str):
    """``text`` converted (``int`` or ``float``), or the argparse error saying what it must be."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
    if convert is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def _positive_int(text: str) -> int:
    value = _parsed(text, int, "a whole number")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _order(text: str) -> int:
    """``--n``: the API's range of n-gram orders, checked before any file is read."""
    value = _positive_int(text)
    if value > MAX_N:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_N}, got {value}")
    return value


def _resamples(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_RESAMPLES:,}, got {value:,}")
    return value


def _nonnegative_int(text: str) -> int:
    value = _parsed(text, int, "a whole number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _sigma(text: str) -> float:
    """``--sigma``: the range of the API's ``sigma`` (where ``sigma**2`` stays finite)."""
    value = _parsed(text, float, "a number")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    if not SIGMA_RANGE[0] <= value <= SIGMA_RANGE[1]:
        raise argparse.ArgumentTypeError(
            f"must lie in [{SIGMA_RANGE[0]:g}, {SIGMA_RANGE[1]:g}] (beyond, sigma**2 under- or "
            f"overflows), got {text}"
        )
    return value


def _probability(text: str) -> float:
    value = _parsed(text, float, "a number")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


_TOKENIZER_HELP = (
    "how captions become tokens: ptb (raw English text, as pycocoevalcap; the default), "
    "whitespace (already tokenized), char (Chinese or Japanese, one token per character), "
    "jieba (Chinese), mecab (Japanese), kiwi (Korean); the last three need "
    "'pip install sparsecider[NAME]'"
)


_DF_HELP = (
    "document frequencies: corpus (from the references scored), a name shipped in the "
    "package ({names}; see 'sparsecider df list') or a file written by 'sparsecider df fit' or "
    "'df convert'"
)


_N_HELP = "highest n-gram order, 1 to 64 (default 4: 1- to 4-grams, as CIDEr)"


_SIGMA_HELP = "width of CIDEr-D's Gaussian length penalty, > 0 (default 6, as pycocoevalcap)"


_N_JOBS_HELP = "threads (default -1: one per CPU; 1: one)"


def _common(parser: argparse.ArgumentParser, *, df: str = _DF_HELP) -> None:
    """The options of every scoring command: tokenizer, df, n, threads."""
    parser.add_argument("--tokenizer", choices=REGISTERED, default="ptb", metavar="NAME",
                        help=_TOKENIZER_HELP)  # fmt: skip
    parser.add_argument("--df", default="corpus", metavar="corpus|NAME|FILE",
                        help=df.format(names=", ".join(NAMED)))  # fmt: skip
    parser.add_argument("--n", type=_order, default=4, metavar="N", help=_N_HELP)
    parser.add_argument("--n-jobs", type=int, default=-1, metavar="J", help=_N_JOBS_HELP)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparsecider",
        description="CIDEr and CIDEr-D on sparse matrices, identical to pycocoevalcap.",
        epilog="'sparsecider COMMAND --help' describes each command; 'sparsecider demo "
        "--write DIR' writes example files to try them on.",
    )
    parser.add_argument("--version", action="version", version=f"sparsecider {__version__}")
    parser.add_argument(
        "--demo", action="store_true",
        help="score the bundled 1,000-image COCO val example (coco-caption's demo) and "
        "compare with its published CIDEr (the same as 'sparsecider demo')",
    )  # fmt: skip
    parser.add_argument(
        "--format", choices=["text", "json"], default="text", help=argparse.SUPPRESS
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="score the bundled COCO example; --write DIR saves example files",
        description="Score the 1,000 COCO val 2014 images of the coco-caption demo (bundled, "
        "raw text) and compare with the published CIDEr; with --write DIR, write the "
        "example files the README's commands use instead.",
    )
    demo.add_argument("--write", metavar="DIR",
                      help="write the example files (COCO annotations and results, JSON "
                      "lines, several candidates per image, Chinese captions) to DIR "
                      "(created if needed; existing files are not overwritten)")  # fmt: skip
    demo.add_argument("--format", choices=["text", "json"], default="text",
                      help="text (default) or json")  # fmt: skip

    score = sub.add_parser(
        "score", help="score candidate files against references",
        description="Score one or more candidate files against references and print the "
        "corpus score with its signature (JSON by default).",
    )  # fmt: skip
    score.add_argument("-r", "--references", action="append", required=True, metavar="REFS",
                       help="references: COCO annotations, JSON lines, or text (repeat -r for "
                       "aligned one-reference-per-line files; '-' is stdin)")  # fmt: skip
    score.add_argument("-c", "--candidates", action="append", required=True, metavar="CANDS",
                       help="candidates: COCO results, JSON lines or text; repeat for several "
                       "systems; an image's candidates may be a list (JSON) or tab-separated "
                       "(text)")  # fmt: skip
    score.add_argument("--several", action="store_true",
                       help="repeated image ids in CANDS (COCO results rows, JSON lines) add "
                       "to the image's candidates instead of being an error; each candidate "
                       "is scored and counts once in the mean")  # fmt: skip
    score.add_argument("--input-format", choices=FORMATS, default="auto",
                       help="override the detection of the files' format")  # fmt: skip
    score.add_argument("--metric", default="cider-d", metavar="METRIC[,METRIC...]",
                       help="one or a comma list of " + ", ".join(SCORE_METRICS) + " (bleu: "
                       "BLEU-1..4; meteor: METEOR 1.5 without Java, the meteor extra); several "
                       "give the paper table (see --format table)")  # fmt: skip
    _common(score)
    score.add_argument("--sigma", type=_sigma, default=6.0, help=_SIGMA_HELP)
    score.add_argument("--format", choices=["json", "text", "tsv", "table"], default="json",
                       help="json (default: every figure, machine-readable), text (one "
                       "line per system), tsv, or table (markdown, several metrics)")  # fmt: skip
    score.add_argument("--per-image", metavar="OUT", help="write one JSON line per image to OUT")
    score.add_argument("--bootstrap", type=_resamples, metavar="N",
                       help="percentile bootstrap confidence interval over N resamples of "
                       f"images (1 to {MAX_RESAMPLES:,})")  # fmt: skip
    score.add_argument("--seed", type=_nonnegative_int, default=DEFAULT_SEED,
                       help="seed of the bootstrap and paired tests "
                       f"(default {DEFAULT_SEED})")  # fmt: skip
    score.add_argument("--confidence", type=_probability, default=0.95,
                       help="coverage of the bootstrap interval (default 0.95)")  # fmt: skip
    score.add_argument("--paired", action="store_true",
                       help="paired significance of each system against the first")  # fmt: skip
    score.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress bars on stderr (needs tqdm; default: when stderr is a terminal)",
    )  # fmt: skip

    st = sub.add_parser(
        "stream",
        help="score JSON-lines records too large for memory, a chunk at a time",
        description='Each line: {"id": ..., "candidate": str or [str, ...], '
        '"references": [str, ...]}.  Document frequencies are fitted in a first pass '
        "(unless --df FILE), then chunks are scored and one JSON line per image is written "
        "to OUT.  Results equal 'sparsecider score' on the same data, bit for bit.",
    )
    st.add_argument("records", nargs="+", metavar="RECORDS.jsonl[.gz]",
                    help="JSON-lines files, in order ('-' is stdin)")  # fmt: skip
    st.add_argument("-o", "--output", required=True, metavar="OUT",
                    help="per-image scores (JSON lines); with --fit-only, the df file")  # fmt: skip
    st.add_argument("--metric", choices=["cider-d", "cider"], default="cider-d",
                    help="cider-d (default) or cider (no clip, no length penalty)")  # fmt: skip
    _common(st)
    st.add_argument("--sigma", type=_sigma, default=6.0, help=_SIGMA_HELP)
    st.add_argument("--chunk-size", type=_positive_int, default=20_000, metavar="IMAGES",
                    help="images per chunk (default 20000)")  # fmt: skip
    st.add_argument("--fit-only", action="store_true",
                    help="only fit the document frequencies and save them to OUT")  # fmt: skip
    st.add_argument("--progress", action=argparse.BooleanOptionalAction, default=False,
                    help="progress bars on stderr (needs tqdm; default: off)")  # fmt: skip

    diversity = sub.add_parser(
        "diversity", help="Self-CIDEr: how diverse each image's set of captions is",
        description="Self-CIDEr (Wang and Chan 2019) of each image's set of captions: 0 when "
        "the captions are alike, up to 1 when they share nothing; a set of one has none "
        "(null). Needs document frequencies: -r REFS, or --df.",
    )  # fmt: skip
    select = sub.add_parser(
        "select", help="pick one caption per image from several (consensus or oracle)",
        description="Consensus (MBR) selection: from each image's candidates, pick the one "
        "with the highest mean CIDEr-D against the others (or, with --against references, "
        "against the references: the oracle best-of-n); writes a COCO results file.",
    )  # fmt: skip
    sets_help = ("several captions per image: COCO results (repeated image ids, or a list as "
                 "'caption'), JSON lines (a list or repeated lines per id) or text "
                 "(tab-separated)")  # fmt: skip
    diversity.add_argument("-c", "--candidates", required=True, metavar="CANDS", help=sets_help)
    diversity.add_argument("-r", "--references", action="append", metavar="REFS",
                           help="references whose document frequencies weigh the n-grams "
                           "(every image of the file counts, as the authors count all of "
                           "COCO val)")  # fmt: skip
    select.add_argument("-c", "--candidates", required=True, metavar="CANDS", help=sets_help)
    select.add_argument("-r", "--references", action="append", metavar="REFS",
                        help="the references of --against references")  # fmt: skip
    select.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="the chosen captions, a COCO results file")  # fmt: skip
    select.add_argument("--against", choices=["candidates", "references"],
                        default="candidates",
                        help="candidates: consensus (mean CIDEr-D against the set's other "
                        "captions); references: the oracle best-of-n")  # fmt: skip
    select.add_argument("--sigma", type=_sigma, default=6.0, help=_SIGMA_HELP)
    for sets, df_help in (
        (diversity, "document frequencies instead of -r REFS: a shipped name ({names}) or a "
         "file written by 'sparsecider df fit'"),
        (select, "document frequencies: corpus (from what is scored against), a shipped name "
         "({names}) or a file written by 'sparsecider df fit'"),
    ):  # fmt: skip
        sets.add_argument("--input-format", choices=FORMATS, default="auto",
                          help="override the detection of the files' format")  # fmt: skip
        _common(sets, df=df_help)
        sets.add_argument("--per-image", metavar="OUT", help="write one JSON line per image")
        sets.add_argument("--format", choices=["json", "text"], default="json",
                          help="json (default) or text (one line)")  # fmt: skip

    df = sub.add_parser("df", help="document frequencies: fit, info, list, convert")
    df_sub = df.add_subparsers(dest="df_command", required=True, metavar="COMMAND")
    fit = df_sub.add_parser("fit", help="fit on references and save",
                            description="Count, for every n-gram, the images whose references "
                            "hold it, and save the table (a versioned .npz).")  # fmt: skip
    fit.add_argument("references", nargs="+", metavar="REFS",
                     help="references: COCO annotations, JSON lines, or text (several files: "
                     "aligned, one reference per line)")  # fmt: skip
    fit.add_argument("-o", "--output", required=True, metavar="OUT",
                     help="the file to write (e.g. coco-train.df.npz)")  # fmt: skip
    fit.add_argument("--n", type=_order, default=4, metavar="N", help=_N_HELP)
    fit.add_argument("--tokenizer", choices=REGISTERED, default="ptb", metavar="NAME",
                     help=_TOKENIZER_HELP + "; score with the same one")  # fmt: skip
    fit.add_argument("--input-format", choices=FORMATS, default="auto",
                     help="override the detection of the files' format")  # fmt: skip
    fit.add_argument("--name", help="a name for the frequencies, shown in signatures")
    fit.add_argument("--prune", action="store_true",
                     help="leave out n-grams seen in one image (scores unchanged, file smaller; "
                     "a pruned file cannot be merged)")  # fmt: skip
    info = df_sub.add_parser("info", help="describe a saved file or a shipped name")
    info.add_argument("file", metavar="FILE|NAME", help="a df file or a shipped name")
    df_sub.add_parser("list", help="the document frequencies shipped in the package")
    convert = df_sub.add_parser("convert", help="import a legacy pickle (CIDEr / SCST code)",
                                description="Read a legacy document-frequency pickle of the "
                                "CIDEr or self-critical training code through a restricted "
                                "unpickler and save it as a .npz.")  # fmt: skip
    convert.add_argument("legacy", metavar="LEGACY.p", help="the pickle to convert")
    convert.add_argument("-o", "--output", required=True, metavar="OUT",
                         help="the file to write (e.g. coco-train-idxs.df.npz)")  # fmt: skip
    convert.add_argument("--n-images", type=_positive_int, default=None,
                         help="for bare {ngram: df} pickles (default 40504, COCO val)")  # fmt: skip
    return parser
