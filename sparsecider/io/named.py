"""The document frequencies shipped in the package: their names, files and credits.

Plain data, read by :meth:`sparsecider.DocumentFrequencies.named`, the
signatures and ``sparsecider df list`` / ``df info`` (which imports nothing
heavy to list them).
"""

from __future__ import annotations

__all__ = ["NAMED", "check_name", "names"]

#: Frequencies shipped in the package: name -> file (in ``sparsecider/data``),
#: the content hash that pins it, where it comes from and how it was made
#: (``df info NAME``).
NAMED: dict[str, dict] = {
    "coco-val2014": {
        "file": "coco-val2014.df.npz",
        "sha": "f20d914b",
        "n_images": 40504,
        "tokenizer": "ptb",  # metadata the content hash does not cover, pinned here
        "min_count": 2,
        "description": (
            "COCO val 2014: all 40,504 images x all 202,654 reference captions, PTB-tokenized "
            "as the reference pipeline does (the CIDEr authors' coco-val-df), n = 1..4; "
            "n-grams seen in one image left out (scores unchanged)"
        ),
        "source": "coco-val2014 (benchmarks/make_named_df.py)",
        # the file's "source" names the script that wrote it; that script lives in the
        # source repository, not in the installed package: say how it was made
        "made": (
            "Every reference caption of captions_val2014.json (the 40,504 images of COCO val "
            "2014) tokenized by sparsecider.ptb_tokenize as one sequence in file order, counted "
            "one document per image (DocumentFrequencies.from_references, tokenizer="
            "'whitespace', n=4) and pruned (n-grams of a single image dropped: their idf "
            "equals an unseen n-gram's, so no score changes). The script that does this, "
            "benchmarks/make_named_df.py, is in the source repository, not in the installed "
            "package."
        ),
        "credit": (
            "Derived from the MS-COCO 2014 caption annotations, CC BY 4.0 "
            "(Lin et al. 2014, 'Microsoft COCO: Common Objects in Context'; "
            "Chen et al. 2015, 'Microsoft COCO Captions')"
        ),
    },
}


_NAME_FORBIDDEN = "|()\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def check_name(name: object) -> str:
    """A table's name, checked: it becomes a field of signatures, so it may
    hold neither ``|`` nor brackets nor a line break.

    Examples
    --------
    >>> check_name("my-train")
    'my-train'
    >>> check_name("coco|x")
    Traceback (most recent call last):
    ...
    ValueError: name must be a non-empty string without '|', '(', ')' or line breaks, got 'coco|x'
    """
    if not isinstance(name, str) or not name or any(c in _NAME_FORBIDDEN for c in name):
        raise ValueError(
            "name must be a non-empty string without '|', '(', ')' or line breaks, "
            f"got {name!r:.80}"
        )
    return name


def names() -> list[str]:
    """The names of the frequencies shipped in the package (:meth:`DocumentFrequencies.named`).

    Examples
    --------
    >>> names()
    ['coco-val2014']
    """
    return list(NAMED)
