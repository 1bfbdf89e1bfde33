"""`toollearn score` end to end: a tiny data root built in tmp_path, and the real data."""

from __future__ import annotations

import json

import pytest

from toollearn.cli.main import main
from toollearn.core.types import Message, Tool
from toollearn.formats.answers.seal_tools import render_prompt

TOOL = {
    "api_name": "getWeather",
    "api_description": "Weather of a city",
    "field": "Meteorology/Forecast",
    "parameters": {"city": {"type": "str", "description": "City (e.g., Paris)"}},
    "required": ["city"],
    "responses": {"forecast": {"type": "str", "description": "The forecast"}},
}
TARGETS = {
    "dev-easy-0": "[{'api': 'getWeather', 'parameters': {'city': 'Paris'}, "
    "'responses': ['API_call_0']}]",
    "dev-difficult-1": "[{'api': 'getWeather', 'parameters': {'city': \"Saint-Martin's\"}, "
    "'responses': ['API_call_0']}, {'api': 'getWeather', 'parameters': {'city': 'API_call_0'}, "
    "'responses': ['API_call_1']}]",
}


@pytest.fixture()
def seal_root(tmp_path):
    folder = tmp_path / "seal-tools" / "dataset_for_finetune"
    folder.mkdir(parents=True)
    records = [
        {
            "id": rid,
            "conversations": [
                {"from": "human", "value": render_prompt(f"Weather {i}", [TOOL])},
                {"from": "gpt", "value": target},
            ],
        }
        for i, (rid, target) in enumerate(TARGETS.items())
    ]
    (folder / "dev.json").write_text(json.dumps(records))
    return tmp_path


