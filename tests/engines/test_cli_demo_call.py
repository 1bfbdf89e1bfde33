"""`toollearn demo`, `toollearn call` and `toollearn eval seal-tools` on the embedded model."""

from __future__ import annotations

import json

import pytest

from toollearn.cli.main import main
from toollearn.cli.run import default_engine

pytestmark = pytest.mark.model

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "getWeather",
            "description": "Current weather of a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "city name"}},
                "required": ["city"],
            },
        },
    }
]


@pytest.fixture(autouse=True)
def _needs_llama():
    pytest.importorskip("llama_cpp")


def test_call_answers_in_the_general_format_by_default(tmp_path, capsys):
    from toollearn.formats.answers.tool_calls import parse

    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    assert main(["call", "Weather in Oslo?", "--tools", str(path), "--threads", "1"]) == 0
    answer = parse(capsys.readouterr().out)  # a call list, or [] and a reply: both well-formed
    for call in answer.calls:  # the grammar admits only the listed tool with a string city
        assert call.name == "getWeather" and isinstance(call.arguments["city"], str)


def test_call_declines_through_the_shipped_gate_unless_told_not_to(tmp_path, capsys):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    argv = ["call", "Write a short poem about the sea.", "--tools", str(path), "--threads", "1"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith("[]") and "the call gate declines" in err and "# no call" in err
    assert main([*argv, "--preset", "plain"]) == 0
    assert "the call gate" not in capsys.readouterr().err  # the model alone decides


def test_call_must_call_where_the_gate_is_sure_a_tool_fits(capsys):
    from pathlib import Path

    from toollearn.formats.answers.tool_calls import parse

    tools = Path(__file__).resolve().parents[2] / "examples" / "tools.json"
    argv = ["call", "Book a table for 4 at Chez Marie at 19:30.", "--tools", str(tools),
            "--threads", "1"]  # fmt: skip
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "the call gate is sure a listed tool fits (closest book_table" in err
    assert parse(out).calls  # the no-call answer was not on offer


def test_call_with_the_seal_tools_preset(tmp_path, capsys):
    """The Seal-Tools pipeline chosen on its dev split: the paper's prompt and call list, the
    candidates pruned, strings copied from the query, each tool once, the repairs after."""
    stock = {"type": "function", "function": {
        "name": "getStockPrice", "description": "Current price of a company's stock",
        "parameters": {"type": "object", "properties": {"ticker": {"type": "string"}},
                       "required": ["ticker"]}}}  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([*TOOLS, stock]))
    query = "What is the weather like in Oslo today?"
    argv = ["call", query, "--tools", str(path), "--threads", "1", "--preset", "seal-tools"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert [c["api"] for c in out] == ["getWeather"]  # one call: the tool is distinct
    city = out[0]["parameters"]["city"]
    assert city and city in query  # a span of the query, nothing invented
    assert "# not offered: getStockPrice" in captured.err  # pruned before generation


def test_the_general_commands_refuse_the_seal_tools_preset(capsys):
    assert main(["run", "Weather?", "--engine", "scripted", "--preset", "seal-tools"]) == 1
    assert "answers in the seal-tools format" in capsys.readouterr().err


def test_demo_shows_base_and_tuned_with_both_scorers(capsys):
    assert main(["demo", "-n", "1", "--max-tokens", "24", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "<seal-135m>[q8_0, prefill f16]" in out.splitlines()[0]  # its own adapter, merged
    for run in ("base free", "base constrained", "tuned-seal free", "tuned-seal constrained"):
        assert f"  {run:<18}: " in out
    assert "official" in out and "strict" in out and "hallucinated" in out
    assert f"Your own tools ({default_engine('tool-calls')}" in out and out.count("query: ") == 2
    # the apps: base and the apps adapter, each program executed and judged
    assert "[home-search] " in out and "[trip-booking] " in out
    assert out.count("  tuned-apps        : ") == 2 and out.count("  base              : ") == 2
    assert out.count("  -> ") == 4


def test_demo_with_the_base_model_alone(capsys):
    assert main(["demo", "-n", "1", "--max-tokens", "24", "--threads", "1",
                 "--model", "base", "--no-apps"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "tuned" not in out and f"  {'constrained':<18}: " in out
    assert "[home-search]" not in out


def test_eval_seal_tools_on_the_sample_writes_predictions_and_scores(tmp_path, capsys):
    args = [
        "eval",
        "seal-tools",
        "--sample",
        "--limit",
        "2",
        "--threads",
        "1",
        "--out",
        str(tmp_path / "run"),
    ]
    assert main(args) == 0
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())["scores"]
    assert scores["official"]["all"]["format_acc"] == 1.0
    assert scores["hallucinated_tools"] == {"official": 0, "strict": 0}
    assert len((tmp_path / "run" / "predictions.jsonl").read_text().splitlines()) == 2
    assert main(args) == 0  # resumes: nothing left to predict
    assert "official" in capsys.readouterr().out
