"""The bundled app data: labels execute and reproduce their criteria; coverage; tool schemas."""

from __future__ import annotations

import json

import pytest

from toollearn.apps import APPS, HomeSearchApp, TripBookingApp
from toollearn.apps.base import AppError
from toollearn.apps.datasets import build, load_demos, load_tests, split_path
from toollearn.apps.scoring import aggregate, counted_keys, criteria_prf, score_program
from toollearn.evaluation.runners.apps import complexity

SIZES = {"home-search": (15, 10, 100), "trip-booking": (20, 11, 120)}


@pytest.mark.parametrize("app", list(APPS))
def test_every_label_executes_and_scores_100_percent_against_itself(app: str) -> None:
    cls = APPS[app]
    examples = load_demos(app) + load_tests(app)
    records = []
    for ex in examples:
        program = ex.metadata["program"]
        scored = score_program(program, [program], cls)
        assert scored["executable"], (ex.id, scored["error"])
        assert scored["criteria"] == ex.metadata["criteria"], ex.id  # reproduces its criteria
        records.append(scored)
    scores = aggregate(records)
    assert scores["success_rate"] == 100.0
    assert scores["executability_rate"] == 100.0
    assert scores["criteria_f1"] == 100.0


@pytest.mark.parametrize("app", list(APPS))
def test_sizes_coverage_and_unseen_combinations(app: str) -> None:
    cls = APPS[app]
    n_vocab, n_demos, n_tests = SIZES[app]
    demos, tests = load_demos(app), load_tests(app)
    assert len(cls.vocabulary()) == n_vocab
    assert len(demos) == n_demos and len(tests) == n_tests
    used = {n for d in demos for n in d.metadata["names"]}
    assert used == set(cls.vocabulary())  # every API appears in at least one demo
    seen = {frozenset(d.metadata["names"]) for d in demos}
    unseen = [t for t in tests if frozenset(t.metadata["names"]) not in seen]
    assert len(unseen) >= n_tests // 2
    assert len({t.query for t in tests}) == n_tests
    assert complexity(cls, tests, demos) > complexity(cls, demos, demos)


@pytest.mark.parametrize("app", list(APPS))
def test_bundled_files_are_reproducible(app: str) -> None:
    built = build(app)
    for split, records in built.items():
        lines = split_path(app, split).read_text(encoding="utf-8").splitlines()
        assert [json.loads(line) for line in lines] == json.loads(json.dumps(records))


def test_calls_follow_the_label_program() -> None:
    ex = load_tests("trip-booking")[0]
    names = [c.name for c in ex.calls]
    assert names[0] == "select_booking_type" and names[-1] == "search"
    origin = next(c for c in ex.calls if c.name == "set_origin")
    assert origin.arguments["value"]["$helper"] == "Loc"


def test_tools_have_json_schema_parameters() -> None:
    tools = {t.name: t for t in TripBookingApp.tools()}
    assert len(tools) == 18
    assert tools["select_booking_type"].parameters["properties"]["booking_type"]["enum"] == [
        "trip tickets",
        "hotels",
        "both",
    ]
    assert tools["set_departure_date"].properties["value"]["format"] == "date"
    assert tools["set_num_adults"].param_type("value") == "integer"
    hs = {t.name: t for t in HomeSearchApp.tools()}
    assert hs["select_home_type"].properties["home_types"]["type"] == "array"
    assert hs["set_num_baths"].param_type("value") == "number"
    assert all(t.description for t in hs.values())


def test_json_calls_reset_and_result() -> None:
    app = TripBookingApp()
    app.call("select_booking_type", {"booking_type": "hotels"})
    app.call("set_hotel_location", {"value": "Paris"})
    app.call("set_checkin_date", {"value": "2024-03-01"})
    app.call("set_checkout_date", {"value": "2024-03-04"})
    with pytest.raises(AppError):
        app.result()  # search not called yet
    app.call("search", {})
    assert app.result()["location"] == "Paris"
    app.reset()
    assert app.search_criteria == {} and not app.finished
    with pytest.raises(AppError):
        app.call("set_origin", {"value": "Rome"})  # booking type must come first


def test_criteria_prf() -> None:
    assert criteria_prf({"a": 1, "b": 2}, {"a": 1, "b": 2}) == (1.0, 1.0, 1.0)
    p, r, f1 = criteria_prf({"a": 1, "b": 3}, {"a": 1, "b": 2, "c": 4})
    assert (p, r) == (0.5, 1 / 3) and f1 == pytest.approx(0.4)
    assert criteria_prf({}, {"a": 1}) == (0.0, 0.0, 0.0)


HS_LABEL = """API.set_location("Atlanta")
API.set_buy_or_rent("buy")
API.set_num_beds(5)
API.set_max_price(900000)
API.search()"""


def test_defaults_come_from_the_app_and_search_fills_them() -> None:
    assert HomeSearchApp.default_criteria({}) == {"min_price": 0, "min_square_feet": 0}
    tickets = TripBookingApp.default_criteria({"booking_type": "trip tickets"})
    assert tickets == {"min_price_ticket": 0, "num_adults": 1}
    both = TripBookingApp.default_criteria(
        {"booking_type": "both", "checkin_date": "2024-01-02", "checkout_date": "2024-01-05"}
    )
    assert both["departure_date"] == "2024-01-02" and both["num_rooms"] == 1
    criteria = score_program(HS_LABEL, [HS_LABEL], HomeSearchApp)["criteria"]
    assert {k: criteria[k] for k in HomeSearchApp.default_criteria(criteria)} == {
        "min_price": 0,
        "min_square_feet": 0,
    }
    assert counted_keys(criteria, criteria, HomeSearchApp) == {
        "location",
        "buy_or_rent",
        "num_beds",
        "max_price",
    }


