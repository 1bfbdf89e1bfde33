"""Unit tests: typed matching, DEER, alpha-UMi step metrics, API complexity, report tables."""

from __future__ import annotations

import math

import pytest

from toollearn.core.errors import DataError
from toollearn.core.types import Example, Ref, ToolCall
from toollearn.evaluation.metrics.complexity import api_complexity, api_distance
from toollearn.evaluation.metrics.deer import DeerPrediction, deer_scores
from toollearn.evaluation.metrics.matching import match_calls, max_weight_matching, values_equal
from toollearn.evaluation.metrics.stepwise import StepOutput, StepTarget, arg_f1, stepwise_scores
from toollearn.evaluation.report import format_table, metric_table

# ---------------------------------------------------------------- matching


def test_values_equal_is_typed():
    assert values_equal(1, 1.0) and values_equal([1, {"a": 2.0}], (1, {"a": 2}))
    assert not values_equal(True, 1) and not values_equal(1, "1") and not values_equal("a", "A")
    assert values_equal(Ref("API_call_0"), Ref("API_call_0", 0, 0))
    assert not values_equal(Ref("API_call_0"), "API_call_0")
    assert not values_equal({"a": 1}, {"a": 1, "b": 2}) and values_equal(None, None)


def test_match_calls_prefers_more_pairs_then_more_equal_arguments():
    gold = [ToolCall("f", {"x": 1}), ToolCall("f", {"x": 2}), ToolCall("g")]
    pred = [ToolCall("f", {"x": 2}), ToolCall("g"), ToolCall("f", {"x": 1}), ToolCall("h")]
    assert match_calls(pred, gold) == [(0, 1), (1, 2), (2, 0)]


def test_max_weight_matching_beats_greedy():
    # greedy would take (0, 0) = 5 and then only (1, 1) = 1; optimal is 4 + 4
    assert max_weight_matching([[5, 4], [4, 1]]) == [(0, 1), (1, 0)]
    assert max_weight_matching([[None, 1, None]]) == [(0, 1)]
    assert max_weight_matching([]) == []


# ---------------------------------------------------------------- DEER


def _deer_examples() -> list[Example]:
    gold = ToolCall("weather", {"city": "Paris"})
    return [
        Example(id="ns", query="hi", needs_tool=False),
        Example(id="nc", query="q", needs_tool=True, has_suitable_tool=False),
        Example(id="c1", query="q", needs_tool=True, has_suitable_tool=True, calls=(gold,)),
        Example(id="c2", query="q", needs_tool=True, has_suitable_tool=True, calls=(gold,)),
    ]


def test_deer_scores():
    preds = [
        DeerPrediction(search=False),
        DeerPrediction(search=True),  # searched, declined to call: right
        DeerPrediction(search=True, call=ToolCall("weather", {"city": "paris"})),  # name only
        DeerPrediction(search=True, call=ToolCall("weather", {"city": "Paris"})),
    ]
    s = deer_scores(preds, _deer_examples())
    assert s["P_NoSearch"] == 1.0 and s["P_Search"] == 1.0 and s["P_DS"] == 1.0
    assert s["P_NoCall"] == 1.0 and s["P_Call"] == 1.0 and s["Call_strict"] == 0.5
    assert s["P_DC"] == 1.0 and s["P_DC_strict"] == pytest.approx(2 / 3)


def test_deer_scores_failures_and_empty_kinds():
    preds = [
        DeerPrediction(None),
        DeerPrediction(False),
        DeerPrediction(None),
        DeerPrediction(True),
    ]
    s = deer_scores(preds, _deer_examples())
    assert s["unreadable"] == 2 and s["P_NoSearch"] == 0.0 and s["P_NoCall"] == 0.0
    assert s["P_Search"] == pytest.approx(1 / 3) and s["P_Call"] == 0.0
    only_call = deer_scores(preds[3:], _deer_examples()[3:])
    assert only_call["P_NoSearch"] is None and only_call["P_NoCall"] is None
    with pytest.raises(ValueError):
        deer_scores(preds[:1], _deer_examples())


# ---------------------------------------------------------------- alpha-UMi


