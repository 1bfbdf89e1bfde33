"""The Seal-Tools runner end to end with a scripted engine on the bundled sample."""

from __future__ import annotations

import json

import pytest

from toollearn.core.errors import EngineError
from toollearn.engines import Completion, ScriptedEngine
from toollearn.evaluation.runners.base import RunWriter
from toollearn.evaluation.runners.seal_tools import (
    SealRunOptions,
    load_prompts,
    run_seal_tools,
    score_records,
)


@pytest.fixture(scope="module")
def examples():
    return load_prompts("test_in_domain", sample=True)[:4]


def _gold_then_junk(examples):
    answers = {ex.metadata["prompt"]: ex.metadata["target"] for ex in examples}
    return lambda prompt: answers[prompt[0].content]


def test_runner_scores_gold_answers_and_resumes(tmp_path, examples):
    engine = ScriptedEngine(_gold_then_junk(examples))
    opts = SealRunOptions(constrained=False)
    writer = RunWriter(tmp_path, {"t": 1})
    records = run_seal_tools(engine, examples[:2], writer, opts)
    assert len(records) == 2 and len(engine.prompts) == 2
    records = run_seal_tools(engine, examples, RunWriter(tmp_path, {"t": 1}), opts)
    assert len(records) == 4 and len(engine.prompts) == 4  # the first two were not redone
    scores = score_records(records, examples)
    assert scores["strict"]["all"]["tool_f1"] == 1.0 and scores["strict"]["all"]["param_f1"] == 1.0
    assert scores["hallucinated_tools"] == {"official": 0, "strict": 0}
    assert scores["run"]["n"] == 4
    json.dumps(scores)  # JSON-able for scores.json


def test_constrained_runs_send_each_example_its_own_grammar(tmp_path, examples):
    engine = ScriptedEngine(_gold_then_junk(examples))
    run_seal_tools(engine, examples[:2], RunWriter(tmp_path, {}), SealRunOptions())
    grammars = [r["constraint"].grammar for r in engine.requests]
    assert len(grammars) == 2 and grammars[0] != grammars[1]
    assert examples[0].tools[0].name in grammars[0]


class _HalfDown:
    name, supports_constraints = "half", False

    def complete(self, prompts, **kw):
        return [
            Completion("[]") if i % 2 == 0 else Completion("", "error", error="server down")
            for i, _ in enumerate(prompts)
        ]


def test_engine_failures_keep_finished_predictions_and_stop(tmp_path, examples):
    writer = RunWriter(tmp_path, {})
    with pytest.raises(EngineError, match="server down"):
        run_seal_tools(_HalfDown(), examples, writer, SealRunOptions(constrained=False))
    assert len(writer.records()) == 2
