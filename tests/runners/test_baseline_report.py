"""The baseline report reads real scored run directories (scripted engine, bundled sample)."""

from __future__ import annotations

import pytest

from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.engines import ScriptedEngine
from toollearn.evaluation.baseline import seal_table
from toollearn.evaluation.runners.base import RunWriter
from toollearn.evaluation.runners.seal_tools import (
    SealRunOptions,
    load_prompts,
    run_seal_tools,
    score_records,
)


def _seal_run(out, examples, answer) -> None:
    writer = RunWriter(out, {"mode": out.name})
    engine = ScriptedEngine(lambda prompt: answer(prompt[0].content))
    records = run_seal_tools(engine, examples, writer, SealRunOptions(constrained=False))
    writer.write_scores(score_records(records, examples))


def test_seal_table_from_scored_runs(tmp_path, capsys):
    examples = load_prompts("test_in_domain", sample=True)[:3]
    targets = {ex.metadata["prompt"]: ex.metadata["target"] for ex in examples}
    _seal_run(tmp_path / "seal" / "constrained", examples, lambda p: targets[p])
    _seal_run(tmp_path / "seal" / "free", examples, lambda p: "no calls here")
    table = seal_table(tmp_path / "seal", expected=3)
    assert "| all | 3 | strict | constrained | 100.00 | 100.00 |" in table
    assert "| all | 3 | official | free | 0.00 |" in table
    assert "| all | | official | *paper, Table 2*: GPT-4 (gpt-4-0613) | 97.12 |" in table
    assert "| easy | | official | *paper, Table 3*: GPT-4 | 98.64 |" in table
    assert "- free: 3 queries; hallucinated tool names: official 0, strict 0" in table
    assert "(of 1354)" in seal_table(tmp_path / "seal")  # an unfinished run says so
    out = tmp_path / "b.md"
    assert main(["report", "baseline", "--root", str(tmp_path), "--out", str(out)]) == 0
    assert out.read_text() == capsys.readouterr().out


def test_unscored_runs_are_an_error(tmp_path):
    (tmp_path / "seal" / "free").mkdir(parents=True)
    with pytest.raises(DataError, match="no scores.json"):
        seal_table(tmp_path / "seal")
