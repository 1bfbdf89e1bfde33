"""The call plan read off a query's requests, and the general agent following it."""

from __future__ import annotations

import pytest

from toollearn.agents.clause_plan import ClausePlanner, Plan, requests
from toollearn.core.types import Tool

_NO_PARAMS = {"type": "object", "properties": {}}
FUND = Tool("getHedgeFundInfo", "Retrieve information about a specific hedge fund", _NO_PARAMS)
RETURNS = Tool("getHedgeFundReturns", "Retrieve returns data for a specific hedge fund", _NO_PARAMS)
WEATHER = Tool("getWeather", "Get the current weather of a city", _NO_PARAMS)


def test_requests_split_steps_and_keep_a_quoted_sentence_with_its_request():
    query = ("I have a few tasks. First, send a note where the content is Bring the documents. "
             "and with recipient ana@example.com. Next, get the weather in Oslo, and book a "
             "table for two and with a window.")  # fmt: skip
    assert requests(query) == [
        "I have a few tasks.",
        "First, send a note where the content is Bring the documents. and with recipient "
        "ana@example.com.",
        "get the weather in Oslo",
        "book a table for two and with a window.",  # "and with": no verb, not a request
    ]
    assert requests("Hi") == ["Hi"]  # too short to split: the query itself


def test_the_planner_orders_tools_as_the_query_asks_and_skips_preambles():
    planner = ClausePlanner()  # the embedded MiniLM
    query = ("I have a few tasks. First, retrieve the returns of the hedge fund Bridgewater "
             "from 2020. Then retrieve information about the hedge fund Bridgewater.")  # fmt: skip
    plan = planner.plan(query, [WEATHER, FUND, RETURNS])
    assert plan.tools == ["getHedgeFundReturns", "getHedgeFundInfo"]
    assert plan.requests[0]["tool"] is None  # the preamble is below min_similarity
    assert plan.requests[0]["similarity"] < planner.min_similarity
    assert planner.plan(query, []).tools == []
    assert plan.due({"getHedgeFundReturns"}) == "getHedgeFundInfo"
    assert plan.due({"getHedgeFundReturns", "getHedgeFundInfo"}) is None


def test_a_distinct_margin_gives_a_close_second_request_its_own_tool():
    ownership = Tool("getPropertyOwnership", "Retrieve property ownership information", _NO_PARAMS)
    rights = Tool("getPropertyRights", "Retrieve information about property rights", _NO_PARAMS)
    query = ("I have a few tasks. First, retrieve property ownership information for property "
             "address canvas and (property type: industrial). Finally, retrieve information "
             "about property rights setting the property id to A2431, with property type "
             "land and passing the resulting owner contact as the owner name.")  # fmt: skip
    tools = [WEATHER, FUND, rights, ownership]
    for off in (None, -1.0):  # without the margin the two requests merge into one step
        planner = ClausePlanner(distinct_margin=off)
        assert planner.plan(query, tools).tools == ["getPropertyOwnership"]
        assert "distinct_margin" not in planner.describe()
    distinct = ClausePlanner()  # the default margin, 0.06
    plan = distinct.plan(query, tools)
    assert plan.tools == ["getPropertyOwnership", "getPropertyRights"]
    assert [r["tool"] for r in plan.requests[1:]] == plan.tools
    assert distinct.describe()["distinct_margin"] == 0.06
    # one tool asked twice by name has no neighbour within the margin: still one step
    twice = "First, get the weather in Oslo. Then get the weather in Cairo."
    assert distinct.plan(twice, [WEATHER, FUND, RETURNS]).tools == ["getWeather"]


