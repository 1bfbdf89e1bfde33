"""End-to-end runs of every agent with the real embedded SmolLM2-135M on executable tools.

Small cases, greedy decoding, each well under a minute on a laptop CPU. What a zero-shot
135M model can do is limited; the assertions check the pipeline and what it recorded, and
say in comments where a constraint was needed to get a full episode.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toollearn.agents import DecisionAgent, MultiCallAgent, MultiRoleAgent
from toollearn.agents.multi_role import require_calls
from toollearn.cli.main import main
from toollearn.data.registry import load_examples
from toollearn.data.trajectories import trajectory_from_trace
from toollearn.envs import Environment, run_plan
from toollearn.envs.demo import demo_env

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def llama():
    pytest.importorskip("llama_cpp")
    from toollearn.engines import load_engine

    return load_engine("llama")


def test_seal_nested_instance_executes_in_dag_order(llama):
    ex = next(e for e in load_examples("sample/seal-tools-prompts/test_in_domain")
              if e.id == "test_in_domain-difficult-321")  # fmt: skip
    assert ex.nested
    gold_tools = [t for t in ex.tools if t.name in {c.name for c in ex.calls}]
    env = Environment.simulated(gold_tools)
    trace = MultiCallAgent(llama, env, constrained=True, max_tokens=120).run(
        ex.query, gold_tools, example_id=ex.id
    )
    model_step = trace.steps[0]
    assert model_step.prompt.startswith("Please chooose") and model_step.content
    if model_step.error is None:  # the plan the model wrote ran, producers before consumers
        ran = [s.data["call_index"] for s in trace.steps if s.kind == "observation"]
        assert sorted(ran) == list(range(len(model_step.calls)))
        for pos, i in enumerate(ran):
            assert all(
                r.call in ran[:pos] for r in model_step.calls[i].refs() if r.call is not None
            )
    # The 135M model does not write nested references zero-shot, so the gold nested plan of
    # the same instance is executed in the same environment to show the DAG path for real.
    results, order = run_plan(env, list(ex.calls))
    assert all(r.ok for r in results)
    consumer = next(i for i, c in enumerate(ex.calls) if c.refs())
    producer = ex.calls[consumer].refs()[0].call
    assert order.index(producer) < order.index(consumer)
    used = next(iter(results[consumer].arguments.values()))
    assert used == results[producer].outputs[ex.calls[consumer].refs()[0].output]


def test_deer_answers_a_chat_query_without_tools(llama):
    env = demo_env()
    agent = DecisionAgent(llama, env)
    trace = agent.run("Hello! How are you today?", [env.get("get_weather"), env.get("add")])
    assert trace.decisions()["needs_tool"] is False
    assert trace.calls == [] and trace.answer and trace.meta["outcome"] == "no_search"


def test_eval_deer_runs_deers_own_adapter_by_default(tmp_path):
    pytest.importorskip("llama_cpp")
    out = tmp_path / "deer"
    assert main(["eval", "deer", "--sample", "--limit", "2", "--threads", "1",
                 "--out", str(out)]) == 0  # fmt: skip
    payload = json.loads((out / "scores.json").read_text())
    assert payload["config"]["engine"] == "tuned-deer"
    merged = payload["provenance"][0]["merged"]["adapters"]
    assert [Path(a["path"]).name for a in merged] == ["deer-135m.gguf"]
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(r["output"].startswith("#Begin#") for r in rows)


def test_multi_role_episode_two_calls_to_conclusion(llama):
    # Needed for a full episode from the zero-shot 135M: a constrained caller (typed
    # arguments of a shown tool, fresh tools only) and the planner's Next: choice fixed by
    # require_calls(2) (forced decisions are recorded as such). Thoughts, calls and the
    # summary are the model's own.
    env = demo_env()
    agent = MultiRoleAgent(
        llama, env=env, constrained_caller=True, constrained_plan=True, fresh_tools=True,
        next_policy=require_calls(2), max_steps=4,
        max_tokens={"planner": 24, "caller": 40, "summarizer": 32},
    )  # fmt: skip
    tools = [env.get("add"), env.get("multiply")]
    trace = agent.run("What is 3 plus 4, and what is 5 times 6?", tools, example_id="e2e")
    ok = [s for s in trace.steps if s.kind == "observation" and s.error is None]
    assert len(ok) >= 2 and {s.calls[0].name for s in ok} == {"add", "multiply"}
    assert trace.meta["outcome"] == "concluded" and trace.answer
    roles = [m.role for m in trajectory_from_trace(trace, tools).conversations]
    assert roles[0] == "user" and roles[-1] == "conclusion" and roles.count("caller") >= 2


def test_stepwise_runner_end_to_end(llama, tmp_path, capsys):
    out = tmp_path / "sw"
    assert main(["eval", "stepwise", "--limit", "2", "--max-tokens", "48", "--out", str(out)]) == 0
    payload = json.loads((out / "scores.json").read_text())
    scores = payload["scores"]
    assert scores["steps"] == 2 and 0.0 <= scores["plan_acc"] <= 1.0
    # by default each role runs under its shipped alpha-UMi adapter stack
    assert payload["config"]["engines"]["planner"] == "tuned-umi#planner"
    adapters = [a["path"] for a in payload["provenance"][0]["planner"]["adapters"]]
    assert [Path(a).name for a in adapters] == ["single.gguf", "planner.gguf"]
    assert "plan_acc" in capsys.readouterr().out
