"""`toollearn report compare --bootstrap`: paired intervals of Seal-Tools F1 differences,
computed from committed runs' raw model text (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.evaluation.bootstrap import f1_of, paired_intervals, seal_bootstrap
from toollearn.evaluation.compare import compare_runs

RESULTS = Path(__file__).resolve().parents[2] / "results"
V3, V4 = RESULTS / "seal-size" / "v3", RESULTS / "seal-v4" / "quarter"


def test_the_difference_is_the_rescored_runs_difference(shared_data):
    intervals, n = seal_bootstrap([V3, V4], ["v3", "v4"], shared_data, draws=200)
    table = compare_runs([V3, V4], ["v3", "v4"], shared_data)
    assert n == table.n == 339
    by_metric = {iv.metric: iv for iv in intervals}
    for metric, path in [("official Tool F1", ("official", "all", "tool_f1")),
                         ("official Param F1", ("official", "all", "param_f1")),
                         ("strict Param F1", ("strict", "all", "param_f1"))]:  # fmt: skip
        a, b = (s[path[0]][path[1]][path[2]] for s in table.scores)
        iv = by_metric[metric]
        assert iv.delta == pytest.approx(100 * (b - a), abs=0.01)
        assert iv.low <= iv.delta <= iv.high and 0.0 <= iv.p_higher <= 1.0


def test_a_run_against_itself_never_differs(shared_data):
    intervals, _ = seal_bootstrap([V3, V3], ["a", "b"], shared_data, draws=100)
    assert {(iv.delta, iv.low, iv.high, iv.p_higher) for iv in intervals} == {(0, 0, 0, 0)}


def test_a_run_better_on_every_query_wins_every_draw():
    rng = np.random.default_rng(1)
    gold = rng.integers(1, 4, size=50)
    # [parsed, tool correct, predicted, gold, param correct, predicted, gold]
    weak = np.stack([np.ones(50), gold // 2, gold, gold, gold // 3, gold, gold], axis=1)
    strong = weak.copy()
    strong[:, 1] = strong[:, 4] = gold
    counts = [{"official": weak.astype(int), "strict": weak.astype(int)},
              {"official": strong.astype(int), "strict": strong.astype(int)}]  # fmt: skip
    intervals = paired_intervals(counts, ["weak", "strong"], draws=300, seed=3)
    assert all(iv.low > 0 and iv.p_higher == 1.0 for iv in intervals)
    again = paired_intervals(counts, ["weak", "strong"], draws=300, seed=3)
    assert [iv.to_dict() for iv in again] == [iv.to_dict() for iv in intervals]


def test_f1_from_counts_is_the_scorers_f1():
    totals = np.array([[10, 7, 9, 12, 20, 30, 25], [3, 0, 0, 5, 0, 0, 8]])
    assert f1_of(totals, 1, 2, 3).tolist() == pytest.approx([2 * 7 / 21, 0.0])


def test_cli_writes_the_intervals(shared_data, capsys, tmp_path: Path):
    out = tmp_path / "c.json"
    argv = ["report", "compare", str(V3), str(V4), "--label", "v3", "--label", "v4",
            "--data-root", str(shared_data), "--bootstrap", "100", "--json", str(out)]  # fmt: skip
    code = main(argv)
    assert code == 0
    text = capsys.readouterr().out
    assert "Paired bootstrap against v3 (339 queries, 100 draws" in text
    assert "| v4 | official Param F1 | -0.2 |" in text
    saved = json.loads(out.read_text())["bootstrap"]
    assert saved["draws"] == 100 and len(saved["intervals"]) == 4


def test_other_benchmarks_are_refused():
    app = RESULTS / "apps-table" / "home-search"
    with pytest.raises(DataError, match="Seal-Tools runs only"):
        seal_bootstrap([app / "constrained", app / "zero-shot"], ["a", "b"], None)


def test_a_negative_number_of_draws_is_refused(capsys):
    assert main(["report", "compare", str(V3), str(V4), "--bootstrap", "-5"]) != 0
    assert "--bootstrap takes a number of draws, not -5" in capsys.readouterr().err
