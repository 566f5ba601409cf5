"""Black-box driver of the reference tokenizer: the Stanford CoreNLP 3.4.1 jar.

Drives the jar exactly as pycocoevalcap 1.2's ``PTBTokenizer.tokenize`` does:

1. each caption has ``"\\n"`` replaced by a space; the captions are joined with
   ``"\\n"`` into one text, written UTF-8 (``sentences.encode()``) to a file;
2. ``java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer
   -preserveLines -lowerCase FILE`` (no ``-encoding`` flag, as pycocoevalcap);
3. each output line is ``rstrip``-ed, split on single spaces, the tokens in
   pycocoevalcap's ``PUNCTUATIONS`` list are dropped and the rest joined with
   single spaces.

One difference, on purpose: Java ends a line at ``\\r``, ``\\v``, ``\\f``,
U+0085, U+2028 and U+2029 as well as at ``\\n``, so a caption holding one of
them would print more than one output line (pycocoevalcap then silently shifts
every later caption onto the wrong image).  sparsecider treats these
characters as spaces, so :func:`java_input` replaces each of them by a space
before the text is fed to Java (:func:`run_jar` with ``raw=True`` feeds them
unchanged, for studying that behaviour).  The number of output lines is always
checked against the number of captions.

All captions of one call go through ONE run of the jar, as one sequence, in
list order: the lexer looks past line ends, so a caption's output may depend
on the caption after it.

Needs Java on PATH and the ``ref`` extra (pycocoevalcap 1.2, which bundles the
jar).  Use from the repository root::

    from benchmarks.ptb_jar import jar_tokenize
    jar_tokenize(["A dog's toy.", "Two cats!"])  # ['a dog \\'s toy', 'two cats']
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: Characters that end a line for the Java lexer besides "\n".
LINE_SEPARATORS = "\r\x0b\x0c\x85\u2028\u2029"
MAIN_CLASS = "edu.stanford.nlp.process.PTBTokenizer"
OPTIONS = ("-preserveLines", "-lowerCase")


@cache
def find_jar() -> Path:
    """The Stanford CoreNLP 3.4.1 jar bundled with pycocoevalcap."""
    from pycocoevalcap.tokenizer import ptbtokenizer

    jar = Path(ptbtokenizer.__file__).resolve().parent / ptbtokenizer.STANFORD_CORENLP_3_4_1_JAR
    if not jar.is_file():
        raise FileNotFoundError(f"jar not found: {jar}")
    return jar


@cache
def punctuations() -> tuple[str, ...]:
    """pycocoevalcap's filter list, taken from pycocoevalcap itself."""
    from pycocoevalcap.tokenizer.ptbtokenizer import PUNCTUATIONS

    return tuple(PUNCTUATIONS)


def java_input(caption: str) -> str:
    """What Java is fed for ``caption``: Java's extra line terminators as spaces."""
    for ch in LINE_SEPARATORS:
        caption = caption.replace(ch, " ")
    return caption


def punctuation_filter(line: str) -> str:
    """pycocoevalcap's step 3 on one raw output line of the jar."""
    drop = punctuations()
    return " ".join(w for w in line.rstrip().split(" ") if w not in drop)


@dataclass
class JarRun:
    """One run of the jar over a sequence of captions."""

    raw: list[str]  #: Java's output lines, one per caption
    ptb: list[str]  #: the same after pycocoevalcap's filter (the pipeline's output)
    stderr: str  #: what Java printed on stderr (a summary line, warnings)
    seconds: float  #: wall time of the Java process, JVM start included


def run_jar(
    captions: list[str], extra: tuple[str, ...] = (), *, raw: bool = False, check: bool = True
) -> JarRun:
    """The reference pipeline on ``captions`` as one sequence.

    ``extra`` adds Java options (diagnostics only: the reference uses none).
    ``raw=True`` feeds the captions without replacing Java's line terminators
    (then the line count is checked only if ``check``).  Raises
    ``RuntimeError`` if Java fails or prints a different number of lines than
    there are captions.
    """
    if isinstance(captions, str) or not all(isinstance(c, str) for c in captions):
        raise TypeError("captions must be a list of strings")
    fed = list(captions) if raw else [java_input(c) for c in captions]
    sentences = "\n".join(c.replace("\n", " ") for c in fed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sentences.txt"
        path.write_bytes(sentences.encode())  # UTF-8, exactly like pycocoevalcap
        cmd = ["java", "-cp", str(find_jar()), MAIN_CLASS, *OPTIONS, *extra, str(path)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, check=False)
        seconds = time.perf_counter() - start
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"java failed ({proc.returncode}):\n{stderr}")
    # Java writes one newline per input line end and none after the last line.
    lines = proc.stdout.decode("utf-8").split("\n")
    if (check or not raw) and len(lines) != len(captions):
        raise RuntimeError(f"java printed {len(lines)} lines for {len(captions)} captions")
    return JarRun(lines, [punctuation_filter(x) for x in lines], stderr, seconds)


def jar_tokenize(captions: list[str]) -> list[str]:
    """The pipeline's output for every caption (one jar run, one sequence)."""
    if not captions:
        return []
    return run_jar(captions).ptb


def jar_alone_and_followed(captions: list[str], workers: int = 2) -> tuple[list[str], list[str]]:
    """Each caption's jar output alone (its own input, one JVM each) and
    followed by a neutral caption ``"x"`` (all captions in one input, each
    followed by ``"x"``: the look-ahead reads forward only, so nothing before
    a caption changes it).  What the PTB fixture generators record."""
    followed = jar_tokenize([x for caption in captions for x in (caption, "x")])[::2]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        alone = list(pool.map(lambda caption: jar_tokenize([caption])[0], captions))
    return alone, followed


def jar_raw_lines(captions: list[str]) -> list[str]:
    """Java's raw token line for every caption (before the filter)."""
    if not captions:
        return []
    return run_jar(captions).raw
