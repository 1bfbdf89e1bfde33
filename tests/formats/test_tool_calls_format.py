"""The general tool-calling format: prompt, target, parser, and auto-detected tool files."""

from __future__ import annotations

import json

import pytest

from toollearn.core.errors import DataError, FormatError
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.formats.answers import tool_calls
from toollearn.formats.convert import detect_format, parse_tools

BOOK = Tool(
    "book",
    "Book a room",
    {
        "type": "object",
        "properties": {
            "guests": {"type": "array", "items": {"type": "string"}, "x-python-type": "list"},
            "room": {"type": "string", "enum": ["single", "double"]},
        },
        "required": ["room"],
    },
    metadata={"secret": "not shown"},
)


def test_prompt_shows_tools_without_internal_keys_and_allows_declining():
    [system, user] = tool_calls.render_messages("Book a double room.", [BOOK])
    assert system.role == "system" and user == Message("user", "Book a double room.")
    doc = json.loads(system.content.splitlines()[1])
    assert doc["name"] == "book" and "x-python-type" not in json.dumps(doc)
    assert "secret" not in system.content and "reply []" in system.content
    history = [Message("assistant", "[]")]
    assert tool_calls.render_messages("q", [BOOK], history)[-1] == history[0]


def test_compact_docs_list_each_tool_as_a_signature_with_its_parameters():
    weather = Tool(
        "weather",
        "Weather of a city",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "days": {"type": "integer", "default": 3},
                "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
            },
            "required": ["city"],
        },
    )
    [system, _] = tool_calls.render_messages("q", [BOOK, weather], docs="compact")
    lines = system.content.splitlines()
    assert lines[1] == 'book(guests?: list[str], room: "single"|"double"): Book a room'
    assert lines[2].startswith('weather(city: str, days?: int = 3, where?: {"type":"object"')
    assert lines[3] == "  city: City name" and "x-python-type" not in system.content
    assert system.content.endswith(tool_calls.INSTRUCTIONS)
    assert len(system.content) < len(tool_calls.system_prompt([BOOK, weather]))
    with pytest.raises(FormatError, match="unknown tool doc style"):
        tool_calls.system_prompt([BOOK], docs="yaml")


def test_no_tools_means_plain_chat():
    assert tool_calls.render_messages("Hi!", []) == [Message("user", "Hi!")]


def test_targets_and_parser_round_trip():
    calls = (ToolCall("book", {"room": "double", "guests": ["Ann", "O'Hara [jr]"]}),)
    target = tool_calls.render_target(calls, [BOOK])
    assert target.index('"guests"') < target.index('"room"')  # declared order
    assert tool_calls.parse(target).calls == calls
    assert tool_calls.render_target((), [BOOK], "No tool needed.") == "[]\nNo tool needed."
    declined = tool_calls.parse("[]\nNo tool needed.")
    assert declined.declined and declined.text == "No tool needed."
    prose = tool_calls.parse("Paris is the capital.")
    assert prose.declined and prose.text == "Paris is the capital."
    fenced = tool_calls.parse(
        '```json\n[{"name": "book", "arguments": "{\\"room\\": \\"single\\"}"}]\n```'
    )
    assert fenced.calls == (ToolCall("book", {"room": "single"}),)  # OpenAI's string arguments


@pytest.mark.parametrize("text", ['[{"name": 1}]', "[{oops", '[{"name": "x", "arguments": 3}]'])
def test_bad_call_lists_are_format_errors(text):
    with pytest.raises(FormatError):
        tool_calls.parse(text)


def test_tool_file_format_is_detected_from_its_records():
    openai = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    seal = {"api_name": "g", "api_description": "d", "parameters": {}, "required": []}
    deer = {"api_name": "h", "description_for_human": "d", "api_function": "h(a: int)"}
    assert detect_format(openai) == "openai" and detect_format(seal) == "seal-tools"
    assert detect_format(deer) == "tooldeer" and detect_format("f(a: int)") == "python"
    assert detect_format(Tool("t", responses={"r": {}}).to_dict()) == "toollearn"
    assert detect_format({"name": "f", "parameters": {"type": "object"}}) == "openai"
    assert [t.name for t in parse_tools(json.dumps([openai]), "auto")] == ["f"]
    assert [t.name for t in parse_tools("f(a: int)\ng(b: str)\n", "auto")] == ["f", "g"]
    with pytest.raises(DataError, match="cannot tell"):
        detect_format({"what": 1})


