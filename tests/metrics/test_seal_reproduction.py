"""The paper's gold targets scored as model outputs: the official scorer reproduces the
authors' numbers, the strict scorer gives 100; the prompt renderer rebuilds every human turn."""

from __future__ import annotations

import ast
import json

import pytest

from toollearn.evaluation.metrics.seal_tools import (
    difficulty_from_id,
    is_nested,
    official_gold,
    official_scores,
    scores_by_group,
    strict_scores,
)
from toollearn.formats.answers.seal_tools import parse_calls, render_calls, render_prompt

pytestmark = [pytest.mark.shared]

SPLITS = ("dev", "test_in_domain", "test_out_domain")
FORMAT_ACC = {"dev": 99.71, "test_in_domain": 99.57, "test_out_domain": 99.54}
NESTED = {"dev": 28, "test_in_domain": 30, "test_out_domain": 27}


def _load(seal_dir, split):
    return json.loads((seal_dir / "dataset_for_finetune" / f"{split}.json").read_text())


def _targets(seal_dir, split):
    records = _load(seal_dir, split)
    outputs = [r["conversations"][1]["value"] for r in records]
    return records, outputs, [official_gold(t) for t in outputs]


@pytest.mark.parametrize("split", SPLITS)
def test_official_reproduces_paper_format_acc(seal_dir, split):
    _, outputs, golds = _targets(seal_dir, split)
    scores = official_scores(outputs, golds)
    assert round(scores["format_acc"] * 100, 2) == FORMAT_ACC[split]
    assert scores["tool_p"] == 1.0  # every parsed call names a gold tool
    assert scores["counts"]["parsed"] < len(outputs)


def test_official_param_precision_test_in_domain(seal_dir):
    _, outputs, golds = _targets(seal_dir, "test_in_domain")
    assert round(official_scores(outputs, golds)["param_p"], 4) == 0.9994


def test_official_gold_equals_jsonl_calling(seal_dir):
    """The authors' gold (the gpt turn) is the same data as the jsonl `calling` field."""
    for split in SPLITS:
        _, _, golds = _targets(seal_dir, split)
        lines = (seal_dir / f"{split}.jsonl").read_text().splitlines()
        assert golds == [json.loads(line)["calling"] for line in lines]


@pytest.mark.parametrize("split", SPLITS)
def test_strict_scores_gold_at_100(seal_dir, split):
    _, outputs, golds = _targets(seal_dir, split)
    scores = strict_scores(outputs, golds)
    for key in ("format_acc", "tool_p", "tool_r", "tool_f1", "param_p", "param_r", "param_f1"):
        assert scores[key] == 1.0, key
    assert scores["exact_acc"] == 1.0


@pytest.mark.parametrize("split", SPLITS)
def test_breakdowns_and_nested_counts(seal_dir, split):
    records, outputs, golds = _targets(seal_dir, split)
    levels = [difficulty_from_id(r["id"]) for r in records]
    groups = scores_by_group(strict_scores, outputs, golds, levels)
    assert list(groups) == ["all", "easy", "difficult", "nested"]
    assert groups["easy"]["n"] + groups["difficult"]["n"] == len(records)
    assert groups["nested"]["n"] == NESTED[split] == sum(is_nested(g) for g in golds)
    assert all(g["param_f1"] == 1.0 for g in groups.values())


@pytest.mark.parametrize("split", SPLITS)
def test_render_prompt_byte_equal_all_prompts(seal_dir, split):
    from toollearn.formats.schemas.seal_tools import tool_from_seal

    lines = (seal_dir / f"{split}.jsonl").read_text().splitlines()
    queries = {r["id"]: r["query"] for r in map(json.loads, lines)}
    records = _load(seal_dir, split)
    assert len(records) == len(queries)
    for record in records:
        human = record["conversations"][0]["value"]
        api_text = human.split("api_list = ", 1)[1].split("\ntask_instruction = ", 1)[0]
        tools = [tool_from_seal(d) for d in ast.literal_eval(api_text)]
        assert len(tools) == 5
        assert render_prompt(queries[record["id"]], tools) == human, record["id"]


@pytest.mark.parametrize("split", SPLITS)
def test_targets_parse_and_render_back(seal_dir, split):
    """parse_calls reads every released target; the Python style renders it back byte-equal."""
    for record in _load(seal_dir, split):
        target = record["conversations"][1]["value"]
        calls = parse_calls(target)
        assert render_calls(calls, style="python") == target
        assert json.loads(render_calls(calls)) == official_gold(target)
