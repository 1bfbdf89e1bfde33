"""Foreign values: arguments the query states only in another tool's clause are dropped."""

from __future__ import annotations

import pytest

from toollearn.agents.foreign_values import foreign_values, mentioned
from toollearn.core.types import Tool

WEATHER = Tool("getWeather", "Weather of a city", {
    "type": "object", "required": ["city"],
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                   "country": {"type": "string"}}})  # fmt: skip
FLIGHT = Tool("bookFlight", "Book a flight", {
    "type": "object", "required": ["destination"],
    "properties": {"destination": {"type": "string"},
                   "passengers": {"type": "integer"}}})  # fmt: skip
QUERY = "What is the weather in Paris for 3 days? Then book a flight to Rome for 2 people."
OWNERS = {"getWeather": ["What is the weather in Paris for 3 days?"],
          "bookFlight": ["book a flight to Rome for 2 people."]}  # fmt: skip


def test_mentioned_matches_strings_and_whole_numbers():
    assert mentioned("Paris", QUERY) and not mentioned("Lyon", QUERY)
    assert mentioned(3, QUERY) and mentioned(2, QUERY) and not mentioned(30, QUERY)
    assert not mentioned(3, "in 2023") and not mentioned(2.5, "version 12.5")
    assert not mentioned(True, "True") and not mentioned(["Paris"], QUERY)
    assert not mentioned("", QUERY)


def test_a_value_from_another_clause_is_dropped_required_too():
    calls = [
        {"api": "getWeather", "parameters": {"city": "Rome", "days": 3, "country": "Paris"}},
        {"api": "bookFlight", "parameters": {"destination": "Rome", "passengers": 3}},
    ]
    out, drops = foreign_values(calls, QUERY, OWNERS, [WEATHER, FLIGHT], "all")
    assert out[0]["parameters"] == {"days": 3, "country": "Paris"}  # "Paris" is its own clause's
    assert out[1]["parameters"] == {"destination": "Rome"}
    assert drops == [{"api": "getWeather", "parameter": "city", "value": "Rome"},
                     {"api": "bookFlight", "parameter": "passengers", "value": 3}]  # fmt: skip


def test_optional_scope_keeps_required_and_unstated_values():
    calls = [
        {"api": "getWeather", "parameters": {"city": "Rome", "country": "France"}},
        {"api": "bookFlight", "parameters": {"destination": "Rome", "passengers": 3}},
        {"api": "unknownTool", "parameters": {"x": "Paris"}},
        "not a call",
    ]
    out, drops = foreign_values(calls, QUERY, OWNERS, [WEATHER, FLIGHT], "optional")
    assert out[0]["parameters"] == {"city": "Rome", "country": "France"}  # France: not stated
    assert out[1]["parameters"] == {"destination": "Rome"}
    assert out[2:] == calls[2:] and len(drops) == 1
    with pytest.raises(ValueError, match="scope"):
        foreign_values(calls, QUERY, OWNERS, [WEATHER, FLIGHT], "some")
