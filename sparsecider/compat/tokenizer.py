"""``PTBTokenizer``: pycocoevalcap's tokenizer class, in pure Python (no Java)."""

from __future__ import annotations

from collections.abc import Mapping

from ..tokenizers.ptb import ptb_tokenize

__all__ = ["PTBTokenizer"]


class PTBTokenizer:
    """pycocoevalcap's ``PTBTokenizer``, without Java.

    ``tokenize({image_id: [{"caption": str}, ...]})`` returns
    ``{image_id: [tokenized str, ...]}``, all captions tokenized as one
    sequence in input order, as the Java pipeline does (see
    :func:`sparsecider.ptb_tokenize`).  Unlike the Java wrapper it never
    shifts captions onto other images (line separators inside a caption are
    read as spaces) and keeps images that have no caption (with an empty list).

    Examples
    --------
    >>> PTBTokenizer().tokenize({1: [{"caption": "A dog's toy."}], 2: [{"caption": "Hi!"}]})
    {1: ["a dog 's toy"], 2: ['hi']}
    """

    def tokenize(self, captions_for_image: Mapping) -> dict:
        """Tokenize every caption as the reference pipeline does.

        Parameters
        ----------
        captions_for_image : dict
            Image id -> list of ``{"caption": str, ...}`` dicts (other keys
            are ignored), as in COCO annotation files grouped by image.

        Returns
        -------
        dict
            Image id -> list of tokenized captions (lower-cased, punctuation
            removed, tokens joined by single spaces), same keys and order.

        Raises
        ------
        TypeError
            The input is not a dict of lists of dicts with a string ``caption``.

        Examples
        --------
        >>> PTBTokenizer().tokenize(
        ...     {7: [{"caption": "A Dog, running!", "id": 70}, {"caption": "The dog."}], 8: []}
        ... )
        {7: ['a dog running', 'the dog'], 8: []}
        """
        if not isinstance(captions_for_image, Mapping):
            raise TypeError(
                "captions_for_image must be a dict {image_id: [{'caption': str}, ...]}, "
                f"got {type(captions_for_image).__name__}"
            )
        flat: list[str] = []
        counts: list[int] = []
        for key, entries in captions_for_image.items():
            if not isinstance(entries, list):
                raise TypeError(
                    f"captions_for_image[{key!r}] must be a list of dicts, "
                    f"got {type(entries).__name__}"
                )
            for j, entry in enumerate(entries):
                if not isinstance(entry, Mapping) or not isinstance(entry.get("caption"), str):
                    raise TypeError(
                        f"captions_for_image[{key!r}][{j}] must be a dict with a string 'caption'"
                    )
                flat.append(entry["caption"])
            counts.append(len(entries))
        tokens = iter(ptb_tokenize(flat))
        return {
            key: [next(tokens) for _ in range(count)]
            for key, count in zip(captions_for_image, counts, strict=True)
        }
