"""The bundled app data: labels execute and reproduce their criteria; coverage; tool schemas."""

from __future__ import annotations

import json

import pytest

from toollearn.apps import APPS, HomeSearchApp, TripBookingApp
from toollearn.apps.base import AppError
from toollearn.apps.datasets import build, load_demos, load_tests, split_path
from toollearn.apps.scoring import aggregate, complexity, criteria_prf, score_program

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


def test_wrong_value_executes_but_fails() -> None:
    label = load_tests("home-search")[0].metadata["program"]
    wrong = label.replace('"buy"', '"rent"')
    scored = score_program(wrong, [label], HomeSearchApp)
    assert scored["executable"] and not scored["success"]
    assert 0 < scored["f1"] < 1
