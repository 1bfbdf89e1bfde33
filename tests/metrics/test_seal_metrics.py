"""Unit tests of the Seal-Tools answer format, the official quirks and the strict scorer."""

from __future__ import annotations

import pytest

from toollearn.core.errors import FormatError
from toollearn.core.types import Example, Ref, Tool, ToolCall
from toollearn.evaluation.metrics.seal_errors import seal_error_analysis
from toollearn.evaluation.metrics.seal_tools import (
    official_parse,
    official_scores,
    strict_scores,
)
from toollearn.formats.answers.seal_tools import parse_calls, render_calls, render_prompt

GOLD = [
    {"api": "getWeather", "parameters": {"city": "Paris", "days": 3}, "responses": ["API_call_0"]},
    {"api": "translate", "parameters": {"text": "API_call_0"}, "responses": ["API_call_1"]},
]


# ---------------------------------------------------------------- answer format


def test_parse_calls_json_python_and_prose():
    json_text = 'Sure: [{"api": "f", "parameters": {"x": 1}, "responses": ["API_call_0"]}] ok'
    py_text = "[{'api': 'f', 'parameters': {'x': 1, 'b': True}, 'responses': ['API_call_0']}]"
    assert parse_calls(json_text) == [ToolCall("f", {"x": 1}, responses=("API_call_0",))]
    calls = parse_calls(py_text)
    assert calls[0].arguments == {"x": 1, "b": True}
    assert calls[0].responses == ("API_call_0",)


def test_parse_calls_links_refs_and_renders_them_back():
    text = render_calls(parse_calls(str(GOLD)))
    calls = parse_calls(text)
    assert calls[1].arguments["text"] == Ref("API_call_0", call=0, output=0)
    assert '"text": "API_call_0"' in text


def test_parse_calls_skips_non_call_lists_and_apostrophes():
    text = 'Tags ["a", "b"] then [{"api": "f", "parameters": {"q": "Women\'s day"}}]'
    calls = parse_calls(text)
    assert calls[0].arguments == {"q": "Women's day"} and calls[0].responses == ()


def test_parse_calls_errors():
    assert parse_calls("no calls: []") == []
    for bad in ("nothing here", '[{"api": "f", "parameters": {', "[1, 2]", '[{"x": 1}]'):
        with pytest.raises(FormatError):
            parse_calls(bad)


def test_render_prompt_accepts_dicts():
    tool = {"api_name": "f", "api_description": "d", "parameters": {}, "required": []}
    prompt = render_prompt("Do it.", [tool])
    assert prompt.startswith("Please chooose the needed apis")
    assert prompt.endswith(
        "api_list = [" + repr(tool) + ']\ntask_instruction = "Do it."\nOutput:\n'
    )


# ---------------------------------------------------------------- official quirks


def test_official_apostrophe_and_python_literals_fail():
    assert official_parse(str([{"api": "f", "parameters": {"q": "it's"}, "responses": []}])) is None
    assert official_parse(str([{"api": "f", "parameters": {"b": True}, "responses": []}])) is None
    assert official_parse(str([{"api": "f", "parameters": {}}])) is None  # no "responses"
    assert official_parse("[ {\n'api': 'f', 'parameters': {}, 'responses': []}]") == [
        {"api": "f", "parameters": {}, "responses": []}
    ]


def test_official_first_gold_match_not_consumed_and_str_compare():
    gold = [
        {"api": "f", "parameters": {"x": 1}, "responses": ["API_call_0"]},
        {"api": "f", "parameters": {"x": 2}, "responses": ["API_call_1"]},
    ]
    pred = '[{"api": "f", "parameters": {"x": 2}, "responses": []}, ' * 1
    pred += '{"api": "f", "parameters": {"x": "1"}, "responses": []}, {"api": "f"}]'
    s = official_scores([pred], [gold])
    c = s["counts"]
    # three predicted calls all count as correct tools (gold never consumed) ...
    assert (c["tool_correct"], c["tool_pred"], c["tool_gold"]) == (3, 3, 2)
    # ... each compared with the FIRST "f": x=2 is wrong, "1" equals 1 as strings
    assert (c["param_correct"], c["param_pred"], c["param_gold"]) == (1, 2, 2)
    assert s["tool_p"] == 1.0 and s["tool_r"] == 1.5