def test_cut_off_call_lists_are_retried_with_the_finished_calls():
    from toollearn.agents import ToolCallsAgent
    from toollearn.engines import ScriptedEngine

    one = '{"name": "book", "arguments": {"room": "single"}}'
    cut = f'[{one}, {one}, {{"name": "book", "argu'
    assert tool_calls.finished_calls(cut) == 2 and tool_calls.finished_calls("[") == 0
    assert tool_calls.finished_calls('[{"name": "a}{", "arguments": {}}]') == 1
    engine = ScriptedEngine([cut, f"[{one}, {one}]"])
    trace = ToolCallsAgent(engine, execute=False).run("Book two rooms.", [BOOK])
    assert trace.meta["outcome"] == "planned" and len(trace.calls) == 2
    assert "{0,1}" in engine.requests[1]["constraint"].grammar  # at most the 2 finished calls
    assert trace.steps[0].data["retried"].endswith("capped at 2")


def test_a_repeated_call_is_asked_again_without_the_repeated_tool():
    from toollearn.agents import ToolCallsAgent
    from toollearn.decoding.tool_calls import no_call_constraint, tool_calls_constraint
    from toollearn.engines import ScriptedEngine
    from toollearn.envs import Environment

    pay = Tool("pay", "Pay for a booking", {"type": "object", "properties": {}})
    book = '[{"name": "book", "arguments": {"room": "double"}}]'
    script = [book, book, '[{"name": "pay", "arguments": {}}]', "[]\nBooked and paid."]
    engine = ScriptedEngine(script)
    agent = ToolCallsAgent(engine, Environment.simulated([BOOK, pay]), ask_again_on_repeat=True)
    trace = agent.run("Book a double room, then pay.", [BOOK, pay])
    assert trace.meta["outcome"] == "answered" and trace.meta["ask_again_on_repeat"]
    assert [c.name for c in trace.calls] == ["book", "pay"]  # the repeat was never run
    retried = [s for s in trace.steps if "retried" in s.data]
    assert len(retried) == 1 and "['book']" in retried[0].data["retried"]
    assert engine.requests[2]["constraint"].grammar == tool_calls_constraint([pay]).grammar
    # every shown tool repeated: only the reply is left; off (the default), the runner answers
    engine = ScriptedEngine([book, book, "[]\nBooked."])
    agent = ToolCallsAgent(engine, Environment.simulated([BOOK]), ask_again_on_repeat=True)
    trace = agent.run("Book a double room.", [BOOK])
    assert engine.requests[2]["constraint"].grammar == no_call_constraint().grammar
    assert trace.answer == "Booked." and len(trace.calls) == 1
    engine = ScriptedEngine([book, book, "[]\nBooked."])
    trace = ToolCallsAgent(engine, Environment.simulated([BOOK])).run("Book.", [BOOK])
    assert len(trace.calls) == 2 and any(s.error == "repeated_call" for s in trace.steps)


class _Gate:
    """A call gate test double: a fixed NoCall margin."""

    name = "fixed"

    def __init__(self, margin: float):
        self.margin, self.seen = margin, []

    def score(self, query, pool, messages):
        self.seen.append((query, [t.name for t in pool]))
        return {"nocall_margin": self.margin, "closest_tool": pool[0].name}

    def describe(self):
        return {"gate": self.name}


def test_a_declining_call_gate_leaves_the_model_only_the_no_call_answer():
    from toollearn.agents import ToolCallsAgent
    from toollearn.decoding.tool_calls import NO_CALL, no_call_constraint
    from toollearn.engines import ScriptedEngine

    assert no_call_constraint().grammar.startswith(f'root ::= "{NO_CALL}" answer')
    engine = ScriptedEngine(["[]\nI have no tool for poems."])
    gate = _Gate(0.5)
    agent = ToolCallsAgent(engine, execute=False, call_gate=gate, call_threshold=0.0)
    trace = agent.run("Write a poem.", [BOOK])
    assert trace.meta["outcome"] == "no_call" and trace.answer == "I have no tool for poems."
    assert engine.requests[0]["constraint"].grammar == no_call_constraint().grammar
    step = trace.steps[0]
    assert (step.role, step.kind, step.content) == ("gate", "decision", "no call")
    assert step.data["threshold"] == 0.0 and "0.5 > threshold 0.0" in step.detail
    assert trace.meta["call_threshold"] == 0.0 and trace.meta["gate"] == "fixed"
    assert gate.seen == [("Write a poem.", ["book"])]


