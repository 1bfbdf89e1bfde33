"""The call plan choosing the alpha-UMi planner's next role: the rules, and the stepwise runner
scoring recorded steps under them."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import schema

from toollearn.agents import plan_gate as pg
from toollearn.agents.clause_plan import Plan
from toollearn.cli.main import main
from toollearn.core.types import Message, ToolCall
from toollearn.data.trajectories import Trajectory
from toollearn.engines import ScriptedEngine
from toollearn.evaluation.rescore import rescore_run
from toollearn.evaluation.runners import stepwise
from toollearn.evaluation.runners.base import RunWriter
from toollearn.formats.answers import umi

DUE, DONE, UNFIT = pg.StepPlan("add", False), pg.StepPlan(None, False), pg.StepPlan(None, True)


@pytest.mark.parametrize(
    ("model", "step", "veto", "follow", "plan"),
    [
        ("conclusion", DUE, "caller", "caller", "caller"),  # an early stop
        ("give up", DUE, "caller", "caller", "caller"),
        ("caller", DUE, "caller", "caller", "caller"),
        (None, DUE, None, "caller", "caller"),  # unreadable: veto only changes an end
        ("caller", DONE, "caller", "conclusion", "conclusion"),  # a call too many
        ("give up", DONE, "give up", "give up", "conclusion"),  # follow keeps the model's end
        ("conclusion", UNFIT, "conclusion", "give up", "give up"),  # no shown tool fits
        ("caller", UNFIT, "caller", "give up", "give up"),
    ],
)
def test_each_rule_decides_from_the_plan(model, step, veto, follow, plan):
    got = {rule: pg.gated_next(model, step, rule) for rule in pg.RULES}
    assert got == {"veto": veto, "follow": follow, "plan": plan}


def test_no_rule_or_no_plan_keeps_the_model_and_a_bad_rule_is_an_error():
    assert pg.gated_next("conclusion", DUE, None) == "conclusion"
    assert pg.gated_next("conclusion", None, "plan") == "conclusion"
    with pytest.raises(ValueError, match="veto"):
        pg.gated_next("caller", DUE, "sometimes")


def test_step_plan_counts_the_calls_of_the_history():
    history = [
        Message("user", "add then multiply"),
        Message("assistant", "Add. Next: caller."),
        Message("caller", umi.render_action(ToolCall("add", {"a": 1}))),
        Message("observation", '{"result": 2}'),
        Message("caller", "no action here"),  # unreadable: calls nothing
    ]
    assert pg.called_tools(history) == {"add"}
    plan = Plan(["add", "multiply"])
    assert pg.step_plan(plan, history) == pg.StepPlan("multiply", False)
    assert pg.step_plan(plan, history[:2]) == pg.StepPlan("add", False)
    cut = Plan(["add"], unfit="then fly to the moon")
    assert pg.step_plan(cut, history) == pg.StepPlan(None, True)


def _eager_planner() -> ScriptedEngine:
    """Concludes at every step (thought, then its role choice): the early stop at its worst."""
    return ScriptedEngine(
        lambda p: "conclusion." if p[-1].role == "assistant" else umi.CONCLUSION_THOUGHT
    )


_TOOLS = {
    name: schema(name, {"city": {"type": "string"}}, ["city"], description=text)
    for name, text in [
        ("getWeather", "Get the current weather of a city"),
        ("getPopulation", "Get the population of a city"),
        ("getTimezone", "Get the time zone of a city"),
    ]
}


def _trajectory(k: int, query: str, calls: list[str]) -> Trajectory:
    """A gold episode in the generated data's shape: one planner turn per call, then the end."""
    turns = [Message("user", query)]
    for name in calls:
        turns += [Message("assistant", umi.render_plan(f"Call {name}.", "caller")),
                  Message("caller", umi.render_action(ToolCall(name, {"city": "Oslo"}))),
                  Message("observation", '{"result": 1}')]  # fmt: skip
    turns += [Message("assistant", umi.render_plan(umi.CONCLUSION_THOUGHT, "conclusion")),
              Message("conclusion", "Done.")]  # fmt: skip
    return Trajectory(query, tuple(_TOOLS.values()), tuple(turns), id=f"t{k}")


TRAJECTORIES = [
    _trajectory(0, "First, get the weather in Oslo. Then get the population of Oslo.",
                ["getWeather", "getPopulation"]),
    _trajectory(1, "Get the time zone of Lima, and get the weather in Lima. Finally, get "
                "the population of Lima.", ["getTimezone", "getWeather", "getPopulation"]),
]  # fmt: skip


def test_the_plan_recovers_an_eager_planners_calls_and_rescores(tmp_path):
    # the real call plan (embedded MiniLM) on episodes whose requests are explicit
    file = tmp_path / "trajectories.json"
    file.write_text(json.dumps([t.to_dict() for t in TRAJECTORIES]))
    cases, _ = stepwise.step_cases(TRAJECTORIES)
    gate = stepwise.plan_gate_config("plan")
    config = {"benchmark": "stepwise", "file": str(file), "roles": ["planner"],
              "plan_gate": gate}  # fmt: skip
    writer = RunWriter(tmp_path / "run", config)
    opts = stepwise.StepwiseOptions(roles=("planner",))
    records = stepwise.run_stepwise(
        cases, {"planner": _eager_planner()}, "multi-role", writer, opts
    )
    plans = stepwise.plan_gate_plans(cases, gate)
    assert set(plans) == {c.id for c in cases}
    greedy = stepwise.score_records(records, roles=("planner",))
    gated = stepwise.score_records(records, None, ("planner",), "plan", plans)
    assert greedy["plans"]["call"]["finish"] == greedy["call_steps"] == 5  # every call missed
    assert gated["plan_acc"] == 1.0 and greedy["plan_acc"] == pytest.approx(2 / 7)
    assert gated["plan_gate"]["greedy_plan_acc"] == greedy["plan_acc"]
    assert gated["plan_gate"]["changed"] == 5 and gated["plan_gate"]["unplanned"] == 0
    rescored = rescore_run(tmp_path / "run")  # the config's rule
    assert rescored == {**json.loads(json.dumps(gated)), "skipped_gold_steps": 0}
    assert stepwise.plan_gate_plans(cases, None) is None