def _preds(tmp_path, records, name="preds.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def _score(capsys, *argv):
    rc = main(["score", *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_score_official_and_strict_json(seal_root, tmp_path, capsys):
    preds = _preds(tmp_path, [{"id": k, "output": v} for k, v in TARGETS.items()])
    base = ["--dataset", "seal-tools-prompts/dev", "--data-root", str(seal_root)]
    rc, out, _ = _score(capsys, *base, "--predictions", preds, "--metric", "official", "--json")
    assert rc == 0
    groups = json.loads(out)["groups"]
    assert groups["all"]["format_acc"] == 0.5  # the apostrophe breaks the authors' parser
    assert groups["nested"]["n"] == 1 and groups["easy"]["format_acc"] == 1.0
    rc, out, _ = _score(capsys, *base, "--predictions", preds, "--metric", "strict")
    assert rc == 0
    assert "Seal-Tools (strict)" in out and "Error analysis" in out
    all_row = next(line for line in out.splitlines() if line.startswith("all"))
    assert all_row.split()[1:] == ["2"] + ["100.00"] * 8


def test_score_missing_ids_are_empty_and_extra_ids_fail(seal_root, tmp_path, capsys):
    base = ["--dataset", "seal-tools-prompts/dev", "--data-root", str(seal_root)]
    one = _preds(tmp_path, [{"id": "dev-easy-0", "output": TARGETS["dev-easy-0"]}])
    rc, out, err = _score(capsys, *base, "--predictions", one, "--metric", "strict", "--json")
    assert rc == 0 and "1 examples had no prediction" in err
    assert json.loads(out)["groups"]["all"]["format_acc"] == 0.5
    extra = _preds(tmp_path, [{"id": "nope", "output": ""}], "extra.jsonl")
    rc, _, err = _score(capsys, *base, "--predictions", extra, "--metric", "strict")
    assert rc == 1 and "not in the dataset" in err
    dup = _preds(tmp_path, [{"id": "dev-easy-0"}, {"id": "dev-easy-0"}], "dup.jsonl")
    rc, _, err = _score(capsys, *base, "--predictions", dup, "--metric", "official")
    assert rc == 1 and "dup.jsonl:2" in err


def test_score_stepwise_trajectories(tmp_path, capsys):
    traj = {
        "id": "t0",
        "tools": [{"Name": "search", "function": "Search", "input": {"q": "string, query"}}],
        "instruction": "Find cats",
        "conversations": [
            {"from": "user", "value": "Find cats"},
            {"from": "assistant", "value": "I will search. Next: caller."},
            {"from": "caller", "value": 'Action: search\nAction Input: {"q": "cats"}'},
            {"from": "observation", "value": "cats found"},
            {"from": "assistant", "value": "Done. Next: conclusion."},
            {"from": "conclusion", "value": "Here are the cats"},
        ],
    }
    data = tmp_path / "traj.json"
    data.write_text(json.dumps([traj]))
    preds = _preds(
        tmp_path,
        [
            {
                "id": "t0:1",
                "output": "Search. Next: caller.",
                "caller": 'Action: search\nAction Input: {"q": "dogs"}',
            },
            {"id": "t0:4", "output": "Next: conclusion.", "summarizer": "Here are the cats"},
        ],
    )
    argv = ["--dataset", str(data), "--predictions", preds, "--metric", "stepwise", "--json"]
    rc, out, _ = _score(capsys, *argv)
    scores = json.loads(out)["scores"]
    assert rc == 0 and scores["plan_acc"] == 1.0 and scores["act_em"] == 1.0
    assert scores["arg_f1"] == 0.5 and scores["rouge_l"] == pytest.approx(1.0)
    assert scores["hallucination"] == 0.0


def test_step_targets_skip_unreadable_gold_turns():
    from toollearn.data.trajectories import Trajectory
    from toollearn.evaluation.metrics.stepwise_io import step_targets

    turns = (
        Message("assistant", "x Next: caller."),
        Message("assistant", "no decision"),
        Message("assistant", "y Next: give up."),
    )
    steps, skipped = step_targets(Trajectory("q", (Tool("search"),), turns, id="t"))
    assert [sid for sid, _ in steps] == ["t:2"] and steps[0][1].action == "give_up"
    assert len(skipped) == 2 and "no caller turn follows" in skipped[0]


@pytest.mark.shared
def test_score_real_gold_targets(shared_data, tmp_path, capsys):
    from toollearn.data.registry import load_examples

    spec = "seal-tools-prompts/test_in_domain"
    examples = load_examples(spec, shared_data)
    recs = [{"id": ex.id, "output": ex.metadata["target"]} for ex in examples]
    preds = _preds(tmp_path, recs)
    base = ["--dataset", spec, "--data-root", str(shared_data), "--predictions", preds]
    _, out, _ = _score(capsys, *base, "--metric", "official", "--json")
    official = json.loads(out)["groups"]["all"]
    assert round(official["format_acc"] * 100, 2) == 99.57
    assert round(official["param_p"], 4) == 0.9994
    _, out, _ = _score(capsys, *base, "--metric", "strict", "--json")
    assert json.loads(out)["groups"]["all"]["param_f1"] == 1.0


@pytest.mark.shared
@pytest.mark.parametrize("split", ["valid", "test"])
def test_score_deer_gold_targets(shared_data, tmp_path, capsys, split):
    from toollearn.data.registry import load_examples

    spec = f"tooldeer/{split}"
    recs = [
        {"id": ex.id, "output": ex.metadata["target"]} for ex in load_examples(spec, shared_data)
    ]
    preds = _preds(tmp_path, recs)
    argv = ["--dataset", spec, "--data-root", str(shared_data), "--predictions", preds]
    rc, out, _ = _score(capsys, *argv, "--metric", "deer", "--json")
    scores = json.loads(out)["scores"]
    assert rc == 0 and scores["P_DC"] == 1.0 and scores["Call_strict"] == 1.0
    assert scores["P_DS"] == 1.0


def test_step_output_styles():
    from toollearn.evaluation.metrics.stepwise_io import step_output

    react = step_output({"output": 'Thought\nAction: search\nAction Input: {"q": 1}'}, "react")
    assert (react.action, react.api, react.arguments) == ("call", "search", {"q": 1})
    finish = 'Action: Finish\nAction Input: {"return_type": "give_answer", "final_answer": "ok"}'
    assert step_output({"output": finish}, "react").answer == "ok"
    assert step_output({"output": "rambling"}, "react").action is None
    roles = step_output({"output": "hmm Next: give up.", "caller": "no action"})
    assert (roles.action, roles.api) == ("give_up", None)
    assert step_output({}).action is None
    stored = {"pred": {"action": "call", "api": "a", "arguments": {}, "answer": None}}
    assert step_output(stored).api == "a"
