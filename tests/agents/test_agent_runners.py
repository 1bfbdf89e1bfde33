"""DEER and stepwise runners with scripted engines: scoring, resuming, CLI wiring."""

from __future__ import annotations

import json

import pytest

from toollearn.agents.decision import DecisionAgent
from toollearn.agents.oracle import DEMO_TRAJECTORIES, Oracle, build_trajectories
from toollearn.cli.main import main
from toollearn.data.trajectories import read_trajectories
from toollearn.engines import ScriptedEngine
from toollearn.envs.demo import DEMO_TASKS
from toollearn.evaluation.runners import deer, stepwise
from toollearn.evaluation.runners.base import RunWriter
from toollearn.formats.answers import umi


def test_shipped_demo_trajectories_are_reproducible():
    shipped = read_trajectories(DEMO_TRAJECTORIES)
    rebuilt = build_trajectories()
    assert len(shipped) == len(DEMO_TASKS) == 16
    assert [t.conversations for t in shipped] == [t.conversations for t in rebuilt]
    calls = sum(m.role == "caller" for t in shipped for m in t.conversations)
    assert calls >= 20 and sum(t.metadata["outcome"] == "give_up" for t in shipped) == 2


def _no_call_engine(prompt):
    text = prompt[0].content
    return "Yes" if "need a tool?" in text else "None"


def test_deer_runner_scores_and_resumes(tmp_path):
    examples = deer.load_deer("test", sample=True)[:6]
    agent = DecisionAgent(ScriptedEngine(_no_call_engine), answer=False)
    writer = RunWriter(tmp_path, {"t": 1})
    records = deer.run_deer(agent, examples, writer)
    scores = deer.score_records(records, examples)
    n_nocall = sum(ex.has_suitable_tool is False for ex in examples)
    assert scores["P_Search"] == 1.0 and scores["P_Call"] in (0.0, None)
    assert scores["P_NoCall"] == (1.0 if n_nocall else None)
    assert records[0]["output"].startswith("#Begin#") and records[0]["trace"]["steps"]
    silent = DecisionAgent(ScriptedEngine([]), answer=False)  # would fail if asked anything
    assert len(deer.run_deer(silent, examples, writer)) == len(examples)


def test_deer_cli_survives_engine_errors(tmp_path, capsys):
    out = tmp_path / "run"
    rc = main(
        ["eval", "deer", "--sample", "--engine", "scripted", "--limit", "3", "--out", str(out)]
    )
    assert rc == 0
    scores = json.loads((out / "scores.json").read_text())
    assert scores["scores"]["errors"]["engine_error"] >= 3 and scores["n_records"] == 3
    assert "paper: ToolDEER-13B" in capsys.readouterr().out


def _oracle_roles():
    oracles = {t.query: Oracle(t) for t in DEMO_TASKS}

    def route(role):
        def answer(prompt):
            text = prompt[0].content
            task = next(o for q, o in oracles.items() if f"User: {q}\n" in text + "\n")
            return getattr(task, role)._fn(prompt)

        return ScriptedEngine(answer)

    return {r: route(r) for r in ("planner", "caller", "summarizer")}


def test_stepwise_oracle_scores_perfectly(tmp_path):
    cases, skipped = stepwise.step_cases(read_trajectories(DEMO_TRAJECTORIES))
    assert skipped == 0 and {c.target.action for c in cases} == {"call", "finish", "give_up"}
    writer = RunWriter(tmp_path, {"t": 1})
    records = stepwise.run_stepwise(cases, _oracle_roles(), "multi-role", writer)
    scores = stepwise.score_records(records)
    assert scores["steps"] == len(cases)
    for key in ("plan_acc", "act_em", "arg_f1", "rouge_l"):
        assert scores[key] == pytest.approx(1.0), key
    assert scores["hallucination"] == 0.0


