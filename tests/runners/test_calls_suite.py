"""The general suite (`toollearn eval calls`): what ships, how it is built, and the runner in
process and through `toollearn serve` with the official openai client."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from toollearn.cli.main import main
from toollearn.engines.scripted import ScriptedEngine
from toollearn.evaluation.calls_suite import CATEGORIES, SUITE, load_suite
from toollearn.evaluation.runners.calls import in_process, rescore, run_suite


def test_the_shipped_suite_has_every_category_and_consistent_items():
    test, dev = load_suite("test"), load_suite("dev")
    counts = Counter(it.category for it in test.items)
    assert len(test.items) >= 800 and set(counts) == set(CATEGORIES)
    assert min(counts.values()) >= 100, counts
    assert len(dev.items) >= 400 and set(it.category for it in dev.items) == set(CATEGORIES)
    for suite in (test, dev):
        assert len({it.id for it in suite.items}) == len(suite.items)
        for it in suite.items:
            names = [t["function"]["name"] for t in suite.shown(it)]
            assert len(set(names)) == len(names), it.id  # a request never repeats a name
            assert all(c.name in names for c in it.calls), it.id
            assert it.calls or it.reply, it.id  # a no-call item asks for a reply
            assert (it.category == "chat") == (not it.tools), it.id
    quick = load_suite("test", quick=True)
    assert Counter(it.category for it in quick.items) == {c: 20 for c in CATEGORIES}
    # no query of the test split is a dev query
    assert not {it.query() for it in test.items} & {it.query() for it in dev.items}


def test_the_shipped_files_are_the_ones_build_json_records():
    record = json.loads((SUITE / "build.json").read_text())
    for name, digest in record["sha256"].items():
        assert hashlib.sha256((SUITE / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.shared
@pytest.mark.slow
def test_the_suite_is_rebuilt_byte_for_byte_from_its_seed(shared_data, tmp_path):
    assert main(["datagen", "suite", "--data-root", str(shared_data), "--seed", "0",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    for name in ("tools.json", "test.jsonl", "dev.jsonl", "quick.json", "build.json"):
        assert (tmp_path / name).read_bytes() == (SUITE / name).read_bytes(), name


def _oracle(suite):
    """A scripted engine answering each item's prompt with its gold answer in the general
    format (calls as a JSON list, `[]` plus a reply naming the first mention otherwise)."""
    from toollearn.core.types import ToolCall
    from toollearn.formats.answers import tool_calls
    from toollearn.serve.chat import parse_request

    answers = {}
    for it in suite.items:
        job = parse_request(suite.request(it), "m", 4096)
        key = json.dumps([m.to_dict() for m in job.messages])
        if it.calls:
            text = tool_calls.render_calls([ToolCall(c.name, c.arguments) for c in it.calls])
        else:
            reply = f"Here you are: {(it.mentions or it.answers or ('fine',))[0]}."
            text = tool_calls.render_target([], [], reply) if it.tools else reply
        answers[key] = text
    return ScriptedEngine(lambda prompt: answers[json.dumps([m.to_dict() for m in prompt])])


def test_gold_answers_score_full_marks_in_process(tmp_path):
    suite = load_suite("dev", quick=True)
    scores = run_suite(suite, in_process(_oracle(suite)), tmp_path / "run", {"t": 1})
    assert scores["all"]["n"] == len(suite.items)
    for category, s in scores.items():
        assert s["exact"] == 100.0 and s["markup"] == 0.0, (category, s)
    # resumed: nothing is asked again, the same scores
    again = run_suite(suite, in_process(ScriptedEngine([])), tmp_path / "run", {"t": 1})
    assert again == scores


def test_wrong_answers_score_zero_and_rescoring_reads_the_records(tmp_path):
    suite = load_suite("dev", quick=True, categories=["simple", "decline", "chat"])
    engine = ScriptedEngine(lambda prompt: "#Begin# Need to look up the API Pool. #SearchAPI#")
    scores = run_suite(suite, in_process(engine), tmp_path, {"t": 2})
    assert scores["simple"]["exact"] == 0.0 and scores["chat"]["markup"] == 100.0
    assert scores["decline"]["exact"] == 0.0  # a reply in DEER's markup is not a decline
    records = [json.loads(x) for x in (tmp_path / "predictions.jsonl").read_text().splitlines()]
    assert json.loads(json.dumps(_by(rescore(suite, records)))) == _by_scores(scores)


def test_scores_per_kind_split_each_category(tmp_path, capsys):
    from toollearn.evaluation.calls_suite import by_kind

    suite = load_suite("dev", quick=True, categories=["chit-chat", "multi-turn"])
    scores = run_suite(
        suite, in_process(_oracle(suite)), tmp_path / "run", {"benchmark": "calls", "split": "dev"}
    )
    records = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").open()]
    kinds = by_kind(rescore(suite, records))
    keys = [k for k in kinds if k != "all"]
    assert keys == sorted(keys, key=lambda k: (CATEGORIES.index(k.split("/")[0]), k))
    assert {k.split("/")[0] for k in keys} == {"chit-chat", "multi-turn"}
    for category in ("chit-chat", "multi-turn"):  # the kinds' counts add up to the category's
        assert (
            sum(s["n"] for k, s in kinds.items() if k.startswith(category + "/"))
            == (scores[category]["n"])
        )
    assert main(["report", "calls", str(tmp_path / "run"), "--by-kind"]) == 0
    assert "| exact | chit-chat/" in capsys.readouterr().out


def _by(rows):
    from toollearn.evaluation.calls_suite import by_category

    return by_category(rows)


def _by_scores(scores):
    return json.loads(json.dumps(scores))


def test_the_served_path_gives_the_in_process_records(tmp_path):
    """The same scripted model in process and behind `toollearn serve` (openai client)."""
    pytest.importorskip("openai")
    from toollearn.evaluation.runners.calls import over_http
    from toollearn.serve.app import BackgroundServer, ServerConfig

    suite = load_suite("dev", quick=True, categories=["parallel", "multi-turn", "chit-chat"])
    local = run_suite(suite, in_process(_oracle(suite)), tmp_path / "local", {"t": 3})
    with BackgroundServer(_oracle(suite), ServerConfig(model_id="oracle")) as server:
        answer, model = over_http(server.url)
        served = run_suite(suite, answer, tmp_path / "served", {"t": 3})
    assert model == "oracle" and served == local


def test_eval_calls_cli_reports_each_category(tmp_path, capsys, monkeypatch):
    import toollearn.cli.eval_calls as cli

    suite = load_suite("dev", quick=True, categories=["formats"])
    monkeypatch.setattr(cli, "load_engine_spec", lambda *a, **k: _oracle(suite))
    assert main(["eval", "calls", "--split", "dev", "--quick", "--category", "formats",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "formats" in out and "100.0" in out
    assert main(["score", "--run", str(tmp_path), "--check"]) == 0
    capsys.readouterr()
    assert main(["report", "calls", str(tmp_path), "--label", "oracle"]) == 0
    table = capsys.readouterr().out
    assert "| exact | formats (20) | all (20) |" in table and "| oracle | 100.0 | 100.0 |" in table


@pytest.mark.model
def test_the_embedded_model_through_the_suite(tmp_path):
    """The real model on a few quick items: every answer is read and scored, none fails."""
    from toollearn.engines import load_engine

    suite = load_suite("dev", quick=True)
    suite.items = [it for it in suite.items if it.category in ("simple", "chat")][:6]
    scores = run_suite(suite, in_process(load_engine("tuned", n_threads=2)), tmp_path, {"t": 4},
                       max_tokens=48)  # fmt: skip
    assert scores["all"]["n"] == 6 and scores["all"]["format"] > 0


def test_a_gated_run_reuses_the_answers_the_gate_would_not_change(tmp_path):
    from types import SimpleNamespace

    from toollearn.core.errors import DataError
    from toollearn.evaluation.runners.calls import gate_keeps, reusable

    suite = load_suite("dev", quick=True, categories=["simple", "decline"])
    oracle = _oracle(suite)
    first = run_suite(suite, in_process(oracle), tmp_path / "plain", {"t": 4}, oracle)
    (tmp_path / "plain" / "config.json").write_text(json.dumps({"max_tokens": 256}))
    reuse = reusable(suite, tmp_path / "plain", oracle, 256)
    assert len(reuse) == len(suite.items)
    again = run_suite(suite, in_process(ScriptedEngine([]), reuse=reuse), tmp_path / "again",
                      {"t": 4})  # fmt: skip  # nothing generated: every answer reused
    assert again == first
    records = [json.loads(x) for x in (tmp_path / "again" / "predictions.jsonl").read_text()
               .splitlines()]  # fmt: skip
    assert all(r["raw"]["reused"] == r["id"] for r in records)
    call, reply = '[{"name": "f", "arguments": {}}]', "[]\nNo tool fits."
    for decision, text, keeps in [
        (None, call, True),
        ("no call", reply, True),
        ("no call", call, False),
        ("sure call", call, True),
        ("sure call", reply, False),
        ("sure call", '[{"na', False),
    ]:
        worker = SimpleNamespace(decide=lambda job, d=decision: d)
        assert gate_keeps(worker, None, text) is keeps, (decision, text)
    (tmp_path / "plain" / "config.json").write_text(json.dumps({"max_tokens": 64}))
    with pytest.raises(DataError, match="cannot be reused"):
        reusable(suite, tmp_path / "plain", oracle, 256)


def _tool(name, prop):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {
                "type": "object",
                "properties": {prop: {"type": "string"}},
                "required": [prop],
            },
        },
    }


def test_the_call_plan_narrows_each_turn_as_run_does():
    from toollearn.agents.clause_plan import Plan
    from toollearn.serve.app import ServerConfig, Worker
    from toollearn.serve.chat import parse_request

    raw = [_tool("get_weather", "city"), _tool("convert", "amount"), _tool("translate", "text")]

    class Planner:  # the plan a sentence encoder would read off the query
        def __init__(self, plan):
            self.made = plan

        def plan(self, query, shown):
            return self.made

    def plan_turn(body, mode, planner, decision=None):
        worker = Worker(ScriptedEngine([]), ServerConfig(plan=(mode, planner), batch=False))
        return worker.plan_turn(parse_request(body, "toollearn", 256), decision)

    two = Planner(Plan(["get_weather", "convert"]))
    first = [{"role": "user", "content": "Weather in Oslo, then convert 5 USD to EUR."}]
    offered, _ = plan_turn({"messages": first, "tools": raw}, "due", two)
    assert [t.name for t in offered] == ["get_weather"]
    offered, _ = plan_turn({"messages": first, "tools": raw}, "order", two)
    assert [t.name for t in offered] == ["get_weather", "translate"]  # no later step first
    assert plan_turn({"messages": first, "tools": raw}, "due", two, "no call") is None  # gate
    call = {"id": "c1", "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}  # fmt: skip
    after = [*first, {"role": "assistant", "content": None, "tool_calls": [call]},
             {"role": "tool", "tool_call_id": "c1", "content": "4 C"}]  # fmt: skip
    offered, _ = plan_turn({"messages": after, "tools": raw}, "due", two)
    assert [t.name for t in offered] == ["convert"]  # the next request's tool is due
    one = Planner(Plan(["get_weather"]))
    assert plan_turn({"messages": after, "tools": raw}, "due", one) is None  # free again
    assert plan_turn({"messages": after, "tools": raw}, "due-reply", one)[0] == []  # the reply
    offered, _ = plan_turn({"messages": first, "tools": raw}, "due-reply", two)
    assert [t.name for t in offered] == ["get_weather"]  # due as with "due" before that
    unfit = Planner(Plan(["get_weather"], unfit="then book a flight"))
    assert plan_turn({"messages": after, "tools": raw}, "due", unfit)[0] == []  # reply
    required = {"messages": first, "tools": raw, "tool_choice": "required"}
    assert plan_turn(required, "due", two) is None  # only where the model may choose
    # in process: the narrowed turn is answered anew and recorded with what it could call
    engine = ScriptedEngine(['[{"name": "get_weather", "arguments": {"city": "Oslo"}}]'])
    answer = in_process(engine, plan=("due", two))
    message, record = answer({"messages": first, "tools": raw})
    assert record["plan"] == ["get_weather"]
    assert message["tool_calls"][0]["function"]["name"] == "get_weather"
