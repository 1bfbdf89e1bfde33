"""Results anyone can recompute: every committed run under results/ rescored from its raw model
text (`toollearn score --run DIR`) gives its scores.json again, number for number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toollearn.cli.main import main
from toollearn.evaluation.rescore import benchmark_of, compare

RESULTS = Path(__file__).resolve().parents[2] / "results"
RUNS = sorted(
    p.parent for p in RESULTS.rglob("predictions.jsonl") if (p.parent / "scores.json").is_file()
)
NEEDS_DATA = ("seal-tools", "deer")  # their examples come from ../shared/data


def _kind(run: Path) -> str:
    return benchmark_of(json.loads((run / "config.json").read_text()))


def test_every_committed_run_is_covered():
    kinds = {_kind(run) for run in RUNS}
    assert kinds == {"seal-tools", "deer", "stepwise", "episodes", "apps", "calls"}
    assert len(RUNS) >= 25


@pytest.mark.parametrize("run", RUNS, ids=lambda p: str(p.relative_to(RESULTS)))
def test_rescoring_reproduces_scores_json(run: Path, request: pytest.FixtureRequest):
    root = request.getfixturevalue("shared_data") if _kind(run) in NEEDS_DATA else None
    assert compare(run, root) == []


def test_score_cli_check(shared_data, capsys):
    assert main(["score", "--run", str(RESULTS / "deer-tool_bench-dc"), "--check",
                 "--data-root", str(shared_data)]) == 0  # fmt: skip
    assert "0 differences" in capsys.readouterr().err


def _whole_or_shard(run: Path) -> bool:
    """`score --metric deer` scores a whole split or a shard of it; a run of a split's first N
    queries (`--limit`) is rescored by `test_rescoring_reproduces_scores_json` alone."""
    return not json.loads((run / "config.json").read_text()).get("limit")


@pytest.mark.parametrize("run", [r for r in RUNS if _kind(r) == "deer" and _whole_or_shard(r)],
                         ids=lambda p: p.name)  # fmt: skip
def test_score_metric_deer_on_committed_predictions(run, shared_data, capsys):
    """`toollearn score --metric deer` reads the committed records the way the runner does."""
    config = json.loads((run / "config.json").read_text())
    records = str(run / "predictions.jsonl")
    argv = ["score", "--dataset", f"tooldeer/{config['split']}", "--data-root", str(shared_data),
            "--predictions", records, "--metric", "deer", "--json"]  # fmt: skip
    if config.get("shard"):
        argv += ["--shard", config["shard"]]
    assert main(argv) == 0
    scored = json.loads(capsys.readouterr().out)["scores"]
    stored = json.loads((run / "scores.json").read_text())["scores"]
    assert {k: scored[k] for k in scored} == {k: stored[k] for k in scored}
