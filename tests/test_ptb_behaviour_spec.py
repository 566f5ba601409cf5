"""The PTB behaviour spec's tables and lists are exactly its JSON fixtures.

``sparsecider/tokenizers/PTB_BEHAVIOUR.md`` is written from black-box runs of
the reference jar; its example tables and appendix lists are generated from
``tests/fixtures/ptb_behaviour_examples.json`` and
``ptb_behaviour_lists.json`` by ``tests/fixtures/make_ptb_behaviour_examples.py``.
This check needs no Java.
"""

from __future__ import annotations

import json

from tests.fixtures import make_ptb_behaviour_examples as gen


def test_spec_tables_match_the_fixtures():
    md = gen.SPEC.read_text(encoding="utf-8")
    examples = json.loads(gen.OUT.read_text(encoding="utf-8"))
    lists = json.loads(gen.LISTS.read_text(encoding="utf-8"))
    assert gen.render_md(md, examples, lists) == md


def test_examples_are_well_formed():
    examples = json.loads(gen.OUT.read_text(encoding="utf-8"))
    assert len(examples) >= 300
    for e in examples:
        assert set(e) >= {"section", "captions", "ptb"}
        assert len(e["captions"]) == len(e["ptb"]) >= 1
        assert all(isinstance(c, str) for c in e["captions"] + e["ptb"])
