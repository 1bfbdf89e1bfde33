"""Generic values: a string that only repeats its parameter's name is dropped, or in a later call
replaced by the previous call's response."""

from __future__ import annotations

import json

from toollearn.agents.generic_values import generic_values, is_generic
from toollearn.core.types import Tool
from toollearn.evaluation.metrics.seal_tools import official_parse


def _tool(name: str, required: list[str], optional: list[str] = ()) -> Tool:
    props = {p: {"type": "string", "description": p} for p in [*required, *optional]}
    return Tool(name, name, {"type": "object", "properties": props, "required": required})


TOOLS = [
    _tool("getBuildingCode", ["country"], ["building_type"]),
    _tool("getBuildingHumidity", ["building_id"], ["unit"]),
]


def test_is_generic_reads_the_parameters_name():
    assert is_generic("building", "building_id") and is_generic("the location", "location")
    assert is_generic("API call", "resource_id") and is_generic("Database", "databaseName")
    assert is_generic("the building ID from the previous response", "building_id")
    assert not is_generic("Empire State Building", "building_id")
    assert not is_generic("index1", "index_name") and not is_generic("BACKUP-123", "backup_id")
    assert not is_generic("API_call_0", "building_id")  # a reference is a value
    assert not is_generic("first", "position") and not is_generic("the", "location")
    assert not is_generic(12, "building_id") and not is_generic("", "building_id")


def test_generic_values_refer_to_the_previous_call_or_drop():
    calls = [
        {"api": "getBuildingCode", "parameters": {"country": "United States",
                                                  "building_type": "building type"},
         "responses": ["API_call_0", "API_call_1"]},
        {"api": "getBuildingHumidity", "parameters": {"building_id": "building", "unit": "unit"},
         "responses": ["API_call_2"]},
        "not a call",
    ]  # fmt: skip
    out, changes = generic_values(calls, TOOLS)
    assert out[0]["parameters"] == {"country": "United States"}  # optional: dropped
    assert out[1]["parameters"] == {"building_id": "API_call_0"}  # required, later: a reference
    assert out[2] == "not a call"
    assert changes == [
        {"api": "getBuildingCode", "parameter": "building_type", "value": "building type"},
        {"api": "getBuildingHumidity", "parameter": "building_id", "value": "building",
         "ref": "API_call_0"},
        {"api": "getBuildingHumidity", "parameter": "unit", "value": "unit"},
    ]  # fmt: skip
    first, _ = generic_values([{"api": "getBuildingHumidity",
                                "parameters": {"building_id": "building"}}], TOOLS)  # fmt: skip
    assert first[0]["parameters"] == {}  # no earlier call to read: dropped


def test_seal_filter_restores_a_nested_reference(tmp_path, capsys):
    from toollearn.cli.main import main
    from toollearn.evaluation.rescore import compare
    from toollearn.evaluation.runners.base import RunWriter, read_records
    from toollearn.evaluation.runners.seal_tools import load_prompts

    examples = [ex for ex in load_prompts("all", sample=True) if ex.nested]
    assert examples, "the bundled sample holds nested queries"
    outputs, refs = [], 0
    for ex in examples:  # the gold answer, each reference written as its parameter's name
        calls = official_parse(ex.metadata["target"])
        for call in calls:
            for k, v in call["parameters"].items():
                if isinstance(v, str) and v.startswith("API_call_"):
                    call["parameters"][k], refs = k.split("_")[0], refs + 1
        outputs.append(json.dumps(calls))
    writer = RunWriter(tmp_path / "run", {"benchmark": "seal-tools", "split": "all",
                                          "sample": True, "candidates": "paper"})  # fmt: skip
    for ex, text in zip(examples, outputs):
        writer.append({"id": ex.id, "output": text, "seconds": 1.0, "finished_at": 1.0})
    out = tmp_path / "generic"
    assert main(["eval", "seal-filter", "--run", str(tmp_path / "run"), "--out", str(out),
                 "--generic-values"]) == 0  # fmt: skip
    records = read_records(out / "predictions.jsonl")
    restored = [g for r in records for g in r["generic_values"] if "ref" in g]
    right = 0  # the previous call's first response is the gold reference (54 of the 70)
    for ex, rec in zip(examples, records):
        for g, o in zip(official_parse(ex.metadata["target"]), json.loads(rec["output"])):
            right += sum(o["parameters"].get(k) == v for k, v in g["parameters"].items()
                         if isinstance(v, str) and v.startswith("API_call_"))  # fmt: skip
    assert refs == 70 and right >= 50
    scores = json.loads((out / "scores.json").read_text())
    assert scores["tool_filter"]["values_generic"] >= len(restored)
    assert json.loads((out / "config.json").read_text())["generic_values"] is True
    assert compare(out) == []
    assert "generic values taken" in capsys.readouterr().err


def test_multi_call_agent_reads_the_previous_response_instead_of_a_name():
    from toollearn.agents import MultiCallAgent
    from toollearn.engines import ScriptedEngine

    generated = [
        {"api": "getBuildingCode", "parameters": {"country": "France"},
         "responses": ["API_call_0"]},
        {"api": "getBuildingHumidity", "parameters": {"building_id": "the building"},
         "responses": ["API_call_1"]},
    ]  # fmt: skip
    agent = MultiCallAgent(ScriptedEngine([json.dumps(generated)]), execute=False,
                           generic_values=True)  # fmt: skip
    trace = agent.run("Get France's building code, then the humidity of that building.", TOOLS)
    step = trace.steps[0]
    assert step.data["generic_values"][0]["ref"] == "API_call_0"
    assert step.calls[1].arguments["building_id"].id == "API_call_0"  # a nested reference
    assert trace.meta["generic_values"] is True
