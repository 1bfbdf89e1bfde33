"""Agents against executable tools with a ScriptedEngine (no model): every path and fault."""

from __future__ import annotations

import json

import pytest
from helpers import ADD, ADVICE, EXPLODE, HANG, MULTIPLY, WEATHER, math_env

from toollearn.agents import DecisionAgent, MultiCallAgent, MultiRoleAgent, ReActAgent
from toollearn.core.types import ErrorKind, Tool, Trace
from toollearn.data.trajectories import trajectory_from_trace
from toollearn.engines import ScriptedEngine
from toollearn.envs import Environment, simulate
from toollearn.formats.answers import deer

NESTED = (
    '[{"api": "getClothingAdvice", "parameters": {"temperature": "API_call_1", '
    '"condition": "API_call_2"}, "responses": ["API_call_0"]}, '
    '{"api": "getWeather", "parameters": {"city": "Oslo"}, '
    '"responses": ["API_call_1", "API_call_2"]}]'
)


def kinds(trace: Trace) -> list[ErrorKind]:
    return [s.error for s in trace.steps if s.error is not None]


def test_multi_call_executes_nested_plan_in_dag_order():
    agent = MultiCallAgent(ScriptedEngine([NESTED]))
    trace = agent.run("What should I wear in Oslo?", [WEATHER, ADVICE], example_id="x1")
    model_step = trace.steps[0]
    assert model_step.kind == "call" and model_step.prompt.startswith("Please chooose")
    assert [c.name for c in model_step.calls] == ["getClothingAdvice", "getWeather"]
    observations = [s for s in trace.steps if s.kind == "observation"]
    assert [s.calls[0].name for s in observations] == ["getWeather", "getClothingAdvice"]
    weather = simulate(WEATHER, {"city": "Oslo"})
    assert observations[1].data["arguments"] == weather  # substituted outputs
    assert kinds(trace) == [] and trace.meta["outcome"] == "executed"
    assert set(json.loads(trace.answer)) == {"call_0"}  # the sink of the DAG


def test_multi_call_garbage_and_cycle_are_recorded():
    garbage = MultiCallAgent(ScriptedEngine(["I think you should wear a coat."]))
    trace = garbage.run("What should I wear?", [WEATHER, ADVICE])
    assert kinds(trace) == [ErrorKind.FORMAT] and trace.answer is None
    cyclic = (
        '[{"api": "getClothingAdvice", "parameters": {"temperature": "API_call_1"}, '
        '"responses": ["API_call_0"]}, {"api": "getWeather", "parameters": '
        '{"city": "API_call_0"}, "responses": ["API_call_1", "API_call_2"]}]'
    )
    trace = MultiCallAgent(ScriptedEngine([cyclic])).run("loop", [WEATHER, ADVICE])
    assert kinds(trace) == [ErrorKind.CYCLE, ErrorKind.CYCLE]


def test_decision_agent_answers_without_tools():
    engine = ScriptedEngine([deer.NO_SEARCH_SPAN, "Paris is the capital of France."])
    trace = DecisionAgent(engine).run("What is the capital of France?", [WEATHER])
    assert trace.decisions() == {"needs_tool": False}
    assert trace.answer == "Paris is the capital of France." and trace.calls == []
    assert engine.requests[0]["constraint"].name == "deer-search"
    assert engine.prompts[0] == deer.render_messages("What is the capital of France?")
    assert trace.meta["deer_text"] == deer.NO_SEARCH_SPAN


def test_decision_agent_calls_the_chosen_tool_in_the_released_format():
    engine = ScriptedEngine([deer.SEARCH_SPAN, " #CallAPI# getWeather(city='Rome') #APIResponse#"])
    trace = DecisionAgent(engine).run("Weather in Rome?", [ADVICE, WEATHER])
    assert trace.decisions() == {
        "needs_tool": True,
        "has_suitable_tool": True,
        "tool": "getWeather",
    }
    assert trace.calls[0].arguments == {"city": "Rome"}
    assert json.loads(trace.answer) == simulate(WEATHER, {"city": "Rome"})
    # the call decision continues the model's own turn, with the pool inserted after #SearchAPI#
    prefill = engine.prompts[1][-1]
    assert prefill.role == "assistant"
    assert prefill.content == deer.SEARCH_SPAN + deer.pool_text([ADVICE, WEATHER])
    assert engine.requests[1]["constraint"].name == "deer-call"
    assert trace.meta["deer_text"] == (
        prefill.content + " #CallAPI# getWeather(city='Rome') #APIResponse#"
        + deer.response_span(trace.answer)
    )  # fmt: skip


