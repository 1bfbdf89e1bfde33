"""alpha-UMi prompts/parsers and the released trajectory file format."""

from __future__ import annotations

import json

import pytest
from helpers import ADD, MULTIPLY

from toollearn.core.errors import DataError, FormatError
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.data.trajectories import Trajectory, read_trajectories, write_trajectories
from toollearn.formats.answers import umi


def test_parse_plan_reads_the_last_next():
    plan = umi.parse_plan("I should call add. Next: caller.")
    assert plan == umi.Plan("I should call add.", "caller")
    assert umi.parse_plan("Done, next: Conclusion").next == "conclusion"
    assert umi.parse_plan("No way. Next: give up.").next == "give up"
    assert umi.parse_plan("Next: summarizer").next == "conclusion"
    with pytest.raises(FormatError):
        umi.parse_plan("I will think about it")
    assert umi.render_plan("Think.", "caller") == "Think. Next: caller."


@pytest.mark.parametrize(
    "text",
    [
        'Action: add\nAction Input: {"a": 1, "b": 2}',
        'Action: add Action Input: "{\\"a\\": 1, \\"b\\": 2}"',
        "Action: add,\nAction Input: {'a': 1, 'b': 2}\nObservation: ...",
    ],
)
def test_parse_action_variants(text):
    assert umi.parse_action(text) == ToolCall("add", {"a": 1, "b": 2})


def test_parse_action_errors_and_roundtrip():
    with pytest.raises(FormatError):
        umi.parse_action("I would add the numbers")
    with pytest.raises(FormatError):
        umi.parse_action("Action: add\nAction Input: {a: one}")
    call = ToolCall("multiply", {"a": 2, "b": 3})
    assert umi.parse_action(umi.render_action(call)) == call
    assert umi.parse_action("Action: ping") == ToolCall("ping", {})


def test_react_finish_and_prompts():
    step = umi.parse_react("done\n" + umi.render_react_finish("42"))
    assert step.finish == "give_answer" and step.answer == "42" and step.thought == "done"
    assert (
        umi.parse_react(umi.render_react_finish("", give_up=True)).finish == "give_up_and_restart"
    )
    history = [Message("user", "2+3?"), Message("assistant", "Add. Next: caller.")]
    prompt = umi.planner_prompt([ADD], history)
    assert '"Name": "add"' in prompt and "User: 2+3?" in prompt and "Next: caller" in prompt
    assert "exactly in [add, multiply]" in umi.caller_prompt([ADD, MULTIPLY], history, "Add.")
    assert umi.summarizer_prompt(history).endswith("Assistant: Add. Next: caller.")


def test_trajectory_file_roundtrip(tmp_path):
    traj = Trajectory(
        "What is 2+3?",
        (ADD,),
        (Message("user", "What is 2+3?"), Message("assistant", "Add. Next: caller."),
         Message("caller", 'Action: add\nAction Input: {"a": 2, "b": 3}'),
         Message("observation", "5"), Message("assistant", "Got 5. Next: conclusion."),
         Message("conclusion", "2+3 = 5")),
        id="t0",
    )  # fmt: skip
    path = write_trajectories([traj], tmp_path / "t.json")
    raw = json.loads(path.read_text())
    assert raw[0]["conversations"][1] == {"from": "assistant", "value": "Add. Next: caller."}
    assert raw[0]["tools"][0]["Name"] == "add"
    back = read_trajectories(path)[0]
    assert back.conversations == traj.conversations and back.tools[0].name == "add"
    assert back.instruction == traj.instruction and back.id == "t0"


def test_trajectory_errors_name_the_record(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"conversations": [{"from": "robot", "value": "x"}]}]))
    with pytest.raises(DataError, match="record 0 turn 0"):
        read_trajectories(bad)
    with pytest.raises(DataError):
        read_trajectories(tmp_path / "missing.json")


def test_echoed_instruction_lines_are_not_actions():
    echo = ("Thought: One of the JSON arguments. To finish, use Action: Finish with Action Input: "
            '{"return_type": "give_answer", "final_answer": "..."}')  # fmt: skip
    with pytest.raises(FormatError):
        umi.parse_react(echo)
    caller_echo = (
        "Action: the name of api that should be called in this step, should be exactly in "
        "[add, multiply]\nAction Input: the api call request."
    )
    with pytest.raises(FormatError):
        umi.parse_action(caller_echo)
    real = caller_echo + '\nAction: add\nAction Input: {"a": 1, "b": 2}'
    assert umi.parse_action(real) == ToolCall("add", {"a": 1, "b": 2})
    step = umi.parse_react("Thought: add them\nAction: add\nAction Input: {}")
    assert step.thought == "add them" and step.call.name == "add"


def test_long_histories_are_cut_from_the_left():
    tools = [Tool("add")]
    history = [Message("user", "the task")] + [
        Message("observation", f"result {i} " + "x" * 200) for i in range(10)
    ]

    def build(h):
        return umi.planner_prompt(tools, h)

    kept, dropped = umi.fit_history(build, history, lambda p: len(p) < 1200)
    assert kept[0] == history[0] and kept[-1] == history[-1] and dropped == len(history) - len(kept)
    assert len(build(kept)) < 1200 < len(build(history))
    assert umi.fit_history(build, history, lambda p: True) == (history, 0)
    assert umi.fit_history(build, history, lambda p: False) == ([], len(history))
