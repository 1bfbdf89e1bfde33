"""Refill: the required arguments dropped as foreign or cut, asked of the model again on the
call's own clauses (scripted answers for the logic, the shipped model for one real refill)."""

from __future__ import annotations

import json

import pytest

from toollearn.agents.refill_values import job_request, refill, refill_jobs, take_values
from toollearn.agents.tool_filter import ToolFilter, postprocess
from toollearn.core.types import Tool
from toollearn.engines import ScriptedEngine

WEATHER = Tool("getWeather", "Weather forecast of a city", {
    "type": "object", "required": ["city"],
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                   "country": {"type": "string"}}})  # fmt: skip
FLIGHT = Tool("bookFlight", "Book a flight ticket to a destination city", {
    "type": "object", "required": ["destination"],
    "properties": {"destination": {"type": "string"},
                   "passengers": {"type": "integer"}}})  # fmt: skip
TOOLS = [WEATHER, FLIGHT]
OWN = "What is the weather forecast in Paris for 3 days?"
QUERY = f"{OWN} Then book a flight ticket to Rome for 2 people."
OWNERS = {"getWeather": [OWN], "bookFlight": ["book a flight ticket to Rome for 2 people."]}
CALLS = [{"api": "getWeather", "parameters": {"days": 3}, "responses": ["API_call_0"]},
         {"api": "bookFlight", "parameters": {"destination": "Rome"},
          "responses": ["API_call_1"]}]  # fmt: skip
DROPS = [{"api": "getWeather", "parameter": "city", "value": "Rome"},
         {"api": "getWeather", "parameter": "country", "value": "Italy"},
         {"api": "bookFlight", "parameter": "passengers", "value": 3}]  # fmt: skip


def _answer(**params) -> str:
    return json.dumps([{"api": "getWeather", "parameters": params, "responses": ["API_call_0"]}])


def test_jobs_ask_only_for_dropped_required_parameters():
    jobs = refill_jobs(CALLS, DROPS, OWNERS, TOOLS)
    assert [(j.index, j.tool.name, j.keys, j.query) for j in jobs] == [
        (0, "getWeather", ("city",), OWN)
    ]  # country and passengers are optional
    assert refill_jobs(CALLS, DROPS, {}, TOOLS) == []  # no clauses: nothing to ask on
    filled = [{**CALLS[0], "parameters": {"city": "Oslo"}}, CALLS[1]]
    assert refill_jobs(filled, DROPS, OWNERS, TOOLS) == []  # already has a city
    request = job_request(jobs[0])
    assert request.constraint is not None and OWN in json.dumps(request.prompt[0].content)
    assert "bookFlight" not in request.prompt[0].content


def test_values_are_taken_in_whole_words_from_the_clauses():
    job = refill_jobs(CALLS, DROPS, OWNERS, TOOLS)[0]
    assert take_values(job, _answer(city="Paris", days=4)) == {"city": "Paris"}
    assert take_values(job, _answer(city="Pa")) == {}  # cuts a word
    assert take_values(job, _answer(city="Rome")) == {}  # not in its clauses
    assert take_values(job, _answer(city=OWN)) == {}  # the whole request
    assert take_values(job, "not json") == {} and take_values(job, "[]") == {}


def test_refill_fills_in_schema_order_and_records_it():
    engine = ScriptedEngine([_answer(city="Paris", days=3)])
    out, filled = refill(engine, CALLS, DROPS, OWNERS, TOOLS)
    assert list(out[0]["parameters"].items()) == [("city", "Paris"), ("days", 3)]
    assert out[1] == CALLS[1] and CALLS[0]["parameters"] == {"days": 3}  # input untouched
    assert filled == [{"api": "getWeather", "parameter": "city", "value": "Paris",
                       "clauses": OWN}]  # fmt: skip
    assert len(engine.prompts) == 1
    engine = ScriptedEngine([_answer(city="Pa")])
    assert refill(engine, CALLS, DROPS, OWNERS, TOOLS) == (CALLS, [])


def test_required_scope_asks_every_call_of_a_multi_call_answer():
    calls = [{**CALLS[0], "parameters": {"city": "Rome", "days": 3}}, CALLS[1]]
    jobs = refill_jobs(calls, [], OWNERS, TOOLS, "required")
    assert [(j.tool.name, j.keys) for j in jobs] == [("getWeather", ("city",)),
                                                     ("bookFlight", ("destination",))]  # fmt: skip
    assert refill_jobs(calls[:1], [], OWNERS, TOOLS, "required") == []  # one call: not asked
    flight = json.dumps([{"api": "bookFlight", "parameters": {"destination": "Rome"},
                          "responses": ["API_call_0"]}])  # fmt: skip
    engine = ScriptedEngine([_answer(city="Paris"), flight])
    out, filled = refill(engine, calls, [], OWNERS, TOOLS, scope="required")
    assert out[0]["parameters"] == {"city": "Paris", "days": 3} and out[1] == CALLS[1]
    assert filled == [
        {"api": "getWeather", "parameter": "city", "value": "Paris", "clauses": OWN, "was": "Rome"}
    ]  # the same destination: no entry
    with pytest.raises(ValueError, match="scope"):
        refill_jobs(calls, [], OWNERS, TOOLS, "all")


def test_postprocess_refills_after_foreign_values_and_cut_words():
    generated = json.dumps([{"api": "getWeather", "parameters": {"city": "Rome"},
                             "responses": ["API_call_0"]},
                            {"api": "bookFlight", "parameters": {"destination": "Ro"},
                             "responses": ["API_call_1"]}])  # fmt: skip
    engine = ScriptedEngine(lambda prompt: _answer(city="Paris")
                            if "getWeather" in prompt[0].content else
                            json.dumps([{"api": "bookFlight", "parameters": {"destination": "Rome"},
                                         "responses": ["API_call_0"]}]))  # fmt: skip
    steps = postprocess(generated, QUERY, TOOLS, ToolFilter(None), False, "all",
                        whole_words=True, refill=engine)  # fmt: skip
    assert steps["dropped_values"] == [{"api": "getWeather", "parameter": "city", "value": "Rome"}]
    assert steps["cut_values"] == [{"api": "bookFlight", "parameter": "destination", "value": "Ro"}]
    assert [(f["api"], f["value"]) for f in steps["refilled_values"]] == [
        ("getWeather", "Paris"), ("bookFlight", "Rome")]  # fmt: skip
    calls = json.loads(steps["output"])
    assert [c["parameters"] for c in calls] == [{"city": "Paris"}, {"destination": "Rome"}]
    with pytest.raises(ValueError, match="refill"):
        postprocess(generated, QUERY, TOOLS, ToolFilter(None), False, refill=engine)


def test_the_shipped_model_refills_a_foreign_city():
    from toollearn.agents import MultiCallAgent
    from toollearn.cli.common import load_engine_spec

    engine = load_engine_spec("tuned-papers", threads=1)
    lost_city = [{"api": "getWeather", "parameters": {}, "responses": ["API_call_0"]}]
    out, filled = refill(engine, lost_city, DROPS[:1], OWNERS, TOOLS)
    assert out[0]["parameters"] == {"city": "Paris"}  # Rome was the flight's
    assert filled[0]["clauses"] == OWN
    with pytest.raises(ValueError, match="refill"):
        MultiCallAgent(engine, tool_filter=ToolFilter(None), refill="dropped")