def test_decision_agent_zero_shot_option():
    engine = ScriptedEngine(["Yes", "getWeather", "getWeather(city='Rome')"])
    trace = DecisionAgent(engine, prompting="zero-shot").run("Weather in Rome?", [ADVICE, WEATHER])
    assert trace.decisions()["tool"] == "getWeather"
    assert trace.calls[0].arguments == {"city": "Rome"}
    assert "Does this question need a tool?" in engine.prompts[0][0].content


def test_decision_agent_no_suitable_tool_and_garbage():
    engine = ScriptedEngine([deer.SEARCH_SPAN, deer.NO_CALL_SPAN])
    trace = DecisionAgent(engine, answer=False).run("Hi", [WEATHER])
    assert trace.decisions()["has_suitable_tool"] is False and trace.meta["outcome"] == "no_call"
    garbage = ScriptedEngine(["@@@", "%%%"])
    trace = DecisionAgent(garbage, constrained=False, answer=False).run("x", [WEATHER])
    assert kinds(trace) == [ErrorKind.FORMAT, ErrorKind.FORMAT]
    assert trace.decisions() == {"needs_tool": True, "has_suitable_tool": False, "tool": None}
    assert trace.meta["outcome"] == "call_format_error"
    zero_shot = ScriptedEngine(["@@@", "%%%"])
    trace = DecisionAgent(zero_shot, constrained=False, answer=False, prompting="zero-shot").run(
        "x", [WEATHER]
    )
    assert kinds(trace) == [ErrorKind.FORMAT, ErrorKind.FORMAT]


def branch_scores(nocall: float):
    """A scorer giving ` #NoCallAPI#` the log-probability `nocall` and ` #CallAPI#` -1."""
    return lambda _prompt, cont: nocall if cont == f" {deer.NOCALL}" else -1.0


def test_decision_agent_threshold_declines_above_the_margin_without_generating():
    engine = ScriptedEngine([deer.SEARCH_SPAN], logprobs=branch_scores(-0.5))
    agent = DecisionAgent(engine, answer=False, call_threshold=0.25)
    trace = agent.run("Hi", [WEATHER])
    assert trace.meta["outcome"] == "no_call" and trace.meta["call_threshold"] == 0.25
    decision = trace.steps[-1]
    assert decision.data["nocall_margin"] == 0.5 and decision.data["has_suitable_tool"] is False
    assert len(engine.requests) == 1  # the search decision only: the branch was scored
    assert trace.meta["deer_text"].endswith(deer.NO_CALL_SPAN)


def test_decision_agent_threshold_calls_below_the_margin_and_writes_the_call_marker():
    call = " getWeather(city='Rome') #APIResponse#"
    engine = ScriptedEngine([deer.SEARCH_SPAN, call], logprobs=branch_scores(-0.5))
    trace = DecisionAgent(engine, call_threshold=1.0).run("Weather in Rome?", [ADVICE, WEATHER])
    assert trace.decisions()["tool"] == "getWeather"
    assert trace.calls[0].arguments == {"city": "Rome"}
    prefill = engine.prompts[1][-1]
    assert prefill.content == deer.SEARCH_SPAN + deer.pool_text([ADVICE, WEATHER]) + " #CallAPI#"
    assert engine.requests[1]["constraint"].name == "deer-args"
    decision = [s for s in trace.steps if s.kind == "decision"][-1]
    assert decision.data["nocall_margin"] == 0.5 and decision.data["tool"] == "getWeather"


