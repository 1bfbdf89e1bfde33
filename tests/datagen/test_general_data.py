"""`datagen general`: every kind of the general suite, rendered as the server renders it,
schema variety that renames consistently, imports, and the held-out checks."""

from __future__ import annotations

import json
import random

import pytest

from toollearn.core.types import ToolCall
from toollearn.data.registry import sample_root
from toollearn.datagen.dataset import Generated
from toollearn.datagen.general import DEFAULT_MIX, benchmark_exclusions, generate_general, render
from toollearn.datagen.general_import import glaive, toolrl
from toollearn.datagen.general_sources import load_sources, tool_phrase, tools_phrase
from toollearn.datagen.leakage import default_exclusions, leakage_report
from toollearn.datagen.schema_variety import (
    Conversation,
    as_enum,
    date_in_words,
    masked,
    number_in_words,
    restyled,
    styled,
)
from toollearn.formats.answers import tool_calls

TOOL = {"type": "function", "function": {
    "name": "book_table", "description": "Book a table at a restaurant.",
    "parameters": {"type": "object", "properties": {
        "restaurantName": {"type": "string"}, "date": {"type": "string"},
        "guests": {"type": "integer"},
        "seating": {"type": "string", "description": "Where to sit (e.g., outdoor terrace, "
                    "main hall, bar counter)"}},
        "required": ["restaurantName", "date"]}}}  # fmt: skip


def _conv(query, args, history=()):
    return Conversation([json.loads(json.dumps(TOOL))], [*history, {"role": "user",
                        "content": query}], [ToolCall("book_table", args)], queries=[query],
                        names=["book_table"])  # fmt: skip


def test_naming_styles():
    assert [styled("getFilmDetails", s) for s in ("snake", "camel", "pascal", "dotted")] == [
        "get_film_details",
        "getFilmDetails",
        "GetFilmDetails",
        "film.get_details",
    ]
    assert styled("search", "dotted") == "tools.search" and styled("HTTPStatus", "snake") == (
        "http_status"
    )


def test_renames_reach_tools_calls_and_history():
    history = [{"role": "user", "content": "earlier"}, {"role": "assistant", "content": None,
               "tool_calls": [{"id": "call_0", "type": "function", "function": {
                   "name": "book_table", "arguments": '{"restaurantName": "Roma"}'}}]},
               {"role": "tool", "tool_call_id": "call_0", "content": "{}"}]  # fmt: skip
    conv = _conv("Book Nopa for 2026-03-03.", {"restaurantName": "Nopa", "date": "2026-03-03"},
                 history)  # fmt: skip
    out = restyled(conv, "dotted")
    fn = out.tools[0]["function"]
    assert fn["name"] == "table.book" and "restaurant_name" in fn["parameters"]["properties"]
    assert fn["parameters"]["required"] == ["restaurant_name", "date"]
    assert out.calls[0] == ToolCall("table.book", {"restaurant_name": "Nopa", "date": "2026-03-03"})
    call = out.messages[1]["tool_calls"][0]["function"]
    assert call["name"] == "table.book" and json.loads(call["arguments"]) == {
        "restaurant_name": "Roma"
    }
    hidden = masked(conv, random.Random(0))
    name = hidden.tools[0]["function"]["name"]
    assert name.startswith("fn_") and hidden.calls[0].name == name
    assert hidden.messages[1]["tool_calls"][0]["function"]["name"] == name
    assert conv.tools[0]["function"]["name"] == "book_table"  # the original is untouched


def test_value_formats():
    rng = random.Random(0)
    conv = _conv("Book Nopa on 2026-03-03 for 4 guests at the outdoor terrace.",
                 {"restaurantName": "Nopa", "date": "2026-03-03", "guests": 4,
                  "seating": "outdoor terrace"})  # fmt: skip
    dated = date_in_words(conv, rng)
    assert "2026-03-03" not in dated.messages[-1]["content"] and "March" in dated.queries[0]
    assert dated.calls[0].arguments["date"] == "2026-03-03"
    assert (
        "YYYY-MM-DD"
        in dated.tools[0]["function"]["parameters"]["properties"]["date"]["description"]
    )
    assert "YYYY" not in conv.tools[0]["function"]["parameters"]["properties"]["date"].get(
        "description", ""
    )  # copied, not changed in place
    worded = number_in_words(conv, rng)
    assert (
        "four guests" in worded.messages[-1]["content"] and worded.calls[0].arguments["guests"] == 4
    )
    enum = as_enum(conv, random.Random(1))
    spec = enum.tools[0]["function"]["parameters"]["properties"]["seating"]
    value = enum.calls[0].arguments["seating"]
    assert value in spec["enum"] and len(spec["enum"]) == 3 and "e.g." not in spec["description"]
    assert date_in_words(_conv("Book Nopa.", {"restaurantName": "Nopa", "date": "soon"}),
                         rng) is None  # fmt: skip


