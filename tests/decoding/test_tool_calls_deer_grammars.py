"""The general call-list and DEER constraints: what llama.cpp's grammar engine admits."""

from __future__ import annotations

import pytest

from toollearn.core.types import Tool
from toollearn.decoding import deer_constraint, tool_calls_constraint
from toollearn.formats.answers.deer import NO_CALL_SPAN, NO_SEARCH_SPAN, SEARCH_SPAN

WEATHER = Tool(
    "weather",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "default": None},
            "tags": {"type": "array"},
        },
        "required": ["city"],
    },
)
CTCP = Tool(
    "CTCP",
    parameters={
        "type": "object",
        "properties": {"nctid": {"type": "string"}},
        "required": ["nctid"],
    },
)
BOOK = Tool(
    "book",
    parameters={
        "type": "object",
        "properties": {
            "guests": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                    "required": ["name"],
                },
            },
            "room": {"type": "string", "enum": ["single", "double"]},
            "price": {"type": "number", "x-unit": "EUR"},
        },
        "required": ["guests", "room"],
    },
)
NOTHING = Tool("ping")


@pytest.mark.model
@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("[]", True),
        ("[]\nI can answer that myself: Paris.", True),
        ('[{"name": "weather", "arguments": {"city": "Rome"}}]', True),
        ('[{"name": "weather", "arguments": {"city": "L\'Aquila [IT] \\"old\\""}}]', True),
        (
            '[{"name": "weather", "arguments": {"city": "Rome", "days": 3, "tags": ["a", 1]}}, '
            '{"name": "CTCP", "arguments": {"nctid": "N1"}}]',
            True,
        ),
        (
            '[{"name": "book", "arguments": {"guests": [{"name": "Ann", "age": 30}, '
            '{"name": "Bo"}], "room": "double", "price": 99.5}}]',
            True,
        ),
        ('[{"name": "book", "arguments": {"guests": [{"age": 30}], "room": "double"}}]', False),
        ('[{"name": "book", "arguments": {"guests": [], "room": "suite"}}]', False),
        ('[{"name": "ping", "arguments": {}}]', True),
        ('[{"name": "weather", "arguments": {"days": 3}}]', False),
        ('[{"name": "search", "arguments": {}}]', False),
        ('[{"name": "weather", "arguments": {"city": 5}}]', False),
        ("Paris.", False),
    ],
)
def test_general_call_list_grammar(admits, text, ok):
    assert admits(tool_calls_constraint([WEATHER, CTCP, BOOK, NOTHING]).grammar, text) is ok


@pytest.mark.model
def test_required_calls_remove_the_no_call_branch(admits):
    grammar = tool_calls_constraint([WEATHER], allow_no_call=False).grammar
    assert not admits(grammar, "[]")
    assert admits(grammar, '[{"name": "weather", "arguments": {"city": "Oslo"}}]')


@pytest.mark.model
def test_a_call_sequence_admits_exactly_those_calls_in_order(admits):
    sequence = ["weather", "CTCP", "weather"]
    grammar = tool_calls_constraint([WEATHER, CTCP], sequence=sequence).grammar
    rome, oslo = ('{"name": "weather", "arguments": {"city": "Rome"}}',
                  '{"name": "weather", "arguments": {"city": "Oslo"}}')  # fmt: skip
    ctcp = '{"name": "CTCP", "arguments": {"nctid": "N1"}}'
    assert admits(grammar, f"[{rome}, {ctcp}, {oslo}]")
    assert admits(grammar, "[]\nNone of these fits.")  # the no-call branch stays open
    assert not admits(grammar, f"[{rome}, {ctcp}]")  # one short
    assert not admits(grammar, f"[{ctcp}, {rome}, {oslo}]")  # out of order


@pytest.mark.model
def test_a_none_in_a_call_sequence_is_an_optional_call_of_any_tool(admits):
    grammar = tool_calls_constraint([WEATHER, CTCP], sequence=[None, "CTCP", None]).grammar
    rome = '{"name": "weather", "arguments": {"city": "Rome"}}'
    ctcp = '{"name": "CTCP", "arguments": {"nctid": "N1"}}'
    ok = (f"[{ctcp}]", f"[{rome}, {ctcp}]", f"[{ctcp}, {rome}]", f"[{rome}, {ctcp}, {ctcp}]")
    for text in ok:
        assert admits(grammar, text), text
    assert not admits(grammar, f"[{rome}]")  # the named call is due
    assert not admits(grammar, f"[{rome}, {rome}, {ctcp}]")  # one optional call a place
    assert not admits(grammar, f"[, {ctcp}]")


@pytest.mark.model
@pytest.mark.parametrize(
    ("stage", "text", "ok"),
    [
        ("call", " #CallAPI# CTCP(nctid='NCT03780233') #APIResponse#", True),
        ("call", ' #CallAPI# weather(city="Rome", days=None) #APIResponse#', True),
        ("call", " #CallAPI# weather(days=2) #APIResponse#", False),
        ("call", " #CallAPI# other(x=1) #APIResponse#", False),
        ("call", NO_CALL_SPAN, True),
        ("call", " #NoCallAPI# nothing fits. #End#", False),
        ("search", SEARCH_SPAN, True),
        ("search", NO_SEARCH_SPAN, True),
        ("search", "#Begin# maybe", False),
    ],
)
def test_deer_grammar(admits, stage, text, ok):
    assert admits(deer_constraint([WEATHER, CTCP], stage).grammar, text) is ok


def test_builders_reject_bad_input():
    with pytest.raises(ValueError):
        tool_calls_constraint([])
    with pytest.raises(ValueError, match="listed tools only"):
        tool_calls_constraint([WEATHER], sequence=["CTCP"])
    with pytest.raises(ValueError, match="listed tools only"):
        tool_calls_constraint([WEATHER], sequence=[])
    with pytest.raises(ValueError, match="listed tools only"):
        tool_calls_constraint([WEATHER], sequence=[None])  # no call is due
    with pytest.raises(ValueError):
        deer_constraint([CTCP], stage="later")
    with pytest.raises(ValueError):
        deer_constraint([], stage="call")
    assert deer_constraint([], stage="search").kind == "gbnf"
