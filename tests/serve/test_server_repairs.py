"""The server's repair loop (`ServerConfig.repairs`), through the openai client: a cut-off call
list is asked again with its finished calls, a free answer the schema refuses is asked again
with the problems named. Scripted engines: the logic around the model only."""

from __future__ import annotations

import json
import urllib.request

import pytest

openai = pytest.importorskip("openai")

from toollearn.agents.repairs import RepairLoop  # noqa: E402
from toollearn.core.types import Tool  # noqa: E402
from toollearn.decoding.tool_calls import tool_calls_constraint  # noqa: E402
from toollearn.engines import ScriptedEngine  # noqa: E402
from toollearn.serve.app import BackgroundServer, ServerConfig  # noqa: E402

PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": PARAMS}}
PARIS = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


class FreeEngine(ScriptedEngine):
    """An engine without grammars (an OpenAI-compatible server behind this one, say)."""

    supports_constraints = False


def _ask(engine, repairs):
    config = ServerConfig(model_id="m", repairs=repairs)
    with BackgroundServer(engine, config) as server:
        client = openai.OpenAI(base_url=server.url, api_key="none", max_retries=0)
        out = client.chat.completions.create(
            model="m", tools=[WEATHER], messages=[{"role": "user", "content": "Paris weather"}]
        )
        with urllib.request.urlopen(f"{server.url.removesuffix('/v1')}/health") as r:
            health = json.loads(r.read())
    return out, health


def test_a_cut_off_call_list_is_asked_again_with_its_finished_calls():
    engine = ScriptedEngine([f'[{PARIS}, {{"name": "get_weather", "argu', f"[{PARIS}]"])
    out, health = _ask(engine, RepairLoop(constrained=True))
    calls = out.choices[0].message.tool_calls
    assert [(c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    tool = Tool.from_dict(WEATHER["function"])
    assert (
        engine.requests[1]["constraint"].grammar
        == tool_calls_constraint([tool], max_calls=1).grammar
    )  # capped at the one call it finished
    assert health["repaired"] == 1


def test_without_the_loop_the_cut_off_answer_goes_out_as_it_is():
    engine = ScriptedEngine([f'[{PARIS}, {{"name": "get_weather", "argu'])
    out, health = _ask(engine, None)
    assert out.choices[0].message.tool_calls is None  # not a call list: text
    assert len(engine.requests) == 1 and health["repaired"] == 0


def test_a_free_answer_the_schema_refuses_is_asked_again_with_the_problems_named():
    engine = FreeEngine(['[{"name": "get_weather", "arguments": {}}]', f"[{PARIS}]"])
    out, health = _ask(engine, RepairLoop(constrained=False))
    assert out.choices[0].message.tool_calls[0].function.name == "get_weather"
    note = engine.requests[1]["prompts"][0][-1]
    assert note.role == "user" and "city" in note.content and health["repaired"] == 1


def test_an_optional_value_only_the_client_system_text_states_is_kept():
    params = {**PARAMS, "properties": {"city": {"type": "string"}, "units": {"type": "string"}}}
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": params}}
    kelvin = '[{"name": "get_weather", "arguments": {"city": "Paris", "units": "kelvin"}}]'
    engine = ScriptedEngine([kelvin, f"[{PARIS}]", kelvin])
    config = ServerConfig(model_id="m", repairs=RepairLoop(["grounded"], constrained=True))
    with BackgroundServer(engine, config) as server:
        client = openai.OpenAI(base_url=server.url, api_key="none", max_retries=0)
        ask = [{"role": "user", "content": "Paris weather"}]
        first = client.chat.completions.create(model="m", tools=[tool], messages=ask)
        told = [{"role": "system", "content": "Temperatures in kelvin."}, *ask]
        second = client.chat.completions.create(model="m", tools=[tool], messages=told)
    args = [json.loads(r.choices[0].message.tool_calls[0].function.arguments)
            for r in (first, second)]  # fmt: skip
    assert args == [{"city": "Paris"}, {"city": "Paris", "units": "kelvin"}]
    assert "units" not in engine.requests[1]["constraint"].grammar  # asked again without it
    assert len(engine.requests) == 3  # the second answer kept: the system text states kelvin


def test_a_reply_after_a_result_that_names_none_of_it_is_asked_again():
    engine = ScriptedEngine(["[]\nAll done!", "[]\nI checked for you: 21 degrees."])
    config = ServerConfig(model_id="m", repairs=RepairLoop(["uses_results"], constrained=True))
    call = {"id": "c1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}  # fmt: skip
    messages = [{"role": "user", "content": "Paris weather"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 21}'}]  # fmt: skip
    with BackgroundServer(engine, config) as server:
        client = openai.OpenAI(base_url=server.url, api_key="none", max_retries=0)
        out = client.chat.completions.create(model="m", tools=[WEATHER], messages=messages)
    assert out.choices[0].message.content == "I checked for you: 21 degrees."
    assert "I checked for you: temp is 21" in engine.requests[1]["constraint"].grammar
    json_reply = ScriptedEngine(['[]\n{"ok": true}'])  # a JSON reply (response_format) stays
    with BackgroundServer(json_reply, config) as server:
        client = openai.OpenAI(base_url=server.url, api_key="none", max_retries=0)
        out = client.chat.completions.create(model="m", tools=[WEATHER], messages=messages,
                                             response_format={"type": "json_object"})  # fmt: skip
    assert out.choices[0].message.content == '{"ok": true}' and len(json_reply.requests) == 1
