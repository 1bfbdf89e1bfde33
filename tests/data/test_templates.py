"""The general template engine: placeholders, pools, determinism, distinct values."""

from __future__ import annotations

import json
import random

import pytest

from toollearn.core.errors import DataError
from toollearn.data.templates import (
    Template,
    choose,
    expand_pool,
    fill,
    generate,
    literal,
    load_spec,
)

WEATHER = Template(
    "w1",
    "Weather in {city} in {units.text}, budget ${price:,}",
    ("weather({city}, units={units}, max={price})",),
)
POOLS = {
    "city": ["Palo Alto", "Paris", "Oslo"],
    "units": [{"text": "Celsius", "value": "metric"}, {"text": "Fahrenheit", "value": "imperial"}],
    "price": [1000, 25000],
}


def test_fill_renders_text_in_goals_and_literals_in_code() -> None:
    values = {"city": "Palo Alto", "units": POOLS["units"][0], "price": 25000}
    f = fill(WEATHER, values)
    assert f.goal == "Weather in Palo Alto in Celsius, budget $25,000"
    assert f.program == 'weather("Palo Alto", units="metric", max=25000)'


def test_literal() -> None:
    assert literal('say "hi"') == '"say \\"hi\\""'
    assert literal(["A", 2, 2.5, True, None]) == '["A", 2, 2.5, True, None]'
    with pytest.raises(DataError):
        literal({"a": 1})


def test_generate_is_deterministic_and_distinct() -> None:
    a = generate([WEATHER], POOLS, 5, seed=3)
    b = generate([WEATHER], POOLS, 5, seed=3)
    assert [x.goal for x in a] == [x.goal for x in b]
    assert len({x.goal for x in a}) == 5
    with pytest.raises(DataError, match="distinct"):
        generate([WEATHER], POOLS, 13, seed=0)  # only 3*2*2 distinct fillings exist


def test_slots_sharing_a_pool_get_distinct_values() -> None:
    t = Template("t", "from {a} to {b}", ("go({a}, {b})",), slots={"a": "city", "b": "city"})
    rng = random.Random(0)
    for _ in range(50):
        v = choose(t, POOLS, rng)
        assert v["a"] != v["b"]


def test_missing_pool_and_field_are_data_errors() -> None:
    with pytest.raises(DataError, match="no value pool"):
        choose(Template("t", "{nope}", ()), POOLS, random.Random(0))
    with pytest.raises(DataError, match="no field"):
        fill(Template("t", "{city.name}", ()), {"city": "Paris"})


def test_pool_specs() -> None:
    assert expand_pool("n", {"range": [1, 7, 3]}) == [1, 4, 7]
    dates = expand_pool(
        "d", {"dates": {"start": "2024-01-01", "end": "2024-01-31", "count": 4, "span": [2, 3]}}
    )
    assert dates == expand_pool(
        "d", {"dates": {"start": "2024-01-01", "end": "2024-01-31", "count": 4, "span": [2, 3]}}
    )
    for d in dates:
        assert d["iso"].startswith("2024-01") and 2 <= d["nights"] <= 3
        assert d["text"].startswith("January") and d["end_iso"] > d["iso"]
    with pytest.raises(DataError):
        expand_pool("bad", 3)


def test_load_spec(tmp_path) -> None:
    spec = {
        "pools": {"city": ["A", "B"]},
        "templates": {"train": [{"id": "x", "goal": "in {city}", "calls": ["f({city})"]}]},
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    templates, pools = load_spec(path)
    assert templates["train"][0].slot_names() == ["city"] and pools["city"] == ["A", "B"]
    spec["templates"]["test"] = spec["templates"]["train"]
    path.write_text(json.dumps(spec))
    with pytest.raises(DataError, match="duplicate"):
        load_spec(path)
