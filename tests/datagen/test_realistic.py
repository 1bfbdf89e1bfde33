"""Values by meaning, their written forms, the natural request writer and the one checker."""

from __future__ import annotations

import json
import random
import re

import pytest

from toollearn.core.types import Tool, ToolCall
from toollearn.datagen import spoken
from toollearn.datagen.checker import check
from toollearn.datagen.realistic import NoValue, fill_arguments, kind_of, value_for
from toollearn.datagen.requests import write_request
from toollearn.datagen.schema_variety import Conversation
from toollearn.formats.convert import read_tools
from toollearn.formats.openai_messages import openai_tool

TRAVEL = "examples/travel_tools.json"
FILES = (TRAVEL, "examples/office_tools.json", "examples/smart_home_tools.json")


def _tools(path: str) -> dict[str, Tool]:
    return {t.name: t for t in read_tools(path, "auto")}


def test_kinds_follow_what_parameters_say():
    hotel, money = _tools(TRAVEL)["book_hotel"], _tools(TRAVEL)["convert_currency"]
    assert kind_of("check_in", hotel.properties["check_in"], hotel).name == "date"
    assert kind_of("nights", hotel.properties["nights"], hotel).unit == "nights"
    assert kind_of("from_currency", money.properties["from_currency"], money).name == "currency"
    visa = _tools(TRAVEL)["get_visa_rules"]
    assert kind_of("citizenship", visa.properties["citizenship"], visa).name == "nationality"
    assert kind_of("x", {"type": "string"}, None) is None  # nothing says: no random token


@pytest.mark.parametrize("path", FILES)
def test_values_keep_formats_ranges_and_enums(path):
    from toollearn.datagen.checker import argument_faults

    for tool in _tools(path).values():
        for seed in range(30):
            rng = random.Random(seed)
            try:
                args = fill_arguments(tool, rng, p_optional=1.0)
            except NoValue:
                continue
            assert argument_faults(args, tool.parameters, tool.name) == []
            for v in args.values():
                assert not re.search(r"_[0-9a-f]{6}\b", json.dumps(v))


def test_nights_stay_in_the_stated_range_and_currencies_are_iso():
    hotel, money = _tools(TRAVEL)["book_hotel"], _tools(TRAVEL)["convert_currency"]
    for seed in range(50):
        assert (
            1 <= value_for("nights", hotel.properties["nights"], hotel, random.Random(seed)) <= 30
        )
        code = value_for("to_currency", money.properties["to_currency"], money,
                         random.Random(seed))  # fmt: skip
        assert re.fullmatch(r"[A-Z]{3}", code)


def test_written_forms_are_grounded():
    assert spoken.grounded(7, "staying a week in Rome")
    assert spoken.grounded("2026-08-03", "I get in on 3 August 2026")
    assert spoken.grounded("19:30", "at half past seven in the evening")
    assert spoken.grounded("GBP", "how much is that in pounds")
    assert spoken.grounded("JP", "visiting Japan", "country-code")
    assert not spoken.grounded("Lagos", "book a hotel in Toronto")
    assert not spoken.grounded(30, "with nights 3")


@pytest.mark.parametrize("path", FILES)
def test_requests_state_every_value_and_pass_the_checker(path):
    tools = _tools(path)
    passed = 0
    for seed in range(60):
        rng = random.Random(seed)
        tool = rng.choice(list(tools.values()))
        try:
            calls = [
                ToolCall(tool.name, fill_arguments(tool, rng)) for _ in range(rng.randint(1, 3))
            ]
        except NoValue:
            continue
        query, _ = write_request(calls, tools, rng)
        conv = Conversation([openai_tool(t) for t in tools.values()],
                            [{"role": "user", "content": query}], calls, "", [query])  # fmt: skip
        faults = check(conv)
        passed += not faults
        assert not any(f.startswith(("schema", "range", "format", "placeholder")) for f in faults)
    assert passed >= 50  # grounding holds for nearly every request


def test_parallel_values_are_enumerated_once():
    tools = _tools(TRAVEL)
    calls = [ToolCall("translate_phrase", {"text": "good night", "language": lang})
             for lang in ("Spanish", "German")]  # fmt: skip
    texts = {write_request(calls, tools, random.Random(s))[0] for s in range(20)}
    assert any("respectively" not in t and t.lower().count("good night") == 1 for t in texts)


def test_checker_rejects_what_no_person_would_write():
    tools = [openai_tool(_tools(TRAVEL)["book_hotel"])]

    def faults(query, args):
        return check(Conversation(tools, [{"role": "user", "content": query}],
                                  [ToolCall("book_hotel", args)], "", [query]))  # fmt: skip

    assert (
        faults(
            "Hotel in Toronto from 2026-05-03, 3 nights",
            {"city": "Toronto", "check_in": "2026-05-03", "nights": 3},
        )
        == []
    )
    assert faults("check in river", {"city": "Toronto", "check_in": "river", "nights": 3})[0] \
        .startswith("format")  # fmt: skip
    assert faults("with nights 177", {"city": "Oslo", "check_in": "2026-05-03", "nights": 177})[0] \
        .startswith("range")  # fmt: skip
    assert faults("Hotel in Oslo", {"city": "Lagos", "check_in": "2026-05-03", "nights": 3})[0] \
        .startswith("grounding")  # fmt: skip
    assert faults("city is city_9b8e9c on 2026-05-03 for 3 nights",
                  {"city": "city_9b8e9c", "check_in": "2026-05-03", "nights": 3})[0] \
        .startswith("placeholder")  # fmt: skip


def test_a_left_out_required_value_is_asked_for():
    from toollearn.datagen.requests import missing_request

    hotel = _tools(TRAVEL)["book_hotel"]
    call = ToolCall("book_hotel", {"city": "Rome", "check_in": "2026-05-03", "nights": 3})
    for seed in range(10):
        query, ask, param = missing_request(call, hotel, random.Random(seed))
        assert param in hotel.required and ask.endswith("?")
        left_out = call.arguments[param]
        assert not spoken.grounded(left_out, query) or param == "nights" and "3" in query


def test_tune_data_holds_every_kind_and_passes_the_checker(tmp_path):
    from toollearn.cli.main import main

    out = tmp_path / "mix"
    assert main(["datagen", "mixture", "--tools", TRAVEL, "-n", "300", "--out", str(out),
                 "--no-tokens"]) == 0  # fmt: skip
    records = [json.loads(line) for line in (out / "data.jsonl").open()]
    assert {r["kind"] for r in records} >= {"one", "parallel", "multi", "answer", "none", "missing"}
    from toollearn.datagen.quality import measure

    m = measure(records, n=200)
    assert m["rejected_pct"] == 0 and m["placeholder_pct"] == 0 and m["value_violations"] == 0
