"""OpenAI-style and DEER constraints: what llama.cpp's grammar engine admits."""

from __future__ import annotations

import pytest

from toollearn.core.types import Tool
from toollearn.decoding import deer_constraint, openai_calls_constraint
from toollearn.decoding.deer import NO_SEARCH, SEARCH

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


def _admits(gbnf: str, text: str) -> bool:
    pytest.importorskip("llama_cpp")
    from toollearn.engines.llama import LlamaEngine
    from toollearn.engines.llama_grammar import GrammarMatcher

    llm = LlamaEngine(n_threads=1).llm
    m = GrammarMatcher(llm, gbnf)
    try:
        for tok in llm.tokenize(text.encode(), add_bos=False, special=False):
            if not m.allows(tok):
                return False
            m.accept(tok)
        return m.allows(llm.token_eos())
    finally:
        m.close()


@pytest.mark.model
@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("[]", True),
        ('[{"name": "weather", "arguments": {"city": "Rome"}}]', True),
        ('[{"name": "weather", "arguments": {"city": "L\'Aquila [IT]"}}]', True),  # plain JSON
        (
            '[{"name": "weather", "arguments": {"city": "Rome", "days": 3, "tags": ["a", 1]}}, '
            '{"name": "CTCP", "arguments": {"nctid": "N1"}}]'.replace("}}, {", "}},{"),
            True,
        ),
        ('[{"name": "weather", "arguments": {"days": 3}}]', False),
        ('[{"name": "search", "arguments": {}}]', False),
        ('[{"name": "weather", "arguments": {"city": 5}}]', False),
    ],
)
def test_openai_call_list_grammar(text, ok):
    assert _admits(openai_calls_constraint([WEATHER, CTCP]).grammar, text) is ok


@pytest.mark.model
@pytest.mark.parametrize(
    ("stage", "text", "ok"),
    [
        ("call", "#CallAPI# CTCP(nctid='NCT03780233') #APIResponse#", True),
        ("call", '#CallAPI# weather(city="Rome", days=None) #APIResponse#', True),
        ("call", "#CallAPI# weather(days=2) #APIResponse#", False),
        ("call", "#CallAPI# other(x=1) #APIResponse#", False),
        ("call", "#NoCallAPI# There is no proper API. #End#", True),
        ("search", SEARCH, True),
        ("search", NO_SEARCH + " #End#", True),
        ("both", SEARCH + " #CallAPI# CTCP(nctid='x') #APIResponse#", True),
        ("both", "#Begin# maybe", False),
    ],
)
def test_deer_grammar(stage, text, ok):
    assert _admits(deer_constraint([WEATHER, CTCP], stage).grammar, text) is ok


def test_builders_reject_bad_input():
    with pytest.raises(ValueError):
        openai_calls_constraint([])
    with pytest.raises(ValueError):
        deer_constraint([CTCP], stage="later")
    with pytest.raises(ValueError):
        deer_constraint([], stage="call")
    assert deer_constraint([], stage="search").kind == "gbnf"