def test_an_unfit_gap_ends_the_plan_before_a_request_no_shown_tool_fits():
    """A give-up of the dev set: no complete-blood-count tool is shown, so the first request
    lands on `getBloodCount`, which the third request is far closer to."""
    tools = [Tool("getBloodSugar", "Retrieve blood sugar level information", _NO_PARAMS),
             Tool("getInsulinDosage", "Retrieve insulin dosage recommendation for a patient",
                  _NO_PARAMS),
             Tool("getBloodCount", "Retrieve blood count information", _NO_PARAMS)]  # fmt: skip
    query = ("Here is what I need: First, retrieve the values of various components in a "
             "complete blood count test with patient id Bob Smith and using 2022-09-25 as the "
             "date. Next, retrieve insulin dosage recommendation for a patient using Grace Kim "
             "as the patient id, using breakfast as the meal period and taking the white blood "
             "cells obtained above as the blood glucose level. Finally, retrieve blood count "
             "information (patient id: Kenji Sato), using 2021-09-30 as the date and for time "
             "evening.")  # fmt: skip
    assert ClausePlanner(unfit_gap=None).plan(query, tools).unfit is None  # off
    assert ClausePlanner(unfit_gap=-1).plan(query, tools).unfit is None
    plan = ClausePlanner().plan(query, tools)  # the default gap, 0.15
    asked = [r["tool"] for r in plan.requests]
    assert asked == ["getBloodCount", "getInsulinDosage", "getBloodCount"]
    assert plan.requests[2]["similarity"] - plan.requests[0]["similarity"] > 0.15
    assert plan.unfit == plan.requests[0]["request"] and plan.requests[0]["unfit"] is True
    assert plan.tools == []  # no call before it: the reply at once
    later = ClausePlanner(unfit_gap=0.15).plan(" ".join(query.split(". ")[1:]), tools)
    assert later.unfit is None  # without the unfit request the plan runs whole
    # two requests about as close to one tool (one tool asked twice) are left alone
    twice = "First, get the weather in Oslo. Then get the weather in Cairo."
    again = ClausePlanner(unfit_gap=0.15).plan(twice, [WEATHER, FUND])
    assert again.unfit is None and again.tools == ["getWeather"]
    assert ClausePlanner(unfit_gap=0.15).describe()["unfit_gap"] == 0.15


class _FixedPlanner:
    """A planner test double: the same plan for every query."""

    def __init__(self, tools: list[str], unfit: str | None = None):
        self.tools, self.unfit = tools, unfit

    def plan(self, query, tools):
        return Plan(list(self.tools), unfit=self.unfit)

    def describe(self):
        return {"planner": "fixed"}


def _agent(script, plan_mode, planned, unfit=None):
    from toollearn.agents import ToolCallsAgent
    from toollearn.engines import ScriptedEngine
    from toollearn.envs import Environment

    engine = ScriptedEngine(script)
    env = Environment.simulated([WEATHER, FUND, RETURNS])
    planner = _FixedPlanner(planned, unfit)
    return engine, ToolCallsAgent(engine, env, plan=plan_mode, planner=planner)


def test_a_plan_that_ends_at_an_unfit_request_makes_the_agent_reply_after_its_calls():
    from toollearn.decoding.tool_calls import no_call_constraint

    info = '[{"name": "getHedgeFundInfo", "arguments": {}}]'
    for mode in ("due", "order"):
        engine, agent = _agent([info, "[]\nNo tool can book the flight."], mode,
                               ["getHedgeFundInfo"], unfit="book a flight")  # fmt: skip
        trace = agent.run("Info on the fund, then book a flight.", [WEATHER, FUND, RETURNS])
        assert [c.name for c in trace.calls] == ["getHedgeFundInfo"]
        assert trace.meta["outcome"] == "answered" and trace.answer.startswith("No tool")
        assert engine.requests[1]["constraint"].grammar == no_call_constraint().grammar
        assert trace.steps[0].data["unfit"] == "book a flight"
        assert trace.steps[0].content == "getHedgeFundInfo, then the reply: no shown tool fits"


def test_due_mode_offers_only_the_due_tool_one_call_a_turn_then_frees_the_turns():
    from toollearn.decoding.tool_calls import tool_calls_constraint

    info, returns = ('[{"name": "getHedgeFundInfo", "arguments": {}}]',
                     '[{"name": "getHedgeFundReturns", "arguments": {}}]')  # fmt: skip
    engine, agent = _agent(
        [info, returns, "[]\nDone."], "due", ["getHedgeFundInfo", "getHedgeFundReturns"]
    )
    trace = agent.run("Info on the fund, then its returns.", [WEATHER, FUND, RETURNS])
    assert [c.name for c in trace.calls] == ["getHedgeFundInfo", "getHedgeFundReturns"]
    assert trace.steps[0].role == "planner" and trace.meta["plan"] == "due"
    grammars = [r["constraint"].grammar for r in engine.requests]
    # the first turn may still decline (no gate made the call sure); the second may not
    assert grammars[0] == tool_calls_constraint([FUND], max_calls=1).grammar
    assert grammars[1] == tool_calls_constraint([RETURNS], False, max_calls=1).grammar
    assert grammars[2] == tool_calls_constraint([WEATHER, FUND, RETURNS]).grammar  # plan done


