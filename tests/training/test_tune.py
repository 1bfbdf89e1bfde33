"""`toollearn tune` end to end on a tool file written here (not from any dataset), and the
held-out call-list scoring it reports."""

from __future__ import annotations

import json

import pytest

from toollearn.cli.tune import choose
from toollearn.evaluation.tool_calls import score_turn, summarize

TARGET = '[{"name": "set_alarm", "arguments": {"time": "07:00", "days": ["mon", "tue"]}}]'


def test_turn_scoring_counts_decisions_calls_and_typed_arguments():
    exact = score_turn(TARGET, TARGET)
    assert exact["exact"] == 1 and exact["args_correct"] == 2
    wrong_arg = score_turn(TARGET.replace("07:00", "7:00"), TARGET)
    assert wrong_arg["exact"] == 0 and wrong_arg["tools_correct"] == 1
    assert wrong_arg["args_correct"] == 1
    declined = score_turn("[]\nI cannot do that.", TARGET)
    assert declined["decision"] == 0 and declined["tools_pred"] == 0
    assert score_turn("[]\nNo.", "[]\nSorry, no tool for that.")["exact"] == 1
    garbage = score_turn('[{"name": ', TARGET)
    assert garbage["format_ok"] == 0 and garbage["exact"] == 0
    s = summarize([exact, wrong_arg, declined, garbage])
    assert s["n"] == 4 and s["exact"] == 25.0 and s["format"] == 75.0
    assert s["tool_f1"] == round(100 * 2 * (2 / 2) * (2 / 4) / (1 + 2 / 4), 1)


TOOLS = [
    {"type": "function", "function": {
        "name": "set_alarm", "description": "Set an alarm at a time on some days",
        "parameters": {"type": "object", "properties": {
            "time": {"type": "string", "description": "HH:MM, 24-hour clock"},
            "label": {"type": "string", "description": "what the alarm is for"}},
            "required": ["time"]}}},
    {"type": "function", "function": {
        "name": "play_music", "description": "Play music by an artist or of a genre",
        "parameters": {"type": "object", "properties": {
            "artist": {"type": "string"},
            "genre": {"type": "string", "enum": ["jazz", "rock", "classical", "pop"]},
            "volume": {"type": "integer", "description": "0 to 10"}}, "required": []}}},
    {"type": "function", "function": {
        "name": "add_grocery", "description": "Add an item to the grocery list",
        "parameters": {"type": "object", "properties": {
            "item": {"type": "string"}, "quantity": {"type": "integer"}},
            "required": ["item"]}}},
]  # fmt: skip


@pytest.mark.model
@pytest.mark.slow
def test_tune_generates_trains_within_budget_exports_and_evaluates(tmp_path, capsys):
    pytest.importorskip("trl")
    from toollearn.cli.main import main

    tools = tmp_path / "my_tools.json"
    tools.write_text(json.dumps(TOOLS))
    out = tmp_path / "my-model"
    assert main(["tune", "--tools", str(tools), "--out", str(out), "-n", "60", "--test", "8",
                 "--valid", "6", "--minutes", "0.5", "--threads", "2"]) == 0  # fmt: skip
    report = json.loads((out / "eval.json").read_text())
    # it continued the shipped general adapter and is scored against it, on validation turns
    # (which choose the model to serve) and on test turns
    assert set(report["scores"]) == set(report["valid_scores"]) == {"tuned", "yours"}
    assert report["test_turns"] > 0 and report["valid_turns"] > 0
    assert report["chosen"] == choose(report["valid_scores"], "tuned")
    from toollearn.engines.provenance import sha256_file
    from toollearn.models import tuned_adapter

    info = json.loads((out / "train" / "train.json").read_text())
    assert info["init_adapter"]["sha256"] == sha256_file(tuned_adapter())
    assert (info["config"]["lora_r"], info["config"]["learning_rate"]) == (32, 2e-4)
    for s in report["scores"].values():
        assert 0 <= s["exact"] <= 100 and s["n"] == report["test_turns"]
    assert info["stopped_by_time_budget"] or info["steps"] == info["planned_steps"]
    assert info["wall_seconds"] < 240  # the budget held (model loading included)
    assert 0 < info["training_seconds_all_resumes"] <= 0.5 * 60 + 30  # the budget's ledger

    def queries(part: str) -> set[str]:
        return {json.loads(line)["metadata"]["query"]
                for line in (out / f"data-{part}" / "data.jsonl").open()}  # fmt: skip

    test_queries = set((out / "test_queries.txt").read_text().splitlines())
    assert test_queries == queries("test") - {""}
    train, valid = queries("train"), queries("valid")
    assert test_queries and valid and not (test_queries | valid) & train  # held out
    assert not test_queries & valid
    assert (out / "adapter.gguf").stat().st_size > 1000
    printed = capsys.readouterr().out
    assert "toollearn serve --adapter" in printed and "chosen on the" in printed
    # the adapter's record says how to prompt it: served and called with compact listings
    from toollearn.engines import load_engine
    from toollearn.models import spec_docs

    assert spec_docs(f"llama@{out / 'adapter.gguf'}") == "compact"
    assert load_engine(f"llama@{out / 'adapter.gguf'}", n_threads=2).prompt_docs == "compact"
    assert spec_docs("base") == spec_docs("tuned-papers") == "json"  # the papers' adapter
    assert spec_docs("tuned") == "compact"  # the shipped general adapter


