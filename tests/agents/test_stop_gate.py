"""The alpha-UMi planner's stop gate: the rule, the sweep, and the stepwise runner around it."""

from __future__ import annotations

import json

import pytest
from helpers import ADD, math_env

from toollearn.agents import MultiRoleAgent
from toollearn.agents import stop_gate as sg
from toollearn.agents.oracle import DEMO_TRAJECTORIES, Oracle
from toollearn.cli.main import main
from toollearn.data.trajectories import read_trajectories
from toollearn.datagen.umi import dev_trajectories
from toollearn.engines import ScriptedEngine
from toollearn.envs.demo import DEMO_TASKS
from toollearn.evaluation.rescore import rescore_run
from toollearn.evaluation.runners import stepwise
from toollearn.evaluation.runners.base import RunWriter
from toollearn.formats.answers import umi


def test_gate_decides_only_between_caller_and_conclusion():
    assert sg.gated_next("conclusion", -2.0, -1.0) == "caller"
    assert sg.gated_next("caller", -0.5, -1.0) == "conclusion"
    assert sg.gated_next("conclusion", -0.5, -1.0) == "conclusion"
    assert sg.gated_next("give up", 0.0, -1.0) == "give up"  # a give-up stays
    assert sg.gated_next(None, 0.0, -1.0) is None  # an unreadable plan stays unreadable
    assert sg.gated_next("conclusion", None, -1.0) == "conclusion"  # no score: greedy
    assert sg.gated_next("conclusion", -9.0, None) == "conclusion"  # no threshold: greedy


def test_sweep_finds_the_threshold_that_stops_the_early_conclusions():
    steps = [
        sg.GateStep("conclusion", -0.01, "conclusion"),
        sg.GateStep("conclusion", -0.05, "conclusion"),
        sg.GateStep("conclusion", -0.60, "caller"),  # an early stop, less sure
        sg.GateStep("caller", -3.00, "caller"),
        sg.GateStep("give up", -4.00, "give up"),
    ]
    result = sg.threshold_sweep(steps)
    assert result["greedy_plan_acc"] == pytest.approx(0.8)
    assert result["best"]["plan_acc"] == 1.0
    assert -0.60 < result["best"]["threshold"] < -0.05
    assert sg.candidate_thresholds([]) == [] and sg.threshold_sweep([])["best"] is None


def test_sweep_breaks_ties_to_the_lowest_threshold():
    steps = [sg.GateStep("conclusion", -1.0, "conclusion"), sg.GateStep("caller", -5.0, "caller")]
    best = sg.threshold_sweep(steps)["best"]
    assert best["plan_acc"] == 1.0 and best["threshold"] == pytest.approx(-3.0)


def test_conclusion_logprob_scores_the_conclusion_thought_after_the_prompt():
    seen = []

    def logprobs(prompt, continuation):
        seen.append((prompt, continuation))
        return -0.25

    engine = ScriptedEngine([], logprobs=logprobs)
    assert sg.conclusion_logprob(engine, "PLANNER PROMPT") == -0.25
    ((prompt, continuation),) = seen
    assert continuation == umi.CONCLUSION_THOUGHT
    assert prompt[0].role == "user" and prompt[0].content == "PLANNER PROMPT"


def _roles(eager_planner: bool):
    """Oracle roles; with eager_planner the planner always concludes, while its conclusion
    score is high only where the oracle concludes (what a calibrated gate can use)."""
    oracles = {t.query: Oracle(t) for t in DEMO_TASKS}

    def oracle_for(prompt):
        text = prompt[0].content
        return next(o for q, o in oracles.items() if f"User: {q}\n" in text + "\n")

    def planner_text(prompt):
        right = oracle_for(prompt).planner._fn(prompt[:1])
        if not (eager_planner and "Next: caller" in right):
            return right
        # the thought (asked first), then the role choice after `<thought> Next: `
        return "conclusion." if prompt[-1].role == "assistant" else umi.CONCLUSION_THOUGHT

    def planner_logprob(prompt, continuation):
        return -0.01 if "Next: conclusion" in oracle_for(prompt).planner._fn(prompt) else -2.0

    def route(role):
        return ScriptedEngine(lambda p: getattr(oracle_for(p), role)._fn(p))

    planner = ScriptedEngine(planner_text, logprobs=planner_logprob)
    return {"planner": planner, "caller": route("caller"), "summarizer": route("summarizer")}


