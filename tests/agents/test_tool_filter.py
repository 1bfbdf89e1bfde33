"""The tool filter with the embedded MiniLM: clause support, dropped calls, kept nested calls,
and `toollearn eval seal-filter` on a run of the bundled Seal-Tools sample."""

from __future__ import annotations

import json

import pytest

from toollearn.agents.tool_filter import ToolFilter, clauses
from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.core.types import Tool
from toollearn.evaluation.metrics.seal_tools import official_parse
from toollearn.evaluation.runners.base import RunWriter, read_records
from toollearn.evaluation.runners.seal_filter import filter_run
from toollearn.evaluation.runners.seal_tools import load_prompts


def _tool(name: str, desc: str, param: str) -> Tool:
    props = {param: {"type": "string", "description": param.replace("_", " ")}}
    return Tool(name, desc, {"type": "object", "properties": props, "required": [param]})


TOOLS = [
    _tool("getWeatherForecast", "Get the weather forecast for a city", "city"),
    _tool("bookFlight", "Book a flight ticket to a destination city", "destination"),
    _tool("getStockPrice", "Get the current price of a company's stock", "ticker"),
]
QUERY = "What will the weather be like in Paris tomorrow? Then book me a flight to Rome."


def _call(api: str, value: str, resp: str) -> dict:
    param = TOOLS[[t.name for t in TOOLS].index(api)].required[0]
    return {"api": api, "parameters": {param: value}, "responses": [resp]}


@pytest.fixture(scope="module")
def tool_filter():
    return ToolFilter(0.02)


def test_clauses_split_sentences_and_then():
    assert clauses(QUERY) == ["What will the weather be like in Paris tomorrow?",
                              "book me a flight to Rome."]  # fmt: skip
    assert clauses("Hi.") == ["Hi."]  # nothing long enough: the query itself


def test_support_names_each_clauses_tool(tool_filter):
    support = tool_filter.support(QUERY, TOOLS)
    assert support["getWeatherForecast"] == 0 and support["bookFlight"] == 0
    assert support["getStockPrice"] < -0.1


def test_owners_give_each_tool_its_clause(tool_filter):
    owners = tool_filter.owners(QUERY, TOOLS)
    assert owners["getWeatherForecast"] == ["What will the weather be like in Paris tomorrow?"]
    assert owners["bookFlight"] == ["book me a flight to Rome."]
    assert len(owners["getStockPrice"]) == 1  # no clause of its own: its closest one
    assert tool_filter.owners(QUERY, []) == {}


def test_filter_drops_the_unasked_tool_only(tool_filter):
    calls = [_call("getWeatherForecast", "Paris", "API_call_0"),
             _call("getStockPrice", "AAPL", "API_call_1"),
             _call("bookFlight", "Rome", "API_call_2")]  # fmt: skip
    res = tool_filter.filter_answer(json.dumps(calls), QUERY, TOOLS)
    assert [c["api"] for c in official_parse(res.output)] == ["getWeatherForecast", "bookFlight"]
    assert [c["api"] for c in res.dropped] == ["getStockPrice"]
    kept = json.dumps(calls[:1] + calls[2:])
    assert tool_filter.filter_answer(kept, QUERY, TOOLS).output == kept  # nothing to drop: as is


def test_filter_keeps_read_responses_and_one_call(tool_filter):
    nested = [_call("getStockPrice", "AAPL", "API_call_0"),
              _call("bookFlight", "API_call_0", "API_call_1")]  # fmt: skip
    res = tool_filter.filter_answer(json.dumps(nested), QUERY, TOOLS)
    assert res.dropped == []  # bookFlight reads the stock call's response
    lone = json.dumps([_call("getStockPrice", "AAPL", "API_call_0")])
    assert tool_filter.filter_answer(lone, QUERY, TOOLS).output == lone  # never an empty answer
    assert tool_filter.filter_answer("no calls here", QUERY, TOOLS).output == "no calls here"
    with pytest.raises(ValueError, match="margin"):
        ToolFilter(-0.1)


def _sample_run(path, examples, outputs):
    config = {"benchmark": "seal-tools", "split": "test_in_domain", "sample": True,
              "candidates": "paper"}  # fmt: skip
    writer = RunWriter(path, config)
    for ex, out in zip(examples, outputs):
        writer.append({"id": ex.id, "output": out, "seconds": 1.0, "finished_at": 1.0})
    return path


