"""`toollearn report compare`: runs scored on the examples all of them finished, from the
committed runs' raw model text (no model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.evaluation.compare import compare_runs
from toollearn.evaluation.rescore import rescore_run

RESULTS = Path(__file__).resolve().parents[2] / "results"
APP = RESULTS / "apps-table" / "home-search"


def _cut(run: Path, dest: Path, keep: int) -> Path:
    """A copy of `run` holding only its first `keep` records."""
    shutil.copytree(run, dest)
    lines = (run / "predictions.jsonl").read_text().splitlines(keepends=True)
    (dest / "predictions.jsonl").write_text("".join(lines[:keep]))
    return dest


def test_same_ids_give_each_runs_own_scores():
    result = compare_runs([APP / "constrained", APP / "zero-shot"], ["c", "z"])
    assert result.benchmark == "apps" and result.n == 100
    stored = [json.loads((APP / c / "scores.json").read_text())["scores"]
              for c in ("constrained", "zero-shot")]  # fmt: skip
    assert dict(result.rows())["executable"] == [s["executability_rate"] for s in stored]
    assert result.differences["config"] == ["constrained", "zero-shot"]
    assert 'config: "constrained" / "zero-shot"' in result.markdown()


def test_a_shard_is_compared_on_its_own_ids(tmp_path: Path):
    part = _cut(APP / "constrained", tmp_path / "part", 30)
    ids = {json.loads(x)["id"] for x in (part / "predictions.jsonl").read_text().splitlines()}
    result = compare_runs([part, APP / "constrained"], ["part", "full"])
    assert result.n == 30
    assert result.scores[0] == result.scores[1] == rescore_run(APP / "constrained", ids=ids)
    assert result.scores[1] != rescore_run(APP / "constrained")  # not the full run's score


def test_deer_runs_on_the_same_shard(shared_data, capsys, tmp_path: Path):
    out = tmp_path / "table.md"
    code = main(["report", "compare", str(RESULTS / "deer-valid-base"),
                 str(RESULTS / "deer-valid-tuned"), "--label", "base", "--label", "tuned",
                 "--data-root", str(shared_data), "--out", str(out)])  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert text == out.read_text() and "| metric (n = 213) | base | tuned |" in text
    stored = json.loads((RESULTS / "deer-valid-tuned" / "scores.json").read_text())["scores"]
    assert f"| P_DC | 2.8 | {100 * stored['P_DC']:.1f} |" in text


def test_gates_only_runs_compare_as_decision_call_without_strict_scores(shared_data):
    """A gates-only DEER run without a search gate searches every time (as --skip-search), and
    writes no arguments, so its strict scores are blank; a model run's are kept."""
    gates = RESULTS / "deer-gates-only" / "tool_corpus-mix100-lora"
    result = compare_runs([RESULTS / "deer-tool_corpus-dc", gates], data_root=shared_data)
    rows = dict(result.rows())
    assert rows["P_DC_strict"][0] is not None and rows["P_DC_strict"][1] is None
    assert rows["P_DC"][1] == pytest.approx(84.9, abs=0.05)
    with pytest.raises(DataError, match="differ in 'skip_search'"):
        compare_runs([gates, RESULTS / "deer-gates-only" / "tool_corpus-full-classifier"],
                     data_root=shared_data)  # fmt: skip


def test_incomparable_runs_are_refused(shared_data):
    with pytest.raises(DataError, match="different benchmarks"):
        compare_runs([APP / "constrained", RESULTS / "deer-valid-base"], data_root=shared_data)
    with pytest.raises(DataError, match="differ in 'app'"):
        compare_runs([APP / "constrained", RESULTS / "apps-table/trip-booking/constrained"])
    with pytest.raises(DataError, match="at least two"):
        compare_runs([APP / "constrained"])


