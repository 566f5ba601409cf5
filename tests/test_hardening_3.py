"""Issue 35: no silent number, third round (token ids as text, token lists as captions,
partial results, merged states, long captions), and errors a user can act on.

Each test pins the message of the error (or the number) that replaced a
plausible wrong number or an unactionable failure.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sparsecider
from sparsecider import RewardScorer

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """A snippet in a fresh interpreter with 4 GiB of address space at most."""
    head = (
        "import resource, warnings\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "warnings.simplefilter('ignore')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", head + code], capture_output=True, text=True, timeout=timeout,
        env=env,
    )  # fmt: skip


# ---- 2. the reward scorer's memory is linear in the tokens ------------------------------

_LONG_BATCH = """
import tracemalloc
import numpy as np
import sparsecider
from sparsecider import RewardScorer
rng = np.random.default_rng(0)
words = ["w%d" % i for i in range(50)]
refs = [[" ".join(rng.choice(words, 10)) for _ in range(5)] for _ in range(300)]
cands = [" ".join(rng.choice(words, 9)) for _ in range(300)]
long = " ".join(rng.choice(words, 400_000))
{make}
short = score(cands[:299], np.arange(299))
tracemalloc.start()
got = score(cands[:299] + [long], np.arange(300))
peak = tracemalloc.get_traced_memory()[1]
print(bool((got[:299] == short).all()), got[299], peak // 2**20)
"""

_MAKERS = {
    "RewardScorer.from_texts": (
        "scorer = sparsecider.RewardScorer.from_texts(refs, df='corpus')\n"
        "def score(c, images): return scorer(c, images).scores\n"
    ),
    "compat.CiderD": (
        "from sparsecider.compat import CiderD\n"
        "df = sparsecider.DocumentFrequencies.from_references(refs, tokenizer='whitespace')\n"
        "scorer = CiderD(df=df)\n"
        "scorer.remember(refs)\n"
        "def score(c, images):\n"
        "    gts = {int(i): refs[i] for i in images}\n"
        "    res = [{'image_id': int(i), 'caption': [x]} for x, i in zip(c, images)]\n"
        "    return scorer.compute_score(gts, res)[1]\n"
    ),
}


@pytest.mark.parametrize("entry", sorted(_MAKERS))
def test_one_400k_word_candidate_among_300_costs_memory_linear_in_tokens(entry):
    # Before: a (4, 300, 400000) uint64 grid, 3.58 GiB, MemoryError.  The
    # other 299 rewards are those of the batch without the long caption; the
    # long one scores 0: its length penalty exp(-(399999 - 9)**2 / 72) is 0.0
    done = _run(_LONG_BATCH.replace("{make}", _MAKERS[entry]))
    assert done.returncode == 0, done.stderr[-800:]
    same, long_score, peak_mib = done.stdout.split()
    assert (same, float(long_score)) == ("True", 0.0)
    # 400,000 tokens: a few dozen bytes per token and n-gram order, not 300 x 400,000 cells
    assert int(peak_mib) < 300, done.stdout


@pytest.mark.parametrize("seed", range(5))
def test_flat_ngrams_are_the_padded_rows_entries(seed):
    # the flat path must give the padded path's entries in its order: the
    # rewards' sums then add the same terms in the same order (bit-identical)
    from sparsecider._kernels.rows import flat_ngrams, padded_hashes, row_ngrams
    from sparsecider._kernels.tokens import Tokens

    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 30, size=40)
    lengths[rng.integers(40)] = 500
    tokens = Tokens(rng.integers(0, 6, size=int(lengths.sum())).astype(np.uint64), lengths)
    padded = row_ngrams(padded_hashes(tokens), lengths, 4)
    flat = flat_ngrams(tokens, 4)
    for a, b in zip(padded, flat, strict=True):
        assert a.dtype == b.dtype and (a == b).all()


# ---- 1d. states update() can never produce are refused where they enter -----------------

_REFS = {1: ["a dog runs", "the dog runs"], 2: ["a red bus"], 3: ["a cat sleeps"]}
_CANDS = {1: "a dog runs", 2: "a bus", 3: ""}
_KINDS = {
    "tokens": ("CIDEr-D", {}),
    "values": ("CIDEr-D", {"df": "coco-val2014"}),
    "bleu": ("BLEU", {}),
    "rouge": ("ROUGE-L", {}),
}


def _state(kind: str) -> dict:
    metric, options = _KINDS[kind]
    acc = sparsecider.CiderAccumulator(metric, tokenizer="whitespace", **options)
    acc.update(_CANDS, _REFS)
    state = acc.state()
    assert state["kind"] == kind
    return state


def _set(name, value):
    return lambda s: {**s, name: value}


def _with(name, change):
    """The state with ``change`` applied to a copy of its array ``name``."""

    def apply(state):
        array = np.array(state[name])
        return {**state, name: change(array) if callable(change) else change}

    return apply


def _set_at(index, value, dtype=None):
    def change(a):
        a = a.astype(dtype or a.dtype)
        a[index] = value
        return a

    return change


_BAD_STATES = [
    # ids repeated inside one state: the image was counted twice
    ("values", _set("ids", np.array([1, 2, 1])), r"'ids' repeats image id\(s\) \[1\]"),
    ("tokens", _set("ids", np.array(["a", "a", "b"])), r"'ids' repeats image id\(s\) \['a'\]"),
    # an image with 0 references (NaN before), 0 candidates, a negative count (numpy crash)
    ("tokens", _with("references_per_image", _set_at(1, 0)),
     r"'references_per_image' must be positive integers \(every image has a reference\), "
     r"found 0 at \[1\]"),
    ("values", _with("candidates_per_image", _set_at(0, 0)),
     r"'candidates_per_image' must be positive integers \(every image has a candidate\), "
     r"found 0 at \[0\]"),
    ("bleu", _with("candidates_per_image", _set_at(0, -1, np.int64)),
     r"'candidates_per_image' must be positive integers .* found -1 at \[0\]"),
    ("tokens", _with("reference_lengths", _set_at(0, -2, np.int64)),
     r"'reference_lengths' must be non-negative integers, found -2 at \[0\]"),
    # per_order: wrong width, 1-D (AxisError), strings, NaN, inf, negative, above the scale
    ("values", _with("per_order", lambda a: a[:, :3]),
     r"'per_order' must have shape \(3, 4\) \(candidates x n\), got \(3, 3\)"),
    ("values", _with("per_order", lambda a: a[:, 0]),
     r"'per_order' must have shape \(3, 4\) \(candidates x n\), got \(3,\)"),
    ("values", _with("per_order", lambda a: a.astype(str)),
     r"'per_order' must hold floats, got dtype <U32"),
    ("values", _with("per_order", _set_at((0, 1), np.nan)),
     r"'per_order' must hold values in \[0, scale=10.0\], found nan at \[0, 1\]"),
    ("values", _with("per_order", _set_at((2, 0), np.inf)),
     r"'per_order' must hold values in \[0, scale=10.0\], found inf at \[2, 0\]"),
    ("values", _with("per_order", _set_at((1, 3), -0.5)),
     r"'per_order' must hold values in \[0, scale=10.0\], found -0.5 at \[1, 3\]"),
    ("values", _with("per_order", _set_at((1, 3), 12.0)),
     r"'per_order' must hold values in \[0, scale=10.0\], found 12.0 at \[1, 3\]"),
    # empty as floats: 276 empty where there were 46 (a sum of floats, not a count)
    ("values", _with("empty", lambda a: a.astype(float) * 6),
     r"'empty' must be booleans, got dtype float64"),
    # BLEU: correct > guess, negative lengths, fractional counts, a 1-D guess (IndexError)
    ("bleu", _with("correct", lambda a: a.astype(np.int64) + 5),
     r"'correct' must not exceed 'guess' \(matched n-grams of the candidate\), found "
     r"\d+ > \d+ at \[0, 0\]"),
    ("bleu", _with("testlen", _set_at(0, -3, np.int64)),
     r"'testlen' must be non-negative integers, found -3 at \[0\]"),
    ("bleu", _with("guess", lambda a: a + 0.5),
     r"'guess' must be integers \(counts\), got dtype float64"),
    ("bleu", _with("guess", lambda a: a[:, 0]),
     r"'guess' must have shape \(3, 4\) \(candidates x n\), got \(3,\)"),
    # ROUGE-L: a precision of NaN or 3.0
    ("rouge", _with("precision", _set_at(0, np.nan)),
     r"'precision' must hold values in \[0, 1\], found nan at \[0\]"),
    ("rouge", _with("recall", _set_at(2, 3.0)),
     r"'recall' must hold values in \[0, 1\], found 3.0 at \[2\]"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "corrupt", "message"), _BAD_STATES)
@pytest.mark.parametrize("enter", ["merge", "from_state"])
def test_a_state_update_cannot_produce_is_refused(kind, corrupt, message, enter):
    bad = corrupt(_state(kind))
    metric, options = _KINDS[kind]
    with pytest.raises(ValueError, match="^not a valid accumulator state: " + message):
        if enter == "merge":
            sparsecider.CiderAccumulator(metric, tokenizer="whitespace", **options).merge(bad)
        else:
            sparsecider.CiderAccumulator.from_state(bad)


@pytest.mark.parametrize("kind", sorted(_KINDS))
def test_valid_states_still_load_and_merge(kind):
    # the checks refuse nothing update() makes, an empty state included
    metric, options = _KINDS[kind]
    state = _state(kind)
    one = sparsecider.CiderAccumulator.from_state(state).compute()
    empty = sparsecider.CiderAccumulator(metric, tokenizer="whitespace", **options).state()
    merged = sparsecider.CiderAccumulator.from_state(empty).merge(state).compute()
    assert merged.score == one.score


# ---- 1e. numpy masked arrays: refused, never read without their mask ---------------------

_TRAIN = [
    np.array([[4, 5, 6, 0], [4, 5, 0, 0]]),
    np.array([[7, 8, 9, 0]]),
    np.array([[7, 5, 0, 0]]),
]


def _masked_candidates():
    # the mask hides the 9 of row 1 (as a model's padding mask would): read
    # without it, row 1 would be "7 8 9" and score 10 against image 1
    data = np.array([[4, 5, 6, 0], [7, 8, 9, 0]])
    return np.ma.masked_array(data, mask=[[0, 0, 0, 0], [0, 0, 1, 0]])


_MASKED = r"is a numpy masked array with 1 masked entry: its mask would be ignored"


def test_reward_scorer_refuses_masked_candidates():
    scorer = sparsecider.RewardScorer(_TRAIN, df="corpus", eos=0)
    with pytest.raises(ValueError, match=r"^candidates " + _MASKED + r".*\.filled\("):
        scorer(_masked_candidates(), [0, 1])


def test_cider_d_ids_refuses_masked_candidates_and_references():
    with pytest.raises(ValueError, match=r"^candidates " + _MASKED):
        sparsecider.cider_d_ids(_masked_candidates(), _TRAIN[:2], df="corpus", eos=0)
    refs = [_TRAIN[0], np.ma.masked_array(_TRAIN[1], mask=[[0, 1, 0, 0]])]
    with pytest.raises(ValueError, match=r"^references\[1\] " + _MASKED):
        sparsecider.cider_d_ids(_masked_candidates().data, refs, df="corpus", eos=0)


def test_a_masked_array_without_masked_entries_is_read_as_its_data():
    scorer = sparsecider.RewardScorer(_TRAIN, df="corpus", eos=0)
    plain = np.array([[4, 5, 6, 0], [7, 8, 9, 0]])
    unmasked = np.ma.masked_array(plain, mask=False)
    assert (scorer(unmasked, [0, 1]).scores == scorer(plain, [0, 1]).scores).all()


# ---- 4. errors a user can act on ----------------------------------------------------------

_TOO_LARGE = r"does not fit in 64 bits: integer image ids must lie in -2\*\*63 \.\. 2\*\*63 - 1"


def test_an_accumulator_id_beyond_64_bits_is_a_clear_error():
    acc = sparsecider.CiderAccumulator(tokenizer="whitespace")
    with pytest.raises(ValueError, match=r"^ids\[0\] = 1180591620717411303424 " + _TOO_LARGE):
        acc.update(["a"], [["a"]], ids=[2**70])


def test_a_reward_scorer_key_beyond_64_bits_is_a_clear_error():
    with pytest.raises(ValueError, match=r"^references key 1180591620717411303424 " + _TOO_LARGE):
        sparsecider.RewardScorer({2**70: _TRAIN[0], 1: _TRAIN[1]}, df="corpus", eos=0)


def test_a_batch_of_0_rows_is_the_same_error_everywhere():
    # before: cider_d_ids returned NaN with numpy RuntimeWarnings
    scorer = sparsecider.RewardScorer(_TRAIN, df="corpus", eos=0)
    empty = np.zeros((0, 4), dtype=np.int64)
    message = r"^candidates is empty: there is nothing to score"
    with pytest.raises(ValueError, match=message):
        scorer(empty, np.zeros(0, dtype=np.int64))
    with pytest.raises(ValueError, match=message):
        sparsecider.cider_d_ids(empty, _TRAIN, df="corpus", eos=0, image_index=[])


@pytest.mark.parametrize("texts", [False, True])
def test_every_reference_empty_is_the_same_error_everywhere(texts):
    # before: the scorer returned [0.0, 0.0] where cider_d_ids and cider_d raise
    message = r"^every reference is empty after tokenization"
    refs = [np.array([[0, 0]]), np.array([[0, 0]])]
    with pytest.raises(ValueError, match=message):
        sparsecider.cider_d_ids(np.array([[4, 0], [5, 0]]), refs, df="corpus", eos=0)
    with pytest.raises(ValueError, match=message):
        if texts:
            sparsecider.RewardScorer.from_texts([[""], [""]], df="corpus")
        else:
            sparsecider.RewardScorer(refs, df="corpus", eos=0)


def test_bootstrap_weights_must_be_whole_counts():
    from sparsecider.significance import bootstrap_ci

    with pytest.raises(ValueError, match=r"^weights\[0\] = 1\.5 is not a whole number: weights "
                       r"are counts \(the candidates of each image"):  # fmt: skip
        bootstrap_ci([1.0, 2.0, 3.0, 4.0], weights=[1.5, 1, 1, 1], n_resamples=10)
    # whole counts, as floats or integers, stay accepted: (3 * 2 + 6) / 4 = 3
    assert bootstrap_ci([2.0, 6.0], weights=[3.0, 1], n_resamples=10).score == 3.0


# ---- 1a. the table-kind rule, the same at every entry point ------------------------------

#: token ids written as text (self-critical training code's strings)
_ID_CANDS = ["4 5 6", "17 4 5"]
_ID_REFS = [["4 5 6", "4 5"], ["17 4 5 9"]]
_WORDS_TABLE = (
    r"^df=coco-val2014\(n_images=40504\) counts words \(tokenizer 'ptb'\), but every caption "
    r"looked at \(\d+, candidates and references\) is token ids written as text \(e\.g\. "
    r"'4 5 6'\): ids are not the table's words"
)


def _ids_table():
    arrays = [np.array([[4, 5, 6, 0], [4, 5, 0, 0]]), np.array([[17, 4, 5, 9, 0]])]
    return sparsecider.DocumentFrequencies.from_id_references(arrays, eos=0)


def _cli_score(tmp_path, cands, refs, *options):
    from sparsecider.cli import main

    c, r = tmp_path / "c.jsonl", tmp_path / "r.jsonl"
    c.write_text("".join(f'{{"image_id": {i}, "caption": "{x}"}}\n' for i, x in enumerate(cands)))
    r.write_text(
        "".join(f'{{"id": {i}, "references": {refs[i]!r}}}\n'.replace("'", '"')
                for i in range(len(refs)))
    )  # fmt: skip
    return main(["score", "-r", str(r), "-c", str(c), *options])


def _compat(cands, refs, df):
    from sparsecider.compat import CiderD

    gts = dict(enumerate(refs))
    res = [{"image_id": i, "caption": [c]} for i, c in enumerate(cands)]
    return CiderD(df=df).compute_score(gts, res)


def _dask_score(cands, refs):
    db = pytest.importorskip("dask.bag")
    from sparsecider import dask as sdask

    records = [{"id": i, "candidate": c, "references": refs[i]} for i, c in enumerate(cands)]
    return sdask.cider_d(db.from_sequence(records, npartitions=2), df="coco-val2014",
                         tokenizer="whitespace")  # fmt: skip


_WORDS_ENTRY_POINTS = {
    "compat.CiderD": lambda c, r: _compat(c, r, "coco-val2014"),
    "cider_d": lambda c, r: sparsecider.cider_d(
        c, r, df="coco-val2014", tokenizer="whitespace"
    ),
    "cider": lambda c, r: sparsecider.cider(c, r, df="coco-val2014", tokenizer="whitespace"),
    "RewardScorer.from_texts": lambda c, r: RewardScorer.from_texts(r, df="coco-val2014"),
    "CiderAccumulator.update": lambda c, r: sparsecider.CiderAccumulator(
        df="coco-val2014", tokenizer="whitespace"
    ).update(c, r, ids=[0, 1]),
    "stream.cider_d": lambda c, r: sparsecider.stream.cider_d(
        [{"id": i, "candidate": x, "references": r[i]} for i, x in enumerate(c)],
        df="coco-val2014", tokenizer="whitespace",
    ),
    "cider_r": lambda c, r: sparsecider.cider_r(c, r, df="coco-val2014", tokenizer="whitespace"),
    "mbr_select(against='references')": lambda c, r: sparsecider.mbr_select(
        [[x, x] for x in c], r, against="references", df="coco-val2014", tokenizer="whitespace"
    ),
    "mbr_select": lambda c, r: sparsecider.mbr_select(
        [[x, x + " 5"] for x in c], df="coco-val2014", tokenizer="whitespace"
    ),
    "self_cider": lambda c, r: sparsecider.self_cider(
        [[x, x + " 5"] for x in c], df="coco-val2014", tokenizer="whitespace"
    ),
    "dask.cider_d": lambda c, r: _dask_score(c, r),
    "CiderVectorizer.fit": lambda c, r: sparsecider.CiderVectorizer(
        df="coco-val2014", tokenizer="whitespace"
    ).fit(r),
    "CiderVectorizer.transform": lambda c, r: sparsecider.CiderVectorizer(
        df="coco-val2014", tokenizer="whitespace"
    ).fit(None).transform(c),
    "CiderVectorizer.similarity": lambda c, r: sparsecider.CiderVectorizer(
        df="coco-val2014", tokenizer="whitespace"
    ).fit(None).similarity(c, c),
    "CiderVectorizer.score": lambda c, r: sparsecider.CiderVectorizer(
        df="coco-val2014", tokenizer="whitespace"
    ).fit(None).score(c, r),
}  # fmt: skip


@pytest.mark.parametrize("entry", sorted(_WORDS_ENTRY_POINTS))
def test_a_table_of_words_refuses_token_ids_written_as_text(entry):
    # compat.CiderD gave 4.35 here: ids read as words of coco-val2014
    with pytest.raises(ValueError, match=_WORDS_TABLE):
        _WORDS_ENTRY_POINTS[entry](_ID_CANDS, _ID_REFS)


def test_the_cli_refuses_token_ids_with_a_table_of_words(tmp_path, capsys):
    code = _cli_score(tmp_path, _ID_CANDS, _ID_REFS, "--df", "coco-val2014",
                      "--tokenizer", "whitespace")  # fmt: skip
    assert code != 0
    assert "counts words (tokenizer 'ptb'), but every caption looked at" in capsys.readouterr().err


def test_ids_with_a_table_of_words_and_words_stay_accepted():
    # captions that are words (even with a number among them) keep their score
    words = sparsecider.cider_d(["a dog runs", "2 red buses"], [["a dog runs"], ["two buses"]],
                                df="coco-val2014", tokenizer="whitespace")  # fmt: skip
    assert words.scores.shape == (2,)
    # and ids against a table of ids are what that table is for
    ids = sparsecider.cider_d(_ID_CANDS, _ID_REFS, df=_ids_table(), tokenizer="whitespace")
    assert ids.scores.shape == (2,)


_IDS_TABLE = r"^df=precomputed\(.*\) counts token ids \(ids\(eos=0\)\), but the {} hold words"

_IDS_ENTRY_POINTS = {
    "cider_d": lambda df, c, r: sparsecider.cider_d(c, r, df=df, tokenizer="whitespace"),
    "CiderAccumulator.update": lambda df, c, r: sparsecider.CiderAccumulator(
        df=df, tokenizer="whitespace"
    ).update(c, r, ids=[0, 1]),
    "RewardScorer.from_texts": lambda df, c, r: RewardScorer.from_texts(r, df=df)(c, [0, 1]),
    "CiderVectorizer.fit": lambda df, c, r: sparsecider.CiderVectorizer(
        df=df, tokenizer="whitespace"
    ).fit(r),
    "CiderVectorizer.similarity": lambda df, c, r: sparsecider.CiderVectorizer(
        df=df, tokenizer="whitespace"
    ).fit(None).similarity(c, [x for refs in r for x in refs]),
    "stream.cider_d": lambda df, c, r: sparsecider.stream.cider_d(
        [{"id": i, "candidate": x, "references": r[i]} for i, x in enumerate(c)],
        df=df, tokenizer="whitespace",
    ),
}  # fmt: skip


@pytest.mark.parametrize("entry", sorted(_IDS_ENTRY_POINTS))
def test_a_table_of_ids_refuses_references_of_words(entry):
    # before: only candidates were checked, references of words passed
    refs = [["a dog runs", "4 5"], ["17 4 5 9"]]
    with pytest.raises(ValueError, match=_IDS_TABLE.format("references")):
        _IDS_ENTRY_POINTS[entry](_ids_table(), _ID_CANDS, refs)


@pytest.mark.parametrize("entry", ["CiderVectorizer.transform", "RewardScorer.from_texts"])
def test_a_table_of_ids_refuses_candidates_of_words(entry):
    # before: transform() and the scorer's batches gave numbers for words
    words = ["a dog runs", "a red bus"]
    with pytest.raises(ValueError, match=_IDS_TABLE.format("captions")):
        if entry == "RewardScorer.from_texts":
            RewardScorer.from_texts(_ID_REFS, df=_ids_table())(words, [0, 1])
        else:
            vec = sparsecider.CiderVectorizer(df=_ids_table(), tokenizer="whitespace")
            vec.fit(None).transform(words)


# ---- 1b. tokenized captions given as lists ----------------------------------------------

_TOKEN_LISTS = (
    r"is a list of \d+ single words \((.*)\), as is every image's list looked at, while the "
    r"references are sentences: "
)
_SENTENCE_REFS = [["a dog runs on the grass", "the dog runs"], ["a red bus on the road"]]


def test_token_lists_given_as_captions_are_refused():
    # before: 6 scores for 2 images, each token read as a candidate
    with pytest.raises(ValueError, match=r"^candidates\[0\] " + _TOKEN_LISTS + r".*' '\.join"):
        sparsecider.cider_d([["a", "dog", "runs"], ["a", "red", "bus"]], _SENTENCE_REFS)
    with pytest.raises(ValueError, match=r"^candidates\['x'\] " + _TOKEN_LISTS):
        sparsecider.bleu({"x": ["a", "dog"], "y": ["a", "bus"]},
                         {"x": _SENTENCE_REFS[0], "y": _SENTENCE_REFS[1]})  # fmt: skip


def test_several_whole_candidates_per_image_stay_easy():
    # several captions per image (sentences), or single-word captions
    # against single-word references, are what they look like
    several = sparsecider.cider_d([["a dog runs", "the dog"], ["a bus", "a red bus"]],
                                  _SENTENCE_REFS, tokenizer="whitespace")  # fmt: skip
    assert several.scores.shape == (4,)
    words = sparsecider.cider_d([["dog", "cat"], ["bus"]], [["dog"], ["bus"]],
                                tokenizer="whitespace")  # fmt: skip
    assert words.scores.shape == (3,)


def test_the_cli_refuses_a_results_file_of_token_lists(tmp_path, capsys):
    from sparsecider.cli import main

    c, r = tmp_path / "c.json", tmp_path / "r.jsonl"
    c.write_text(json.dumps([{"image_id": 0, "caption": ["a", "dog", "runs"]},
                             {"image_id": 1, "caption": ["a", "red", "bus"]}]))  # fmt: skip
    r.write_text("".join(json.dumps({"id": i, "references": refs}) + "\n"
                         for i, refs in enumerate(_SENTENCE_REFS)))  # fmt: skip
    assert main(["score", "-r", str(r), "-c", str(c), "--format", "text"]) != 0
    err = capsys.readouterr().err
    assert "single words" in err and "' '.join" in err


# ---- 1c. results for part of the reference images: visible in every output format ---------


def _coco_partial(tmp_path):
    """COCO annotations of 3 images, results for 2 of them."""
    refs = {1: ["a dog runs on grass"], 2: ["a red bus on a road"], 3: ["a cat sleeps"]}
    annotations = {
        "images": [{"id": i} for i in refs],
        "annotations": [{"image_id": i, "id": 10 * i + j, "caption": c}
                        for i, caps in refs.items() for j, c in enumerate(caps)],
    }  # fmt: skip
    results = [{"image_id": 1, "caption": "a dog runs"}, {"image_id": 2, "caption": "a bus"}]
    r, c = tmp_path / "refs.json", tmp_path / "res.json"
    r.write_text(json.dumps(annotations))
    c.write_text(json.dumps(results))
    return str(r), str(c)


_UNSCORED = "1 reference image has no candidate: the mean is over the 2 images of the results"


@pytest.mark.parametrize("fmt", ["text", "table"])
def test_partial_results_are_noted_in_text_outputs(tmp_path, capsys, fmt):
    # before: "CIDEr-D = 0.6284 | ..." for 500 of the demo's 1,000 images, exit 0
    from sparsecider.cli import main

    refs, cands = _coco_partial(tmp_path)
    assert main(["score", "-r", refs, "-c", cands, "--format", fmt]) == 0
    assert _UNSCORED in capsys.readouterr().out


@pytest.mark.parametrize("metrics", ["cider-d", "cider-d,bleu"])
def test_partial_results_have_a_column_in_tsv(tmp_path, capsys, metrics):
    from sparsecider.cli import main

    refs, cands = _coco_partial(tmp_path)
    assert main(["score", "-r", refs, "-c", cands, "--format", "tsv", "--metric", metrics]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    column = header.split("\t").index("unscored_reference_images")
    assert [row.split("\t")[column] for row in rows] == ["1"] * len(rows)


# ---- 4. the command line's errors -------------------------------------------------------


def test_demo_write_to_a_file_says_it_is_not_a_folder(tmp_path, capsys):
    from sparsecider.cli import main

    path = tmp_path / "notes.txt"
    path.write_text("mine")
    assert main(["demo", "--write", str(path)]) == 1
    err = capsys.readouterr().err
    assert "notes.txt is a file, not a folder: give a folder to write the example files" in err
    assert path.read_text() == "mine"


def test_demo_write_to_an_empty_path_writes_nothing(tmp_path, capsys, monkeypatch):
    # before: "" (an unset $DIR) wrote the files into the working folder
    from sparsecider.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--write", ""]) == 1
    assert 'is empty (an unset variable, such as "$DIR"?)' in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "command", [["score", "-r", "R", "-c", "C"], ["df", "fit", "R", "-o", "O"]]
)
def test_n_beyond_64_is_refused_at_parse_time(command, capsys):
    # before: exit 1 after reading the inputs; the CHANGELOG says exit 2 at parse time
    from sparsecider.cli import main

    with pytest.raises(SystemExit) as exit_:
        main([*command, "--n", "65"])
    assert exit_.value.code == 2
    assert "argument --n: must be at most 64, got 65" in capsys.readouterr().err


def test_no_tokenizer_warning_just_before_an_error():
    # before: "TokenizerWarning: the document frequencies ... were fitted on
    # tokens of tokenizer 'ptb', but ... 'char'", then the ValueError of the same call
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match=r"^references\[0\] is empty"):
            sparsecider.cider_d(["一只狗"], [[]], df="coco-val2014", tokenizer="char")
    assert [str(w.message) for w in caught] == []


def test_the_tokenizer_warning_still_comes_with_the_scores():
    with pytest.warns(sparsecider.TokenizerWarning, match=r"fitted on tokens of tokenizer 'ptb'"):
        sparsecider.cider_d(["一只狗"], [["一只猫"]], df="coco-val2014", tokenizer="char")
    with pytest.warns(sparsecider.TokenizerWarning, match=r"fitted on tokens of tokenizer 'ptb'"):
        RewardScorer.from_texts([["一只猫"]], df="coco-val2014", tokenizer="char")
    with pytest.warns(sparsecider.TokenizerWarning, match=r"fitted on tokens of tokenizer 'ptb'"):
        sparsecider.CiderVectorizer(df="coco-val2014", tokenizer="char").fit(None).transform(["一"])


def test_a_table_of_words_fitted_on_id_strings_serves_id_strings():
    # from_references on space-joined ids: its words are the ids (the same
    # counts as the table of ids), so id strings are its own kind of words
    df = sparsecider.DocumentFrequencies.from_references(_ID_REFS, tokenizer="whitespace")
    got = sparsecider.cider_d(_ID_CANDS, _ID_REFS, df=df, tokenizer="whitespace")
    want = sparsecider.cider_d(_ID_CANDS, _ID_REFS, df=_ids_table(), tokenizer="whitespace")
    assert got.scores.tolist() == want.scores.tolist()


_KINDS_DIFFER = (
    r"the image ids of {} are strings \(e\.g\. '1'\) while those of {} are integers "
    r"\(e\.g\. 1\): no id can match; give both the same kind \(int\(id\)"
)


def test_string_ids_against_integer_ids_are_named_as_such(tmp_path, capsys):
    # before: only "id(s) only in candidates: ['1', '2']; ... only in references: [1, 2]"
    refs = {1: ["a dog runs"], 2: ["a red bus"]}
    with pytest.raises(ValueError, match="^" + _KINDS_DIFFER.format("candidates", "references")):
        sparsecider.cider_d({"1": "a dog", "2": "a bus"}, refs)
    with pytest.raises(ValueError, match="^" + _KINDS_DIFFER.format("candidates", "references")):
        sparsecider.CiderAccumulator().update({"1": "a dog", "2": "a bus"}, refs)
    with pytest.raises(ValueError, match="^" + _KINDS_DIFFER.format("res", "gts")):
        from sparsecider.compat import Cider

        Cider().compute_score(refs, {"1": ["a dog"], "2": ["a bus"]})
    scorer = RewardScorer.from_texts(refs, df="corpus")
    with pytest.raises(ValueError, match=r"images\[0\] = '1' is not an image of this scorer.*; "
                       + _KINDS_DIFFER.format("images", "the scorer's references")):  # fmt: skip
        scorer(["a dog"], ["1"])
    # the command line: a results file with "image_id": "1" against annotations of 1
    from sparsecider.cli import main

    c, r = tmp_path / "c.jsonl", tmp_path / "r.jsonl"
    c.write_text('{"image_id": "1", "caption": "a dog"}\n{"image_id": "2", "caption": "a bus"}\n')
    r.write_text('{"id": 1, "references": ["a dog runs"]}\n{"id": 2, "references": ["a bus"]}\n')
    assert main(["score", "-r", str(r), "-c", str(c)]) == 1
    assert re.search(_KINDS_DIFFER.format(".*c.jsonl", ".*r.jsonl"), capsys.readouterr().err)


_SURROGATE = r"\('a\\ud800b c'\) holds a lone surrogate, U\+D800 at character 1, which tokenizer"


@pytest.mark.parametrize("tokenizer", ["mecab", "kiwi"])
def test_a_lone_surrogate_is_named_as_the_user_gave_it(tokenizer):
    # before: "caption 1 of the 3 tokenized together": a position in an internal batch
    pytest.importorskip({"mecab": "fugashi", "kiwi": "kiwipiepy"}[tokenizer])
    bad = "a\ud800b c"
    cases = [
        ("references[0][1]", lambda: sparsecider.cider_d(
            ["a b", "c d"], [["ok fine", bad], ["x y"]], tokenizer=tokenizer)),
        ("candidates[7][1]", lambda: sparsecider.cider_d(
            {7: ["a b", bad], 9: "c"}, {7: ["x y"], 9: ["z"]}, tokenizer=tokenizer)),
        ("candidates['im5']", lambda: sparsecider.CiderAccumulator(tokenizer=tokenizer).update(
            {"im4": "a", "im5": bad}, {"im4": ["x"], "im5": ["y"]})),
        ("references[1][0]", lambda: sparsecider.bleu(
            ["a b", "c d"], [["ok fine"], [bad]], tokenizer=tokenizer)),
        ("references[3][1]", lambda: RewardScorer.from_texts(
            {3: ["ok", bad]}, df="corpus", tokenizer=tokenizer)),
        ("candidates[1]", lambda: RewardScorer.from_texts(
            [["ok fine"], ["x y"]], df="corpus", tokenizer=tokenizer)(["a", bad], [0, 1])),
        # the threads' shards name it from the whole corpus too
        ("references[1500][0]", lambda: sparsecider.cider_d(
            ["a b"] * 2000, [["x y"]] * 1500 + [[bad]] + [["x y"]] * 499, tokenizer=tokenizer,
            n_jobs=2)),
    ]  # fmt: skip
    for where, call in cases:
        with pytest.raises(ValueError, match="^" + re.escape(where) + " " + _SURROGATE):
            call()
