"""alpha-UMi ToolBench docs and RapidAPI entries (ToolDEER baselines) <-> Tool."""

from __future__ import annotations

import json

import pytest

from toollearn.core.errors import SchemaError
from toollearn.data.registry import sample_root
from toollearn.formats.schemas.toolbench import (
    tool_from_rapidapi,
    tool_from_toolbench,
    tool_to_rapidapi,
    tool_to_toolbench,
)

# Shape of alpha-UMi's trajectory tool docs (see docs/seed-systems.md section 3).
UMI_DOC = {
    "Name": "search_for_deezer",
    "function": 'This is the subfunction for tool "deezer", you can use this tool.',
    "input": {"q": "string, Search query", "limit": "NUMBER, how many results", "raw": "free text"},
}


def test_umi_doc_round_trips_and_types_are_read():
    tool = tool_from_toolbench(UMI_DOC)
    assert tool.name == "search_for_deezer"
    assert tool.param_type("q") == "string"
    assert tool.properties["q"]["description"] == "Search query"
    assert tool.param_type("limit") == "number"
    assert tool.param_type("raw") is None
    assert tool_to_toolbench(tool) == UMI_DOC


@pytest.mark.parametrize(
    "broken, message",
    [
        ({"function": "x", "input": {}}, "lacks the key 'Name'"),
        ({"Name": "f", "input": ["a"]}, "'input' must map"),
        ({"Name": "f", "input": {"a": 3}}, "must be 'type, description'"),
        ({"Name": "f", "function": 1}, "'function' must be a string"),
    ],
)
def test_broken_umi_docs_are_rejected(broken, message):
    with pytest.raises(SchemaError, match=message):
        tool_from_toolbench(broken)


def _baseline_entries(folder):
    for name in ("tool_bench", "tool_corpus"):
        for rec in json.loads((folder / "baselines" / f"{name}.json").read_text()):
            yield from rec["api_list"]


def test_rapidapi_entries_of_the_sample_round_trip_exactly():
    entries = list(_baseline_entries(sample_root() / "tooldeer"))
    assert len(entries) == 250
    for entry in entries:
        assert tool_to_rapidapi(tool_from_rapidapi(entry)) == entry


def test_rapidapi_types_and_defaults():
    entry = {
        "name": "OTT details-OTT Providers",
        "description": "List providers",
        "parameters": [
            {"name": "region", "type": "STRING", "description": "US or IN", "default": "IN"},
            {"name": "n", "type": "NUMBER", "description": "", "default": "5"},
        ],
    }
    tool = tool_from_rapidapi(entry)
    assert tool.param_type("region") == "string" and tool.properties["region"]["default"] == "IN"
    assert tool.param_type("n") == "number"
    assert tool_from_rapidapi({"name": "x", "description": "", "parameters": "{}"}).properties == {}


@pytest.mark.parametrize(
    "broken, message",
    [
        ({"description": "no name"}, "lacks the key 'name'"),
        ({"name": "f", "parameters": "{oops"}, "not JSON"),
        ({"name": "f", "parameters": {"a": 1}}, "must be a list"),
        ({"name": "f", "parameters": [{"type": "STRING"}]}, "lacks the key 'name'"),
    ],
)
def test_broken_rapidapi_entries_are_rejected(broken, message):
    with pytest.raises(SchemaError, match=message):
        tool_from_rapidapi(broken)


@pytest.mark.shared
def test_all_baseline_entries_round_trip(deer_dir):
    entries = list(_baseline_entries(deer_dir))
    assert len(entries) == (200 + 126) * 5
    for entry in entries:
        assert tool_to_rapidapi(tool_from_rapidapi(entry)) == entry
