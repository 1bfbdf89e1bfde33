"""The general format's repair loop (`agents.repairs`) inside the tool-calls agent: each check
finds its fault, asks again the way it should, within the budget, and every try is recorded."""

from __future__ import annotations

import json

import pytest
from helpers import schema
from hypothesis import given
from hypothesis import strategies as st

from toollearn.agents import ToolCallsAgent
from toollearn.agents.repairs import (
    REPLY_OPENING,
    RepairLoop,
    Turn,
    result_opening,
    result_values,
    stated,
)
from toollearn.decoding.tool_calls import no_call_constraint
from toollearn.engines.scripted import ScriptedEngine

UNIT = {"type": "string", "enum": ["c", "f"]}
WEATHER = schema("get_weather", {"city": {"type": "string"}, "unit": UNIT}, ["city"])
GOOD = '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]'
UNKNOWN = '[{"name": "get_time", "arguments": {"zone": "CET"}}]'
BAD_ENUM = '[{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "kelvin"}}]'


class Unconstrained(ScriptedEngine):
    supports_constraints = False


def _run(engine, **options):
    agent = ToolCallsAgent(engine, execute=False, constrained=False, **options)
    return agent.run("Weather in Oslo?", [WEATHER])


def test_a_free_answer_against_the_schema_is_asked_again_under_the_grammar():
    engine = ScriptedEngine([UNKNOWN, GOOD])
    trace = _run(engine)
    calls = [s for s in trace.steps if s.role == "agent"]
    assert [s.content for s in calls] == [UNKNOWN, GOOD]
    assert "no tool named 'get_time'" in calls[0].data["retried"]
    assert engine.requests[0]["constraint"] is None  # free first
    assert engine.requests[1]["constraint"] is not None  # then the tools' grammar
    assert [c.name for c in trace.calls] == ["get_weather"]


def test_an_engine_without_grammars_reads_what_was_wrong():
    engine = Unconstrained([BAD_ENUM, GOOD])
    trace = _run(engine)
    assert [c.arguments for c in trace.calls] == [{"city": "Oslo"}]
    note = engine.prompts[1][-1]  # the answer, then the note, before the next try
    assert note.role == "user" and "kelvin" in note.content and "Answer again" in note.content
    assert engine.prompts[1][-2].content == BAD_ENUM


def test_the_budget_bounds_the_tries_and_the_last_answer_stands():
    engine = Unconstrained([UNKNOWN, UNKNOWN, UNKNOWN, GOOD])
    trace = _run(engine, repair_budget=2)
    tries = [s for s in trace.steps if s.role == "agent"]
    assert len(tries) == 3 and all(s.content == UNKNOWN for s in tries)
    assert sum("retried" in s.data for s in tries) == 2
    no_repairs = _run(Unconstrained([UNKNOWN]), repairs=())
    assert [s.content for s in no_repairs.steps if s.role == "agent"] == [UNKNOWN]


def test_the_checks_run_in_order_and_unknown_ones_are_refused():
    loop = RepairLoop(["schema", "cut_off"])
    assert loop.checks == ["cut_off", "schema"]
    cut = '[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_wea'
    fault = loop.find(cut, Turn([WEATHER], constraint=object()))
    assert fault.check == "cut_off" and "capped at 1" in fault.detail
    runaway = '[{"name": "get_weather", "arguments": {"city": "Oslo Oslo Oslo Oslo'
    fault = loop.find(runaway, Turn([WEATHER], constraint=object()))
    assert "before one call closed" in fault.detail
    assert fault.constraint.grammar == no_call_constraint().grammar  # a reply instead
    assert loop.find(GOOD, Turn([WEATHER], None)) is None
    assert loop.find("a plain reply", Turn([WEATHER], None)) is None
    with pytest.raises(ValueError, match="unknown repair checks"):
        RepairLoop(["spelling"])


def test_repeated_calls_are_asked_again_without_the_tool():
    made = json.loads(GOOD)[0]
    loop = RepairLoop(["repeated"])
    turn = Turn([WEATHER], object(), lambda c: c.name == made["name"])
    fault = loop.find(GOOD, turn)
    assert fault.check == "repeated" and fault.tools == []  # only the reply is left


NOTE = {"type": "string"}
NOTED = schema("get_weather", {"city": {"type": "string"}, "unit": UNIT, "note": NOTE}, ["city"])
INVENTED = '[{"name": "get_weather", "arguments": {"city": "Oslo", "note": "sunny mood"}}]'


def test_optional_values_the_conversation_does_not_state_are_asked_again_without_them():
    engine = ScriptedEngine([INVENTED, GOOD])
    agent = ToolCallsAgent(engine, execute=False, constrained=False, repairs=("grounded",))
    trace = agent.run("Weather in Oslo?", [NOTED])
    tries = [s for s in trace.steps if s.role == "agent"]
    assert "get_weather.note" in tries[0].data["retried"]
    grammar = engine.requests[1]["constraint"].grammar
    assert '\\"note\\"' not in grammar and '\\"unit\\"' in grammar  # only note left out
    assert "call ::=" not in grammar and "[]" not in grammar  # the same one call, no reply
    assert [c.arguments for c in trace.calls] == [{"city": "Oslo"}]


