"""Missing calls: a candidate some clause points at first that no call uses, asked of the model
on its own clauses (scripted answers for the logic, the shipped model for a real one)."""

from __future__ import annotations

import json

import pytest

from toollearn.agents.missing_calls import add_missing, missing_jobs, next_response_id
from toollearn.agents.tool_filter import ToolFilter, postprocess
from toollearn.core.types import Tool
from toollearn.engines import ScriptedEngine

WEATHER = Tool("getWeather", "Weather forecast of a city", {
    "type": "object", "required": ["city"],
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}})  # fmt: skip
FLIGHT = Tool("bookFlight", "Book a flight ticket to a destination city", {
    "type": "object", "required": ["destination"],
    "properties": {"destination": {"type": "string"}}})  # fmt: skip
STOCK = Tool(
    "getStockPrice",
    "Current price of a company's stock",
    {"type": "object", "required": ["ticker"], "properties": {"ticker": {"type": "string"}}},
)
TOOLS = [WEATHER, FLIGHT, STOCK]
OWN = "book a flight ticket to Rome."
QUERY = f"What is the weather forecast in Paris for 3 days? Then {OWN}"
OWNERS = {"getWeather": ["What is the weather forecast in Paris for 3 days?"],
          "bookFlight": [OWN], "getStockPrice": [OWN]}  # fmt: skip
SUPPORT = {"getWeather": 0.0, "bookFlight": 0.0, "getStockPrice": -0.3}
CALLS = [{"api": "getWeather", "parameters": {"city": "Paris", "days": 3},
          "responses": ["API_call_0", "API_call_1"]}]  # fmt: skip


def _flight(destination: str) -> str:
    return json.dumps([{"api": "bookFlight", "parameters": {"destination": destination},
                        "responses": ["API_call_0"]}])  # fmt: skip


def test_jobs_ask_for_clause_tools_no_call_uses():
    jobs = missing_jobs(CALLS, SUPPORT, OWNERS, TOOLS)
    assert [(j.tool.name, j.query, j.keys) for j in jobs] == [("bookFlight", OWN, ("destination",))]
    assert missing_jobs([*CALLS, json.loads(_flight("Rome"))[0]], SUPPORT, OWNERS, TOOLS) == []
    assert next_response_id(CALLS) == 2 and next_response_id([]) == 0


def test_add_missing_appends_the_call_with_the_next_response_ids():
    out, added = add_missing(ScriptedEngine([_flight("Rome")]), CALLS, SUPPORT, OWNERS, TOOLS)
    assert out[1] == {"api": "bookFlight", "parameters": {"destination": "Rome"},
                      "responses": ["API_call_2"]}  # fmt: skip
    assert added == [{"api": "bookFlight", "parameters": {"destination": "Rome"}, "clauses": OWN}]
    out, _ = add_missing(ScriptedEngine([_flight("Paris")]), CALLS, SUPPORT, OWNERS, TOOLS)
    assert out[1]["parameters"] == {}  # Paris is not in the flight's clause: the call, no value


def test_postprocess_adds_the_missing_call_with_the_models_answer():
    from toollearn.cli.common import load_engine_spec

    engine = load_engine_spec("tuned-papers", threads=1)
    steps = postprocess(json.dumps(CALLS), QUERY, TOOLS[:2], ToolFilter(None), False,
                        missing=engine)  # fmt: skip
    calls = json.loads(steps["output"])
    assert [c["api"] for c in calls] == ["getWeather", "bookFlight"]
    assert calls[1]["parameters"] == {"destination": "Rome"} and steps["added_calls"]
    with pytest.raises(ValueError, match="clauses"):
        postprocess(json.dumps(CALLS), QUERY, TOOLS, None, False, missing=engine)


def test_seal_filter_chains_missing_calls_onto_a_filtered_run(tmp_path, capsys):
    from toollearn.cli.main import main
    from toollearn.core.errors import DataError
    from toollearn.evaluation.metrics.seal_tools import official_parse
    from toollearn.evaluation.rescore import compare
    from toollearn.evaluation.runners.base import RunWriter, read_records
    from toollearn.evaluation.runners.seal_filter import filter_run
    from toollearn.evaluation.runners.seal_tools import load_prompts

    examples = [e for e in load_prompts("test_in_domain", sample=True) if len(e.calls) > 1][:4]
    outputs = [json.dumps(official_parse(e.metadata["target"])[:-1]) for e in examples]
    writer = RunWriter(tmp_path / "run", {"benchmark": "seal-tools", "split": "test_in_domain",
                                          "sample": True, "candidates": "paper"})  # fmt: skip
    for ex, text in zip(examples, outputs):
        writer.append({"id": ex.id, "output": text, "seconds": 1.0, "finished_at": 1.0})
    words, added = tmp_path / "words", tmp_path / "added"
    assert main(["eval", "seal-filter", "--run", str(tmp_path / "run"), "--out", str(words),
                 "--whole-words", "--iso-dates"]) == 0  # fmt: skip
    assert main(["eval", "seal-filter", "--run", str(words), "--out", str(added),
                 "--missing-calls", "tuned-papers", "--iso-dates"]) == 0  # fmt: skip
    records = read_records(added / "predictions.jsonl")
    assert sum(len(r["added_calls"]) for r in records) >= 2
    assert [r["unfiltered_output"] for r in records] == outputs  # as generated, not step 1's
    assert all("cut_values" in r for r in records)  # the first pass's records kept
    first = read_records(words / "predictions.jsonl")
    assert all(r["date_changes"][: len(f["date_changes"])] == f["date_changes"]
               for r, f in zip(records, first))  # both ISO passes' changes  # fmt: skip
    config = json.loads((added / "config.json").read_text())
    assert config["whole_words"] and config["missing_calls"]["engine"].startswith("llama:")
    assert config["filtered_from"] == str(words)
    assert compare(added) == []
    assert "calls added" in capsys.readouterr().err
    with pytest.raises(DataError, match="filtered already"):
        filter_run(words, tmp_path / "again", examples, None, whole_words=True)
