"""The general suite's scorer on hand-made right and wrong answers (the README's matching rules)."""

from __future__ import annotations

import pytest

from toollearn.evaluation.calls_suite import Answer, SuiteItem, by_category, score_item
from toollearn.evaluation.metrics.calls_ast import (
    GoldCall,
    arguments_match,
    json_typed,
    match_gold,
    values_match,
)

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "default": 1},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "alerts": {"type": "boolean"},
        "hours": {"type": "array", "items": {"type": "integer"}},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
        },  # fmt: skip
    },
    "required": ["city"],
}
SCHEMAS = {"get_weather": WEATHER, "get_time": {"type": "object", "properties": {
    "city": {"type": "string"}}}}  # fmt: skip


@pytest.mark.parametrize(
    ("pred", "gold", "schema", "same"),
    [
        (3, 3.0, {"type": "number"}, True),  # numbers compare numerically
        ("3", 3, {"type": "integer"}, True),  # JSON typing of a string holding a number
        ("3.5", 3.5, {"type": "number"}, True),
        ("three", 3, {"type": "integer"}, False),
        ("true", True, {"type": "boolean"}, True),
        (1, True, {"type": "boolean"}, False),  # a bool equals only a bool
        ("  Paris ", "paris", {"type": "string"}, True),  # trimmed, case-insensitive
        ("Paris, FR", "Paris", {"type": "string"}, False),
        ("3", 3, {"type": "string"}, False),  # no typing where the schema asks a string
        ([1, 2], [1, 2], {"type": "array", "items": {"type": "integer"}}, True),
        ([2, 1], [1, 2], {"type": "array", "items": {"type": "integer"}}, False),  # in order
        ("[1, 2]", [1, 2], {"type": "array"}, True),
        (["A", "b"], ["a", "B"], {"type": "array", "items": {"type": "string"}}, True),
        ({"lat": "1.5", "lon": 2}, {"lat": 1.5, "lon": 2.0}, WEATHER["properties"]["where"], True),
        ({"lat": 1.5}, {"lat": 1.5, "lon": 2.0}, WEATHER["properties"]["where"], False),
        (None, None, {}, True),
        (None, "x", {}, False),
    ],
)
def test_values_match(pred, gold, schema, same):
    assert values_match(pred, gold, schema) is same


def test_json_typed_leaves_other_values_alone():
    assert json_typed("1e3", {"type": "number"}) == 1000.0
    assert json_typed("12", {"type": ["integer", "null"]}) == 12
    assert json_typed("{bad", {"type": "object"}) == "{bad"
    assert json_typed(7, {"type": "string"}) == 7


def test_optional_arguments_and_defaults():
    gold = {"city": "Paris"}
    # absent where gold omits it; present only with its declared default
    assert arguments_match({"city": "paris"}, gold, WEATHER)
    assert arguments_match({"city": "Paris", "unit": "celsius", "days": "1"}, gold, WEATHER)
    assert not arguments_match({"city": "Paris", "unit": "fahrenheit"}, gold, WEATHER)
    assert not arguments_match({"city": "Paris", "alerts": False}, gold, WEATHER)  # no default
    # a gold argument the prediction leaves out: fine only when it is the default
    assert arguments_match({"city": "Paris"}, {"city": "Paris", "days": 1}, WEATHER)
    assert not arguments_match({"city": "Paris"}, {"city": "Paris", "days": 3}, WEATHER)
    assert not arguments_match({}, gold, WEATHER)


def test_alternatives():
    gold = GoldCall("get_weather", {"city": "Boston, MA"}, {"city": ["Boston, Massachusetts"]})
    for city, ok in (("boston, ma", True), ("Boston, Massachusetts", True), ("Boston", False)):
        assert match_gold([("get_weather", {"city": city})], [gold], SCHEMAS).exact is ok


def test_several_calls_match_order_free():
    gold = [GoldCall("get_weather", {"city": "Paris"}), GoldCall("get_weather", {"city": "Rome"}),
            GoldCall("get_time", {"city": "Rome"})]  # fmt: skip
    pred = [("get_time", {"city": "rome"}), ("get_weather", {"city": "Rome"}),
            ("get_weather", {"city": "Paris"})]  # fmt: skip
    m = match_gold(pred, gold, SCHEMAS)
    assert m.exact and m.tools_correct == 3 and m.args_correct == 3
    # one value wrong: not exact, the other pairs still counted
    wrong = [("get_time", {"city": "Oslo"}), *pred[1:]]
    m = match_gold(wrong, gold, SCHEMAS)
    assert not m.exact and m.tools_correct == 3 and m.args_correct == 2
    # a call missing, or one too many: not exact
    assert not match_gold(pred[:2], gold, SCHEMAS).exact
    extra = [*pred, ("get_time", {"city": "Paris"})]
    m = match_gold(extra, gold, SCHEMAS)
    assert not m.exact and m.tools_correct == 3
    # a wrong tool name never pairs
    assert match_gold([("get_forecast", {"city": "Paris"})], gold[:1], SCHEMAS).tools_correct == 0