def test_cli_scores_recorded_steps_under_the_gate_without_a_model(tmp_path, capsys):
    first = tmp_path / "greedy"
    argv = ["eval", "stepwise", "--engine", "scripted", "--limit", "4", "--roles", "planner"]
    assert main([*argv, "--out", str(first)]) == 0
    gated = tmp_path / "gated"
    gated.mkdir()
    shutil.copy(first / "predictions.jsonl", gated)
    capsys.readouterr()
    assert main([*argv, "--plan-gate", "veto", "--plan-margin", "-1", "--out", str(gated)]) == 0
    out = capsys.readouterr()
    assert "scored without loading a model" in out.err and "plan gate (veto)" in out.out
    config = json.loads((gated / "config.json").read_text())
    assert config["plan_gate"] == {"rule": "veto", "unfit_gap": 0.15}  # the margin off
    scores = json.loads((gated / "scores.json").read_text())["scores"]
    assert scores["plan_gate"]["unplanned"] == 0 and scores["steps"] == 4
    assert rescore_run(gated) == json.loads(json.dumps(scores))
    with pytest.raises(SystemExit):
        main([*argv, "--plan-gate", "always", "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match="--plan-gate"):  # tuning without a gate
        main([*argv, "--plan-margin", "0.1", "--out", str(tmp_path / "y")])


def test_multi_role_agent_follows_the_plan_where_its_planner_stops_early():
    from helpers import ADD, MULTIPLY, math_env

    from toollearn.agents import MultiRoleAgent

    query = "First, add the numbers 2 and 3. Then multiply the numbers 4 and 5."
    # the planner concludes at every turn; the plan (real MiniLM) sees two requests
    caller = ScriptedEngine(['Action: add\nAction Input: {"a": 2, "b": 3}',
                             'Action: multiply\nAction Input: {"a": 4, "b": 5}'])  # fmt: skip
    agent = MultiRoleAgent(_eager_planner(), caller, ScriptedEngine(["5 and 20"]), math_env(),
                           constrained_plan=True, constrained_caller=True,
                           plan_gate="plan")  # fmt: skip
    trace = agent.run(query, [ADD, MULTIPLY])
    assert [c.name for c in trace.calls] == ["add", "multiply"]
    assert trace.answer == "5 and 20" and trace.meta["outcome"] == "concluded"
    assert trace.meta["plan_gate"] == "plan" and trace.meta["planner"] == "clauses"
    plan_step = trace.steps[0]
    assert plan_step.role == "planner" and plan_step.data["plan"] == ["add", "multiply"]
    decisions = [s for s in trace.steps if s.kind == "decision"]
    assert [d.content for d in decisions] == ["caller", "caller", "conclusion"]
    assert decisions[0].detail == "plan gate: the planner chose conclusion"
    assert decisions[0].data["plan_gate"]["due"] == "add"
    # the call the gate adds carries the due request as its thought; the caller is offered
    # the due tool alone
    first_caller_prompt = caller.requests[0]["prompts"][0][0].content
    assert "add the numbers 2 and 3" in first_caller_prompt
    grammars = [r["constraint"].grammar for r in caller.requests]
    assert "Action: add" in grammars[0] and "multiply" not in grammars[0]
    assert "Action: multiply" in grammars[1] and "Action: add" not in grammars[1]
    # without the gate the same planner concludes before any call
    plain = MultiRoleAgent(_eager_planner(), caller, ScriptedEngine(["?"]), math_env(),
                           constrained_plan=True)  # fmt: skip
    assert not plain.run(query, [ADD, MULTIPLY]).calls
    with pytest.raises(ValueError, match="plan_gate"):
        MultiRoleAgent(_eager_planner(), plan_gate="maybe")


def test_episodes_cli_takes_the_plan_gate_for_the_multi_role_agent_only(tmp_path):
    with pytest.raises(SystemExit, match="plan gate"):
        main(["eval", "episodes", "--agent", "tool-calls", "--engine", "scripted",
              "--plan-gate", "plan", "--out", str(tmp_path / "x")])  # fmt: skip


def test_episodes_cli_builds_the_multi_role_agent_with_the_gate(tmp_path):
    out = tmp_path / "ep"
    argv = ["eval", "episodes", "--engine", "scripted", "--plan-gate", "plan", "--limit", "1",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    trace = json.loads((out / "predictions.jsonl").open().readline())["trace"]
    assert trace["meta"]["plan_gate"] == "plan" and trace["meta"]["unfit_gap"] == 0.15
    assert trace["steps"][0]["data"]["plan"]  # the episode's tools, planned first
