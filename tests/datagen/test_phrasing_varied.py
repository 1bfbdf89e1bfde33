"""The varied Seal-Tools query writer: dates in words (the call keeps ISO), quoted values,
description phrases; every instance still passes the generator's checks; a seed reproduces it;
the plain templates are untouched."""

from __future__ import annotations

import json
import re

import pytest

from toollearn.core.types import Tool, ToolCall
from toollearn.datagen.phrasing_varied import description_phrase, write_query_varied
from toollearn.datagen.seal import check_instance, generate_seal
from toollearn.datagen.values import date_words, spoken_forms

BOOK = Tool(
    "bookMeetingRoom", "Books a meeting room for a date",
    {"type": "object", "properties": {
        "room_name": {"type": "string", "description": "The name of the room (e.g., Atlas)"},
        "date": {"type": "string", "description": "The date of the meeting (e.g., 2022-05-01)"},
        "attendees": {"type": "integer", "description": "Enter the number of people"}},
     "required": ["room_name", "date"]},
    {"booking_id": {"type": "string", "description": "the booking"}},
    category="Office/Rooms",
)  # fmt: skip
CANCEL = Tool(
    "cancelBooking", "Cancels a room booking",
    {"type": "object", "properties": {
        "booking_id": {"type": "string", "description": "The booking to cancel (e.g., B12)"}},
     "required": ["booking_id"]},
    {"status": {"type": "string", "description": "cancelled or not"}},
    category="Office/Rooms",
)  # fmt: skip
ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def test_dates_in_words_and_the_forms_the_check_accepts():
    assert date_words("2022-05-01") == ["May 1, 2022", "1 May 2022", "May 1st, 2022"]
    assert date_words("2021-11-23")[2] == "November 23rd, 2021"
    assert date_words("2022-13-01") == [] and date_words(20220501) == []
    assert spoken_forms(3.5) == ["3.5"] and spoken_forms(True) == ["yes"]
    call = [ToolCall("bookMeetingRoom", {"room_name": "Atlas", "date": "2022-05-01"},
                     responses=("API_call_0",))]  # fmt: skip
    tools = {"bookMeetingRoom": BOOK}
    assert check_instance("Book Atlas on May 1st, 2022.", call, tools) == ""
    assert check_instance("Book Atlas on 2022-05-01.", call, tools) == ""
    assert check_instance("Book Atlas in May.", call, tools) == "value not in query"


def test_description_phrases_are_noun_phrases_or_nothing():
    assert description_phrase(BOOK.properties["room_name"]) == "name of the room"
    assert description_phrase(BOOK.properties["attendees"]) == ""  # an instruction
    assert description_phrase({"description": " ".join(["word"] * 9)}) == ""
    assert description_phrase(None) == ""


def test_varied_instances_pass_the_checks_and_differ_from_the_plain_ones():
    gen = generate_seal([BOOK, CANCEL], 80, seed=0, writer=write_query_varied,
                        mix={"single": 0.5, "nested": 0.5})  # fmt: skip
    assert gen.config["writer"] == "templates-varied" and len(gen.samples) == 80
    in_words = quoted = 0
    for sample in gen.samples:
        query = sample.metadata["query"]
        target = json.loads(sample.target)
        dates = [c["parameters"]["date"] for c in target if "date" in c["parameters"]]
        assert all(ISO.fullmatch(d) for d in dates)  # the call keeps ISO
        in_words += any(d not in query and any(w in query for w in date_words(d)) for d in dates)
        quoted += "'" in query or '"' in query
    assert in_words >= 20 and quoted >= 10
    again = generate_seal([BOOK, CANCEL], 80, seed=0, writer=write_query_varied,
                          mix={"single": 0.5, "nested": 0.5})  # fmt: skip
    assert [s.metadata["query"] for s in again.samples] == [
        s.metadata["query"] for s in gen.samples
    ]
    plain = generate_seal([BOOK, CANCEL], 80, seed=0, mix={"single": 0.5, "nested": 0.5})
    assert plain.config["writer"] == "templates"
    for sample in plain.samples:  # the plain templates state every value as the call writes it
        query = sample.metadata["query"]
        assert "'" not in query and not any(m in query for m in ("May ", "June ", "March "))


def test_cli_datagen_seal_phrasing(tmp_path):
    from toollearn.cli.main import main

    out = tmp_path / "seal"
    assert main(["datagen", "seal", "--tools", "examples/home_tools.json", "-n", "20", "--out",
                 str(out), "--no-tokens", "--phrasing", "varied"]) == 0  # fmt: skip
    assert json.loads((out / "stats.json").read_text())["config"]["writer"] == "templates-varied"
    with pytest.raises(SystemExit):
        main(["datagen", "seal", "--tools", "examples/home_tools.json", "-n", "2", "--out",
              str(out), "--phrasing", "varied", "--teacher", "scripted"])  # fmt: skip
