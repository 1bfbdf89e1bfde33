"""The bound check: goal wording -> the side of each number; programs fixed where they
contradict it, left alone everywhere else; runs checked live and after the fact."""

from __future__ import annotations

import json

import pytest

from toollearn.apps import HomeSearchApp, TripBookingApp
from toollearn.apps.bounds import check_bounds, goal_mentions
from toollearn.apps.datasets import load_demos, load_tests, spec_path
from toollearn.apps.program import run_program
from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.data.templates import generate, load_spec
from toollearn.engines import ScriptedEngine
from toollearn.evaluation.runners.apps import check_run, rescore_run, run_app


def home_search(city: str, buy_or_rent: str, *calls: str) -> str:
    """A Home Search program: location, buy or rent, the calls, search()."""
    head = [f'API.set_location("{city}")', f'API.set_buy_or_rent("{buy_or_rent}")']
    return "\n".join([*head, *calls, "API.search()"])


def sides(goal: str) -> dict[float, str | None]:
    return {m.value: m.side for m in goal_mentions(goal)}


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("Buy a home with 5 bedrooms and 1 garage for under $900,000.",
         {5: None, 1: None, 900000: "max"}),
        ("Rent in Austin with 2 baths for $1,000 to $2,000 a month.",
         {2: None, 1000: "min", 2000: "max"}),
        ("A condo for $100,000-$200,000 with at least 1200 square feet?",
         {100000: "min", 200000: "max", 1200: "min"}),
        ("Buy between $300,000 and $500,000, 1000 to 2000 square feet.",
         {300000: "min", 500000: "max", 1000: "min", 2000: "max"}),
        ("3 bedrooms, 1500+ square feet and a commute of 30 minutes or less.",
         {3: None, 1500: "min", 30: "max"}),
        ("Tickets for 2 children on June 4, 2024, nothing cheaper than $80.",
         {2: None, 4: None, 2024: None, 80: "min"}),
        ("A room from June 1, 2024 to June 5, 2024 for no more than $300 a night.",
         {1: None, 2024: None, 5: None, 300: "max"}),
        ("Show me a home with a maximum price of $450,000 and 25 minutes max to work.",
         {450000: "max", 25: "max"}),
    ],
)  # fmt: skip
def test_goal_mentions_read_the_side_each_number_bounds(goal, expected) -> None:
    assert sides(goal) == {float(k): v for k, v in expected.items()}


def test_amounts_of_money_are_told_from_other_numbers() -> None:
    money = {m.value: m.money for m in goal_mentions(
        "Rent 2 rooms, 1,000 to 2,000 dollars a month, under 900 USD a night, 1500+ sq ft."
    )}  # fmt: skip
    assert money == {2: False, 1000: True, 2000: True, 900: True, 1500: False}


def test_a_bound_on_the_wrong_side_moves_to_its_counterpart() -> None:
    goal = "I'd like to buy a home in Atlanta with 1 garage for under $900,000."
    program = home_search("Atlanta", "buy", "API.set_num_garages(1)", "API.set_min_price(900000)")
    checked, changes = check_bounds(program, goal, HomeSearchApp)
    assert "API.set_max_price(900000)" in checked and "set_min_price" not in checked
    assert changes == [{"from": "set_min_price(900000)", "to": "set_max_price(900000)",
                        "reason": "under $900,000"}]  # fmt: skip
    assert run_program(checked, HomeSearchApp).criteria["max_price"] == 900000


def test_a_range_gets_both_ends_on_their_setters() -> None:
    goal = "Rent something in Austin with 1 balcony for $1,000 to $2,000 a month."
    program = home_search("Austin", "rent", "API.set_max_price(1000)")
    checked, changes = check_bounds(program, goal, HomeSearchApp)
    assert checked.splitlines()[2:4] == ["API.set_min_price(1000)", "API.set_max_price(2000)"]
    assert [c["to"] for c in changes] == ["set_min_price(1000)", "set_max_price(2000)"]


def test_a_range_passed_the_other_way_round_trades_setters() -> None:
    goal = "Rent something in Austin with 1 balcony for $1,000 to $2,000 a month."
    program = home_search("Austin", "rent", "API.set_min_price(2000)", "API.set_max_price(1000)")
    checked, changes = check_bounds(program, goal, HomeSearchApp)
    assert run_program(program, HomeSearchApp).error  # min above max: it does not run
    criteria = run_program(checked, HomeSearchApp).criteria
    assert (criteria["min_price"], criteria["max_price"]) == (1000, 2000)
    assert sorted(c["to"] for c in changes) == ["set_max_price(2000)", "set_min_price(1000)"]
    one_line = program.replace("\nAPI.set_max_price", "; API.set_max_price")
    assert check_bounds(one_line, goal, HomeSearchApp) == (one_line, [])  # left: one line