def test_official_counts_gold_even_when_unparsed():
    s = official_scores(["garbage", str(GOLD).replace("'", '"')], [GOLD, GOLD])
    assert s["format_acc"] == 0.5
    assert s["counts"]["tool_gold"] == 4 and s["tool_r"] == 0.5


# ---------------------------------------------------------------- strict


def test_strict_one_to_one_and_typed():
    gold = [
        {"api": "f", "parameters": {"x": 1}, "responses": ["API_call_0"]},
        {"api": "f", "parameters": {"x": 2}, "responses": ["API_call_1"]},
    ]
    pred = "[{'api': 'f', 'parameters': {'x': 2.0}}, {'api': 'f', 'parameters': {'x': 1}}, "
    pred += "{'api': 'f', 'parameters': {'x': 1}}]"
    s = strict_scores([pred], [gold])
    c = s["counts"]
    assert (c["tool_correct"], c["tool_pred"], c["tool_gold"]) == (2, 3, 2)
    assert (c["param_correct"], c["param_pred"]) == (2, 3)  # 2.0 == 2 numerically
    assert s["exact_acc"] == 0.0
    typed = strict_scores(["[{'api': 'f', 'parameters': {'x': '1'}}]"], [gold[:1]])
    assert typed["counts"]["param_correct"] == 0  # "1" is not 1
    boolean = strict_scores(["[{'api': 'f', 'parameters': {'x': True}}]"], [gold[:1]])
    assert boolean["counts"]["param_correct"] == 0  # True is not 1


def test_strict_accepts_toolcall_golds_and_checks_lengths():
    gold = [ToolCall("f", {"x": 1})]
    assert strict_scores(['[{"api": "f", "parameters": {"x": 1}}]'], [gold])["exact_acc"] == 1.0
    with pytest.raises(ValueError):
        strict_scores(["x"], [])


# ---------------------------------------------------------------- error analysis


def _example(query: str, calls: list[dict], listed: list[str]) -> Example:
    tools = tuple(Tool(name=n) for n in listed)
    parsed = parse_calls(str(calls))
    return Example(id="ex", query=query, tools=tools, calls=tuple(parsed))


def test_error_analysis_categories():
    ex = _example(
        "Weather in Paris for three days, then translate it.",
        GOLD,
        ["getWeather", "getNews", "x", "y", "z"],  # translate is a retriever miss
    )
    pred = (
        "[{'api': 'getWeather', 'parameters': {'city': 'Pariss', 'days': 'three', 'u': 1}},"
        " {'api': 'getNews', 'parameters': {}}, {'api': 'madeUp', 'parameters': {}}]"
    )
    out = seal_error_analysis([pred, "oops"], [ex, ex])
    assert out["format_failures"] == 1
    tools = out["tool_errors"]
    assert (tools["retriever_miss"], tools["not_needed"], tools["hallucinated"]) == (1, 1, 1)
    params = out["param_errors"]
    assert params["surplus"] == 1 and params["wrong_extraction"] == 1  # "Paris" is in the query
    assert params["wrong_transformation"] == 1  # 3 is not written as "3" in the query
    assert out["samples"]["format_failure"] == ["ex"]


def test_error_analysis_omission_and_reference():
    ex = _example("q", GOLD, ["getWeather", "translate"])
    pred = "[{'api': 'getWeather', 'parameters': {'city': 'Paris'}, 'responses': ['API_call_0']},"
    pred += " {'api': 'translate', 'parameters': {'text': 'API_call_5'}}]"
    out = seal_error_analysis([pred], [ex])
    assert out["param_errors"]["omission"] == 1
    assert out["param_errors"]["wrong_reference"] == 1
    assert sum(out["tool_errors"].values()) == 0
