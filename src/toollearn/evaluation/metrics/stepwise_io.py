"""Step targets from alpha-UMi trajectories, and step predictions from raw model text.

A trajectory's planner ("assistant") turn at index i is a step with id "<trajectory id>:<i>":
`Next: caller.` -> a call step (gold call = the following caller turn), `Next: conclusion.`
-> a finish step (gold answer = the following conclusion turn), `Next: give up.` -> give_up.
Predictions come either from the three roles (planner text, caller text, summarizer text) or
from one single-LLM ReAct turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message
from toollearn.evaluation.metrics.stepwise import StepOutput, StepTarget

_ACTION_OF = {"caller": "call", "conclusion": "finish", "give up": "give_up"}


def step_targets(trajectory: Any) -> tuple[list[tuple[str, StepTarget]], list[str]]:
    """(step id, gold step) for every readable planner turn of a `data.trajectories.Trajectory`,
    and the reasons for the planner turns that could not be read (skipped, as the stepwise
    runner does). Ids are "<trajectory id>:<turn index>", the runner's ids."""
    from toollearn.formats.answers.umi import parse_action, parse_plan

    turns: Sequence[Message] = trajectory.conversations
    candidates = tuple(t.name for t in trajectory.tools)
    out, skipped = [], []
    for i, turn in enumerate(turns):
        if turn.role != "assistant":
            continue
        where = f"trajectory {trajectory.id!r} turn {i}"
        try:
            action = _ACTION_OF[parse_plan(turn.content).next]
            target = StepTarget(action, candidates=candidates)
            if action == "call":
                call = parse_action(_following(turns, i, "caller", where))
                target = StepTarget(action, call.name, call.arguments, candidates=candidates)
            elif action == "finish":
                answer = _following(turns, i, "conclusion", where)
                target = StepTarget(action, answer=answer, candidates=candidates)
        except FormatError as exc:
            skipped.append(f"{where}: {exc}")
            continue
        out.append((f"{trajectory.id}:{i}", target))
    return out, skipped


def _following(turns: Sequence[Message], index: int, role: str, where: str) -> str:
    for turn in turns[index + 1 :]:
        if turn.role == role:
            return turn.content
        if turn.role == "assistant":
            break
    raise FormatError(f"the planner chose {role} but no {role} turn follows")


def react_output(text: str) -> StepOutput:
    """One single-LLM turn (an action, or `Action: Finish`) as a StepOutput."""
    from toollearn.formats.answers.umi import parse_react

    try:
        step = parse_react(text)
    except FormatError:
        return StepOutput(None)
    if step.call is not None:
        return StepOutput("call", step.call.name, step.call.arguments)
    action = "give_up" if step.finish == "give_up_and_restart" else "finish"
    return StepOutput(action, answer=step.answer)


def roles_output(planner: str, caller: str | None, summarizer: str | None) -> StepOutput:
    """The three roles' texts (caller and summarizer only when asked) as a StepOutput."""
    from toollearn.formats.answers.umi import parse_action, parse_plan

    try:
        action: str | None = _ACTION_OF[parse_plan(planner).next]
    except FormatError:
        action = None
    api, args = None, None
    if caller:
        try:
            call = parse_action(caller)
            api, args = call.name, call.arguments
        except FormatError:
            pass
    return StepOutput(action, api, args, summarizer)


def step_output(record: dict[str, Any], style: str = "roles") -> StepOutput:
    """A prediction record as a StepOutput, always re-read from raw model text; unreadable
    parts become None.

    A stepwise-runner record holds `texts` ({"planner", "caller", "summarizer"} or
    {"single"}); a record with only a parsed `pred` dict is taken as it is. Other records:
    style "roles": `output` = planner text, optional `caller` and `summarizer` texts; style
    "react": `output` = one single-LLM turn.
    """
    texts = record.get("texts")
    if isinstance(texts, dict):
        if "single" in texts:
            return react_output(texts["single"] or "")
        return roles_output(texts.get("planner") or "", texts.get("caller"),
                            texts.get("summarizer"))  # fmt: skip
    if isinstance(record.get("pred"), dict):
        return StepOutput(**record["pred"])
    if style == "react":
        return react_output(record.get("output") or "")
    if style != "roles":
        raise ValueError(f"unknown step style {style!r} (roles or react)")
    return roles_output(record.get("output") or "", record.get("caller"), record.get("summarizer"))
