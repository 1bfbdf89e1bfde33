"""The program interpreter: allowed programs run, anything else is refused before running."""

from __future__ import annotations

import pytest

from toollearn.apps import HomeSearchApp, TripBookingApp, parse_program, run_program
from toollearn.core.errors import FormatError

HS_OK = """API.set_location("Pittsburgh")
API.set_buy_or_rent("buy")
API.set_num_beds(3)
API.search()"""


class Spy(HomeSearchApp):
    """Counts every API call that reaches the app."""

    seen: list[str] = []

    def invoke(self, name, args=(), kwargs=None):
        Spy.seen.append(name)
        return super().invoke(name, args, kwargs)


@pytest.mark.parametrize(
    "line",
    [
        "import os",
        "from os import system",
        "__import__('os').system('echo hi')",
        "API.__class__",
        "API.__dict__.clear()",
        "API.set_location.__globals__",
        "x = API.search",
        "open('/etc/passwd')",
        "print('hi')",
        "eval('1+1')",
        "API.set_num_beds(len('abc'))",
        "API.set_num_beds(1 + 2)",
        "API.set_location(__name__)",
        "API.set_location(f'{API}')",
        "API.set_num_beds(*[3])",
        "API.set_location(**{'value': 'x'})",
        "API.set_location('x').strip()",
        "API.not_a_function()",
        "for i in range(3): API.set_num_beds(i)",
        "def f(): pass",
        "lambda: 0",
        "API = 3",
        "x = [c for c in 'abc']",
        "API.set_location(value=Loc('x'))",
        "API.set_location(" + "[" * 300 + "]" * 300 + ")",
        "API.set_num_beds(10**9)",
        "API.set_location('a' if True else 'b')",
        "API.set_location(b'bytes')",
    ],
)
def test_disallowed_programs_are_rejected_before_running(line: str) -> None:
    Spy.seen = []
    program = f'API.set_location("Boston")\nAPI.set_buy_or_rent("buy")\n{line}\nAPI.search()'
    with pytest.raises(FormatError):
        parse_program(program, Spy)
    result = run_program(program, Spy)
    assert not result.executable and result.error_kind == "format"
    assert Spy.seen == []  # nothing reached the app


def test_allowed_program_runs_and_records_criteria() -> None:
    result = run_program(HS_OK, HomeSearchApp)
    assert result.executable, result.error
    assert result.criteria == {
        "location": "Pittsburgh",
        "buy_or_rent": "buy",
        "num_beds": 3,
        "min_price": 0,
        "min_square_feet": 0,
    }
    assert result.names == ["set_location", "set_buy_or_rent", "set_num_beds", "search"]


def test_code_fence_is_stripped_but_prose_is_not_code() -> None:
    assert run_program(f"```python\n{HS_OK}\n```", HomeSearchApp).executable
    prose = f"Sure! Here is the code:\n{HS_OK}"
    assert run_program(prose, HomeSearchApp).error_kind == "format"


@pytest.mark.parametrize(
    ("program", "message"),
    [
        ('API.set_buy_or_rent("buy")\nAPI.set_location("X")\nAPI.search()', "must be call 1"),
        ('API.set_location("X")\nAPI.set_num_beds(2)\nAPI.search()', "must be call 2"),
        ('API.set_location("X")\nAPI.set_buy_or_rent("buy")', "never called"),
        ('API.set_location("X")\nAPI.set_buy_or_rent("own")\nAPI.search()', "invalid value"),
        (
            'API.set_location("X")\nAPI.set_buy_or_rent("buy")\nAPI.set_num_beds("3")\nAPI.search()',
            "invalid value",
        ),
        (
            'API.set_location("X")\nAPI.set_buy_or_rent("rent")\nAPI.select_home_type(["Land"])\n'
            "API.search()",
            "invalid home type",
        ),
        (
            'API.set_location("X")\nAPI.set_buy_or_rent("buy")\nAPI.search()\nAPI.set_num_beds(2)',
            "after API.search",
        ),
        (
            'API.set_location("X")\nAPI.set_buy_or_rent("buy")\nAPI.set_min_price(9)\n'
            "API.set_max_price(5)\nAPI.search()",
            "above",
        ),
        (
            'API.set_location("X")\nAPI.set_buy_or_rent("buy")\n'
            "API.set_num_beds(1, 2)\nAPI.search()",
            "too many",
        ),
    ],
)
def test_home_search_rules_make_programs_non_executable(program: str, message: str) -> None:
    result = run_program(program, HomeSearchApp)
    assert not result.executable
    assert result.error_kind == "execution"
    assert message in result.error


def test_trip_booking_helpers_variables_and_rules() -> None:
    ok = """API.select_booking_type("trip tickets")
API.select_transportation("train")
API.set_origin(Loc("Boston"))
API.set_destination(Loc("New York"))
d = Date(8, 15, 2023)
API.set_departure_date(d)
API.search()"""
    result = run_program(ok, TripBookingApp)
    assert result.executable, result.error
    assert result.criteria["departure_date"] == "2023-08-15"
    assert result.criteria["location_to"] == "New York"
    assert result.criteria["num_adults"] == 1
    assert result.names.count("Loc") == 2 and "Date" in result.names
    # missing required call (no departure date)
    missing = ok.replace("API.set_departure_date(d)\n", "")
    assert "missing required" in run_program(missing, TripBookingApp).error
    # a hotel setter is not allowed for a tickets-only search
    hotel = ok.replace("API.search()", "API.set_num_rooms(2)\nAPI.search()")
    assert "not allowed" in run_program(hotel, TripBookingApp).error
    # invalid date, plain string instead of Loc, undefined variable
    bad_date = run_program(ok.replace("Date(8, 15", "Date(13, 15"), TripBookingApp)
    assert not bad_date.executable and bad_date.error.startswith("line 5: Date")
    plain = ok.replace('Loc("Boston")', '"Boston"')
    assert "invalid value" in run_program(plain, TripBookingApp).error
    undefined = ok.replace("set_departure_date(d)", "set_departure_date(e)")
    assert run_program(undefined, TripBookingApp).error_kind == "format"


def test_both_booking_fills_trip_dates_from_the_stay() -> None:
    program = """API.select_booking_type("both")
API.select_transportation("flight")
API.set_origin(Loc("A"))
API.set_destination(Loc("B"))
API.set_hotel_location(Loc("B"))
API.set_checkin_date(Date(1, 2, 2024))
API.set_checkout_date(Date(1, 5, 2024))
API.search()"""
    c = run_program(program, TripBookingApp).criteria
    assert c["departure_date"] == "2024-01-02" and c["return_date"] == "2024-01-05"
    assert c["num_rooms"] == 1
    backwards = program.replace("Date(1, 5, 2024)", "Date(1, 1, 2024)")
    assert "before" in run_program(backwards, TripBookingApp).error