def test_headline_tables_and_figure(tmp_path: Path):
    from toollearn.evaluation.headline import headline, plot_headline

    with pytest.raises(DataError, match="no compare.json"):
        headline(tmp_path)
    folder = tmp_path / "apps-hs" / "home-search" / "constrained"
    folder.mkdir(parents=True)
    result = compare_runs([APP / "zero-shot", APP / "constrained"], ["base", "tuned"])
    (folder / "compare.json").write_text(json.dumps(result.to_dict()))
    text, rows = headline(tmp_path)
    assert "### Home Search, system prompt + demos, grammar" in text
    assert "| tuned | 100 | 0.0 | 94.0 | 39.7 |" in text
    assert "*paper: GPT-4 (SambaNova Table 6, system+demos)* | full set | 98.0 | - | - |" in text
    assert rows == [{"panel": "Home Search, system prompt + demos, grammar", "metric": "success",
                     "short": "Home Search\ngrammar",
                     "n": 100, "base": 0.0, "tuned": 0.0, "paper_best": 98.0,
                     "tuned_label": "tuned"}]  # fmt: skip
    plot_headline(rows, tmp_path / "headline.png")
    assert (tmp_path / "headline.png").read_bytes()[:4] == b"\x89PNG"
    # one bar colour per adapter, each named in the legend (a tools and an apps adapter here)
    two = [{**rows[0], "tuned_label": "tools-135m v3"}, {**rows[0], "tuned_label": "apps-135m"}]
    plot_headline(two, tmp_path / "two.png")
    assert (tmp_path / "two.png").read_bytes()[:4] == b"\x89PNG"


def test_headline_takes_panels_from_named_run_folders(capsys, tmp_path: Path):
    run = tmp_path / "anywhere"
    run.mkdir()
    result = compare_runs([APP / "zero-shot", APP / "constrained"], ["base", "tuned"])
    (run / "compare.json").write_text(json.dumps(result.to_dict()))
    code = main(["report", "headline", "--panel", f"apps-hs/home-search/constrained={run}"])
    assert code == 0
    assert "| tuned | 100 | 0.0 | 94.0 | 39.7 |" in capsys.readouterr().out
    from toollearn.evaluation.headline import headline

    with pytest.raises(DataError, match="unknown headline panel"):
        headline(panels={"no-such-panel": run})
    with pytest.raises(DataError, match="not found"):
        headline(panels={"seal-constrained": tmp_path})
    assert main(["report", "headline", "--panel", "seal-constrained"]) != 0
    assert main(["report", "headline"]) != 0


def test_compare_figure_draws_the_chosen_metrics(capsys, tmp_path: Path):
    png = tmp_path / "bars.png"
    runs = [str(APP / "zero-shot"), str(APP / "constrained")]
    code = main(["report", "compare", *runs, "--figure", str(png),
                 "--metric", "executable", "--metric", "criteria F1"])  # fmt: skip
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    assert "| executable |" in capsys.readouterr().out
    result = compare_runs([APP / "zero-shot", APP / "constrained"])
    with pytest.raises(DataError, match="no metric"):
        result.plot(tmp_path / "x.png", ["Param F1"])


def test_rewriting_scores_needs_a_scored_run(capsys, tmp_path: Path):
    run = _cut(APP / "constrained", tmp_path / "run", 3)
    (run / "scores.json").unlink()
    assert main(["score", "--run", str(run), "--write", "a scorer fix"]) == 1
    assert "no scores.json to rewrite" in capsys.readouterr().err


def test_rewriting_scores_keeps_the_earlier_notes(tmp_path: Path):
    run = Path(shutil.copytree(RESULTS / "stepwise-multi", tmp_path / "run"))
    before = json.loads((run / "scores.json").read_text())
    assert main(["score", "--run", str(run), "--write", "second fix"]) == 0
    assert main(["score", "--run", str(run), "--write", "third fix"]) == 0
    after = json.loads((run / "scores.json").read_text())
    assert after["rescored"]["reason"] == "third fix"
    notes = [*before.get("rescored_earlier", []), before["rescored"]]
    assert after["rescored_earlier"][:-1] == notes  # kept as they were, oldest first
    assert after["rescored_earlier"][-1]["reason"] == "second fix"
    assert after["scores"] == rescore_run(run) and after["config"] == before["config"]


def test_rescoring_an_apps_table_keeps_the_earlier_notes(tmp_path: Path):
    from toollearn.evaluation.runners.apps import rescore_table

    run = Path(shutil.copytree(APP / "constrained", tmp_path / "home-search" / "constrained"))
    before = json.loads((run / "scores.json").read_text())
    rescore_table(tmp_path, "a later fix")
    after = json.loads((run / "scores.json").read_text())
    assert after["rescored"]["reason"] == "a later fix"
    assert after["rescored_earlier"] == [*before.get("rescored_earlier", []), before["rescored"]]
    assert after["scores"] == before["scores"] and (tmp_path / "table.md").is_file()
