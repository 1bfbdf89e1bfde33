"""An apps dev set: goals from the dev templates, none a training, demo or test goal."""

from __future__ import annotations

import json

import pytest

from toollearn.apps.datasets import app_class, load_demos, load_goals, load_tests
from toollearn.apps.program import run_program
from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.datagen.apps import dev_goals, generate_apps, training_goals
from toollearn.datagen.leakage import QueryIndex


@pytest.mark.parametrize("app", ["home-search", "trip-booking"])
def test_dev_goals_stay_clear_of_training_demo_and_test_goals(app, tmp_path) -> None:
    data = tmp_path / "data.jsonl"
    train = generate_apps(app, n=40, seed=3, allshot=0.5)
    data.write_text("".join(json.dumps({"metadata": s.metadata}) + "\n" for s in train.samples))
    trained = training_goals(data)
    assert len(trained) >= 40
    gen = dev_goals(app, per_template=6, seed=1, trained=trained)
    records = gen.config["records"]
    goals = [r["goal"] for r in records]
    tests = QueryIndex([t.query for t in load_tests(app)])
    assert len(goals) == len(set(goals)) >= 80
    assert not set(goals) & (set(trained) | {d.query for d in load_demos(app)})
    assert not any(tests.match(g) for g in goals)
    assert {r["source"] for r in records} == {"dev"} and len(goals) == 6 * 16
    cls = app_class(app)
    assert all(run_program(r["program"], cls).criteria == r["criteria"] for r in records)
    again = dev_goals(app, per_template=6, seed=1, trained=trained).config["records"]
    assert again == records  # deterministic in the seed
    with pytest.raises(DataError, match="test templates"):
        dev_goals(app, sources=("train", "test"))


def test_the_cli_writes_goals_eval_reads_and_stats(tmp_path) -> None:
    data = tmp_path / "data.jsonl"
    train = generate_apps("home-search", n=10, seed=0)
    data.write_text("".join(json.dumps({"metadata": s.metadata}) + "\n" for s in train.samples))
    out = tmp_path / "dev"
    args = ["datagen", "apps-dev", "--app", "home-search", "--per-template", "1"]
    assert main([*args, "--trained", str(data), "--out", str(out)]) == 0
    stats = json.loads((out / "stats.json").read_text())
    assert stats["leakage"] == {"test_goals_exact_or_near": 0, "training_goals": 0}
    assert stats["goals"] == len(load_goals("home-search", out / "goals.jsonl"))
    assert list(stats["trained_files"]) == [str(data)]
    data.write_text("not json\n")
    with pytest.raises(DataError, match="data.jsonl:1"):
        training_goals(data)
    assert main([*args, "--trained", str(tmp_path / "none.jsonl"), "--out", str(out)]) == 1
