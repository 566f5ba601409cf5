"""The core every metric shares: checked options, the :class:`Corpus`, the engine.

``validate`` checks every option once, at the entry; ``corpus`` turns every
accepted input shape into the same arrays; ``engine`` (with ``stages`` and
``shards``) turns a corpus into per-order pair statistics, in threads when
large; ``reduce`` turns statistics into scores; ``frequencies`` holds the
:class:`DocumentFrequencies` value object; ``result`` the one result type and
its :class:`Signature`; ``advice`` the warnings given once scores exist.
"""