def test_order_mode_keeps_later_planned_tools_back_and_the_reply_open():
    from toollearn.decoding.tool_calls import tool_calls_constraint

    weather = '[{"name": "getWeather", "arguments": {}}]'
    engine, agent = _agent(
        [weather, "[]\nDone."], "order", ["getHedgeFundInfo", "getHedgeFundReturns"]
    )
    trace = agent.run("Info on the fund, then its returns.", [WEATHER, FUND, RETURNS])
    assert trace.meta["outcome"] == "answered"  # the model may still stop early
    expected = tool_calls_constraint([WEATHER, FUND], max_calls=1).grammar  # not the returns
    assert [r["constraint"].grammar for r in engine.requests] == [expected, expected]


def test_request_parts_mark_what_opens_a_request():
    from toollearn.agents.clause_plan import request_parts

    query = ("Grow tomatoes: I need planting instructions. The soil is loam. Besides that, "
             "list the crops of Peru. Then get the weather in Oslo, and book a table.")  # fmt: skip
    assert request_parts(query) == [
        ("Grow tomatoes: I need planting instructions.", False),  # the first: nothing before
        ("The soil is loam.", False),  # adds to the request before it
        ("Besides that, list the crops of Peru.", True),
        ("get the weather in Oslo", True),  # after "Then"
        ("book a table.", True),  # ", and <verb>"
    ]


def test_batch_plans_count_repeats_join_context_and_hold_back_what_waits():
    weather = Tool("getWeather", "Get the current weather of a city",
                   {"type": "object", "properties": {"city": {"type": "string"}}})  # fmt: skip
    planner = ClausePlanner.for_mode("batch")
    assert planner.describe()["follow_similarity"] == 0.2
    assert "follow_similarity" not in ClausePlanner.for_mode("due").describe()
    twice = planner.plan("Get the weather in Oslo. Besides that, get the weather in Cairo.",
                         [weather, FUND])  # fmt: skip
    assert twice.tools == ["getWeather"] and twice.calls == [("getWeather", False)] * 2
    joined = planner.plan("Get the weather in Oslo. I want the current weather there.",
                          [weather, FUND])  # fmt: skip
    assert joined.calls == [("getWeather", False)] and joined.requests[1]["joins"]
    waits = planner.plan("Retrieve information about the hedge fund Bridgewater. Then "
                         "retrieve the returns of the fund obtained from the previous call.",
                         [weather, FUND, RETURNS])  # fmt: skip
    assert waits.calls == [("getHedgeFundInfo", False), ("getHedgeFundReturns", True)]


def test_batch_plans_ask_the_same_request_again_of_another_value():
    from toollearn.agents.clause_plan import request_parts

    query = "What's the weather in Paris and in Rome?"
    assert request_parts(query) == [(query, False)]  # one request to the one-call-a-turn plans
    assert request_parts(query, again=True) == [("What's the weather in Paris", False),
                                                ("and in Rome?", True)]  # fmt: skip
    weather = Tool("getWeather", "Get the current weather of a city",
                   {"type": "object", "properties": {"city": {"type": "string"}}})  # fmt: skip
    planner = ClausePlanner.for_mode("batch")
    plan = planner.plan(query, [weather, FUND])
    assert plan.calls == [("getWeather", False)] * 2 and plan.requests[1]["again"]
    assert ClausePlanner().plan(query, [weather, FUND]).tools == ["getWeather"]
    remind = Tool("setReminder", "Set a daily reminder at the given times",
                  {"type": "object", "properties": {"times": {"type": "array"}}})  # fmt: skip
    lists = planner.plan("Set a daily reminder to drink water at 8 and at 20.", [remind, FUND])
    assert lists.calls == [("setReminder", False)]  # one call takes both times
    assert lists.requests[1]["joins"]


def test_batch_mode_calls_the_plan_in_one_list_then_what_waits_then_replies():
    from toollearn.agents.tool_calls import batch_turn, planned_turn
    from toollearn.decoding.tool_calls import no_call_constraint, tool_calls_constraint

    requests = [
        {"request": "a", "tool": "getWeather", "similarity": 0.5},
        {"request": "b", "tool": "getHedgeFundInfo", "similarity": 0.5},
        {"request": "c", "tool": "getWeather", "similarity": 0.5},
        {"request": "d", "tool": "getHedgeFundReturns", "similarity": 0.5, "waits": True},
    ]
    plan = Plan(["getWeather", "getHedgeFundInfo", "getHedgeFundReturns"], requests)
    shown = [WEATHER, FUND, RETURNS]
    offered, first = planned_turn(plan, "batch", [], shown, 0)
    assert offered == [WEATHER, FUND]
    seq = ["getWeather", "getHedgeFundInfo", "getWeather"]
    assert first.grammar == tool_calls_constraint([WEATHER, FUND], sequence=seq).grammar
    offered, sure = batch_turn(plan, [], shown, 0, "sure call")  # the gate is sure: must call
    assert sure.grammar == tool_calls_constraint(offered, False, sequence=seq).grammar
    offered, second = batch_turn(plan, seq, shown, 1)
    assert offered == [RETURNS]
    assert (
        second.grammar
        == tool_calls_constraint([RETURNS], False, sequence=["getHedgeFundReturns"]).grammar
    )
    done = [*seq, "getHedgeFundReturns"]
    assert batch_turn(plan, done, shown, 2) == ([], no_call_constraint())
    assert batch_turn(Plan([]), [], shown, 0) == (shown, None)  # nothing planned: free
    chain = Plan([], [{**requests[0], "waits": False}, {**requests[1], "waits": True},
                      {**requests[3], "waits": True}])  # fmt: skip
    turns = [batch_turn(chain, made, shown, k)[0] for k, made in enumerate(
        ([], ["getWeather"], ["getWeather", "getHedgeFundInfo"]))]  # fmt: skip
    assert turns == [[WEATHER], [FUND], [RETURNS]]  # each waits for the one before it


