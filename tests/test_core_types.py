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


def test_equal_objects_hash_equal_so_sets_deduplicate():
    params = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    a = Tool("getWeather", "Weather now", params, metadata={"tags": ["x"]})
    b = Tool("getWeather", "Weather now", json.loads(json.dumps(params)), metadata={"tags": ["x"]})
    assert a == b and a is not b and hash(a) == hash(b)
    assert len({a, b, Tool("other")}) == 2
    call = ToolCall("f", {"n": 1, "ref": Ref("API_call_0", 0, 0)})
    assert hash(call) == hash(ToolCall("f", {"n": 1.0, "ref": Ref("API_call_0", 0, 0)}))  # 1 == 1.0
    ex = Example("e1", "q", tools=(a,), calls=(call,), metadata={"k": [1, 2]})
    same = Example.from_dict(json.loads(json.dumps(ex.to_dict())))
    assert ex == same and len({ex, same}) == 1
    step = Step("agent", "call", "x", data={"d": {"e": 1}}, error=ErrorKind.FORMAT)
    trace = Trace("q", (step,), meta={"m": [1]})
    assert len({trace, roundtrip(trace)}) == 1 and len({step, roundtrip(step)}) == 1
    assert Tool("x", metadata={"a": 1}) != Tool("x", metadata={"a": 2})


def test_training_sample_spans_and_prompts():
    import pytest

    from toollearn.core.samples import TrainingSample
    from toollearn.core.types import Message

    user = (Message("user", "q"),)
    whole = TrainingSample(user, "answer")
    assert whole.spans == ((0, 6),) and whole.prompts() == [list(user)]
    two = TrainingSample(user, "AB-inserted-CD", spans=((0, 2), (12, 14)))
    assert two.span_texts() == ["AB", "CD"]
    assert two.prompts()[1] == [*user, Message("assistant", "AB-inserted-")]
    assert TrainingSample.from_dict(json.loads(json.dumps(two.to_dict()))) == two
    assert len({two, TrainingSample.from_dict(two.to_dict())}) == 1
    for bad in (((3, 2),), ((0, 20),), ((0, 4), (2, 6))):
        with pytest.raises(ValueError):
            TrainingSample(user, "AB-inserted-CD", spans=bad)
    with pytest.raises(ValueError):
        TrainingSample((), "x")
