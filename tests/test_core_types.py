import json

from toollearn import ErrorKind, Example, Ref, Step, Tool, ToolCall, Trace
from toollearn.core.types import link_refs, unlink_refs


def roundtrip(obj):
    return type(obj).from_dict(json.loads(json.dumps(obj.to_dict())))


def test_tool_roundtrip_and_accessors():
    tool = Tool(
        "getWeather",
        "Weather now",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        responses={"temp": {"type": "number", "description": "C"}},
        category="Weather/Now",
    )
    assert roundtrip(tool) == tool
    assert tool.required == ["city"] and tool.param_type("city") == "string"
    assert tool.param_type("nope") is None


def test_link_refs_resolves_and_keeps_ids():
    calls = [
        ToolCall("a", {"x": 1}, responses=("API_call_0", "API_call_1")),
        ToolCall(
            "b", {"y": "API_call_1", "z": "API_call_9", "w": "plain"}, responses=("API_call_2",)
        ),
    ]
    linked = link_refs(calls)
    assert linked[1].arguments["y"] == Ref("API_call_1", call=0, output=1)
    assert linked[1].arguments["z"] == Ref("API_call_9")  # dangling: kept, unresolved
    assert linked[1].arguments["w"] == "plain"
    assert unlink_refs(linked[1].arguments) == calls[1].arguments
    assert roundtrip(linked[1]) == linked[1]


def test_example_and_trace_roundtrip():
    calls = tuple(
        link_refs([ToolCall("a", responses=("API_call_0",)), ToolCall("b", {"v": "API_call_0"})])
    )
    ex = Example("dev-easy-1", "q", tools=(Tool("a"), Tool("b")), calls=calls, needs_tool=True)
    assert ex.nested and roundtrip(ex) == ex
    trace = Trace(
        "q",
        steps=(
            Step("agent", "decision", data={"needs_tool": True}),
            Step("agent", "call", calls=calls[:1]),
            Step("tool", "observation", observation={"r": Ref("API_call_0", 0, 0)}),
            Step("tool", "error", error=ErrorKind.TIMEOUT, detail="2.0s"),
        ),
        answer="done",
    )
    back = roundtrip(trace)
    assert back == trace
    assert back.decisions() == {"needs_tool": True}
    assert [c.name for c in back.calls] == ["a"] and back.errors[0].error is ErrorKind.TIMEOUT
