"""Committed app results are recomputable: rescoring each run reproduces its scores.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toollearn.evaluation.runners.apps import rescore_run

ROOT = Path(__file__).resolve().parents[2] / "results" / "apps-table"
RUNS = sorted(p.parent for p in ROOT.glob("*/*/config.json"))


def test_there_are_committed_runs() -> None:
    assert len(RUNS) == 10


@pytest.mark.parametrize("run_dir", RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rescore_run_reproduces_the_committed_scores(run_dir: Path) -> None:
    committed = json.loads((run_dir / "scores.json").read_text(encoding="utf-8"))
    assert rescore_run(run_dir) == committed["scores"]
    assert committed["rescored"]["by"] == "evaluation.runners.apps.rescore_run"
