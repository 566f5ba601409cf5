"""The bundled example: the coco-caption demo's 1,000 COCO val 2014 images.

COCO annotations are CC BY 4.0 (Lin et al. 2014, "Microsoft COCO: Common
Objects in Context").  The file holds raw captions and the reference
tokenizer's output for them (PTBTokenizer of pycocoevalcap 1.2).

Examples
--------
>>> PUBLISHED_CIDER_D
0.5997905185184199
>>> round(PUBLISHED_CIDER_D, 3)  # as the demo notebook prints it
0.6
"""

from __future__ import annotations

import gzip
import json
from importlib import resources

__all__ = ["PUBLISHED_CIDER_D", "load_demo"]

#: CIDEr printed by coco-caption's demo notebook (0.600), full precision.
PUBLISHED_CIDER_D = 0.5997905185184199


def load_demo(tokenized: bool = True) -> tuple[list[int], list[str], list[list[str]]]:
    """Return ``(image_ids, candidates, references)`` of the bundled demo.

    Parameters
    ----------
    tokenized : bool, default True
        Captions as output by the reference tokenizer (score them with
        ``tokenizer="whitespace"``), or the raw text.

    Returns
    -------
    image_ids : list of int
        The 1,000 COCO image ids, in the demo's order.
    candidates : list of str
        One candidate caption per image.
    references : list of list of str
        The reference captions of each image.

    Examples
    --------
    >>> import sparsecider
    >>> from sparsecider.demo import load_demo
    >>> ids, cands, refs = load_demo(tokenized=False)
    >>> len(ids), len(refs[0])
    (1000, 5)
    >>> sparsecider.cider_d(cands, refs).score  # raw text, tokenized as the reference does
    0.5997905185184199

    The tokenized captions give the same score with the whitespace tokenizer:

    >>> ids, cands, refs = load_demo()
    >>> sparsecider.cider_d(cands, refs, tokenizer="whitespace").score == PUBLISHED_CIDER_D
    True
    """
    path = resources.files("sparsecider") / "data" / "coco_fakecap_demo.json.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        data = json.load(f)
    suffix = "_ptb" if tokenized else ""
    return data["image_ids"], data["candidates" + suffix], data["references" + suffix]