def test_seal_filter_cli_writes_a_rescorable_run(tmp_path, capsys):
    examples = load_prompts("test_in_domain", sample=True)[:3]
    gold = [ex.metadata["target"] for ex in examples]
    # each gold answer plus a call to a candidate that no gold call uses
    outputs = []
    for ex, target in zip(examples, gold):
        calls = official_parse(target)
        used = {c["api"] for c in calls}
        other = next(t for t in ex.tools if t.name not in used)
        outputs.append(json.dumps([*calls, {"api": other.name, "parameters": {}}]))
    src = _sample_run(tmp_path / "run", examples, outputs)
    out = tmp_path / "filtered"
    assert main(["eval", "seal-filter", "--run", str(src), "--out", str(out),
                 "--margin", "0.02"]) == 0  # fmt: skip
    records = read_records(out / "predictions.jsonl")
    assert [r["unfiltered_output"] for r in records] == outputs
    assert sum(len(r["dropped_calls"]) for r in records) >= 1
    config = json.loads((out / "config.json").read_text())
    assert config["tool_filter"]["margin"] == 0.02 and config["filtered_from"] == str(src)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["tool_filter"]["answers"] == 3
    from toollearn.evaluation.rescore import compare

    assert compare(out) == []  # rescored from the filtered answers, number for number
    with pytest.raises(DataError, match="filtered already"):
        filter_run(out, tmp_path / "again", examples, ToolFilter(0.02))
    assert "calls dropped" in capsys.readouterr().err
    dates = tmp_path / "dates"
    assert main(["eval", "seal-filter", "--run", str(src), "--out", str(dates), "--iso-dates"]) == 0
    config = json.loads((dates / "config.json").read_text())
    assert config["iso_dates"] is True and "tool_filter" not in config
    assert all("dropped_calls" not in r for r in read_records(dates / "predictions.jsonl"))
    with pytest.raises(SystemExit, match="--iso-dates"):
        main(["eval", "seal-filter", "--run", str(src), "--out", str(tmp_path / "none")])
    foreign = tmp_path / "foreign"  # the clauses without the call filter
    assert main(["eval", "seal-filter", "--run", str(src), "--out", str(foreign),
                 "--foreign-values", "all"]) == 0  # fmt: skip
    config = json.loads((foreign / "config.json").read_text())
    assert config["foreign_values"]["scope"] == "all" and "tool_filter" not in config
    records = read_records(foreign / "predictions.jsonl")
    assert all("dropped_values" in r and "dropped_calls" in r for r in records)
    assert not any(r["dropped_calls"] for r in records)  # a None margin drops no call
    assert compare(foreign) == []


def test_multi_call_agent_runs_only_the_kept_calls(tool_filter):
    from toollearn.agents import MultiCallAgent
    from toollearn.engines import ScriptedEngine

    calls = [_call("getWeatherForecast", "Paris", "API_call_0"),
             _call("getStockPrice", "AAPL", "API_call_1"),
             _call("bookFlight", "Rome", "API_call_2")]  # fmt: skip
    engine = ScriptedEngine([json.dumps(calls)])
    agent = MultiCallAgent(engine, tool_filter=tool_filter, iso_dates=True)
    trace = agent.run(QUERY, TOOLS)
    step = trace.steps[0]
    assert step.content == json.dumps(calls)  # the text as generated
    assert [c["api"] for c in step.data["dropped_calls"]] == ["getStockPrice"]
    assert step.data["date_changes"] == []
    assert [c.name for c in step.calls] == ["getWeatherForecast", "bookFlight"]
    ran = [s.calls[0].name for s in trace.steps if s.kind == "observation"]
    assert sorted(ran) == ["bookFlight", "getWeatherForecast"]
    assert trace.meta["tool_filter"]["margin"] == 0.02 and trace.meta["iso_dates"] is True


def test_multi_call_agent_drops_another_clauses_value(tool_filter):
    from toollearn.agents import MultiCallAgent
    from toollearn.engines import ScriptedEngine

    calls = [_call("getWeatherForecast", "Rome", "API_call_0"),
             _call("bookFlight", "Rome", "API_call_1")]  # fmt: skip
    agent = MultiCallAgent(ScriptedEngine([json.dumps(calls)]), execute=False,
                           tool_filter=ToolFilter(None), foreign_values="all")  # fmt: skip
    trace = agent.run(QUERY, TOOLS)
    step = trace.steps[0]
    assert step.data["dropped_values"] == [
        {"api": "getWeatherForecast", "parameter": "city", "value": "Rome"}
    ]
    assert [dict(c.arguments) for c in step.calls] == [{}, {"destination": "Rome"}]
    assert trace.meta["foreign_values"] == "all" and "tool_filter" not in trace.meta
    with pytest.raises(ValueError, match="tool_filter"):
        MultiCallAgent(ScriptedEngine([]), foreign_values="all")


