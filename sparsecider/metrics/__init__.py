"""One module per metric over the core's statistics.

``cider`` (CIDEr-D and CIDEr), ``bleu``, ``rouge`` (ROUGE-L), ``cider_r``,
``self_cider`` (Self-CIDEr diversity) and ``mbr`` (consensus selection).
The public names are re-exported by :mod:`sparsecider`.
"""