def test_decision_agent_threshold_needs_a_scoring_engine_and_records_its_failure():
    with pytest.raises(ValueError, match="scores continuations"):
        DecisionAgent(ScriptedEngine([]), call_threshold=0.0)
    with pytest.raises(ValueError, match="released format"):
        DecisionAgent(ScriptedEngine([], logprobs=branch_scores(0)), call_threshold=0.0,
                      prompting="zero-shot")  # fmt: skip

    def broken(_prompt, _cont):
        raise RuntimeError("scoring failed")

    engine = ScriptedEngine([deer.SEARCH_SPAN], logprobs=broken)
    trace = DecisionAgent(engine, answer=False, call_threshold=0.0).run("Hi", [WEATHER])
    assert kinds(trace) == [ErrorKind.ENGINE_ERROR]
    assert trace.meta["outcome"] == "call_format_error"


class NearestGate:
    """A similarity gate's interface with fixed answers (the real one is tested on MiniLM)."""

    name = "similarity"
    names_tool = True

    def __init__(self, margin: float, closest: str):
        self.margin, self.closest = margin, closest

    def score(self, query, pool, messages):
        return {"nocall_margin": self.margin, "closest_tool": self.closest}

    def describe(self):
        return {"gate": self.name}


def test_decision_agent_gate_tool_constrains_the_call_to_the_closest_tool():
    call = " getWeather(city='Rome') #APIResponse#"
    engine = ScriptedEngine([deer.SEARCH_SPAN, call])
    agent = DecisionAgent(engine, call_threshold=-0.3, call_gate=NearestGate(-0.6, "getWeather"),
                          gate_tool=True)  # fmt: skip
    trace = agent.run("Weather in Rome?", [ADVICE, WEATHER])
    assert trace.decisions()["tool"] == "getWeather" and trace.meta["gate_tool"] is True
    grammar = engine.requests[1]["constraint"].grammar
    assert "getWeather" in grammar and "getClothingAdvice" not in grammar
    with pytest.raises(ValueError, match="similarity"):
        DecisionAgent(ScriptedEngine([], logprobs=branch_scores(0)), call_threshold=0.0,
                      gate_tool=True)  # fmt: skip
    with pytest.raises(ValueError, match="needs call_threshold"):
        DecisionAgent(engine, gate_tool=True)


class FixedSearchGate:
    """A search gate's interface with a fixed margin (the real ones are tested on MiniLM)."""

    name = "classifier"

    def __init__(self, margin: float | Exception):
        self.margin = margin

    def score(self, query):
        if isinstance(self.margin, Exception):
            raise self.margin
        return {"nosearch_margin": self.margin}

    def describe(self):
        return {"search_gate": self.name}


def test_decision_agent_search_threshold_skips_the_search_without_generating():
    engine = ScriptedEngine([])
    agent = DecisionAgent(engine, answer=False, search_threshold=0.5,
                          search_gate=FixedSearchGate(2.0))  # fmt: skip
    trace = agent.run("Write a poem about spring.", [WEATHER])
    assert trace.meta["outcome"] == "no_search" and trace.meta["search_threshold"] == 0.5
    assert trace.decisions()["needs_tool"] is False and engine.requests == []
    assert trace.steps[-1].data["nosearch_margin"] == 2.0
    assert trace.meta["deer_text"] == deer.NO_SEARCH_SPAN
    assert deer.parse_deer(trace.meta["deer_text"]).search is False


def test_decision_agent_search_threshold_searches_below_the_margin_and_records_failures():
    call = " #CallAPI# getWeather(city='Rome') #APIResponse#"
    engine = ScriptedEngine([call])
    agent = DecisionAgent(engine, search_threshold=0.5, search_gate=FixedSearchGate(-1.0))
    trace = agent.run("Weather in Rome?", [WEATHER])
    assert trace.decisions()["tool"] == "getWeather"
    assert engine.prompts[0][-1].content == deer.SEARCH_SPAN + deer.pool_text([WEATHER])
    broken = DecisionAgent(ScriptedEngine([call]), answer=False, search_threshold=0.5,
                           search_gate=FixedSearchGate(RuntimeError("encoder gone")))  # fmt: skip
    trace = broken.run("Weather in Rome?", [WEATHER])
    assert kinds(trace) == [ErrorKind.ENGINE_ERROR]  # recorded, then searched
    assert trace.decisions()["needs_tool"] is True and trace.decisions()["tool"] == "getWeather"
    with pytest.raises(ValueError, match="go together"):
        DecisionAgent(engine, search_threshold=0.5)
    with pytest.raises(ValueError, match="released format"):
        DecisionAgent(engine, search_threshold=0.5, search_gate=FixedSearchGate(0.0),
                      prompting="zero-shot")  # fmt: skip


