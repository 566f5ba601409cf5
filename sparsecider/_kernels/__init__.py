"""The kernel layer: pure functions over numpy arrays and CSR/CSC matrices.

No state, no validation: preconditions are stated in each docstring and the
checked layers above (:mod:`sparsecider.core.validate`, :mod:`sparsecider.core.corpus`)
guarantee them.  One module per arrow of the data flow::

    tokens (token hashes, tokens.py) -> n-gram keys (hashing.py)
    -> per-order count matrices (counts.py) -> document frequencies (docfreq.py)
    -> tf-idf (weights.py) -> pair dot products and norms (pairs.py)

plus sorted-table lookups and merges (lookup.py), a small batch's n-grams
counted in padded rows (rows.py, for the cached reward scorer), blocked
array helpers (arrays.py), and the kernels of the other metrics: BLEU's clipped counts
(clipped.py) and ROUGE-L's batched longest common subsequence (lcs.py).
"""
