"""Scoring at any size: the pieces :mod:`sparsecider.stream` and :mod:`sparsecider.dask` share.

``chunks`` cuts records into chunks of whole images and fits or scores each one.
"""