def test_stepwise_gate_recovers_the_early_stops_and_rescores(tmp_path):
    cases, _ = stepwise.step_cases(read_trajectories(DEMO_TRAJECTORIES))
    opts = stepwise.StepwiseOptions(roles=("planner",), stop_scores=True)
    config = {"benchmark": "stepwise", "file": str(DEMO_TRAJECTORIES), "roles": ["planner"],
              "stop_scores": True, "stop_threshold": -1.0}  # fmt: skip
    writer = RunWriter(tmp_path, config)
    records = stepwise.run_stepwise(cases, _roles(eager_planner=True), "multi-role", writer, opts)
    assert all(isinstance(r["conclusion_logprob"], float) for r in records)
    assert all(set(r["texts"]) == {"planner"} for r in records)  # the other roles not asked
    greedy = stepwise.score_records(records, roles=("planner",))
    gated = stepwise.score_records(records, -1.0, ("planner",))
    assert greedy["plan_acc"] < 0.5 and gated["plan_acc"] == pytest.approx(1.0)
    assert gated["stop_gate"]["greedy_plan_acc"] == greedy["plan_acc"]
    assert gated["stop_gate"]["changed"] == greedy["plans"]["call"]["finish"] > 0
    assert gated["act_em"] is None and gated["rouge_l"] is None  # roles not asked
    assert rescore_run(tmp_path)["plan_acc"] == gated["plan_acc"]  # the config's threshold
    sweep = sg.threshold_sweep(stepwise.gate_steps(records))
    assert sweep["best"]["plan_acc"] == 1.0


def test_stepwise_cli_records_a_missing_score_and_keeps_greedy(tmp_path, capsys):
    # the bare scripted engine cannot score continuations: each step records why, none is lost
    out = tmp_path / "sw"
    argv = ["eval", "stepwise", "--engine", "scripted", "--limit", "3", "--roles", "planner",
            "--stop-threshold", "-1", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    records = [json.loads(line) for line in (out / "predictions.jsonl").open()]
    assert len(records) == 3 and all(r["conclusion_logprob"] is None for r in records)
    assert all(r["conclusion_error"] for r in records)
    scores = json.loads((out / "scores.json").read_text())["scores"]
    assert scores["stop_gate"]["unscored"] == 3 and scores["stop_gate"]["changed"] == 0
    assert "stop gate at -1.0" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="teleport"):
        main([*argv[:-4], "--roles", "planner,teleport", "--out", str(tmp_path / "x")])


def test_dev_trajectories_leave_out_trained_queries_and_are_seeded():
    pool = read_trajectories(DEMO_TRAJECTORIES)
    trained = {t.instruction for t in pool[:10]}
    picked, counts = dev_trajectories(pool, trained, n=4, seed=1)
    assert len(picked) == 4 and not {t.instruction for t in picked} & trained
    assert counts == {
        "pool_trajectories": 16,
        "left_out": 10,
        "picked": 4,
        "steps": sum(m.role == "assistant" for t in picked for m in t.conversations),
    }
    assert [t.id for t in dev_trajectories(pool, trained, 4, 1)[0]] == [t.id for t in picked]
    assert len(dev_trajectories(pool, trained, n=50)[0]) == 6  # no more than are left


def test_multi_role_agent_calls_where_the_gate_finds_the_planner_unsure():
    env = math_env()
    # the planner concludes at once (thought, then its choice), then again after the call;
    # its conclusion score is low before any observation and high after one
    planner = ScriptedEngine(
        [umi.CONCLUSION_THOUGHT, "conclusion", umi.CONCLUSION_THOUGHT, "conclusion"],
        logprobs=lambda p, c: -0.01 if "Observation" in p[0].content else -3.0,
    )
    caller = ScriptedEngine(['Action: add\nAction Input: {"a": 1, "b": 2}'])
    agent = MultiRoleAgent(planner, caller, ScriptedEngine(["3"]), env, constrained_plan=True,
                           stop_threshold=-1.0)  # fmt: skip
    trace = agent.run("1+2?", [ADD])
    decisions = [s for s in trace.steps if s.kind == "decision"]
    assert [d.content for d in decisions] == ["caller", "conclusion"]
    assert decisions[0].detail == "stop gate: the planner chose conclusion"
    assert decisions[0].data["stop_gate"]["conclusion_logprob"] == -3.0
    assert trace.answer == "3" and trace.meta["stop_threshold"] == -1.0
    # without a gate the same planner concludes before calling anything
    planner = ScriptedEngine([umi.CONCLUSION_THOUGHT, "conclusion"])
    trace = MultiRoleAgent(planner, caller, ScriptedEngine(["?"]), env,
                           constrained_plan=True).run("1+2?", [ADD])  # fmt: skip
    assert not trace.calls and trace.meta["outcome"] == "concluded"