def test_batch_mode_may_call_where_a_request_found_no_tool_in_the_first_list_only():
    from toollearn.agents.tool_calls import batch_turn
    from toollearn.decoding.tool_calls import no_call_constraint, tool_calls_constraint

    requests = [
        {"request": "a", "tool": None, "similarity": 0.2, "open": True},
        {"request": "b", "tool": "getWeather", "similarity": 0.5},
        {"request": "c", "tool": None, "similarity": 0.1},  # adds to b: no place of its own
        {"request": "d", "tool": "getHedgeFundReturns", "similarity": 0.5, "waits": True},
    ]
    plan = Plan(["getWeather", "getHedgeFundReturns"], requests)
    assert plan.slots == [(None, False), ("getWeather", False), ("getHedgeFundReturns", True)]
    assert plan.calls == [("getWeather", False), ("getHedgeFundReturns", True)]
    shown = [WEATHER, FUND, RETURNS]
    offered, first = batch_turn(plan, [], shown, 0)
    assert offered == shown  # the open place may call any shown tool
    assert first.grammar == tool_calls_constraint(shown, sequence=[None, "getWeather"]).grammar
    offered, second = batch_turn(plan, ["getWeather", "getWeather"], shown, 1)
    assert offered == [RETURNS]  # no open place after the first list
    assert batch_turn(plan, ["getWeather", "getHedgeFundReturns"], shown, 2) == (
        [], no_call_constraint())  # fmt: skip
    nothing = Plan([], [requests[0], {**requests[2], "open": True}])
    assert nothing.slots == [] and batch_turn(nothing, [], shown, 0) == (shown, None)


def test_batch_plans_leave_a_place_for_a_request_no_tool_is_close_to():
    """A dev item: the first question is below the floor, the second lands on the one tool;
    the batch keeps a place for the first instead of calling once."""
    runes = Tool("Runes", "Cast runes and read them to answer a question about your life",
                 {"type": "object", "properties": {"query": {"type": "string"}}})  # fmt: skip
    planner = ClausePlanner.for_mode("batch")
    plan = planner.plan("Who won the cup in 1998? Next, cast the runes about my career.", [runes])
    assert plan.requests[0]["tool"] is None and plan.requests[0]["open"]
    assert plan.slots == [(None, False), ("Runes", False)]
    joined = planner.plan("Get the weather in Oslo. My aunt lives there.", [WEATHER, FUND])
    assert joined.slots == [("getWeather", False)]  # a sentence that opens nothing after a call
    assert "open" not in joined.requests[1]


def test_a_sentence_that_joins_a_request_is_never_unfit():
    """A dev item: a detail sentence lands on its request's tool far below it; it asks
    nothing new, so it does not end the plan."""
    campaign = Tool("createPromotionCampaign", "Create a sales promotion campaign", _NO_PARAMS)
    post = Tool("postStatusUpdate", "Post a status update on social media", _NO_PARAMS)
    query = ("Create a sales promotion campaign for the Summer Sale. The target audience for "
             "this campaign is young professionals.")  # fmt: skip
    plan = ClausePlanner.for_mode("batch").plan(query, [campaign, post])
    first, detail = plan.requests
    assert detail["joins"] and first["similarity"] - detail["similarity"] > 0.15
    assert plan.unfit is None and plan.calls == [("createPromotionCampaign", False)]


def test_a_plan_needs_a_known_mode():
    from toollearn.agents import ToolCallsAgent
    from toollearn.engines import ScriptedEngine

    with pytest.raises(ValueError, match="plan must be one of"):
        ToolCallsAgent(ScriptedEngine([]), plan="always")