def _item(category, calls=(), **kw):
    return SuiteItem(id="x", category=category, messages=({"role": "user", "content": "q"},),
                     calls=tuple(calls), **kw)  # fmt: skip


def test_score_item_calls_and_declines():
    item = _item("simple", [GoldCall("get_weather", {"city": "Paris"})])
    right = score_item(item, Answer((("get_weather", {"city": "Paris"}),)), SCHEMAS)
    assert right["exact"] == right["decision"] == 1 and right["args_correct"] == 1
    no_call = score_item(item, Answer((), "It is sunny."), SCHEMAS)
    assert no_call["exact"] == no_call["decision"] == 0
    decline = _item("decline", reply=True)
    ok = score_item(decline, Answer((), "I can't do that with these tools."), SCHEMAS)
    assert ok["exact"] == ok["decision"] == ok["replied"] == 1
    called = score_item(decline, Answer((("get_weather", {"city": "x"}),)), SCHEMAS)
    assert called["exact"] == called["decision"] == 0 and called["tools_pred"] == 1
    silent = score_item(decline, Answer((), ""), SCHEMAS)
    assert silent["decision"] == 1 and silent["exact"] == 0  # a reply is asked for


def test_score_item_markup_format_mentions_answers():
    chat = _item("chat", reply=True, answers=("Paris",))
    good = score_item(chat, Answer((), "The capital of France is Paris."), SCHEMAS)
    assert good["exact"] == good["answer_ok"] == 1 and good["markup"] == 0
    deer = score_item(chat, Answer((), "#Begin# Need to look up the API Pool. #SearchAPI#"),
                      SCHEMAS)  # fmt: skip
    assert deer["markup"] == 1 and deer["exact"] == 0 and deer["answer_ok"] == 0
    for text in ("Action: search\nAction Input: {}", "Thought: I should call\n",
                 "Next: caller.", "API.search(query='x')", "[{'api': 'x'}]"):  # fmt: skip
        assert score_item(chat, Answer((), text), SCHEMAS)["markup"] == 1, text
    broken = score_item(chat, Answer((), '[{"name": "get_weather", "arguments": {'), SCHEMAS)
    assert broken["format_ok"] == 0 and broken["exact"] == 0
    failed = score_item(chat, Answer((), "Paris", error="HTTP 500"), SCHEMAS)
    assert failed["format_ok"] == 0 and failed["exact"] == 0
    answer = _item("multi-turn", reply=True, mentions=("18.5", "cloudy"))
    assert score_item(answer, Answer((), "It is 18.5 degrees."), SCHEMAS)["exact"] == 1
    assert score_item(answer, Answer((), "Nice weather."), SCHEMAS)["exact"] == 0


def test_answer_from_openai_message():
    msg = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "not json"}},
        ],
    }
    ans = Answer.from_message(msg)
    assert ans.calls == (("f", {"x": 1}), ("g", {"<unparsed>": "not json"})) and ans.text == ""


def test_summary_per_category():
    rows = [{"category": "simple", "n": 1, "exact": 1, "decision": 1, "format_ok": 1,
             "markup": 0, "tools_correct": 1, "tools_pred": 1, "tools_gold": 1,
             "args_correct": 1, "args_pred": 1, "args_gold": 2},
            {"category": "chat", "n": 1, "exact": 0, "decision": 1, "format_ok": 1,
             "markup": 1, "tools_correct": 0, "tools_pred": 0, "tools_gold": 0,
             "args_correct": 0, "args_pred": 0, "args_gold": 0, "replied": 1,
             "answer_ok": 0}]  # fmt: skip
    out = by_category(rows)
    assert list(out) == ["simple", "chat", "all"]
    assert out["simple"]["exact"] == 100.0 and out["simple"]["arg_f1"] == 66.7
    assert out["chat"]["markup"] == 100.0 and out["chat"]["answers"] == 0.0
    assert "tool_f1" not in out["chat"] and out["all"]["n"] == 2


def test_free_arguments_are_not_scored():
    schema = {"type": "object", "properties": {"q": {"type": "string"},
              "user_id": {"type": "integer"}, "limit": {"type": "integer"}},
              "required": ["q", "user_id"]}  # fmt: skip
    gold = GoldCall("search", {"q": "cats", "user_id": 1, "limit": 5}, free=("user_id", "limit"))
    schemas = {"search": schema}
    m = match_gold([("search", {"q": "Cats", "user_id": 77})], [gold], schemas)
    assert m.exact and m.args_correct == 1 and m.args_pred == 1 and m.args_gold == 1
    assert match_gold([("search", {"q": "cats", "user_id": 2, "limit": 9})], [gold], schemas).exact
    # a free argument the schema requires must still be there; scored ones still count
    assert not match_gold([("search", {"q": "cats"})], [gold], schemas).exact
    assert not match_gold([("search", {"q": "dogs", "user_id": 1})], [gold], schemas).exact
