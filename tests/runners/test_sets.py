"""The hand-written evaluation sets: complete, valid against their tools, held out of data."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from toollearn.datagen.checker import argument_faults
from toollearn.evaluation.examples import SETS, load_set, set_names

EXAMPLES = {"travel": "travel_tools.json", "office": "office_tools.json",
            "smart-home": "smart_home_tools.json"}  # fmt: skip


def test_the_shipped_sets():
    assert set(EXAMPLES) | {"slurp"} == set(set_names())


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_sets_are_complete_and_valid(name):
    dev, test = load_set(name, "dev"), load_set(name, "test")
    assert len(dev.items) == 40 and len(test.items) == 120
    assert len({it.id for it in dev.items + test.items}) == 160
    kinds = Counter(it.kind for it in test.items)
    assert kinds["single"] == 36 and kinds["decline"] == 12 and kinds["missing"] == 12
    for suite in (dev, test):
        schemas = {n: t["function"]["parameters"] for n, t in suite.tools.items()}
        for it in suite.items:
            for call in it.calls:
                assert argument_faults(call.arguments, schemas[call.name], call.name) == [], it.id
            assert it.calls or it.reply
    shipped = Path("examples") / EXAMPLES[name]
    assert (SETS / name / "tools.json").read_bytes() == shipped.read_bytes()
    queries = {it.query() for it in dev.items}
    assert not queries & {it.query() for it in test.items}


def test_sets_are_held_out_of_generated_data():
    from toollearn.datagen.leakage import default_exclusions

    ex = default_exclusions(None)
    test = load_set(set_names()[0], "test")
    assert test.items[0].query() in ex.queries


def test_the_slurp_set_is_held_out_natural_commands():
    from toollearn.datagen.leakage import default_exclusions

    test, dev = load_set("slurp", "test"), load_set("slurp", "dev")
    assert len(test.items) == 200 and len(dev.items) == 60
    assert {it.kind for it in test.items} == {"single", "small-talk"}
    assert not {it.query() for it in test.items} & {it.query() for it in dev.items}
    assert all(c.name in it.tools for it in test.items for c in it.calls)
    assert test.items[0].query() in default_exclusions(None).queries
