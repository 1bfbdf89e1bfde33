"""Every grammar the agents decode with is well-formed GBNF, and (with the real model) their
output parses."""

from __future__ import annotations

import re

import pytest
from helpers import ADD, WEATHER, schema

from toollearn.core.types import Message
from toollearn.decoding import (
    action_constraint,
    choice_constraint,
    deer_constraint,
    next_constraint,
    pycall_constraint,
    seal_calls_constraint,
    tool_calls_constraint,
)
from toollearn.formats.answers import umi
from toollearn.formats.pycall import parse_call

_RULE = re.compile(r"^([a-zA-Z0-9-]+) ::= (.*)$")
_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|[a-zA-Z][a-zA-Z0-9-]*')

ENUM = schema("setMode", {"mode": {"type": "string", "enum": ["fast", "slow"]}}, ["mode"])


def undefined_rules(grammar: str) -> set[str]:
    """Rule names referenced but never defined (a grammar llama.cpp would reject)."""
    defined, used = set(), set()
    for line in grammar.splitlines():
        m = _RULE.match(line.strip())
        if not m:
            continue
        defined.add(m.group(1))
        for tok in _TOKENS.findall(m.group(2)):
            if tok[0] not in '"[':
                used.add(tok)
    return used - defined


@pytest.mark.parametrize(
    "constraint",
    [
        choice_constraint(["Yes", "No"]),
        next_constraint(umi.NEXT_OPTIONS),
        action_constraint([ADD, WEATHER, ENUM]),
        action_constraint([ADD, WEATHER, ENUM], finish=True),
        pycall_constraint([ADD, WEATHER, ENUM]),
        deer_constraint([ADD, WEATHER, ENUM], "call"),
        deer_constraint([], "search"),
        tool_calls_constraint([ADD, WEATHER, ENUM]),
        seal_calls_constraint([ADD, WEATHER, ENUM]),
    ],
    ids=[
        "yes-no",
        "next",
        "action",
        "react-action",
        "pycall",
        "deer-call",
        "deer-search",
        "tool-calls",
        "seal-calls",
    ],
)
def test_grammars_are_closed(constraint):
    assert constraint.kind == "gbnf" and constraint.grammar.startswith("root ::= ")
    assert undefined_rules(constraint.grammar) == set()


def test_empty_inputs_are_rejected():
    for build in (
        choice_constraint,
        action_constraint,
        pycall_constraint,
        next_constraint,
        tool_calls_constraint,
    ):
        with pytest.raises(ValueError):
            build([])


@pytest.mark.model
def test_constrained_outputs_parse_with_the_real_model():
    pytest.importorskip("llama_cpp")
    from toollearn.engines import load_engine

    llama = load_engine("llama")
    ask = "Paris weather? Call a tool."
    out = llama.complete([[Message("user", ask)]], max_tokens=40,
                         constraint=pycall_constraint([WEATHER]))[0].text  # fmt: skip
    assert parse_call(out, WEATHER).name == "getWeather"
    out = llama.complete([[Message("user", "Add 2 and 3.")]], max_tokens=40,
                         constraint=action_constraint([ADD]))[0].text  # fmt: skip
    call = umi.parse_action(out)
    assert call.name == "add" and set(call.arguments) == {"a", "b"}