def test_a_passing_call_gate_leaves_the_model_its_usual_turn():
    from toollearn.agents import ToolCallsAgent
    from toollearn.decoding.tool_calls import tool_calls_constraint
    from toollearn.engines import ScriptedEngine

    call = '[{"name": "book", "arguments": {"room": "double"}}]'
    engine = ScriptedEngine([call])
    agent = ToolCallsAgent(engine, execute=False, call_gate=_Gate(-0.5), call_threshold=0.0)
    trace = agent.run("Book a double room.", [BOOK])
    assert trace.meta["outcome"] == "planned" and trace.calls[0].arguments == {"room": "double"}
    assert engine.requests[0]["constraint"].grammar == tool_calls_constraint([BOOK]).grammar
    assert trace.steps[0].content == "call"


def test_a_sure_call_gate_takes_the_no_call_answer_from_the_first_turn_only():
    from toollearn.agents import ToolCallsAgent
    from toollearn.decoding.tool_calls import tool_calls_constraint
    from toollearn.engines import ScriptedEngine
    from toollearn.envs import Environment

    call = '[{"name": "book", "arguments": {"room": "double"}}]'
    engine = ScriptedEngine([call, "[]\nBooked."])
    agent = ToolCallsAgent(engine, Environment.simulated([BOOK]), call_gate=_Gate(-0.7),
                           call_threshold=0.0, sure_call_threshold=-0.6)  # fmt: skip
    trace = agent.run("Book a double room.", [BOOK])
    first, second = (r["constraint"].grammar for r in engine.requests)
    assert first == tool_calls_constraint([BOOK], allow_no_call=False).grammar
    assert second == tool_calls_constraint([BOOK]).grammar  # then it may reply
    assert trace.meta["outcome"] == "answered" and trace.answer == "Booked."
    step = trace.steps[0]
    assert step.content == "sure call" and "<= sure-call threshold -0.6" in step.detail
    assert step.data["sure_call_threshold"] == -0.6 and trace.meta["sure_call_threshold"] == -0.6
    from toollearn.agents.show import format_trace

    assert "[0] gate/decision: sure call: nocall_margin=-0.7" in format_trace(trace)
    # above the sure-call threshold the model decides, the no-call answer allowed
    engine = ScriptedEngine(["[]\nNo."])
    agent = ToolCallsAgent(engine, execute=False, call_gate=_Gate(-0.5), call_threshold=0.0,
                           sure_call_threshold=-0.6)  # fmt: skip
    trace = agent.run("Book a double room.", [BOOK])
    assert trace.steps[0].content == "call" and trace.meta["outcome"] == "no_call"
    assert engine.requests[0]["constraint"].grammar == tool_calls_constraint([BOOK]).grammar
    with pytest.raises(ValueError, match="sure-call threshold"):
        ToolCallsAgent(engine, call_gate=_Gate(0.0), call_threshold=0.0, sure_call_threshold=0.1)
    with pytest.raises(ValueError, match="sure-call threshold"):
        ToolCallsAgent(engine, sure_call_threshold=-0.6)


def test_a_gate_declining_for_an_engine_without_constraints_ends_without_a_model_turn():
    from toollearn.agents import ToolCallsAgent
    from toollearn.engines import ScriptedEngine

    engine = ScriptedEngine(["[]"])
    engine.supports_constraints = False
    agent = ToolCallsAgent(engine, call_gate=_Gate(1.0), call_threshold=0.0)
    trace = agent.run("Write a poem.", [BOOK])
    assert trace.meta["outcome"] == "no_call" and engine.requests == []
    with pytest.raises(ValueError, match="needs its threshold"):
        ToolCallsAgent(engine, call_gate=_Gate(1.0))


def test_the_shipped_call_gate_declines_a_poem_and_passes_a_weather_request():
    """The real gate (the embedded MiniLM with the shipped LoRA adapter) before the model."""
    from toollearn.agents import ToolCallsAgent
    from toollearn.engines import ScriptedEngine

    weather = Tool("get_weather", "Current weather for a city",
                   {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"]})  # fmt: skip
    oslo_call = '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]'
    engine = ScriptedEngine(["[]\nNo tool writes poems.", oslo_call])
    agent = ToolCallsAgent.gated(engine, execute=False)
    poem = agent.run("Write a short poem about the sea.", [weather, BOOK])
    assert poem.steps[0].content == "no call" and poem.meta["outcome"] == "no_call"
    assert poem.steps[0].data["max_similarity"] < -agent.call_threshold
    oslo = agent.run("What is the weather in Oslo right now?", [BOOK, weather])
    gate = oslo.steps[0]
    sure = gate.data["nocall_margin"] <= agent.sure_call_threshold
    assert gate.content == ("sure call" if sure else "call")
    assert gate.data["closest_tool"] == "get_weather"
    assert oslo.calls[0].arguments == {"city": "Oslo"}
    assert "LoRA adapter (sha256" in agent.config()["encoder"]