def test_what_the_goal_does_not_settle_is_left_alone() -> None:
    hs = 'API.set_location("Dallas")\nAPI.set_buy_or_rent("rent")\n'
    # no counterpart setter (max_commute_time only), a number the goal does not state, a
    # number stated twice on opposite sides, a program that does not parse
    cases = [
        ("Rent within 30 minutes of work.", hs + "API.set_max_commute_time(30)\nAPI.search()"),
        ("Rent for under $2,000.", hs + "API.set_min_price(1500)\nAPI.search()"),
        ("Rent: at least $1,500, no larger than 1500 sq ft, and under $1,500 a month.",
         hs + "API.set_min_price(1500)\nAPI.search()"),
        ("Rent for under $2,000.", "API.set_min_price(2000"),
    ]  # fmt: skip
    for goal, program in cases:
        assert check_bounds(program, goal, HomeSearchApp) == (program, [])


@pytest.mark.parametrize("app", ["home-search", "trip-booking"])
def test_right_programs_stay_as_they_are(app) -> None:
    """Every label (train and dev templates, demos, test goals): nothing to fix, nothing
    changed."""
    cls = HomeSearchApp if app == "home-search" else TripBookingApp
    templates, pools = load_spec(spec_path(app))
    filled = generate(templates["train"] + templates["dev"], pools, 5, seed=1)
    pairs = [(f.goal, f.program) for f in filled]
    pairs += [(e.query, e.metadata["program"]) for e in load_demos(app) + load_tests(app)]
    assert all(check_bounds(p, g, cls)[1] == [] for g, p in pairs)


def _swapped(label: str) -> str:
    return (
        label.replace("set_max_", "set_tmp_")
        .replace("set_min_", "set_max_")
        .replace("set_tmp_", "set_min_")
    )


def test_runs_checked_live_and_after_the_fact_agree(tmp_path) -> None:
    tests = load_tests("home-search")[:6]
    labels = {t.query: t.metadata["program"] for t in tests}
    engine = ScriptedEngine(lambda p: _swapped(labels[p.rsplit("Task: ", 1)[1].split("\n")[0]]))
    plain = run_app("home-search", "demos", engine, tmp_path / "plain", limit=6)
    live = run_app("home-search", "demos", engine, tmp_path / "live", limit=6, check_bounds=True)
    after = check_run(tmp_path / "plain", tmp_path / "after")
    assert after == live == rescore_run(tmp_path / "after")
    assert live["success_rate"] > plain["success_rate"]
    read = [json.loads(x) for x in (tmp_path / "after" / "predictions.jsonl").open()]
    fixed = [r for r in read if r["bound_changes"]]
    assert fixed and all(r["success"] and r["unchecked_output"] != r["output"] for r in fixed)
    config = json.loads((tmp_path / "after" / "config.json").read_text())
    assert config["generator"]["check_bounds"] is True and config["checked_from"]
    with pytest.raises(DataError, match="checked already"):
        check_run(tmp_path / "live", tmp_path / "again")
    out = tmp_path / "cli"
    assert main(["eval", "apps-bounds", "--run", str(tmp_path / "plain"), "--out", str(out)]) == 0
    assert rescore_run(out) == after


@pytest.mark.model
def test_the_shipped_apps_model_with_the_check_on_the_first_home_search_goal(tmp_path) -> None:
    """The real apps adapter, checked while it runs: "under $900,000" ends as a maximum."""
    from toollearn.engines import load_engine
    from toollearn.models import APPS_ENGINE

    engine = load_engine(APPS_ENGINE, n_threads=1)
    out = tmp_path / "hs"
    scores = run_app("home-search", "system+demos", engine, out, limit=1, check_bounds=True)
    record = json.loads((out / "predictions.jsonl").read_text().splitlines()[0])
    assert scores["success_rate"] == 100.0 and record["success"]
    assert "set_max_price(900000)" in record["output"]
    assert (record["unchecked_output"] != record["output"]) == bool(record["bound_changes"])