def test_render_is_the_servers_prompt():
    from toollearn.serve.chat import parse_request

    conv = _conv("Book Nopa for 2026-03-03.", {"date": "2026-03-03", "restaurantName": "Nopa"})
    conv.messages.insert(0, {"role": "system", "content": "Be brief."})
    sample = render(conv, "formats", "0")
    job = parse_request({"messages": conv.messages, "tools": conv.tools}, "x", 4096)
    assert list(sample.messages) == job.messages and "Be brief." in sample.messages[0].content
    # arguments in the schema's order, as the grammar writes them
    assert sample.target == ('[{"name": "book_table", "arguments": {"restaurantName": "Nopa", '
                             '"date": "2026-03-03"}}]')  # fmt: skip
    chat = render(Conversation([], [{"role": "user", "content": "hi"}], text="Hello!"), "chat", "1")
    assert chat.target == "Hello!" and chat.task == "chat" and len(chat.messages) == 1


def test_tool_phrases():
    from toollearn.core.types import Tool

    tools = [Tool("get_weather", "Get the current weather for a city. Uses metric units."),
             Tool("send_email", "Send an email (plain text)"), Tool("x_y", "")]  # fmt: skip
    assert tool_phrase(tools[0]) == "get the current weather for a city"
    assert tools_phrase(tools) == "get the current weather for a city, send an email and x y"
    assert tools_phrase(tools * 2, most=2).endswith("and more")


def test_imports_read_glaive_and_toolrl():
    record = {"tools": json.dumps([TOOL["function"]]), "conversations": [
        {"from": "human", "value": "Book Nopa for 2026-03-03."},
        {"from": "function_call", "value": json.dumps({"name": "book_table", "arguments": {
            "restaurantName": "Nopa", "date": "2026-03-03"}})},
        {"from": "observation", "value": '{"status": "booked"}'},
        {"from": "gpt", "value": "Your table at Nopa is booked."}]}  # fmt: skip
    first, second = glaive(record)
    assert first.meta["kind"] == "simple" and first.calls[0].arguments["restaurantName"] == "Nopa"
    assert second.meta["kind"] == "multi-turn" and second.text.startswith("Your table")
    assert second.messages[-1] == {"role": "tool", "tool_call_id": "call_0",
                                   "content": '{"status": "booked"}'}  # fmt: skip
    rl = {"instruction": 'Intro\n1. Name: f\nDescription: Does f.\nParameters: {"a": {"type": '
          '"List[int]", "description": "numbers"}, "b": {"type": "str, optional", "default": '
          '"x"}}\n\nrest',
          "input": "<user> Run f on 1 and 2. </user>",
          "output": '<think> ok </think>\n<tool_call>\n{"name": "f", "parameters": {"a": [1, 2]}}'
          '\n{"name": "f", "parameters": {"a": [3]}}\n</tool_call>'}  # fmt: skip
    [conv] = toolrl(rl)
    schema = conv.tools[0]["function"]["parameters"]
    assert schema["properties"]["a"] == {"type": "array", "items": {"type": "integer"},
                                         "description": "numbers"}  # fmt: skip
    assert schema["required"] == ["a"] and conv.meta["kind"] == "parallel"
    assert render(conv, "parallel", "0").target.count('"name": "f"') == 2


@pytest.fixture(scope="module")
def small_run():
    root = sample_root()
    from toollearn.evaluation.calls_suite import held_out

    ex = default_exclusions(root).merge(held_out()).merge(benchmark_exclusions())
    out = Generated()
    src = load_sources(root, ex, out)
    src.answers = {"What is a rainbow?": "Sunlight split into colours by raindrops.",
                   "Name a prime number.": "Seven is prime."}  # fmt: skip
    return generate_general(src, 150, seed=3, exclusions=ex, out=out), ex, src


