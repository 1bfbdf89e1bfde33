"""The query's call plan choosing the alpha-UMi planner's next role.

The 135M planner's commonest error is concluding one call early: it loses count of the query's
sub-tasks (`results/umi-planner-spread`), and neither numbered rationales nor a threshold on
its own confidence fix it (`results/umi-stop-gate`). The call plan (`agents.clause_plan`)
counts them without a model: each request of the query gets its closest shown tool. At a
planner step, a planned tool not called yet in the history is *due*; the plan's *unfit*
request (one no shown tool fits) means the task cannot be finished with these tools.

Rules, from the least to the most overriding (the one used is chosen on held-out dev steps):
- `veto`: no conclusion or give-up while a call is due; else the model's choice.
- `follow`: a call exactly while one is due; once none is, give up where the plan has an
  unfit request, else the model's way to end (its `caller` read as `conclusion`).
- `plan`: the plan alone: caller while due, then give up (unfit) or conclusion.
It reads no label: the query, the shown tools and the calls already made.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message
from toollearn.formats.answers import umi

RULES = ("veto", "follow", "plan")
ENDS = ("conclusion", "give up")


@dataclass(frozen=True)
class StepPlan:
    """What the call plan says at one planner step."""

    due: str | None  # the first planned tool not called yet; None once all are
    unfit: bool  # the plan ends before a request no shown tool fits


def called_tools(history: Sequence[Message]) -> set[str]:
    """The tools the caller turns of a history called (an unreadable turn calls none)."""
    called = set()
    for turn in history:
        if turn.role == "caller":
            try:
                called.add(umi.parse_action(turn.content).name)
            except FormatError:
                continue
    return called


def verdict(plan: Any, called: set[str]) -> StepPlan:
    """The plan's verdict (a `clause_plan.Plan`) once the tools `called` have been called."""
    return StepPlan(plan.due(called), plan.unfit is not None)


def step_plan(plan: Any, history: Sequence[Message]) -> StepPlan:
    """The plan's verdict after the calls of `history`."""
    return verdict(plan, called_tools(history))


def gated_next(model: str | None, step: StepPlan | None, rule: str | None) -> str | None:
    """The planner's next role (caller / conclusion / give up) under the rule; the model's
    choice where there is no rule or no plan."""
    if rule is None or step is None:
        return model
    if rule not in RULES:
        raise ValueError(f"plan gate rule must be one of {RULES}, not {rule!r}")
    if step.due is not None:
        return "caller" if rule != "veto" or model in ENDS else model
    if rule == "veto":
        return model
    if step.unfit:
        return "give up"
    if rule == "plan":
        return "conclusion"
    return "conclusion" if model == "caller" else model
