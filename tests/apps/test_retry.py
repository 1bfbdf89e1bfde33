"""Asking again: the label-free flags (a goal number left out or passed to a call too many, a
program that does not run), sampled tries that replace a flagged program, live and after the
fact (scripted engine)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from toollearn.apps import APPS, HomeSearchApp
from toollearn.apps.bounds import missing_numbers, repeated_numbers
from toollearn.apps.datasets import load_demos, load_goals, load_tests, spec_path
from toollearn.apps.generator import CONFIGS, ActionGenerator
from toollearn.cli.main import main
from toollearn.core.errors import DataError
from toollearn.data.templates import generate, load_spec
from toollearn.engines import ScriptedEngine
from toollearn.evaluation.runners.apps import (
    app_config,
    rescore_run,
    retry_run,
    run_app,
    run_table,
)

GOAL = "Rent a home in Austin with 3 bedrooms for $1,000 to $2,000 a month."
RIGHT = (
    'API.set_location("Austin")\nAPI.set_buy_or_rent("rent")\nAPI.set_num_beds(3)\n'
    "API.set_min_price(1000)\nAPI.set_max_price(2000)\nAPI.search()"
)
NO_BEDS = RIGHT.replace("API.set_num_beds(3)\n", "")


def test_missing_numbers_names_what_the_program_leaves_out() -> None:
    assert missing_numbers(GOAL, RIGHT) == []
    assert missing_numbers(GOAL, NO_BEDS) == [3.0]
    assert missing_numbers(GOAL, "API.search()") == [3.0, 1000.0, 2000.0]
    assert missing_numbers("Two bedrooms, 2 baths, 2 garages.", "API.set_num_baths(2)") == []


def _generator(script, retries: int = 3) -> tuple[ActionGenerator, ScriptedEngine]:
    engine = ScriptedEngine(script)
    cfg = app_config("home-search", "system+demos", retries=retries, retry_temperature=0.9)
    return ActionGenerator(HomeSearchApp, engine, load_demos("home-search"), cfg), engine


def test_a_flagged_program_is_replaced_by_the_first_try_without_defects() -> None:
    gen, engine = _generator([NO_BEDS, "API.set_num_beds(", RIGHT, RIGHT])
    (out,) = gen.generate([GOAL])
    assert out.text == RIGHT and out.completion.text == NO_BEDS
    assert [(t.seed, t.executable, t.missing, t.chosen) for t in out.tries] == [
        (1, False, (3.0, 1000.0, 2000.0), False),
        (2, True, (), True),
    ]
    sampled = engine.requests[1:]
    assert [r["seed"] for r in sampled] == [1, 2]  # stops at the first clean try
    assert all(r["temperature"] == 0.9 for r in sampled)
    assert engine.requests[0]["temperature"] == 0.0


def test_clean_programs_are_not_asked_again_and_ties_keep_the_greedy_one() -> None:
    gen, engine = _generator([RIGHT, NO_BEDS, NO_BEDS, "API.search(", NO_BEDS, "x"], 2)
    out = gen.generate([GOAL, GOAL])
    assert out[0].text == RIGHT and out[0].tries == ()
    assert out[1].text == NO_BEDS and not any(t.chosen for t in out[1].tries)
    assert len(engine.requests) == 3 and len(engine.requests[1]["prompts"]) == 1


def test_retries_off_keeps_configs_as_they_were() -> None:
    assert "retries" not in CONFIGS["system+demos"].to_dict()
    on = app_config("home-search", "system+demos", retries=2).to_dict()
    assert on["retries"] == 2 and on["retry_temperature"] == 1.0
    with pytest.raises(ValueError, match="retries"):
        app_config("home-search", "system+demos", retries=-1)


def test_runs_retried_live_and_after_the_fact_agree(tmp_path) -> None:
    """Greedy programs leave the bedroom count out, sampled ones are the labels."""
    tests = load_tests("home-search")[:6]
    labels = {t.query: t.metadata["program"] for t in tests}

    class Engine(ScriptedEngine):
        def complete(self, prompts, **kw):
            out = super().complete(prompts, **kw)
            if kw.get("temperature", 0.0) == 0.0:
                out = [replace(o, text=_drop_beds(o.text)) for o in out]
            return out

    engine = Engine(lambda prompt: labels[prompt.rsplit("Task: ", 1)[1].split("\n")[0]])
    plain = run_app("home-search", "demos", engine, tmp_path / "plain", limit=6)
    live = run_app("home-search", "demos", engine, tmp_path / "live", limit=6, retries=2)
    after = retry_run(tmp_path / "plain", tmp_path / "after", engine, retries=2)
    assert after == live == rescore_run(tmp_path / "after")
    assert live["success_rate"] == 100.0 > plain["success_rate"]
    read = [json.loads(x) for x in (tmp_path / "after" / "predictions.jsonl").open()]
    asked = [r for r in read if r["tries"]]
    assert asked and all(r["greedy_output"] != r["output"] and r["success"] for r in asked)
    scores = json.loads((tmp_path / "after" / "scores.json").read_text())
    assert scores["asked_again"] == scores["replaced"] == len(asked)
    with pytest.raises(DataError, match="asked again already"):
        retry_run(tmp_path / "live", tmp_path / "again", engine, retries=2)


def _drop_beds(program: str) -> str:
    return "\n".join(x for x in program.split("\n") if not x.startswith("API.set_num_beds"))


def test_eval_reads_a_goals_file_and_rejects_a_bad_one(tmp_path) -> None:
    record = {"id": "home-search/dev/000", "goal": GOAL, "program": RIGHT, "template": "t",
              "criteria": {}}  # fmt: skip
    goals = tmp_path / "goals.jsonl"
    goals.write_text(json.dumps(record) + "\n")
    (example,) = load_goals("home-search", goals)
    assert example.query == GOAL and example.split == "dev"
    out = tmp_path / "run"
    scores = run_app("home-search", "system+demos", ScriptedEngine([RIGHT]), out, goals=goals)
    assert scores["n"] == 1 and scores["success_rate"] == 100.0
    assert json.loads((out / "config.json").read_text())["goals"] == str(goals)
    goals.write_text('{"id": "x", "goal": "g", "program": "API.nope(", "template": "t"}\n')
    with pytest.raises(DataError, match="goals.jsonl:1"):
        load_goals("home-search", goals)
    with pytest.raises(DataError, match="no goals file"):
        load_goals("home-search", tmp_path / "none.jsonl")
    assert main(["eval", "home-search", "--goals", str(goals), "--all-configs",
                 "--out", str(tmp_path / "x")]) == 1  # fmt: skip


@pytest.mark.model
def test_the_shipped_apps_model_asked_again_on_a_program_that_leaves_numbers_out() -> None:
    """The real apps adapter, sampled: a program with the goal's numbers missing is replaced by
    a try that states them, found within a few seeds."""
    from toollearn.engines import load_engine
    from toollearn.models import APPS_ENGINE

    engine = load_engine(APPS_ENGINE, n_threads=1)
    cfg = app_config("home-search", "system+demos", check_bounds=True, retries=4)
    gen = ActionGenerator(HomeSearchApp, engine, load_demos("home-search"), cfg)
    ((program, tries),) = gen.ask_again([GOAL], ['API.set_location("Austin")\nAPI.search()'])
    assert tries and [t.seed for t in tries] == list(range(1, len(tries) + 1))
    chosen = [t for t in tries if t.chosen]
    assert len(chosen) == 1 and program == chosen[0].program
    assert chosen[0].executable and chosen[0].missing == () and "set_num_beds(3)" in program
    assert [t.seed for t in tries][-1] == chosen[0].seed  # it stopped at the first clean try


def test_repeated_numbers_names_a_number_passed_to_one_call_too_many() -> None:
    goal = "Rent a townhouse in Chicago with 3 bedrooms on floor 15."
    twice = home = 'API.set_location("Chicago")\nAPI.set_buy_or_rent("rent")\n'
    home += "API.set_num_beds(3)\nAPI.set_floor_number(15)\nAPI.search()"
    twice += "API.set_floor_number(15)\nAPI.set_min_square_feet(15)\nAPI.search()"
    assert repeated_numbers(goal, home, HomeSearchApp) == []
    assert repeated_numbers(goal, twice, HomeSearchApp) == [15.0]
    assert missing_numbers(goal, twice) == [3.0]
    two = "API.set_num_beds(2)\nAPI.set_num_baths(2)"
    assert repeated_numbers("2 beds, 2 baths.", two, HomeSearchApp) == []
    assert repeated_numbers("2 beds.", two, HomeSearchApp) == [2.0]
    assert repeated_numbers("A house.", "API.set_num_beds(4)", HomeSearchApp) == [4.0]
    assert repeated_numbers(goal, "API.set_num_beds(", HomeSearchApp) == []


@pytest.mark.parametrize("app", ["home-search", "trip-booking"])
def test_no_label_program_is_flagged(app) -> None:
    """Labels of every template (train, dev, demo, test): nothing missing, nothing repeated."""
    cls = APPS[app]
    templates, pools = load_spec(spec_path(app))
    filled = generate(templates["train"] + templates["dev"], pools, 10, seed=2)
    pairs = [(f.goal, f.program) for f in filled]
    pairs += [(e.query, e.metadata["program"]) for e in load_demos(app) + load_tests(app)]
    assert len(pairs) > 500
    assert not [g for g, p in pairs if missing_numbers(g, p) or repeated_numbers(g, p, cls)]


def test_a_table_of_runs_asks_again_too(tmp_path) -> None:
    engine = ScriptedEngine(lambda prompt: "API.search()")
    run_table(engine, tmp_path, ("home-search",), ("demos",), limit=2, retries=1)
    config = json.loads((tmp_path / "home-search" / "demos" / "config.json").read_text())
    assert config["generator"]["retries"] == 1
    records = [
        json.loads(x) for x in (tmp_path / "home-search" / "demos" / "predictions.jsonl").open()
    ]
    assert all(len(r["tries"]) == 1 for r in records)  # "API.search()" leaves every number out


def test_shifted_tries_show_the_demos_ranked_after_the_first_ones() -> None:
    engine = ScriptedEngine([NO_BEDS, NO_BEDS, RIGHT])
    cfg = app_config("home-search", "system+demos", retries=3, retry_temperature=0.0,
                     retry_demos="shifted")  # fmt: skip
    gen = ActionGenerator(HomeSearchApp, engine, load_demos("home-search"), cfg)
    (out,) = gen.generate([GOAL])
    assert out.text == RIGHT and [t.seed for t in out.tries] == [1, 2]
    ranked = [d.id for d in gen.retrieve_demos(GOAL, offset=0)]
    assert [d.id for d in gen.retrieve_demos(GOAL, offset=1)][:2] == ranked[1:]
    prompts = engine.prompts
    assert len(set(prompts)) == 3 and all(r["temperature"] == 0.0 for r in engine.requests)
    assert prompts[1] == gen.prompt(GOAL, demo_offset=1)[0]
    assert cfg.to_dict()["retry_demos"] == "shifted"
    with pytest.raises(ValueError, match="retry_demos"):
        app_config("home-search", "system+demos", retries=1, retry_demos="other")


def test_the_apps_checked_preset_sets_the_repair_flags() -> None:
    import argparse

    from toollearn.cli.eval_apps import apply_preset
    from toollearn.policy import preset

    args = argparse.Namespace(preset="apps-checked", check_bounds=False, retries=0,
                              retry_temperature=0.0, retry_demos="same")  # fmt: skip
    apply_preset(args)
    assert (args.check_bounds, args.retries, args.retry_temperature, args.retry_demos) == (
        True, 8, 1.0, "shifted")  # fmt: skip
    policy = preset("apps-checked")
    assert policy.engine == "tuned-apps" and "93.0" in policy.measured
    with pytest.raises(DataError, match="eval home-search"):
        policy.general_only("toollearn run")
    with pytest.raises(SystemExit):  # not a preset of the request formats
        main(["call", "hi", "--tools", "x.json", "--preset", "apps-checked"])


def test_the_repair_loop_finds_a_programs_defects() -> None:
    from toollearn.apps.generator import PROGRAM_REPAIRS
    from toollearn.decoding.repair_loop import Turn

    gen, _ = _generator([])
    fault = PROGRAM_REPAIRS.find(NO_BEDS, Turn([], None, context=(gen, GOAL, 0, None)))
    assert fault.check == "program_defects" and fault.detail == "leaves out [3.0]"
    assert fault.data.missing == (3.0,) and fault.data.program == NO_BEDS
    assert PROGRAM_REPAIRS.find(RIGHT, Turn([], None, context=(gen, GOAL, 0, None))) is None
    broken = PROGRAM_REPAIRS.find("API.nope(", Turn([], None, context=(gen, GOAL, 1, None)))
    assert broken.detail.startswith("does not run")
