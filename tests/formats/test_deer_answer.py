"""DEER answers: parse the released targets' three forms, render them back byte-exact."""

from __future__ import annotations

import json

import pytest

from toollearn.core.errors import FormatError
from toollearn.core.types import ToolCall
from toollearn.data import tooldeer
from toollearn.data.registry import sample_root
from toollearn.formats.answers.deer import DeerAnswer, parse_deer, render_deer

NO_SEARCH = (
    "#Begin# Don't need to look up the API Pool, I can answer this question with my own "
    "knowledge. #End#"
)


def _sample(split: str):
    return tooldeer.load_split(sample_root(), split)


def test_three_decision_forms_are_read_from_real_targets():
    seen = {}
    for ex in _sample("valid"):
        ans = parse_deer(ex.metadata["target"], ex.tools)
        assert ans.decision == ex.metadata["decision"]
        assert not ans.error
        seen[ans.decision] = ans
        if ans.search:
            assert ans.pool == tuple(t.metadata["api_name"] for t in ex.tools)
        if ans.call is not None:
            assert ans.call.name == ex.calls[0].name
            assert ans.call.arguments == ex.calls[0].arguments
    assert set(seen) == {"Call", "NoCall", "NoSearch"}
    assert seen["NoSearch"] == DeerAnswer(False, None, (), NO_SEARCH)


def test_render_is_byte_equal_to_the_released_targets():
    for ex in _sample("test") + _sample("valid"):
        target = ex.metadata["target"]
        ans = parse_deer(target, ex.tools)
        rendered = render_deer(ans, ex.tools)
        if ans.call is None or ex.metadata["call_text"] == _call_text(rendered):
            assert rendered == target
        assert parse_deer(rendered, ex.tools).decision == ans.decision


def _call_text(rendered: str) -> str:
    return rendered.split("#CallAPI# ", 1)[1].split(" #APIResponse#", 1)[0]


def test_model_style_answers():
    assert parse_deer(
        "#Begin# Need to look up. #SearchAPI# ... #NoCallAPI# none #End#"
    ).decision == ("NoCall")
    ans = parse_deer("#CallAPI# f(a=1) #APIResponse# #End#")
    assert ans.search and ans.call == ToolCall("f", {"a": 1})
    partial = parse_deer("#Begin# Need to look up the API Pool. #SearchAPI# The API Pool incl")
    assert partial.search and partial.call is None and "no #CallAPI#" in partial.error
    bad_args = parse_deer("#SearchAPI# x #CallAPI# f(a=os.system('x')) #APIResponse# #End#")
    assert bad_args.call.name == "f" and bad_args.call.arguments == {}
    assert "unreadable" in bad_args.error
    assert parse_deer("I answer myself. #End#").decision == "NoSearch"


@pytest.mark.parametrize("text", ["", "Sure, calling the weather tool now.", "#Begin# hmm"])
def test_unreadable_answers_raise(text):
    with pytest.raises(FormatError, match="no DEER decision"):
        parse_deer(text)


@pytest.mark.shared
def test_all_released_targets_parse_and_most_render_byte_equal(deer_dir):
    equal = total = 0
    for split in ("valid", "test"):
        for ex in tooldeer.load_split(deer_dir, split):
            ans = parse_deer(ex.metadata["target"], ex.tools)
            assert ans.decision == ex.metadata["decision"]
            rendered = render_deer(ans, ex.tools)
            total += 1
            equal += rendered == ex.metadata["target"]
            if ans.call is None:
                assert rendered == ex.metadata["target"]
    # The 37 others differ only in how the gold call was written (quotes, spacing, repairs, and
    # 3 with arguments out of their declared order, which the renderer writes in order).
    assert (total, equal) == (1808, 1771)


def test_sample_records_are_unchanged_copies():
    raw = json.loads((sample_root() / "tooldeer" / "test.json").read_text())
    assert [r["conversations"][1]["value"] for r in raw] == [
        e.metadata["target"] for e in _sample("test")
    ]