def test_every_kind_rendered_and_clean(small_run):

    gen, ex, src = small_run
    kinds = {s.metadata["kind"] for s in gen.samples}
    assert kinds == set(DEFAULT_MIX), kinds
    assert leakage_report(gen.samples, ex)["clean"]
    for s in gen.samples:
        n = len(s.tools)
        assert n <= 20 and (n > 0) == (s.task == "tool-calls")
        answer = tool_calls.parse(s.target) if s.tools else None
        if s.metadata["kind"] in ("decline", "chit-chat", "chat", "missing"):
            assert answer is None or (answer.declined and answer.text)
        elif s.metadata["kind"] != "multi-turn":
            names = {t.name for t in s.tools}
            assert answer.calls and {c.name for c in answer.calls} <= names
    # the same seed gives the same samples
    assert json.dumps([s.to_dict() for s in gen.samples[:40]], sort_keys=True) == json.dumps(
        [s.to_dict() for s in generate_general(src, 150, seed=3, exclusions=ex).samples[:40]],
        sort_keys=True,
    )
    masked_or_styled = [s for s in gen.samples if s.metadata.get("masked") or
                        s.metadata.get("style")]  # fmt: skip
    assert masked_or_styled


def test_a_held_out_request_is_dropped(small_run):
    from dataclasses import replace

    _, ex, src = small_run
    src = replace(src, natural=src.natural[:1])
    query = src.natural[0].query
    ex2 = ex.merge(ex.__class__(queries=[query]))
    made = generate_general(src, 40, seed=1, mix={"simple": 1.0}, exclusions=ex2)
    assert all(query not in json.dumps(s.metadata["queries"]) for s in made.samples)
    assert any("held-out" in why for why in made.rejections)


def test_nested_objects_defaults_and_typed_arrays():
    from toollearn.core.types import Tool
    from toollearn.datagen.general_sources import typed_items
    from toollearn.datagen.schema_variety import nested_object, with_defaults

    args = {"restaurantName": "Nopa", "date": "2026-03-03", "guests": 4}
    out = nested_object(_conv("Book Nopa on 2026-03-03 for 4.", args), random.Random(2))
    schema = out.tools[0]["function"]["parameters"]
    [inner] = [k for k, v in schema["properties"].items() if v["type"] == "object"]
    moved = schema["properties"][inner]["properties"]
    assert set(out.calls[0].arguments[inner]) == set(moved) and 2 <= len(moved) <= 2
    assert {**{k: v for k, v in out.calls[0].arguments.items() if k != inner},
            **out.calls[0].arguments[inner]} == args  # fmt: skip
    defaulted = with_defaults(_conv("Book Nopa.", {"restaurantName": "Nopa", "date": "x"}),
                              random.Random(0))  # fmt: skip
    props = defaulted.tools[0]["function"]["parameters"]["properties"]
    assert "default" in props["guests"] and "default" in props["seating"]
    assert defaulted.calls[0].arguments == {"restaurantName": "Nopa", "date": "x"}
    tool = Tool("f", "", {"type": "object", "properties": {
        "tags": {"type": "array", "x-python-type": "List[str]"}}})  # fmt: skip
    assert typed_items(tool).properties["tags"]["items"] == {"type": "string"}


def test_datagen_general_command(tmp_path, capsys):
    """The CLI writes the data, its stats and a clean leakage report; imports are counted."""
    import gzip

    from toollearn.cli.main import main

    record = {"tools": json.dumps([TOOL["function"]]), "conversations": [
        {"from": "human", "value": "Could you reserve Nopa for the third of March 2026?"},
        {"from": "function_call", "value": json.dumps({"name": "book_table", "arguments": {
            "restaurantName": "Nopa", "date": "2026-03-03"}})}]}  # fmt: skip
    imported = tmp_path / "glaive.json.gz"
    imported.write_bytes(gzip.compress(json.dumps([record]).encode()))
    cache = tmp_path / "answers.jsonl"
    cache.write_text(json.dumps({"query": "unused", "answer": "x", "finish_reason": "stop",
                                 "engine": "test"}) + "\n")  # fmt: skip
    out = tmp_path / "data"
    assert main(["datagen", "general", "--data-root", str(sample_root()), "-n", "40",
                 "--answers-engine", "none", "--answers-cache", str(cache), "--no-tokens",
                 "--import", f"glaive={imported}", "--out", str(out)]) == 0  # fmt: skip
    stats = json.loads((out / "stats.json").read_text())
    leakage = json.loads((out / "leakage.json").read_text())
    assert leakage["clean"] and "BFCL evaluation requests" in " ".join(leakage["held_out"])
    assert stats["config"]["imports"]["glaive"]["samples"] == 1
    assert stats["by_kind"]["simple"] >= 1 and "chat" not in stats["by_kind"]  # no answers
    assert (out / "samples.md").is_file() and "samples in" in capsys.readouterr().out
