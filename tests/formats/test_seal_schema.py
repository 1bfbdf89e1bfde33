"""Seal-Tools tool JSON <-> Tool: exact round trip, oddities kept, broken input rejected."""

from __future__ import annotations

import json

import pytest

from toollearn.core.errors import SchemaError
from toollearn.data.registry import sample_root
from toollearn.formats.schemas.seal_tools import tool_from_seal, tool_to_seal

# The first record of Seal-Tools' tool.jsonl (commit ce753ec), verbatim.
REAL = json.loads(
    '{"api_name": "analyzeEvidence", "api_description": "Analyze the chemical evidence collected '
    'from a crime scene", "field": "Chemical Engineering/Forensic engineering", "parameters": '
    '{"evidence_type": {"type": "str", "description": "The type of evidence to be analyzed (e.g., '
    'DNA, fingerprints, blood, fibers)"}, "method": {"type": "str", "description": "The method or '
    'technique to be used for analysis (e.g., spectroscopy, chromatography, microscopy)"}, '
    '"sample": {"type": "str", "description": "The sample or specimen to be analyzed (e.g., crime '
    'scene swab, hair strand, fabric sample)"}}, "required": ["evidence_type", "method", '
    '"sample"], "responses": {"analysis_results": {"type": "str", "description": "The results of '
    'the chemical analysis of the evidence"}, "conclusion": {"type": "str", "description": "The '
    'conclusion drawn from the analysis"}}}'
)


def test_real_tool_maps_to_json_schema_and_back():
    tool = tool_from_seal(REAL)
    assert tool.name == "analyzeEvidence"
    assert tool.category == "Chemical Engineering/Forensic engineering"
    assert tool.param_type("method") == "string"
    assert tool.required == ["evidence_type", "method", "sample"]
    assert list(tool.responses) == ["analysis_results", "conclusion"]
    assert json.dumps(tool_to_seal(tool)) == json.dumps(REAL)


def test_types_extra_keys_and_unknown_types_are_kept():
    rec = {
        "api_name": "f",
        "api_description": "d",
        "field": "A/B",
        "parameters": {
            "n": {"type": "int", "description": "x", "unit": "kg"},
            "ok": {"type": "bool", "description": "y"},
            "when": {"type": "datetime", "description": "z"},
        },
        "required": ["n", "ghost"],
        "responses": {"r": {"type": "float", "description": "v", "example": 1.5}},
        "example": {"n": 1},
    }
    tool = tool_from_seal(rec)
    assert tool.param_type("n") == "integer" and tool.param_type("ok") == "boolean"
    assert tool.properties["when"]["x-seal-type"] == "datetime"
    assert tool.responses["r"]["type"] == "number"
    assert tool.metadata["seal_extra"] == {"example": {"n": 1}}
    assert json.dumps(tool_to_seal(tool)) == json.dumps(rec)


@pytest.mark.parametrize(
    "broken, message",
    [
        ({"api_description": "no name", "parameters": {}}, "lacks the key 'api_name'"),
        ({"api_name": "f", "parameters": []}, "'parameters' must be dict"),
        ({"api_name": "f", "parameters": {}, "required": "a"}, "'required' must be a list"),
        ({"api_name": "f", "parameters": {"a": "str"}}, "parameter f.a must be an object"),
        ({"api_name": "f", "parameters": {}, "responses": []}, "'responses' must be an object"),
        ({"api_name": " ", "parameters": {}}, "empty name"),
        (["not", "a", "dict"], "must be a JSON object"),
    ],
)
def test_broken_seal_tools_are_rejected(broken, message):
    with pytest.raises(SchemaError, match=message):
        tool_from_seal(broken)


def test_bundled_sample_tools_round_trip_exactly():
    lines = (sample_root() / "seal-tools" / "tool.jsonl").read_text().splitlines()
    assert len(lines) > 300
    for line in lines:
        rec = json.loads(line)
        assert json.dumps(tool_to_seal(tool_from_seal(rec))) == json.dumps(rec)


@pytest.mark.shared
def test_all_4076_real_tools_round_trip_exactly_and_oddities_are_counted(seal_dir):
    oddities = {"extra_top": 0, "param_extra": 0, "resp_extra": 0, "odd_type": 0, "req_ghost": 0}
    lines = (seal_dir / "tool.jsonl").read_text().splitlines()
    assert len(lines) == 4076
    for line in lines:
        rec = json.loads(line)
        tool = tool_from_seal(rec)
        assert json.dumps(tool_to_seal(tool), ensure_ascii=False) == json.dumps(
            rec, ensure_ascii=False
        )
        oddities["extra_top"] += "seal_extra" in tool.metadata
        specs = list(tool.properties.values())
        oddities["param_extra"] += sum(bool(set(p) - {"type", "description"}) for p in specs)
        oddities["resp_extra"] += sum(
            bool(set(p) - {"type", "description"}) for p in tool.responses.values()
        )
        oddities["odd_type"] += sum("x-seal-type" in p for p in specs)
        oddities["req_ghost"] += sum(r not in tool.properties for r in tool.required)
    # Measured on commit ce753ec: one tool has a top-level "example"; 93 parameters and 38
    # responses carry extra keys (example/examples/unit/default/choices/...); all types are
    # str/int/float/bool and every required name is a parameter.
    assert oddities == {
        "extra_top": 1,
        "param_extra": 93,
        "resp_extra": 38,
        "odd_type": 0,
        "req_ghost": 0,
    }
