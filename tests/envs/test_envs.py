"""Tool execution: validation, simulated tools, timeouts, stateful apps, nested DAG plans."""

from __future__ import annotations

import time

import pytest

from toollearn.core.types import ErrorKind, Ref, Tool, ToolCall, link_refs
from toollearn.envs import Environment, execution_order, simulate, validate_call


def schema(name: str, props: dict, required=(), responses=None) -> Tool:
    params = {"type": "object", "properties": props, "required": list(required)}
    return Tool(name, f"{name} tool", params, responses or {})


ADD = schema("add", {"a": {"type": "integer"}, "b": {"type": "integer"}}, ["a", "b"])
WEATHER = schema(
    "getWeather",
    {"city": {"type": "string"}},
    ["city"],
    {"temperature": {"type": "number"}, "condition": {"type": "string"}},
)
ADVICE = schema(
    "getAdvice", {"temperature": {"type": "number"}, "condition": {"type": "string"}}, ["condition"]
)


def add(a: int, b: int) -> int:
    return a + b


def boom() -> None:
    raise RuntimeError("tool exploded")


def sleepy(seconds: float = 5.0) -> str:
    time.sleep(seconds)
    return "woke up"


def test_validate_reports_each_kind():
    assert validate_call(ToolCall("nope"), None)[0][0].kind == ErrorKind.UNKNOWN_TOOL
    kinds = {p.kind for p in validate_call(ToolCall("add", {"a": 1, "c": 2}), ADD)[0]}
    assert kinds == {ErrorKind.UNKNOWN_ARGUMENT, ErrorKind.MISSING_ARGUMENT}
    problems, _ = validate_call(ToolCall("add", {"a": "x", "b": 2}), ADD)
    assert [p.kind for p in problems] == [ErrorKind.INVALID_ARGUMENT]
    problems, args = validate_call(ToolCall("add", {"a": "3", "b": 2.0}), ADD)
    assert problems == [] and args == {"a": 3, "b": 2}


def test_function_tool_runs_and_errors_become_observations():
    env = Environment()
    env.add_function(add, ADD).add_function(boom, schema("boom", {}))
    ok = env.execute(ToolCall("add", {"a": 2, "b": 3}))
    assert ok.ok and ok.output == 5 and ok.observation_text() == "5"
    bad = env.execute(ToolCall("boom"))
    assert bad.error == ErrorKind.TOOL_ERROR and "tool exploded" in bad.detail
    assert bad.observation_text().startswith("Error (tool_error)")
    assert env.execute(ToolCall("subtract", {"a": 1})).error == ErrorKind.UNKNOWN_TOOL
    step = bad.to_step()
    assert step.kind == "observation" and step.error == ErrorKind.TOOL_ERROR


@pytest.mark.parametrize("isolation", ["thread", "process"])
def test_hanging_tool_times_out(isolation):
    env = Environment(timeout=0.5, isolation=isolation)
    env.add_function(sleepy, schema("sleepy", {"seconds": {"type": "number"}}))
    start = time.perf_counter()
    res = env.execute(ToolCall("sleepy", {"seconds": 30}))
    assert res.error == ErrorKind.TIMEOUT
    assert time.perf_counter() - start < 10
    assert env.execute(ToolCall("sleepy", {"seconds": 0})).output == "woke up"


def test_simulated_tools_are_deterministic_and_typed():
    out = simulate(WEATHER, {"city": "Paris"}, seed=0)
    assert list(out) == ["temperature", "condition"]
    assert isinstance(out["temperature"], float) and isinstance(out["condition"], str)
    assert simulate(WEATHER, {"city": "Paris"}, seed=0) == out
    assert simulate(WEATHER, {"city": "Rome"}, seed=0) != out
    env = Environment.simulated([WEATHER])
    res = env.execute(ToolCall("getWeather", {"city": "Paris"}))
    assert res.outputs == (out["temperature"], out["condition"])


class Counter:
    """A stateful app: calls change state that later calls see; reset gives a fresh one."""

    def __init__(self) -> None:
        self.n = 0

    def increment(self, by: int = 1) -> int:
        self.n += by
        return self.n


Counter.increment.tool = schema("increment", {"self": {}, "by": {"type": "integer"}})


def test_stateful_app_resets_per_episode():
    env = Environment().add_app(Counter)
    assert [t.name for t in env.tools] == ["increment"]
    assert "self" not in env.tools[0].properties
    assert env.execute(ToolCall("increment", {"by": 2})).output == 2
    assert env.execute(ToolCall("increment", {})).output == 3
    env.reset()
    assert env.execute(ToolCall("increment", {})).output == 1


def nested_plan() -> list[ToolCall]:
    # the advice call comes FIRST but needs the weather call's outputs: DAG order matters
    return link_refs(
        [
            ToolCall(
                "getAdvice",
                {"temperature": "API_call_1", "condition": "API_call_2"},
                responses=("API_call_0",),
            ),
            ToolCall("getWeather", {"city": "Oslo"}, responses=("API_call_1", "API_call_2")),
        ]
    )


def test_nested_plan_runs_in_dag_order_with_substitution():
    env = Environment.simulated([WEATHER, ADVICE])
    calls = nested_plan()
    from toollearn.envs.plan import run_plan

    results, ran = run_plan(env, calls)
    assert ran == [1, 0]
    weather = simulate(WEATHER, {"city": "Oslo"})
    assert results[0].ok and results[0].arguments == {
        "temperature": weather["temperature"],
        "condition": weather["condition"],
    }
    assert results[0].call.refs()  # the record keeps the original references


def test_cycles_and_dangling_references_are_errors():
    calls = link_refs(
        [
            ToolCall("getAdvice", {"condition": "API_call_1"}, responses=("API_call_0",)),
            ToolCall("getWeather", {"city": "API_call_0"}, responses=("API_call_1",)),
            ToolCall("getAdvice", {"condition": "API_call_9"}, responses=("API_call_2",)),
            ToolCall("getAdvice", {"condition": "API_call_0"}, responses=("API_call_3",)),
        ]
    )
    order, cyclic = execution_order(calls)
    assert cyclic == {0, 1} and order == [2]
    results = Environment.simulated([WEATHER, ADVICE]).run_plan(calls)
    kinds = [r.error for r in results]
    assert kinds == [
        ErrorKind.CYCLE,
        ErrorKind.CYCLE,
        ErrorKind.DANGLING_REFERENCE,
        ErrorKind.DANGLING_REFERENCE,
    ]


def test_failed_producer_makes_consumer_dangling():
    env = Environment.simulated([WEATHER, ADVICE])
    calls = link_refs(
        [
            ToolCall("getWeather", {}, responses=("API_call_0", "API_call_1")),
            ToolCall("getAdvice", {"condition": "API_call_1"}, responses=("API_call_2",)),
        ]
    )
    first, second = env.run_plan(calls)
    assert first.error == ErrorKind.MISSING_ARGUMENT
    assert second.error == ErrorKind.DANGLING_REFERENCE and "failed" in second.detail


def test_ref_outside_plan_and_output_index_out_of_range():
    env = Environment.simulated([WEATHER, ADVICE])
    res = env.execute(ToolCall("getAdvice", {"condition": Ref("API_call_0", 0, 0)}))
    assert res.error == ErrorKind.DANGLING_REFERENCE
    calls = [
        ToolCall("getWeather", {"city": "Oslo"}),
        ToolCall("getAdvice", {"condition": Ref("API_call_5", 0, 5)}),
    ]
    assert env.run_plan(calls)[1].error == ErrorKind.DANGLING_REFERENCE
