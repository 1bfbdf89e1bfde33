"""Dates copied in words, written as ISO 8601 (agents.date_values)."""

from __future__ import annotations

from toollearn.agents.date_values import iso_date, iso_dates, wants_words
from toollearn.core.types import Tool


def _tool(**descriptions: str) -> Tool:
    props = {k: {"type": "string", "description": v} for k, v in descriptions.items()}
    return Tool("bookRoom", "Book a room", {"type": "object", "properties": props})


def test_iso_date_reads_month_day_year_forms_only():
    assert iso_date("November 25, 2013") == "2013-11-25"
    assert iso_date("Nov 25th 2013") == "2013-11-25"
    assert iso_date("25 November 2013.") == "2013-11-25"
    assert iso_date("the 3rd of May, 2020") is None  # more than a date
    assert iso_date("October 1st") is None  # no year: not guessed
    assert iso_date("February 30, 2020") is None  # not a day
    assert iso_date("Maybe 12, 2020") is None and iso_date("2013-11-25") is None


def test_iso_dates_rewrites_unless_the_description_spells_words():
    tool = _tool(check_in="Check-in date", event_date="Date of the event (e.g., January 1st, 2022)")
    params = {"check_in": "November 25, 2013", "event_date": "March 2, 2017", "guests": 2}
    calls = [{"api": "bookRoom", "parameters": params, "responses": ["API_call_0"]}]
    out, changes = iso_dates(calls, [tool])
    assert out[0]["parameters"] == {"check_in": "2013-11-25", "event_date": "March 2, 2017",
                                    "guests": 2}  # fmt: skip
    assert out[0]["responses"] == ["API_call_0"]
    assert changes == [{"api": "bookRoom", "parameter": "check_in",
                        "from": "November 25, 2013", "to": "2013-11-25"}]  # fmt: skip
    assert calls[0]["parameters"]["check_in"] == "November 25, 2013"  # the input is not changed
    assert wants_words(tool, "event_date") and not wants_words(None, "check_in")
    assert iso_dates(["junk", {"api": "x"}], [tool]) == (["junk", {"api": "x"}], [])