def test_decision_agent_aliases_tools_whose_names_are_not_identifiers():
    odd = Tool("Weather API-Get forecast| city", "Forecasts", WEATHER.parameters)
    engine = ScriptedEngine(
        [deer.SEARCH_SPAN, " #CallAPI# Weather_API_Get_forecast_city(city='Oslo') #APIResponse#"]
    )
    trace = DecisionAgent(engine, execute=False).run("Oslo weather?", [odd])
    assert "Weather_API_Get_forecast_city(city: str" in engine.prompts[1][-1].content
    assert trace.calls[0].name == odd.name and trace.calls[0].arguments == {"city": "Oslo"}


def role_script(planner: list[str], caller: list[str], summary: list[str]):
    return ScriptedEngine(planner), ScriptedEngine(caller), ScriptedEngine(summary)


def test_multi_role_two_calls_then_conclusion_and_trajectory():
    planner, caller, summarizer = role_script(
        ["I need 3 + 4 first. Next: caller.", "Now multiply by 5. Next: caller.",
         "I have the result. Next: conclusion."],
        ['Action: add\nAction Input: {"a": 3, "b": 4}',
         'Action: multiply\nAction Input: {"a": 7, "b": 5}'],
        ["(3 + 4) * 5 = 35."],
    )  # fmt: skip
    agent = MultiRoleAgent(planner, caller, summarizer, math_env())
    trace = agent.run("What is (3 + 4) * 5?", [ADD, MULTIPLY], example_id="m1")
    assert trace.meta["outcome"] == "concluded" and trace.answer == "(3 + 4) * 5 = 35."
    outputs = [s.observation for s in trace.steps if s.kind == "observation"]
    assert outputs == [7, 35]
    assert "Observation: 7" in caller.requests[1]["prompts"][0][0].content
    traj = trajectory_from_trace(trace, [ADD, MULTIPLY])
    roles = [m.role for m in traj.conversations]
    assert roles == ["user", "assistant", "caller", "observation", "assistant", "caller",
                     "observation", "assistant", "conclusion"]  # fmt: skip
    assert traj.conversations[-2].content.endswith("Next: conclusion.")


def test_multi_role_faults_loop_and_budget():
    # the planner writes no "Next:" (FORMAT, falls back to caller) and the caller repeats
    planner = ScriptedEngine(lambda p: "Let me add them.")
    caller = ScriptedEngine(lambda p: 'Action: add\nAction Input: {"a": 1, "b": 2}')
    trace = MultiRoleAgent(planner, caller, env=math_env(), max_steps=8).run("1+2?", [ADD])
    assert trace.meta["outcome"] == "loop"
    assert ErrorKind.REPEATED_CALL in kinds(trace) and ErrorKind.FORMAT in kinds(trace)
    caller = ScriptedEngine(lambda p: "Action: nowhere\nAction Input: {}")
    planner = ScriptedEngine(lambda p: "Call it. Next: caller.")
    trace = MultiRoleAgent(planner, caller, env=math_env(), max_steps=3).run("?", [ADD])
    assert trace.meta["outcome"] == "step_limit"
    assert kinds(trace).count(ErrorKind.UNKNOWN_TOOL) == 3 and ErrorKind.STEP_LIMIT in kinds(trace)
    trace = MultiRoleAgent(ScriptedEngine([""])).run("?", [ADD])
    assert trace.meta["outcome"] == "planner_failed" and kinds(trace) == [ErrorKind.EMPTY_OUTPUT]
    trace = MultiRoleAgent(ScriptedEngine(["Impossible. Next: give up."])).run("?", [ADD])
    assert trace.meta["outcome"] == "give_up"


def test_react_baseline_finishes():
    engine = ScriptedEngine(
        ['Add them.\nAction: add\nAction Input: {"a": 2, "b": 2}',
         'Done.\nAction: Finish\nAction Input: {"return_type": "give_answer", '
         '"final_answer": "4"}'],
    )  # fmt: skip
    trace = ReActAgent(engine, math_env()).run("2+2?", [ADD])
    assert trace.answer == "4" and trace.meta["outcome"] == "concluded"
    assert [s.observation for s in trace.steps if s.kind == "observation"] == [4]