def test_f1_is_zero_for_a_program_that_sets_nothing_the_label_asks_for() -> None:
    bare = 'API.set_location("Boston")\nAPI.set_buy_or_rent("rent")\nAPI.search()'
    scored = score_program(bare, [HS_LABEL], HomeSearchApp)
    assert scored["executable"] and not scored["success"]
    assert (scored["precision"], scored["recall"], scored["f1"]) == (0.0, 0.0, 0.0)
    # without the app's defaults the shared min_price 0 / min_square_feet 0 scored 2 of 4
    p, r, f1 = criteria_prf(scored["criteria"], scored["label_criteria"])
    assert (p, r) == (0.5, 2 / 6) and f1 == pytest.approx(0.4)


def test_identical_programs_score_f1_one() -> None:
    for app in APPS:
        for ex in load_tests(app)[:10]:
            program = ex.metadata["program"]
            scored = score_program(program, [program], APPS[app])
            assert scored["success"] and scored["f1"] == 1.0, ex.id
    with_defaults = HS_LABEL.replace("API.search()", "API.set_min_price(0)\nAPI.search()")
    assert score_program(with_defaults, [HS_LABEL], HomeSearchApp)["f1"] == 1.0


def test_defaults_no_longer_inflate_f1() -> None:
    partial = 'API.set_location("Atlanta")\nAPI.set_buy_or_rent("buy")\nAPI.search()'
    scored = score_program(partial, [HS_LABEL], HomeSearchApp)
    assert (scored["precision"], scored["recall"]) == (1.0, 0.5)
    assert scored["f1"] == pytest.approx(2 / 3)
    old = criteria_prf(scored["criteria"], scored["label_criteria"])  # the old, inflated rule
    assert old[:2] == (1.0, 4 / 6) and old[2] == pytest.approx(0.8)
    # a label criterion left at its default is a wrong value, not a free pass
    priced = HS_LABEL.replace("API.search()", "API.set_min_price(100000)\nAPI.search()")
    scored = score_program(HS_LABEL, [priced], HomeSearchApp)
    assert (scored["precision"], scored["recall"]) == (4 / 5, 4 / 5)


def test_both_booking_dates_defaulted_from_the_stay_are_not_counted() -> None:
    stay = """API.select_booking_type("both")
API.select_transportation("flight")
API.set_origin(Loc("A"))
API.set_destination(Loc("B"))
API.set_hotel_location(Loc("B"))
API.set_checkin_date(Date(1, 2, 2024))
API.set_checkout_date(Date(1, 5, 2024))
API.search()"""
    wrong_stay = stay.replace("Date(1, 5, 2024)", "Date(1, 6, 2024)")
    scored = score_program(wrong_stay, [stay], TripBookingApp)
    # counted: booking type, transport, origin, destination, hotel, check-in, check-out
    assert (scored["precision"], scored["recall"]) == (6 / 7, 6 / 7)


def test_wrong_value_executes_but_fails() -> None:
    label = load_tests("home-search")[0].metadata["program"]
    wrong = label.replace('"buy"', '"rent"')
    scored = score_program(wrong, [label], HomeSearchApp)
    assert scored["executable"] and not scored["success"]
    assert 0 < scored["f1"] < 1


def _sample_args(cls, name: str) -> tuple:
    """One valid argument tuple for an API function (from its type hints)."""
    import typing

    from toollearn.apps.base import Date, Loc

    samples = {int: 1, str: "x", Loc: Loc("Boston"), Date: Date.make(8, 15, 2023)}
    return tuple(
        typing.get_args(h)[0] if typing.get_origin(h) is typing.Literal else samples[h]
        for h in cls.hints(name).values()
    )


@pytest.mark.parametrize("booking_type", list(TripBookingApp.branches))
def test_trip_booking_branches_are_the_rules_the_app_runs(booking_type: str) -> None:
    """`branches` (which the typed grammar reads) says exactly what a program may and must
    call per booking type: every other setter raises, and dropping a required one fails."""
    cls, branch = TripBookingApp, TripBookingApp.branches[booking_type]
    middle = [n for n in cls.api_names() if n not in (*cls.first_calls, cls.last_call)]
    for name in middle:
        app = cls()
        app.invoke("select_booking_type", (booking_type,))
        if name in branch.allowed:
            app.invoke(name, _sample_args(cls, name))
        else:
            with pytest.raises(AppError, match="not allowed"):
                app.invoke(name, _sample_args(cls, name))
    for dropped in (None, *branch.required):
        app = cls()
        app.invoke("select_booking_type", (booking_type,))
        for name in branch.required:
            if name != dropped:
                app.invoke(name, _sample_args(cls, name))
        if dropped is None:
            app.invoke("search")
        else:
            with pytest.raises(AppError, match="missing required"):
                app.invoke("search")
    assert HomeSearchApp.branches == {}
