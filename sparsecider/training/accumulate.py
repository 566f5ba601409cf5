"""``CiderAccumulator``: a metric state filled batch by batch, on any number of processes.

Evaluation inside distributed training sees each image on one process.
CIDEr's document frequencies are counted over the whole corpus, so scores
computed per process cannot be averaged.  An accumulator keeps what the
corpus score needs, without caption text, as plain arrays
(:mod:`sparsecider.training.state`):

- CIDEr-D and CIDEr with ``df="corpus"``: every caption's token hashes
  (the union of all references decides the document frequencies);
- CIDEr-D and CIDEr with fixed document frequencies: each candidate's
  per-order values, final as soon as its image is seen;
- BLEU: each candidate's sufficient statistics (lengths, n-gram counts);
- ROUGE-L: each candidate's best precision and recall;
- METEOR: each candidate's 23 statistics (integer counts: the corpus
  score sums them, so any split merges exactly).

States merge exactly (:meth:`CiderAccumulator.merge`), and
:meth:`CiderAccumulator.compute` gives the :class:`~sparsecider.CiderResult`
of one call over all the images (document frequencies of the union, then the
engine and the reduce of :func:`sparsecider.cider_d`).  The same image id in
two states is an error, never a double count.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._checks import MAX_N, check_int, describe_keys
from .._kernels.arrays import exclusive_cumsum
from .._kernels.hashing import SCHEME
from .._kernels.tokens import Tokens
from ..core import reduce
from ..core.advice import advise, check_id_strings, warn_small_corpus
from ..core.corpus import as_corpus
from ..core.engine import token_statistics
from ..core.frequencies import DocumentFrequencies
from ..core.result import CiderResult
from ..core.validate import check_beta, check_options
from ..io.named import NAMED
from ..metrics.bleu import BleuStatistics, bleu_result, corpus_statistics
from ..metrics.meteor.api import check_tokenizer as meteor_tokenizer
from ..metrics.meteor.api import data_checksum, meteor_result, meteor_statistics, resources
from ..metrics.rouge import rouge_l_result, rouge_l_statistics, rouge_l_tokenizer
from ..tokenizers import TokenizerLike, get_tokenizer
from .state import (
    ARRAYS,
    FORMAT,
    FORMAT_VERSION,
    check_state,
    compact,
    empty_part,
    image_id_array,
    pack_tokens,
    state_part,
    state_tokenizer,
)

__all__ = ["METRICS", "CiderAccumulator"]

METRICS = ("CIDEr-D", "CIDEr", "BLEU", "ROUGE-L", "METEOR")


class CiderAccumulator:
    """A corpus score accumulated over batches and processes: update, merge, compute.

    Parameters
    ----------
    metric : {"CIDEr-D", "CIDEr", "BLEU", "ROUGE-L", "METEOR"}, default "CIDEr-D"
        METEOR needs the ``meteor`` extra (checked when the accumulator
        is made) and takes ``tokenizer="ptb"`` or ``"whitespace"`` only.
    n : int, optional
        Highest n-gram order (CIDEr, BLEU; default 4).
    sigma : float, optional
        CIDEr-D's length penalty width (default 6).
    scale : float, optional
        CIDEr's final multiplier (default 10).
    beta : float, optional
        ROUGE-L's recall weight (default 1.2).
    df : "corpus", a name, or DocumentFrequencies, optional
        CIDEr's document frequencies (default ``"corpus"``: the union of
        every state's references).
    tokenizer : str or callable, default "ptb"
        As :func:`sparsecider.cider_d`.  The captions of each
        :meth:`update` are tokenized as one sequence, as one call does;
        the PTB tokenizer's look-ahead does not cross updates (a caption
        ending in a single letter and a period may keep that period when
        the next caption is in another update, SPEC section 4): for
        numbers identical to one call whatever the split, tokenize first
        and pass ``tokenizer="whitespace"``.

    Examples
    --------
    Two processes' shares of a corpus, merged, equal one call over all of it:

    >>> import sparsecider
    >>> refs = {1: ["a dog runs", "the dog runs"], 2: ["a red bus"], 3: ["a cat sleeps"]}
    >>> cands = {1: "a dog runs", 2: "a bus", 3: "a cat"}
    >>> rank0, rank1 = CiderAccumulator(), CiderAccumulator()
    >>> rank0.update({1: cands[1]}, {1: refs[1]})
    >>> rank1.update({2: cands[2], 3: cands[3]}, {2: refs[2], 3: refs[3]})
    >>> merged = rank0.merge(rank1.state()).compute()
    >>> one = sparsecider.cider_d(cands, refs)
    >>> bool(abs(merged.score - one.score) < 1e-12), merged.ids
    (True, (1, 2, 3))
    >>> rank0.merge(rank1.state())
    Traceback (most recent call last):
    ...
    ValueError: image id(s) [2, 3] are in both states: each image must be scored once ...
    """

    def __init__(
        self,
        metric: str = "CIDEr-D",
        *,
        n: int | None = None,
        sigma: float | None = None,
        scale: float | None = None,
        beta: float | None = None,
        df: DocumentFrequencies | str | None = None,
        tokenizer: TokenizerLike = "ptb",
    ) -> None:
        if metric not in METRICS:
            raise ValueError(f"metric={metric!r:.40} is not one of {', '.join(map(repr, METRICS))}")
        given = {"n": n, "sigma": sigma, "scale": scale, "beta": beta, "df": df}
        allowed = {
            "CIDEr-D": ("n", "sigma", "scale", "df"), "CIDEr": ("n", "scale", "df"),
            "BLEU": ("n",), "ROUGE-L": ("beta",), "METEOR": (),
        }[metric]  # fmt: skip
        extra = [name for name, value in given.items() if value is not None and name not in allowed]
        if extra:
            raise ValueError(f"{metric} takes no {' or '.join(extra)}; its options: {allowed}")
        self.metric = metric
        self._cider = None
        if metric.startswith("CIDEr"):
            self._cider = check_options(
                n=4 if n is None else n, sigma=None if metric == "CIDEr" else
                6.0 if sigma is None else sigma, scale=10.0 if scale is None else scale,
                df="corpus" if df is None else df, tokenizer=tokenizer, plain=metric == "CIDEr",
            )  # fmt: skip
            self.kind = "tokens" if self._cider.df is None else "values"
            self._tokenizer = self._cider.tokenizer
            self._n, self._beta, frequencies = self._cider.n, None, self._cider.df
        elif metric == "METEOR":
            self.kind, self._n, self._beta, frequencies = "meteor", None, None, None
            self._meteor = resources()  # the extra, checked now
            self._tokenizer = get_tokenizer(meteor_tokenizer(tokenizer))
        else:
            self.kind = "bleu" if metric == "BLEU" else "rouge"
            self._n = check_int("n", 4 if n is None else n, maximum=MAX_N)
            self._beta = check_beta(1.2 if beta is None else beta)
            self._tokenizer = (get_tokenizer if metric == "BLEU" else rouge_l_tokenizer)(tokenizer)
            frequencies = None
        cider = self._cider
        self.options = {
            "metric": metric,
            "n": None if metric in ("ROUGE-L", "METEOR") else self._n,
            "sigma": None if cider is None else cider.sigma,
            "scale": None if cider is None else cider.scale,
            "beta": self._beta if metric == "ROUGE-L" else None,
            "df": None if cider is None else "corpus" if frequencies is None
            else frequencies.describe(),
            "df_sha": None if frequencies is None else frequencies.digest,
            "tokenizer": self._tokenizer.name,
            "hashing": SCHEME,
        }  # fmt: skip
        if metric == "METEOR":  # states of other METEOR data do not merge
            self.options["meteor_data"] = data_checksum(self._meteor)
        self._parts: list[dict] = []
        self._seen: set = set()

    @property
    def n(self) -> int:
        return self._n

    @property
    def n_images(self) -> int:
        """Images accumulated so far."""
        return len(self._seen)

    # ---- filling ----------------------------------------------------------------------

    def update(self, candidates: object, references: object, *, ids: object = None) -> None:
        """Add images: their candidates and references, as :func:`sparsecider.cider_d` takes them.

        Image ids come from dicts keyed by image id, or from ``ids`` (one per
        image, integers or strings) with aligned lists.

        Raises
        ------
        TypeError, ValueError
            As :func:`sparsecider.cider_d` for the captions; no image ids,
            ids given twice, or an image already accumulated (named).
        """
        corpus = as_corpus(candidates, references)
        frequencies = None if self._cider is None else self._cider.df
        check_id_strings(corpus.candidates, frequencies, corpus.references)  # the table's kind
        if (corpus.ids is None) == (ids is None):
            raise ValueError(
                "give the image ids once: pass candidates and references as dicts keyed by "
                "image id, or aligned lists with ids=[...]"
                if ids is None
                else "ids= was given, but candidates and references are dicts with their own ids"
            )
        part = {
            "ids": image_id_array(corpus.ids if ids is None else ids, corpus.n_images),
            "candidates_per_image": np.bincount(corpus.candidate_image, minlength=corpus.n_images),
        }
        split = self._tokenizer.split
        if self.kind == "tokens":
            with corpus.naming("references"):
                refs = split(corpus.references)
            with corpus.naming("candidates"):
                cands = split(corpus.candidates)
            part.update(
                reference_hashes=refs.hashes, reference_lengths=refs.lengths,
                references_per_image=np.diff(corpus.reference_offsets),
                candidate_hashes=cands.hashes, candidate_lengths=cands.lengths,
            )  # fmt: skip
        elif self.kind == "values":  # final values: as cider_d's one-thread path
            with corpus.naming("references"):
                refs = split(corpus.references)
            with corpus.naming("candidates"):
                cands = split(corpus.candidates)
            o = self._cider
            stats = token_statistics(
                refs, cands, corpus.candidate_image, corpus.reference_offsets,
                n=o.n, clip=o.clip, df=o.df,
            )  # fmt: skip
            part["per_order"] = reduce.per_order_values(stats, o.sigma, o.scale)
            part["empty"] = cands.lengths == 0
        elif self.kind == "bleu":
            stats = corpus_statistics(corpus, n=self._n, tokenizer=self._tokenizer)
            part.update({name: getattr(stats, name) for name in ARRAYS["bleu"]})
        elif self.kind == "meteor":
            part["statistics"] = meteor_statistics(corpus, self._tokenizer.name, self._meteor)
        else:
            part["precision"], part["recall"] = rouge_l_statistics(corpus, self._tokenizer)
        self._add([part])
        if self.kind != "meteor":  # METEOR normalises its text itself
            advise(corpus.candidates, corpus.references, self._tokenizer, frequencies)

    def _add(self, parts: list[dict]) -> None:
        parts = [part for part in parts if part["ids"].shape[0]]  # an empty rank adds nothing
        kinds = {part["ids"].dtype.kind for part in [*self._parts, *parts]}
        if len(kinds) > 1:
            raise TypeError(
                "image ids must be of one kind across states: integers in some, strings in "
                "others; use the same ids everywhere"
            )
        new = [i for part in parts for i in part["ids"].tolist()]
        again = [i for i in new if i in self._seen]
        if again:
            raise ValueError(
                f"image id(s) {describe_keys(again)} are in both states: each image must be "
                "scored once (torch's DistributedSampler pads ranks with repeated images to "
                "equal sizes: skip the padding, e.g. the indices beyond len(dataset))"
            )
        self._seen.update(new)
        self._parts.extend(parts)

    # ---- states -----------------------------------------------------------------------

    def _joined(self) -> dict:
        names = ["ids", "candidates_per_image"]
        if self.kind == "tokens":
            names += ["reference_hashes", "reference_lengths", "references_per_image",
                      "candidate_hashes", "candidate_lengths"]  # fmt: skip
        else:
            names += list(ARRAYS[self.kind])
        empty = empty_part(self.kind, self.options["n"], self.options["metric"])
        parts = self._parts or [empty]
        return {name: np.concatenate([p[name] for p in parts]) for name in names}

    def state(self) -> dict:
        """The accumulated images as plain arrays (see :mod:`sparsecider.training.state`).

        Picklable and small: no caption text; token hashes share one
        vocabulary of distinct 64-bit hashes, each token an index of 1 to 4
        bytes; counts and lengths in the smallest unsigned type that holds
        them (5.9 MB pickled for all of COCO val's 243,158 captions, whose
        text is 12.5 MB; 1.7 MB with fixed document frequencies, 0.8 MB for
        BLEU, 1.0 MB for ROUGE-L).
        Restore with :meth:`from_state`, or :meth:`merge` it.
        """
        joined = self._joined()
        out = {"format": FORMAT, "format_version": FORMAT_VERSION, "kind": self.kind,
               "options": dict(self.options)}  # fmt: skip
        if self.kind == "tokens":
            vocabulary, (refs, cands) = pack_tokens(
                [joined.pop("reference_hashes"), joined.pop("candidate_hashes")]
            )
            joined.update(vocabulary=vocabulary, reference_tokens=refs, candidate_tokens=cands)
        out.update({k: a if k == "ids" else compact(a) for k, a in joined.items()})
        return out

    @classmethod
    def from_state(
        cls, state: Mapping, *, df: DocumentFrequencies | None = None,
        tokenizer: TokenizerLike | None = None,
    ) -> CiderAccumulator:  # fmt: skip
        """An accumulator holding a state (from :meth:`state`, perhaps of another process).

        ``df``: the document frequencies of a state made with fixed ones
        (those shipped in the package are found by name).  ``tokenizer``:
        for further :meth:`update` calls when the state's is not
        ``"ptb"`` or ``"whitespace"`` (a callable cannot travel in a
        state); merging and computing need none.  Options, format version
        and arrays are checked, as by :meth:`merge`.

        Examples
        --------
        >>> acc = CiderAccumulator("BLEU", tokenizer="whitespace")
        >>> acc.update({"a": "a dog runs"}, {"a": ["a dog runs fast"]})
        >>> state = acc.state()
        >>> state["format_version"], sorted(state)[:4]
        (1, ['candidates_per_image', 'correct', 'format', 'format_version'])
        >>> import sparsecider
        >>> one = sparsecider.bleu(["a dog runs"], [["a dog runs fast"]], tokenizer="whitespace")
        >>> CiderAccumulator.from_state(state).compute().score == one.score
        True
        >>> CiderAccumulator.from_state({**state, "format_version": 2})
        Traceback (most recent call last):
        ...
        ValueError: the state has format version 2, written by a newer sparsecider; ...
        """
        check_state(state)
        o = state["options"]
        metric = o.get("metric")
        if metric not in METRICS:
            raise ValueError(f"not a valid accumulator state: metric {metric!r}")
        fixed = o.get("df") not in (None, "corpus")
        if fixed and df is None:
            name = str(o["df"]).split("(")[0]
            if name not in NAMED:
                raise ValueError(
                    f"the state was made with document frequencies {o['df']}: pass them, "
                    "from_state(state, df=...)"
                )
            df = name
        if tokenizer is None:
            tokenizer = state_tokenizer(o.get("tokenizer"))
        made = cls(
            metric, n=None if metric in ("ROUGE-L", "METEOR") else o.get("n"), sigma=o.get("sigma"),
            scale=o.get("scale"), beta=o.get("beta"), df=df if fixed else None,
            tokenizer=tokenizer,
        )  # fmt: skip
        return made.merge(state)

    def merge(self, *others: CiderAccumulator | Mapping) -> CiderAccumulator:
        """Add other accumulators or their states, in place; returns ``self``.

        Raises
        ------
        ValueError
            A state of another metric or other options (the message names
            the option and both values), of a newer format version, or
            holding an image already accumulated (named).
        """
        for other in others:
            if isinstance(other, CiderAccumulator):
                options, parts = other.options, other._parts
            else:
                kind = check_state(other)
                options, parts = other["options"], [state_part(other, kind)]
            differ = [
                f"{key} ({self.options[key]!r} here, {options.get(key)!r} in the other state)"
                for key in self.options
                if options.get(key) != self.options[key]
            ]
            if differ:
                raise ValueError(
                    "cannot merge states made with other options: " + "; ".join(differ)
                )
            self._add(parts)
        return self

    # ---- the score --------------------------------------------------------------------

    def compute(self) -> CiderResult:
        """The result of one call over every accumulated image (in the order accumulated).

        Raises
        ------
        ValueError
            No image yet; with ``df="corpus"``, every reference empty.
        """
        if not self._seen:
            raise ValueError("the accumulator holds no image yet: call update() or merge()")
        j = self._joined()
        n_images = j["ids"].shape[0]
        image = np.repeat(np.arange(n_images, dtype=np.int64), j["candidates_per_image"])
        ids = tuple(j["ids"].tolist())
        if self.kind == "bleu":
            stats = BleuStatistics(*(j[name] for name in ARRAYS["bleu"]))
            return bleu_result(stats, tokenizer=self.options["tokenizer"], n_images=n_images,
                               image_index=image, ids=ids)  # fmt: skip
        if self.kind == "meteor":
            return meteor_result(
                j["statistics"],
                tokenizer=self.options["tokenizer"],
                n_images=n_images,
                image_index=image,
                ids=ids,
                res=self._meteor,
            )
        if self.kind == "rouge":
            return rouge_l_result(
                j["precision"], j["recall"], beta=self._beta, tokenizer=self.options["tokenizer"],
                n_images=n_images, image_index=image, ids=ids,
            )  # fmt: skip
        options = self._cider
        if self.kind == "values":
            per_order, empty = j["per_order"], int(j["empty"].sum())
        else:
            warn_small_corpus(n_images, None, stacklevel=3)
            stats = token_statistics(
                Tokens(j["reference_hashes"], j["reference_lengths"]),
                Tokens(j["candidate_hashes"], j["candidate_lengths"]),
                image, exclusive_cumsum(j["references_per_image"]),
                n=options.n, clip=options.clip, df=None,
            )  # fmt: skip
            per_order = reduce.per_order_values(stats, options.sigma, options.scale)
            empty = stats.empty_candidates
        return CiderResult.from_per_order(
            per_order, signature=options.signature(n_images), n_images=n_images,
            image_index=image, ids=ids, df=options.df, empty_candidates=empty,
        )  # fmt: skip

    def __repr__(self) -> str:
        return f"CiderAccumulator({self.metric!r}, images={self.n_images}, kind={self.kind!r})"
