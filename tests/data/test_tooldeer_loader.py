"""ToolDEER loaders on the bundled sample, the full data, and broken files."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from toollearn.core.errors import DataError
from toollearn.data import tooldeer
from toollearn.data.registry import sample_root
from toollearn.data.stats import deer_stats

SAMPLE = sample_root()


def test_sample_tools_keep_examples_and_both_names():
    tools = tooldeer.load_tools(SAMPLE)
    assert len(tools) > 40
    for t in tools:
        assert t.metadata["examples"] and {"query", "call"} <= set(t.metadata["examples"][0])
        assert t.metadata["signature"].startswith(t.name + "(")
    renamed = [t for t in tools if t.name != t.metadata["api_name"]]
    assert renamed, "the sample keeps tools whose function name differs from api_name"


def test_sample_valid_has_all_three_decisions_with_labels():
    examples = tooldeer.load_split(SAMPLE, "valid")
    kinds = Counter(e.metadata["decision"] for e in examples)
    assert kinds["NoSearch"] == 30 and kinds["Call"] >= 10 and kinds["NoCall"] == 10
    for e in examples:
        assert e.id.startswith("tooldeer-valid-")
        if e.metadata["decision"] == "NoSearch":
            assert (e.needs_tool, e.has_suitable_tool, e.tools, e.calls) == (False, None, (), ())
        elif e.metadata["decision"] == "NoCall":
            assert (e.needs_tool, e.has_suitable_tool, e.calls) == (True, False, ())
            assert len(e.tools) == 5
        else:
            assert (e.needs_tool, e.has_suitable_tool) == (True, True) and len(e.calls) == 1
            assert e.calls[0].name in {t.name for t in e.tools}


def test_gold_call_uses_the_function_name_even_when_api_name_differs():
    examples = tooldeer.load_split(SAMPLE, "valid")
    renamed = [
        e for e in examples
        if e.calls and e.calls[0].name not in {t.metadata["api_name"] for t in e.tools}
    ]  # fmt: skip
    assert renamed
    for e in renamed:
        tool = next(t for t in e.tools if t.name == e.calls[0].name)
        assert tool.metadata["api_name"] != tool.name


def test_sample_baselines():
    for name in tooldeer.BASELINES:
        examples = tooldeer.load_baseline(SAMPLE, name)
        assert len(examples) == 25
        for e in examples:
            assert len(e.tools) == 5 and e.needs_tool is True
            assert e.has_suitable_tool == bool(e.calls)
            assert all(c.name in e.metadata["api_label"] for c in e.calls)


@pytest.fixture
def deer_copy(tmp_path):
    dest = tmp_path / "tooldeer"
    shutil.copytree(SAMPLE / "tooldeer", dest)
    return dest


def _rewrite(path, edit):
    records = json.loads(path.read_text())
    edit(records)
    path.write_text(json.dumps(records))


def test_broken_targets_are_named(deer_copy):
    path = deer_copy / "test.json"
    original = path.read_text()

    def cut_pool(rs):
        rs[3]["conversations"][1]["value"] = rs[3]["conversations"][1]["value"].replace("{", "(", 1)

    _rewrite(path, cut_pool)
    with pytest.raises(DataError, match=r"test.json: record 3: pool"):
        tooldeer.load_split(deer_copy, "test")
    path.write_text(original)
    _rewrite(path, lambda rs: rs[5]["conversations"][1].update(value="#Begin# whatever #End#"))
    with pytest.raises(DataError, match=r"record 5: gpt target is not a DEER target"):
        tooldeer.load_split(deer_copy, "test")
    path.write_text(original)
    _rewrite(path, lambda rs: rs[0].update(conversations=[{"from": "human", "value": "q"}]))
    with pytest.raises(DataError, match=r"record 0: 'conversations' must hold"):
        tooldeer.load_split(deer_copy, "test")
    path.write_text(original[:-10])
    with pytest.raises(DataError, match=r"test.json:\d+: invalid JSON"):
        tooldeer.load_split(deer_copy, "test")


def test_broken_tools_and_baselines_are_named(deer_copy):
    tools = deer_copy / "tool.json"
    _rewrite(tools, lambda rs: rs[2].update(api_function="not a signature"))
    with pytest.raises(DataError, match=r"tool.json: record 2: .*not a Python signature"):
        tooldeer.load_tools(deer_copy)
    _rewrite(tools, lambda rs: rs[2].pop("api_name"))
    with pytest.raises(DataError, match=r"record 2: ToolDEER tool lacks the key 'api_name'"):
        tooldeer.load_tools(deer_copy)
    base = deer_copy / "baselines" / "tool_bench.json"
    _rewrite(base, lambda rs: rs[1].update(is_call="yes"))
    with pytest.raises(DataError, match=r"tool_bench.json: record 1: 'is_call'"):
        tooldeer.load_baseline(deer_copy, "tool_bench")
    with pytest.raises(DataError, match="unknown ToolDEER baseline"):
        tooldeer.load_baseline(deer_copy, "apibank")


@pytest.mark.shared
def test_full_tooldeer_counts_match_the_data_readme(shared_data):
    stats = deer_stats(shared_data)
    assert stats["tools"] == 977 and stats["tool_examples"] == 9393
    assert stats["name_differs_from_api_name"] == 36
    rows = stats["splits"]
    counts = {k: (r["instances"], r["Call"], r["NoCall"], r["NoSearch"]) for k, r in rows.items()}
    assert counts == {
        "valid": (1065, 526, 346, 193),
        "test": (743, 445, 298, 0),
        "tool_bench": (200, 120, 80, 0),
        "tool_corpus": (126, 75, 51, 0),
    }
    assert rows["test"]["pool_tools"] == 77  # the unseen tools
    assert rows["valid"]["pool_sizes"] == {5: 872} and rows["test"]["pool_sizes"] == {5: 743}
    # Gold calls whose arguments are variable names (e.g. song_list=recommended_songs_list)
    # keep the name and record the error instead of being dropped.
    assert (rows["valid"]["gold_calls_with_unreadable_args"],
            rows["test"]["gold_calls_with_unreadable_args"]) == (1, 6)  # fmt: skip


@pytest.mark.shared
def test_every_gold_call_names_a_pool_tool(deer_dir):
    for split in tooldeer.SPLITS:
        for e in tooldeer.load_split(deer_dir, split):
            for call in e.calls:
                assert call.name in {t.name for t in e.tools}
                if "call_error" not in e.metadata:
                    assert call.arguments or call.name  # parsed