def test_arg_f1_half_credit():
    gold = {"a": 1, "b": "x"}
    assert arg_f1({"a": 1, "b": "x"}, gold) == 1.0
    # a right (1) + b wrong value (0.5) = 1.5; P = 1.5 / 3, R = 1.5 / 2
    p, r = 1.5 / 3, 1.5 / 2
    assert arg_f1({"a": 1, "b": "y", "c": 0}, gold) == pytest.approx(2 * p * r / (p + r))
    assert arg_f1({}, {}) == 1.0 and arg_f1({}, gold) == 0.0 and arg_f1(None, gold) == 0.0


def test_stepwise_scores():
    golds = [
        StepTarget("call", api="search", arguments={"q": "cats"}, candidates=("search", "buy")),
        StepTarget("call", api="buy", arguments={"id": 3}, candidates=("search", "buy")),
        StepTarget("finish", answer="The cat costs three dollars", candidates=("search", "buy")),
    ]
    preds = [
        StepOutput("call", api="search", arguments={"q": "cats"}),
        StepOutput("call", api="sell", arguments={"id": 3}),  # wrong and not a candidate
        StepOutput("finish", answer="the cat costs three dollars"),
    ]
    s = stepwise_scores(preds, golds)
    assert s["plan_acc"] == 1.0 and s["act_em"] == 0.5
    assert s["hallucination"] == pytest.approx(1 / 3)
    assert s["arg_f1"] == 0.5  # 1.0 and 0 (wrong API name)
    assert s["rouge_l"] == pytest.approx(1.0)  # rouge-score lowercases
    assert s["plans"]["call"] == {"call": 2, "finish": 0, "give_up": 0, "unreadable": 0}
    with pytest.raises(ValueError):
        StepTarget("talk")


def test_stepwise_plans_count_gold_against_predicted_actions():
    golds = [StepTarget("call", api="a"), StepTarget("call", api="a"), StepTarget("finish"),
             StepTarget("finish"), StepTarget("give_up")]  # fmt: skip
    preds = [StepOutput("finish"), StepOutput(None), StepOutput("give_up"), StepOutput("finish"),
             StepOutput("call", api="a")]  # fmt: skip
    s = stepwise_scores(preds, golds)
    assert s["plans"] == {
        "call": {"call": 0, "finish": 1, "give_up": 0, "unreadable": 1},
        "finish": {"call": 0, "finish": 1, "give_up": 1, "unreadable": 0},
        "give_up": {"call": 1, "finish": 0, "give_up": 0, "unreadable": 0},
    }
    assert s["plan_acc"] == sum(s["plans"][a][a] for a in s["plans"]) / 5
    from toollearn.evaluation.runners.stepwise import plan_errors

    assert plan_errors(s) == ("wrong plans (gold -> predicted): call -> finish 1, call -> "
                              "unreadable 1, finish -> give_up 1, give_up -> call 1")  # fmt: skip
    assert plan_errors({"plans": {"call": {"call": 3}}}).endswith(": none")


# ---------------------------------------------------------------- API complexity


def test_api_distance_paper_example():
    # paper D.1.1: e covers a1..a4, t needs a1 a2 a6 a4 a5, |D| = 10
    d = api_distance(["a1", "a2", "a6", "a4", "a5"], ["a1", "a2", "a3", "a4"], 10)
    assert d == pytest.approx(4 + 2 * math.log2(10))
    assert api_distance(["a", "a"], ["a"], 4) == pytest.approx(1 + 2)  # repeats count


def test_api_complexity_takes_nearest_demo():
    tests = [["a"], ["b"]]
    demos = [["a"], ["a", "b", "c"]]
    # t=a: min(1, 3) = 1; t=b: min(1 + log2 8, 3) = 3
    assert api_complexity(tests, demos, 8) == pytest.approx(2.0)
    assert api_complexity(tests, demos, 8, base=math.e) == pytest.approx(2.0 * math.log(2))
    with pytest.raises(DataError):
        api_complexity(tests, [], 8)


# ---------------------------------------------------------------- report


def test_format_table_aligns():
    text = format_table([{"name": "a", "v": 1.234}, {"name": "bbb", "v": None}], ["name", "v"])
    assert text.splitlines() == ["name     v", "----  ----", "a     1.23", "bbb      -"]


def test_metric_table_percent():
    text = metric_table({"all": {"format_acc": 0.99714, "n": 700}}, ["n", ("format_acc", "Format")])
    assert text.splitlines()[-1].split() == ["all", "700", "99.71"]