def test_pruned_candidates_are_offered_recorded_and_rescored(tmp_path, tool_filter):
    from toollearn.engines import ScriptedEngine
    from toollearn.evaluation.runners.seal_tools import (
        SealRunOptions,
        options_config,
        prune_candidates,
        run_examples,
        run_seal_tools,
    )

    examples = load_prompts("test_in_domain", sample=True)[:4]
    pruned = prune_candidates(examples, tool_filter)
    assert all(1 <= len(p.tools) <= len(e.tools) for p, e in zip(pruned, examples))
    assert sum(len(p.tools) for p in pruned) < sum(len(e.tools) for e in examples)
    for p in pruned:
        for t in p.tools:
            assert f'"{t.name}"' in p.metadata["prompt"] or t.name in p.metadata["prompt"]
    opts = SealRunOptions(constrained=False, prune_margin=0.02)
    config = {"benchmark": "seal-tools", "split": "test_in_domain", "sample": True,
              **options_config(opts)}  # fmt: skip
    assert config["prune_margin"] == 0.02
    engine = ScriptedEngine(lambda prompt: "[]")
    records = run_seal_tools(engine, pruned, RunWriter(tmp_path, config), opts)
    assert [r["candidates"] for r in records] == [[t.name for t in p.tools] for p in pruned]
    again = run_examples(config, records)
    assert [[t.name for t in e.tools] for e in again] == [[t.name for t in p.tools] for p in pruned]


def test_seal_filter_refills_cut_words_with_the_runs_own_model(tmp_path, capsys):
    from toollearn.cli.common import load_engine_spec
    from toollearn.evaluation.rescore import compare

    examples = load_prompts("test_in_domain", sample=True)[:6]
    outputs, cut = [], 0
    for ex in examples:  # the gold answer, each required string value cut to its first 2 chars
        calls = official_parse(ex.metadata["target"])
        for call in calls:
            tool = next(t for t in ex.tools if t.name == call["api"])
            for k, v in call["parameters"].items():
                if k in tool.required and isinstance(v, str) and len(v) > 3 and v in ex.query:
                    call["parameters"][k], cut = v[:2], cut + 1
        outputs.append(json.dumps(calls))
    assert cut >= 3
    src = _sample_run(tmp_path / "run", examples, outputs)
    out = tmp_path / "refilled"
    assert main(["eval", "seal-filter", "--run", str(src), "--out", str(out), "--whole-words",
                 "--refill", "tuned-papers"]) == 0  # fmt: skip
    records = read_records(out / "predictions.jsonl")
    assert sum(len(r["cut_values"]) for r in records) >= cut - 1  # "to" from "tomorrow" is whole
    assert sum(len(r["refilled_values"]) for r in records) >= 1
    config = json.loads((out / "config.json").read_text())
    assert config["whole_words"] is True and config["refill"]["constrained"] is True
    sessions = read_records(out / "sessions.jsonl")
    assert any("provenance" in s for s in sessions)  # refill's engine, recorded
    assert compare(out) == []
    assert "values refilled" in capsys.readouterr().err
    base_run = tmp_path / "base-run"
    _sample_run(base_run, examples, outputs)
    RunWriter(base_run, json.loads((base_run / "config.json").read_text())).record_engine(
        load_engine_spec("base", threads=1)
    )
    assert main(["eval", "seal-filter", "--run", str(base_run), "--out", str(tmp_path / "mixed"),
                 "--whole-words", "--refill", "tuned-papers"]) != 0  # fmt: skip
    assert "ask the model that wrote the answers" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="--refill"):
        main(["eval", "seal-filter", "--run", str(src), "--out", str(tmp_path / "r"),
              "--iso-dates", "--refill", "tuned-papers"])  # fmt: skip


def test_seal_filter_shards_merge_and_resume(tmp_path):
    from toollearn.evaluation.rescore import compare

    examples = load_prompts("test_in_domain", sample=True)[:5]
    outputs = [json.dumps(official_parse(ex.metadata["target"])) for ex in examples]
    src = _sample_run(tmp_path / "run", examples, outputs)
    args = ["eval", "seal-filter", "--run", str(src), "--iso-dates", "--whole-words"]
    assert main([*args, "--out", str(tmp_path / "whole")]) == 0
    for k in (1, 2):
        assert main([*args, "--shard", f"{k}/2", "--out", str(tmp_path / f"s{k}")]) == 0
    assert len(read_records(tmp_path / "s1" / "predictions.jsonl")) == 3
    assert json.loads((tmp_path / "s2" / "config.json").read_text())["shard"] == "2/2"
    merged = tmp_path / "merged"
    assert main(["runs", "merge", "--out", str(merged), str(tmp_path / "s1"),
                 str(tmp_path / "s2")]) == 0  # fmt: skip
    assert main([*args, "--out", str(merged)]) == 0  # nothing left to do: scores the whole
    whole = json.loads((tmp_path / "whole" / "scores.json").read_text())
    scores = json.loads((merged / "scores.json").read_text())
    assert scores["scores"]["official"] == whole["scores"]["official"]
    assert scores["tool_filter"]["answers"] == 5
    assert compare(merged) == []
    with pytest.raises(DataError, match="another config"):
        filter_run(src, merged, examples, None, dates=True)  # other settings: refused
