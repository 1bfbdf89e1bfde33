"""Seal-Tools loaders on the bundled sample, the full data, and broken files."""

from __future__ import annotations

import json
import shutil

import pytest

from toollearn.core.errors import DataError
from toollearn.core.types import Ref
from toollearn.data import seal_tools
from toollearn.data.registry import sample_root
from toollearn.data.stats import seal_stats

SAMPLE = sample_root()


def test_sample_eval_prompts_have_five_candidates_and_gold_calls():
    examples = seal_tools.load_eval_prompts(SAMPLE, "test_in_domain")
    assert len(examples) == 100
    assert all(len(e.tools) == 5 for e in examples)
    assert {e.difficulty for e in examples} == {"easy", "difficult"}
    assert sum(e.nested for e in examples) == 30  # every nested test_in_domain instance
    ex = next(e for e in examples if e.nested)
    ref = next(r for c in ex.calls for r in c.refs())
    assert isinstance(ref, Ref) and ref.call is not None
    assert ex.metadata["prompt"].endswith(f'task_instruction = "{ex.query}"\nOutput:\n')


def test_sample_splits_agree_between_formats():
    new = seal_tools.load_split(SAMPLE, "test_out_domain")
    prompts = seal_tools.load_eval_prompts(SAMPLE, "test_out_domain")
    assert [e.id for e in new] == [e.id for e in prompts]
    assert [e.query for e in new] == [e.query for e in prompts]
    assert [[c.to_dict() for c in e.calls] for e in new] == [
        [c.to_dict() for c in e.calls] for e in prompts
    ]
    assert all(e.tools and e.tools[0].name == e.calls[0].name for e in new)


def test_calls_from_seal_links_refs():
    calls = seal_tools.calls_from_seal(
        [
            {"api": "a", "parameters": {"x": 1}, "responses": ["API_call_0", "API_call_1"]},
            {"api": "b", "parameters": {"y": "API_call_1"}, "responses": ["API_call_2"]},
        ]
    )
    assert calls[1].arguments["y"] == Ref("API_call_1", call=0, output=1)


@pytest.mark.parametrize(
    "items, message",
    [
        ("x", "must be a list"),
        ([{"parameters": {}}], "string 'api'"),
        ([{"api": "a", "parameters": []}], "'parameters' must be an object"),
        ([{"api": "a", "responses": "API_call_0"}], "'responses' must be a list"),
    ],
)
def test_calls_from_seal_rejects_bad_items(items, message):
    with pytest.raises(DataError, match=message):
        seal_tools.calls_from_seal(items)


@pytest.fixture
def seal_copy(tmp_path):
    dest = tmp_path / "seal-tools"
    shutil.copytree(SAMPLE / "seal-tools", dest)
    return dest


def test_broken_tool_line_is_named(seal_copy):
    path = seal_copy / "tool.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = lines[4][:-5]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"tool.jsonl:5: invalid JSON"):
        seal_tools.load_tools(seal_copy)
    lines[4] = json.dumps({"api_name": "x", "parameters": {"a": {"type": "str"}}, "required": 3})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"tool.jsonl:5: .*'required' must be a list"):
        seal_tools.load_tools(seal_copy)


def test_broken_split_records_are_named(seal_copy):
    path = seal_copy / "dev.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = json.dumps({"id": "dev-easy-2", "query": 5, "calling": []})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"dev.jsonl:3: 'query' missing or not a str"):
        seal_tools.load_split(seal_copy, "dev")
    lines[2] = json.dumps({"id": "dev-weird-2", "query": "q", "calling": []})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"dev.jsonl:3: id 'dev-weird-2'"):
        seal_tools.load_split(seal_copy, "dev")


def test_broken_eval_prompt_names_record(seal_copy):
    path = seal_copy / "dataset_for_finetune" / "test_in_domain.json"
    records = json.loads(path.read_text())
    records[7]["conversations"][1]["value"] = "[{'api': 'x', 'parameters': {'a': 'unclosed}]"
    path.write_text(json.dumps(records))
    with pytest.raises(DataError, match=r"test_in_domain.json: record 7: gpt target"):
        seal_tools.load_eval_prompts(seal_copy, "test_in_domain")
    records[7]["conversations"][0]["value"] = "no api list here"
    path.write_text(json.dumps(records))
    with pytest.raises(DataError, match=r"record 7: prompt lacks 'api_list"):
        seal_tools.load_eval_prompts(seal_copy, "test_in_domain")
    del records[7]["conversations"][1]
    path.write_text(json.dumps(records))
    with pytest.raises(DataError, match=r"record 7: 'conversations' must hold"):
        seal_tools.load_eval_prompts(seal_copy, "test_in_domain")


def test_unknown_split_and_missing_folder(tmp_path):
    with pytest.raises(DataError, match="unknown Seal-Tools split 'train'"):
        seal_tools.load_split(SAMPLE, "train")
    with pytest.raises(DataError, match="no Seal-Tools data here"):
        seal_tools.load_tools(tmp_path)


@pytest.mark.shared
@pytest.mark.slow
def test_full_seal_tools_counts_match_the_data_readme(shared_data):
    stats = seal_stats(shared_data)
    assert stats["tools"] == 4076
    assert (stats["fields"], stats["sub_fields"]) == (146, 5859)
    for table in ("splits", "eval_prompts"):
        rows = stats[table]
        assert {k: v["instances"] for k, v in rows.items()} == {
            "dev": 700,
            "test_in_domain": 700,
            "test_out_domain": 654,
        }
        assert {k: v["nested"] for k, v in rows.items()} == {
            "dev": 28,
            "test_in_domain": 30,
            "test_out_domain": 27,
        }
        # dev-difficult-207 writes "API_call_0 response": mentioned, not an exact reference.
        assert rows["dev"]["nested_refs"] == 27
        assert (rows["test_out_domain"]["easy"], rows["test_out_domain"]["difficult"]) == (94, 560)
    assert {k: v["instances"] for k, v in stats["old_format"].items()} == {
        "dev": 700,
        "test_in_domain": 700,
        "test_out_domain": 654,
    }
    assert all(r["candidates"] == {5: n} for r, n in zip(stats["eval_prompts"].values(),
                                                        (700, 700, 654)))  # fmt: skip


@pytest.mark.shared
def test_old_and_new_formats_agree_on_the_full_data(seal_dir):
    for split in seal_tools.SPLITS:
        new = seal_tools.load_split(seal_dir, split)
        old = seal_tools.load_split_old(seal_dir, split)
        assert [e.id for e in old] == [e.id for e in new]
        assert [e.query for e in old] == [e.query for e in new]
        assert [[(c.name, c.arguments) for c in e.calls] for e in old] == [
            [(c.name, c.arguments) for c in e.calls] for e in new
        ]