@pytest.mark.parametrize(
    "name",
    ["tune-travel-clean", "tune-travel-general", "tune-travel-more", "tune-travel-gpu",
     "tune-travel-valid"],
)  # fmt: skip
def test_the_committed_tune_run_rescores_to_its_eval_json(name):
    from pathlib import Path

    from toollearn.cli.tune import exact_difference

    run = Path(__file__).parents[2] / "results" / name
    report = json.loads((run / "eval.json").read_text())
    for tail, key in (("", "scores"), ("-valid", "valid_scores")):
        exact = {}
        for name, stored in report.get(key, {}).items():
            rows = [json.loads(line) for line in (run / f"eval-{name}{tail}.jsonl").open()]
            assert summarize(rows) == stored
            exact[name] = [r["exact"] for r in rows]
        if tail and exact:  # the choice and its interval follow from the validation turns
            assert report["chosen"] == choose(report["valid_scores"], report["started_from"])
            assert report["valid_difference"] == exact_difference(exact, report["started_from"])


def test_the_advice_warns_where_yours_scores_below_the_start():
    from pathlib import Path

    from toollearn.cli.tune import advice

    run = Path(__file__).parents[2] / "results"
    worse = json.loads((run / "tune-travel-gpu" / "eval.json").read_text())  # 61.1 -> 54.9
    text = advice(worse)
    assert "note: yours answers fewer held-out turns exactly than tuned (54.9 against 61.1)" in text
    assert "toollearn serve --adapter" in text
    better = json.loads((run / "tune-travel-more" / "eval.json").read_text())  # 36.3 -> 50.4
    assert "note:" not in advice(better) and "toollearn serve --adapter" in advice(better)
    # chosen on the validation turns (+7.3, an interval reaching 0): served, with a note
    chosen = advice(json.loads((run / "tune-travel-valid" / "eval.json").read_text()))
    assert "note: on 55 validation turns yours and tuned differ within chance" in chosen
    assert "serve it: toollearn serve --adapter" in chosen


def test_the_validation_turns_choose_yours_only_where_it_scores_higher():
    from toollearn.cli.tune import advice

    def scores(exact: float, tool_f1: float) -> dict[str, float]:
        return {"exact": exact, "tool_f1": tool_f1, "arg_f1": 50.0}

    assert choose({}, "tuned") == "yours"  # --valid 0: no choice
    assert choose({"tuned": scores(60, 90), "yours": scores(62, 80)}, "tuned") == "yours"
    assert choose({"tuned": scores(60, 90), "yours": scores(60, 91)}, "tuned") == "yours"
    assert choose({"tuned": scores(60, 90), "yours": scores(60, 90)}, "tuned") == "tuned"
    report = {"started_from": "tuned", "adapter": "my-model/adapter.gguf", "tools": "t.json",
              "valid_scores": {"tuned": scores(60, 90), "yours": scores(50, 80)},
              "scores": {"tuned": scores(61, 90), "yours": scores(55, 81)},
              "chosen": "tuned"}  # fmt: skip
    text = advice(report)
    assert "fewer validation turns exactly than tuned (50.0 against 60.0)" in text
    # the start is the one to serve; yours follows as the alternative
    assert text.index("serve it: toollearn serve\n") < text.index("serve --adapter my-model")
    assert "note:" not in advice({**report, "chosen": "yours"})
    base = advice({**report, "started_from": "base", "chosen": "base",
                   "valid_scores": {"base": scores(60, 90), "yours": scores(50, 80)}})  # fmt: skip
    assert "serve it: toollearn serve --engine base" in base


def test_the_validation_difference_has_a_paired_interval():
    from toollearn.cli.tune import exact_difference

    same = exact_difference({"tuned": [1, 0] * 20, "yours": [1, 0] * 20}, "tuned")
    assert same == {"delta": 0.0, "low": 0.0, "high": 0.0}
    # 4 turns of 40 more: +10 points, an interval around it that reaches 0 (within chance)
    d = exact_difference({"tuned": [0] * 40, "yours": [1] * 4 + [0] * 36}, "tuned")
    assert d["delta"] == 10.0 and 0.0 <= d["low"] < 10.0 < d["high"] <= 25.0
    assert exact_difference({"tuned": [1]}, "tuned") is None  # no validation turns


def test_a_rerun_reads_back_finished_evaluations_of_the_same_turns(tmp_path):
    from types import SimpleNamespace

    from toollearn.cli.tune import _reused

    rows = [SimpleNamespace(metadata={"query": q}) for q in ("a", "b")]
    path = tmp_path / "eval-yours.jsonl"
    assert _reused(path, rows) is None  # not evaluated yet
    path.write_text("".join(json.dumps({"query": q, "exact": 1}) + "\n" for q in ("a", "b")))
    assert [r["query"] for r in _reused(path, rows)] == ["a", "b"]
    path.write_text(json.dumps({"query": "a", "exact": 1}) + "\n")  # stopped half-way
    assert _reused(path, rows) is None


def test_a_rerun_keeps_the_time_of_phases_it_reuses(tmp_path):
    from toollearn.cli.tune import _finished, _Timings

    t = _Timings(tmp_path / "timings.json")
    with t.phase("data"):
        pass
    t.set("training", 850.46)
    again = _Timings(tmp_path / "timings.json")  # a second invocation reusing both phases
    with again.phase("data", reused=True):
        pass
    assert again.seconds["data"] is not None and again.summary()["training"] == 850.5
    fresh = _Timings(tmp_path / "other.json")
    with fresh.phase("data", reused=True):  # made before timings were kept
        pass
    assert fresh.summary() == {"data": None, "total": 0.0}

    run = tmp_path / "train"
    assert not _finished(run)
    (run / "adapter").mkdir(parents=True)
    (run / "train.json").write_text(json.dumps({"steps": 20, "planned_steps": 48}))
    assert not _finished(run)  # killed before its last step
    (run / "train.json").write_text(json.dumps({"steps": 20, "planned_steps": 48,
                                                "stopped_by_time_budget": True}))  # fmt: skip
    assert _finished(run)