def test_stepwise_single_mode_and_garbage(tmp_path):
    cases, _ = stepwise.step_cases(read_trajectories(DEMO_TRAJECTORIES))
    cases = cases[:5]
    garbage = ScriptedEngine(lambda p: "Action: teleport\nAction Input: {}")
    roles = dict.fromkeys(("planner", "caller", "summarizer"), garbage)
    records = stepwise.run_stepwise(cases, roles, "single", RunWriter(tmp_path, {}))
    scores = stepwise.score_records(records)
    assert scores["hallucination"] == 1.0 and scores["act_em"] == 0.0
    assert umi.single_history(cases[2].history)[1].content.startswith("Thought: First add")
    assert all(r["texts"]["single"].startswith("Thought: ") for r in records)  # constrained


def test_stepwise_cli_on_demo_file(tmp_path, capsys):
    out = tmp_path / "sw"
    rc = main(["eval", "stepwise", "--engine", "scripted", "--limit", "4", "--out", str(out)])
    assert rc == 0
    payload = json.loads((out / "scores.json").read_text())
    assert payload["scores"]["steps"] == 4 and payload["config"]["mode"] == "multi-role"
    assert "paper (ToolBench)" in capsys.readouterr().out


@pytest.mark.parametrize("agent", ["tool-calls", "multi-role", "react", "deer", "multi-call"])
def test_run_cli_prints_a_trace(agent, capsys):
    # the bare scripted engine has no answers: every agent records an engine error and ends
    argv = ["run", "What is 2 + 2?", "--engine", "scripted", "--agent", agent, "--preset", "plain"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("query: What is 2 + 2?") and "engine_error" in out and "outcome:" in out
    assert main(["run", "x", "--engine", "scripted", "--only", "add,nope"]) == 2


def test_run_cli_takes_its_policy_from_the_preset(capsys):
    """The real planner and gate (the embedded MiniLM) before a scripted engine."""
    from toollearn.policy import preset

    argv = ["run", "Convert 25 Celsius to Fahrenheit, then divide 10 by 2.", "--engine",
            "scripted", "--only", "convert_temperature,divide", "--json"]  # fmt: skip
    for name in ("default", "plain", "agent"):
        policy = preset(name)
        assert main([*argv, "--preset", name]) == 0
        trace = json.loads(capsys.readouterr().out)
        roles = [s["role"] for s in trace["steps"]]
        assert ("gate" in roles) == policy.call_gate
        assert ("planner" in roles) == bool(policy.plan)
        assert trace["meta"].get("plan") == policy.plan
        assert ("sure_call_threshold" in trace["meta"]) == policy.sure_call
        if policy.plan:
            plan = next(s for s in trace["steps"] if s["role"] == "planner")
            assert plan["data"]["plan"] == ["convert_temperature", "divide"]
            assert trace["meta"]["distinct_margin"] == 0.06  # the planner's defaults


def test_run_cli_the_gate_is_sure_of_a_fitting_tool(capsys):
    """The shipped gate (the real MiniLM) before a scripted engine: sure of the converter."""
    argv = ["run", "Convert 25 Celsius to Fahrenheit.", "--engine", "scripted",
            "--only", "convert_temperature,divide", "--json"]  # fmt: skip
    assert main(argv) == 0
    gate = json.loads(capsys.readouterr().out)["steps"][0]
    assert (gate["role"], gate["content"]) == ("gate", "sure call")
    assert "sure_call_threshold" in gate["data"]


def test_run_uses_the_presets_model_for_the_general_agent_only():
    from toollearn.cli.run import default_engine
    from toollearn.policy import preset

    assert default_engine("tool-calls") == preset().engine == "tuned"  # call, run, serve alike
    assert default_engine("tool-calls", "agent") == "tuned-agent"
    assert default_engine("multi-role") == "tuned-umi"  # alpha-UMi's role adapters
    assert default_engine("deer") == "tuned-deer"  # DEER's own adapter
    for agent in ("react", "multi-call"):
        assert default_engine(agent) == "tuned-papers"  # the papers' formats in one


def test_deer_cli_names_a_gate_tool_without_a_similarity_gate(tmp_path, capsys):
    out = tmp_path / "run"
    base = ["eval", "deer", "--sample", "--engine", "scripted", "--limit", "1", "--out", str(out)]
    assert main([*base, "--gate-tool"]) != 0
    assert "--gate-tool needs --call-threshold" in capsys.readouterr().err
    assert main([*base, "--gate-tool", "--call-threshold", "0"]) != 0
    assert "needs a similarity gate" in capsys.readouterr().err
    assert not out.exists()  # nothing was run or written


def _gold_agent(traj) -> dict:
    """Scripted roles that replay a trajectory's gold calls, whatever the tools answer."""
    from toollearn.agents.oracle import observations

    calls = [m.content for m in traj.conversations if m.role == "caller"]

    def plan(prompt) -> str:
        return (
            "Go on. Next: caller."
            if len(observations(prompt)) < len(calls)
            else "Done. Next: conclusion."
        )

    return {"planner": ScriptedEngine(plan),
            "caller": ScriptedEngine(lambda p: calls[len(observations(p))]),
            "summarizer": ScriptedEngine(lambda p: "All done.")}  # fmt: skip


def test_episodes_score_a_gold_replay_and_an_early_stop(tmp_path):
    from toollearn.evaluation.runners import episodes

    trajs = read_trajectories(DEMO_TRAJECTORIES)[:6]
    opts = episodes.EpisodeOptions(constrained=False)
    records = []
    for traj in trajs:
        trace = episodes.run_episode(traj, _gold_agent(traj), opts)
        records.append({"id": traj.id, "gold": episodes.gold_episode(traj), "trace": trace})
    scores = episodes.score_records(records)
    assert scores["success"] == 1.0 and scores["outcomes"] == {"concluded": 6}
    assert all("prompt" not in s for r in records for s in r["trace"]["steps"])

    stop = ScriptedEngine(lambda p: "Nothing to do. Next: conclusion.")
    roles = {"planner": stop, "caller": stop, "summarizer": ScriptedEngine(lambda p: "Hm.")}
    records = episodes.run_episodes(trajs, roles, RunWriter(tmp_path, {}), opts)
    scores = episodes.score_records(records)
    gold_calls = sum(len(episodes.gold_episode(t)["calls"]) for t in trajs)
    assert scores["success"] == 0.0 and scores["ended_right"] == 1.0
    assert scores["counts"]["concluded_too_early"] == 6 and scores["counts"]["calls_made"] == 0
    assert scores["counts"]["gold_calls"] == gold_calls == 12


def _gold_general_agent(traj) -> ScriptedEngine:
    """A scripted general agent: the trajectory's gold calls one a turn, then a reply."""
    calls = [umi.parse_action(m.content) for m in traj.conversations if m.role == "caller"]

    def turn(messages) -> str:
        done = sum(m.role == "tool" for m in messages)
        if done < len(calls):
            return json.dumps([{"name": calls[done].name, "arguments": calls[done].arguments}])
        return "[]\nAll done."

    return ScriptedEngine(turn)


def test_episodes_general_agent_replays_gold_and_cannot_give_up(tmp_path):
    from toollearn.evaluation.runners import episodes

    trajs = read_trajectories(DEMO_TRAJECTORIES)
    opts = episodes.EpisodeOptions(constrained=False, agent="tool-calls", call_gate=False)
    records = []
    for traj in trajs:
        agent = episodes.tool_calls_agent(_gold_general_agent(traj), opts)
        trace = episodes.run_episode(traj, {}, opts, agent)
        records.append({"id": traj.id, "gold": episodes.gold_episode(traj), "trace": trace})
    scores = episodes.score_records(records)
    # the two gold give-ups end with a reply after the gold calls: right for this agent
    assert sum(r["gold"]["give_up"] for r in records) == 2
    assert scores["success"] == 1.0 and scores["outcomes"] == {"answered": 16}
    assert {r["trace"]["meta"]["agent"] for r in records} == {"tool-calls"}

    with pytest.raises(ValueError, match="unknown agent"):
        episodes.EpisodeOptions(agent="planner")
    silent = {"agent": ScriptedEngine(lambda m: "[]\nNo.")}
    records = episodes.run_episodes(trajs[:3], silent, RunWriter(tmp_path, {}), opts)
    scores = episodes.score_records(records)
    assert scores["success"] == 0.0 and scores["outcomes"] == {"no_call": 3}


def test_episodes_cli_general_agent_options(tmp_path, capsys):
    out = tmp_path / "ep"
    argv = ["eval", "episodes", "--agent", "tool-calls", "--engine", "scripted", "--no-gates",
            "--limit", "2", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    config = json.loads((out / "scores.json").read_text())["config"]
    assert config["agent"] == "tool-calls" and config["call_gate"] is False
    assert "sure_call" not in config  # no gate, no sure call
    assert "ask_again_on_repeat" not in config  # recorded only when on
    assert config["engines"] == {"agent": "scripted"}
    assert "tool-calls: scripted" in capsys.readouterr().out
    again = tmp_path / "again"
    assert main([*argv[:-1], str(again), "--ask-again-on-repeat"]) == 0
    assert json.loads((again / "config.json").read_text())["ask_again_on_repeat"] is True
    planned = tmp_path / "planned"
    assert main([*argv[:-1], str(planned), "--plan", "due"]) == 0
    records = [json.loads(line) for line in (planned / "predictions.jsonl").open()]
    assert json.loads((planned / "config.json").read_text())["plan"] == "due"
    assert all(r["trace"]["steps"][0]["role"] == "planner" for r in records)
    assert {r["trace"]["meta"]["plan"] for r in records} == {"due"}
    config = json.loads((planned / "config.json").read_text())
    assert (config["plan_margin"], config["plan_unfit_gap"]) == (0.06, 0.15)
    plain = tmp_path / "plain"  # both off: recorded as the runs made before them were
    off = ["--plan-margin", "-1", "--plan-unfit-gap", "-1"]
    assert main([*argv[:-1], str(plain), "--plan", "due", *off]) == 0
    config = json.loads((plain / "config.json").read_text())
    assert "plan_margin" not in config and "plan_unfit_gap" not in config
    with pytest.raises(SystemExit, match="--plan-unfit-gap are for a run with a plan"):
        main([*argv[:-1], str(tmp_path / "y"), "--plan-margin", "0.1"])
    with pytest.raises(SystemExit, match="--agent tool-calls runs --engine alone"):
        main([*argv[:-2], "--planner", "scripted", "--out", str(tmp_path / "x")])
    for flags in (["--no-gates"], ["--no-sure-call"], ["--ask-again-on-repeat"], ["--plan", "due"]):
        with pytest.raises(SystemExit, match="--plan are for --agent tool-calls"):
            main(["eval", "episodes", "--engine", "scripted", *flags, "--out", str(tmp_path)])


def test_episodes_cli_records_engine_failures_and_rescores(tmp_path, capsys):
    from toollearn.evaluation.rescore import compare

    out = tmp_path / "ep"
    argv = ["eval", "episodes", "--engine", "scripted", "--limit", "2", "--out", str(out)]
    assert main(argv) == 0
    payload = json.loads((out / "scores.json").read_text())
    assert payload["scores"]["episodes"] == 2 and payload["scores"]["success"] == 0.0
    assert payload["config"]["benchmark"] == "episodes" and payload["config"]["max_steps"] == 8
    assert "tools_right" in capsys.readouterr().out
    assert compare(out) == []