def test_fault_batch_each_error_recorded_and_run_continues():
    """A raising tool, a hanging tool, an unknown tool, a cyclic plan, garbage output."""
    cases = [
        ("explode", '[{"api": "explode", "parameters": {}, "responses": ["API_call_0"]}]',
         ErrorKind.TOOL_ERROR),
        ("hang", '[{"api": "hang", "parameters": {}, "responses": ["API_call_0"]}]',
         ErrorKind.TIMEOUT),
        ("unknown", '[{"api": "divide", "parameters": {}, "responses": ["API_call_0"]}]',
         ErrorKind.UNKNOWN_TOOL),
        ("cycle", '[{"api": "add", "parameters": {"a": "API_call_1", "b": 1}, "responses": '
         '["API_call_0"]}, {"api": "add", "parameters": {"a": "API_call_0", "b": 1}, '
         '"responses": ["API_call_1"]}]', ErrorKind.CYCLE),
        ("garbage", "¯\\_(ツ)_/¯ }{][", ErrorKind.FORMAT),
        ("fine", '[{"api": "add", "parameters": {"a": 1, "b": 1}, "responses": ["API_call_0"]}]',
         None),
    ]  # fmt: skip
    agent = MultiCallAgent(ScriptedEngine([c[1] for c in cases]), math_env(timeout=0.3))
    tools = [ADD, MULTIPLY, EXPLODE, HANG]
    traces = [agent.run(name, tools, example_id=name) for name, _, _ in cases]
    assert [t.example_id for t in traces] == [c[0] for c in cases]
    for trace, (_, _, kind) in zip(traces, cases):
        assert (kind in kinds(trace)) if kind else kinds(trace) == []
    assert json.loads(traces[-1].answer) == {"call_0": 2}


def test_environment_is_reset_between_episodes():
    env = Environment.simulated([WEATHER])
    agent = MultiCallAgent(ScriptedEngine([NESTED.split(", {")[0] + "]"] * 2), env)
    assert agent.run("a", [WEATHER, ADVICE]).meta["outcome"] in {"executed", "partial"}


def test_decision_agent_retrieves_its_pool():
    pytest.importorskip("bm25s")
    from toollearn.envs.demo import demo_env
    from toollearn.retrieval import ToolRetriever

    env = demo_env()
    engine = ScriptedEngine([deer.SEARCH_SPAN, " #CallAPI# get_weather(city='Oslo') #APIResponse#"])
    agent = DecisionAgent(engine, env, retriever=ToolRetriever(env.tools, "bm25"), k=3)
    trace = agent.run("What is the weather in Oslo?")
    pool = next(s for s in trace.steps if s.role == "retriever").data["candidates"]
    assert "get_weather" in pool and len(pool) <= 3
    assert json.loads(trace.answer)["condition"] == "snow"


def test_constrained_plan_choice_and_forced_policy():
    from toollearn.agents.multi_role import require_calls

    # an empty thought is recorded (EMPTY_OUTPUT) and the grammar-constrained choice follows
    planner = ScriptedEngine(["", "conclusion"])
    agent = MultiRoleAgent(planner, summarizer=ScriptedEngine(["done"]), constrained_plan=True)
    trace = agent.run("hi", [ADD])
    assert trace.meta["outcome"] == "concluded" and kinds(trace) == [ErrorKind.EMPTY_OUTPUT]
    assert planner.requests[1]["constraint"].name == "umi-next"
    # require_calls(1): "caller" is forced (no model call), then "conclusion" is forced
    planner = ScriptedEngine(["Add them.", "Done."])
    caller = ScriptedEngine(['Action: add\nAction Input: {"a": 1, "b": 2}'])
    agent = MultiRoleAgent(planner, caller, ScriptedEngine(["3"]), math_env(),
                           constrained_plan=True, next_policy=require_calls(1))  # fmt: skip
    trace = agent.run("1+2?", [ADD])
    decisions = [s for s in trace.steps if s.kind == "decision"]
    assert [d.content for d in decisions] == ["caller", "conclusion"]
    assert all(d.detail == "forced by next_policy" for d in decisions) and trace.answer == "3"