def test_stated_required_and_unjudged_values_are_left_alone():
    loop = RepairLoop(["grounded"])
    said = "What's the weather in OSLO tomorrow? Add a note: sunny."
    assert loop.find(INVENTED, Turn([NOTED], object(), said=said)) is None  # "sunny" stated
    london = '[{"name": "get_weather", "arguments": {"city": "London"}}]'
    assert loop.find(london, Turn([NOTED], object(), said=said)) is None  # required: kept
    assert loop.find(INVENTED, Turn([NOTED], object())) is None  # nothing said: not judged
    assert stated("Oslo, Norway", said) and stated("2026-12-04", said)
    assert not stated("London", said) and not stated("rainy", said)


def test_an_engine_without_grammars_is_told_which_values_to_leave_out():
    engine = Unconstrained([INVENTED, GOOD])
    agent = ToolCallsAgent(engine, execute=False, constrained=False, repairs=("grounded",))
    trace = agent.run("Weather in Oslo?", [NOTED])
    note = engine.prompts[1][-1].content
    assert "get_weather.note" in note and "leave out" in note
    assert [c.arguments for c in trace.calls] == [{"city": "Oslo"}]


@given(st.text(min_size=1, max_size=40), st.integers(0, 39), st.integers(1, 40))
def test_every_span_of_the_conversation_is_stated(said, start, size):
    assert stated(said[start : start + size] or said, said)


def test_an_optional_enum_value_nobody_asked_for_is_judged_too():
    degrees = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    tool = schema("get_weather", {"city": {"type": "string"}, "unit": degrees}, ["city"])
    rome = '[{"name": "get_weather", "arguments": {"city": "Rome", "unit": "fahrenheit"}}]'
    loop = RepairLoop(["grounded"])
    fault = loop.find(rome, Turn([tool], object(), said="Weather in Rome?"))
    assert fault.check == "grounded" and "get_weather.unit" in fault.detail
    assert loop.find(rome, Turn([tool], object(), said="Rome, in Fahrenheit")) is None


def test_a_reply_after_results_that_names_none_of_them_is_asked_again_opened_on_them():
    result = json.dumps(
        {"name": "get_weather", "content": json.dumps({"temp": 21, "sky": "clear"})}
    )
    assert result_values([result]) == ["21", "clear"]
    assert result_values([json.dumps({"name": "word_count", "content": "2"})]) == ["2"]
    loop = RepairLoop(["uses_results"])
    turn = Turn([WEATHER], object(), results=(result,))
    fault = loop.find("[]\nHere you go!", turn)
    assert fault.check == "uses_results"
    opening = f"{REPLY_OPENING}temp is 21; sky is clear."  # the fields, as the data writes them
    assert result_opening([result]) == opening
    # the reply opens on them and may end there
    assert f'"\\n" "{opening}" [^\\x00]*' in fault.constraint.grammar
    assert loop.find("[]\nIt is 21 degrees and clear.", turn) is None
    assert loop.find(GOOD, turn) is None  # calls again: not this check's business
    assert loop.find("[]\nHere you go!", Turn([WEATHER], object())) is None  # no results


def test_the_reply_opens_on_the_fields_of_every_object_result_six_at_most():
    many = json.dumps({f"field{i}": i for i in range(8)})
    assert result_opening([many]) == REPLY_OPENING + "; ".join(f"field{i} is {i}"
                                                               for i in range(6)) + "."  # fmt: skip
    both = [json.dumps({"name": "a", "content": {"ok": True}}), json.dumps({"total": 4.5})]
    assert result_opening(both) == REPLY_OPENING + "ok is yes; total is 4.5."
    assert result_opening(["plain text", "[1, 2]"]) == REPLY_OPENING  # no object: the opening


def test_the_trace_shows_which_answers_were_asked_again_and_why():
    from toollearn.agents.show import format_trace

    agent = ToolCallsAgent(ScriptedEngine([INVENTED, GOOD]), execute=False, constrained=False,
                           repairs=("grounded",))  # fmt: skip
    lines = format_trace(agent.run("Weather in Oslo?", [NOTED])).splitlines()
    retried = [line for line in lines if "asked again" in line]
    assert len(retried) == 1 and "get_weather.note" in retried[0]


def test_a_try_that_keeps_the_fault_of_its_own_grammar_stands():
    content = json.dumps({"name": "get_weather", "content": json.dumps({"temp": 21})})
    turn = Turn([WEATHER], object(), results=(content,))
    tries = iter(["[]\nI checked for you: sunny.", "[]\nnever asked"])
    asks = []

    def ask(fault, text):
        asks.append(fault.check)
        return next(tries)

    text, _ = RepairLoop(["uses_results"], budget=2).run("[]\nSorry.", turn, ask)
    assert asks == ["uses_results"]  # asked once: a second ask would be the same
    assert text == "[]\nI checked for you: sunny."
