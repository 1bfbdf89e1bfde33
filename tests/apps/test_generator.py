"""Action generator prompts, the program grammar and the eval runner (scripted engine)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from toollearn.apps import HomeSearchApp, TripBookingApp
from toollearn.apps.datasets import load_demos, load_tests
from toollearn.apps.generator import CONFIGS, SYSTEM_PROMPT, ActionGenerator
from toollearn.apps.grammar import program_constraint, program_grammar
from toollearn.engines import ScriptedEngine
from toollearn.evaluation.runners.apps import (
    app_config,
    rescore_run,
    results_table,
    run_app,
    score_records,
)


def _generator(config: str, engine=None, app=TripBookingApp, name="trip-booking"):
    engine = engine or ScriptedEngine(lambda prompt: "API.search()")
    return ActionGenerator(app, engine, load_demos(name), CONFIGS[config]), engine


def test_zero_shot_prompt_has_every_api_doc_and_no_demos() -> None:
    gen, _ = _generator("zero-shot")
    goal = load_tests("trip-booking")[0].query
    prompt, demos, apis = gen.prompt(goal)
    assert isinstance(prompt, str) and demos == []
    assert len(apis) == 20 and {t.name for t in apis} >= {"Loc", "Date", "search"}
    assert "API.set_origin(value: Loc)" in prompt and "Date(month: int" in prompt
    assert SYSTEM_PROMPT not in prompt
    assert prompt.endswith(f"Task: {goal}\nAction:\n")


def test_system_and_demos_prompt() -> None:
    gen, _ = _generator("system+demos")
    goal = load_tests("trip-booking")[3].query
    prompt, demos, _ = gen.prompt(goal)
    assert prompt.startswith(SYSTEM_PROMPT)
    assert len(demos) == 3 and prompt.count("\nAction:\n") == 4
    for d in demos:
        assert d.metadata["program"] in prompt
    # the demos are R's BM25 ranking over the demo pool, best first
    from toollearn.retrieval import DemoRetriever

    ranked = DemoRetriever(load_demos("trip-booking"), method="bm25").search(goal, 3)
    assert [d.id for d in demos] == [h.item.id for h in ranked]


def test_generate_passes_stop_strings_and_constraint() -> None:
    engine = ScriptedEngine(lambda p: 'API.select_booking_type("hotels")\nAPI.search()\nTask: x')
    gen, _ = _generator("constrained", engine)
    out = gen.generate(["Find a hotel in Paris"])
    assert out[0].text == 'API.select_booking_type("hotels")\nAPI.search()'
    request = engine.requests[0]
    assert "Task:" in request["stop"] and request["temperature"] == 0.0
    assert request["constraint"].kind == "gbnf"
    assert "root ::=" in request["constraint"].grammar


def test_chat_mode_sends_messages() -> None:
    from dataclasses import replace

    engine = ScriptedEngine(lambda p: "API.search()")
    gen = ActionGenerator(
        HomeSearchApp,
        engine,
        load_demos("home-search"),
        replace(CONFIGS["system+demos"], chat=True),
    )
    prompt, _, _ = gen.prompt("Rent a home in Boston")
    assert [m.role for m in prompt] == ["system", "user"]


def test_grammar_structure() -> None:
    g = program_grammar(HomeSearchApp)
    root = g.splitlines()[0]
    assert root.startswith('root ::= call-set-location "\\n" call-set-buy-or-rent "\\n"')
    assert root.endswith("call-search")
    assert 'call-set-buy-or-rent ::= "API.set_buy_or_rent(" ("\\"buy\\"" | "\\"rent\\"") ")"' in g
    assert 'call-set-origin ::= "API.set_origin(" aloc ")"' in program_grammar(TripBookingApp)
    assert program_constraint(TripBookingApp).name == "trip-booking-program"


def test_grammar_is_valid_gbnf() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    for app in (HomeSearchApp, TripBookingApp):
        for order in ("app", "any", "typed"):
            llama_cpp.LlamaGrammar.from_string(program_grammar(app, order), verbose=False)


def test_any_order_grammar_admits_the_labels_that_the_app_order_refuses(admits) -> None:
    """A program in template order (set_num_beds after set_floor_number) is refused by the
    app-order grammar and admitted by the any-order one, which still bounds the middle calls
    (12 for Home Search)."""
    any_order = program_grammar(HomeSearchApp, "any")
    head = 'API.set_location("Dallas")\nAPI.set_buy_or_rent("buy")\n'
    label = head + "API.set_floor_number(11)\nAPI.set_num_beds(2)\nAPI.search()"
    assert not admits(program_grammar(HomeSearchApp), label)
    assert admits(any_order, label)
    assert admits(any_order, head + "API.search()")
    assert admits(any_order, head + "API.set_num_beds(2)\n" * 12 + "API.search()")
    assert not admits(any_order, head + "API.set_num_beds(2)\n" * 13 + "API.search()")
    assert program_constraint(HomeSearchApp, "any").name == "home-search-program-any-order"
    with pytest.raises(ValueError, match="grammar order"):
        program_grammar(HomeSearchApp, "sorted")


def test_runner_scores_resumes_and_tables(tmp_path) -> None:
    tests = load_tests("home-search")[:4]
    labels = {t.query: t.metadata["program"] for t in tests}
    answers = {tests[0].query: labels[tests[0].query], tests[1].query: "I think API.search()"}

    def respond(prompt: str) -> str:
        goal = prompt.rsplit("Task: ", 1)[1].split("\nAction:")[0]
        wrong_city = labels[goal].replace('set_location("', 'set_location("Old ')
        return answers.get(goal, wrong_city)

    engine = ScriptedEngine(respond)
    out = tmp_path / "run"
    scores = run_app("home-search", "demos", engine, out, limit=4, batch_size=3)
    assert scores["n"] == 4
    assert scores["success_rate"] == 25.0
    assert scores["executability_rate"] == 75.0
    assert scores["errors"] == {"format": 1}
    assert scores["api_complexity_vs_demos"] > 0
    records = [json.loads(x) for x in (out / "predictions.jsonl").read_text().splitlines()]
    assert [r["success"] for r in records] == [True, False, False, False]
    assert json.loads((out / "scores.json").read_text())["scores"]["n"] == 4
    assert records[1]["output"] == "I think API.search()"  # the raw model text
    assert all(r["prediction"] == r["output"].strip() for r in records)
    assert score_records(records, "home-search") == scores == rescore_run(out)
    before = len(engine.requests)
    run_app("home-search", "demos", engine, out, limit=4)  # resumed: nothing left to do
    assert len(engine.requests) == before
    table = results_table({("home-search", "demos"): scores}, "scripted")
    assert "| demos | scripted | 25.0 | 75.0 |" in table
    assert "paper: GPT-4" in table and "7.3" in table


def test_chat_run_sends_what_datagen_apps_trains_on(tmp_path) -> None:
    """`run_app(..., chat=True)` prompts exactly as the training samples of `datagen apps`
    (system + user messages); the run config records it."""
    from toollearn.datagen.apps import generate_apps

    sample = generate_apps("home-search", n=1, allshot=0.0).samples[0]
    goal = sample.metadata["query"]
    engine = ScriptedEngine(lambda p: "API.search()")
    gen = ActionGenerator(HomeSearchApp, engine, load_demos("home-search"),
                          app_config("home-search", "system+demos", chat=True))  # fmt: skip
    prompt = gen.messages_for(goal)
    assert [(m.role, m.content) for m in prompt] == [(m.role, m.content) for m in sample.messages]
    run_app("home-search", "system+demos", engine, tmp_path / "c", limit=1, chat=True)
    config = json.loads((tmp_path / "c" / "config.json").read_text())
    assert config["generator"]["chat"] is True
    assert "grammar_order" not in config["generator"]  # the default: old configs still match
    cfg = app_config("home-search", "constrained", grammar_order="any")
    assert cfg.to_dict()["grammar_order"] == "any" and cfg.max_tokens == 256
    assert ActionGenerator(HomeSearchApp, engine, (), replace(cfg, k_demos=0)).constraint.name == (
        "home-search-program-any-order"
    )
    assert [m.role for m in engine.requests[0]["prompts"][0]] == ["system", "user"]


@pytest.mark.model
def test_embedded_model_constrained_programs_parse(tmp_path) -> None:
    from toollearn.engines import load_engine

    engine = load_engine("llama")
    scores = run_app("home-search", "constrained", engine, tmp_path / "m", limit=2, batch_size=2)
    records = [
        json.loads(x) for x in (tmp_path / "m" / "predictions.jsonl").read_text().splitlines()
    ]
    assert scores["n"] == 2
    for r in records:  # the grammar guarantees syntax and call order
        assert r["error_kind"] != "format", r["prediction"]
        assert r["prediction"].startswith("API.set_location(")
        assert r["prediction"].endswith("API.search()")


@pytest.mark.model
def test_app_benchmarks_default_to_the_shipped_apps_adapter(tmp_path) -> None:
    from toollearn.cli.main import main

    out = tmp_path / "hs"
    assert main(["eval", "home-search", "--limit", "1", "--threads", "1", "--out", str(out)]) == 0
    config = json.loads((out / "config.json").read_text())
    assert "<apps-135m>" in config["engine"]  # merged into the embedded model
    record = json.loads((out / "predictions.jsonl").read_text().splitlines()[0])
    assert record["prediction"].startswith("API.set_location(")


def test_k_apis_shows_the_bm25_top_k() -> None:
    from dataclasses import replace

    cfg = replace(CONFIGS["zero-shot"], k_apis=5)
    gen = ActionGenerator(TripBookingApp, ScriptedEngine([]), load_demos("trip-booking"), cfg)
    _, _, apis = gen.prompt("How many hotel rooms: set the number of rooms")
    assert len(apis) == 5 and apis[0].name == "set_num_rooms"
    all_docs = ActionGenerator(TripBookingApp, ScriptedEngine([]), (), CONFIGS["zero-shot"])
    assert [t.name for t in all_docs.retrieve_apis("x")] == TripBookingApp.vocabulary()


@pytest.mark.model
def test_embedded_model_constrained_trip_booking_parses(tmp_path) -> None:
    from toollearn.engines import load_engine

    engine = load_engine("llama")
    run_app("trip-booking", "constrained", engine, tmp_path / "t", limit=1)
    record = json.loads((tmp_path / "t" / "predictions.jsonl").read_text().splitlines()[0])
    assert record["error_kind"] != "format", record["prediction"]
    assert record["prediction"].startswith("API.select_booking_type(")


@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize("config", ["zero-shot", "system+demos"])
def test_engine_receives_exactly_prompt_and_messages_for(config: str, chat: bool) -> None:
    from dataclasses import replace

    engine = ScriptedEngine(lambda p: "API.search()")
    cfg = replace(CONFIGS[config], chat=chat)
    gen = ActionGenerator(TripBookingApp, engine, load_demos("trip-booking"), cfg)
    goals = [t.query for t in load_tests("trip-booking")[:3]]
    gen.generate(goals)
    assert engine.prompts == [gen.prompt(g)[0] for g in goals]
    assert engine.prompts == [gen.messages_for(g) for g in goals]
    assert all(isinstance(p, list if chat else str) for p in engine.prompts)


def test_typed_grammar_follows_the_booking_type(admits) -> None:
    """The typed grammar refuses a setter the booking type does not take and a program that
    leaves out a required criterion, both of which the any-order grammar admits; it admits
    every Trip Booking test label (so the right answer is never excluded). Without branches
    (Home Search) it is the any-order grammar."""
    typed, any_order = (program_grammar(TripBookingApp, o) for o in ("typed", "any"))
    hotels = 'API.select_booking_type("hotels")\nAPI.set_hotel_location(Loc("Rome"))\n'
    dates = "API.set_checkout_date(Date(5, 3, 2024))\nAPI.set_checkin_date(Date(5, 1, 2024))\n"
    assert admits(typed, hotels + dates + "API.search()")
    for wrong in (
        hotels + dates + 'API.set_origin(Loc("Paris"))\nAPI.search()',  # a ticket setter
        hotels + "API.set_checkin_date(Date(5, 1, 2024))\nAPI.search()",  # no check-out date
        hotels + dates + "API.set_checkin_date(Date(5, 1, 2024))\nAPI.search()",  # twice
    ):
        assert admits(any_order, wrong) and not admits(typed, wrong)
    for ex in load_tests("trip-booking"):
        assert admits(typed, ex.metadata["program"]), ex.id
    assert program_grammar(HomeSearchApp, "typed") == program_grammar(HomeSearchApp, "any")
    assert program_constraint(TripBookingApp, "typed").name == "trip-booking-program-typed-order"
