"""The validate, repair, ask-again loop: checks find a fault in an answer, and the loop asks
again within a budget of tries.

A check is a function `(text, turn, constrained) -> Fault | None` registered by name
(`register_check`); `RepairLoop(names)` runs the named ones in the order registered, the first
fault found asking again (`RepairLoop.run`, with the caller's `ask`), or only finds the fault
(`RepairLoop.find`) for a caller that schedules its tries itself (in batches). The general call
format's checks live in `agents.repairs`; the Seal-Tools runner plugs in `seal_cut_off`, the
apps' generator `program_defects`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toollearn.core.types import Message, Tool


@dataclass(frozen=True)
class Turn:
    """What a turn offered: its tools, its grammar (None: free), the calls made before; the
    answer's finish reason, the tries already made, what a plugged-in check reads, and what
    the conversation states (`said`: the user's turns, tool results, the client's system text;
    where values are grounded)."""

    tools: list[Tool]
    constraint: Any
    made: Callable[[Any], bool] = lambda _call: False
    finish_reason: str | None = None
    tries: int = 0
    context: Any = None
    said: str = ""
    results: tuple[str, ...] = ()  # the tool results after the last user turn


@dataclass(frozen=True)
class Fault:
    """A check's finding and how to ask again: the tools and grammar of the next try, and
    (engines without grammars) a note for the model naming what was wrong."""

    check: str
    detail: str
    tools: list[Tool]
    constraint: Any
    note: str | None = None
    data: Any = None  # what the check found, for a caller that keeps it (the apps' Try)


Check = Callable[[str, Turn, bool], Fault | None]
_CHECKS: dict[str, Check] = {}


def register_check(name: str, check: Check) -> None:
    """Plug a check in, after those registered before it (the order they run in); the same
    name again replaces it."""
    _CHECKS[name] = check


class RepairLoop:
    """The named checks (in the order registered) with at most `budget` tries again per turn.
    `constrained`: whether the engine takes grammars (a check may ask again under one)."""

    def __init__(self, checks: Sequence[str], budget: int = 2, constrained: bool = True):
        unknown = [c for c in checks if c not in _CHECKS]
        if unknown:
            raise ValueError(f"unknown repair checks {unknown}; known: {list(_CHECKS)}")
        self.checks = [c for c in _CHECKS if c in checks]
        self.budget, self.constrained = budget, constrained

    def find(self, text: str, turn: Turn) -> Fault | None:
        """The first fault a check finds in `text`, or None."""
        for name in self.checks:
            fault = _CHECKS[name](text, turn, self.constrained)
            if fault is not None:
                return fault
        return None

    def run(self, text: str | None, turn: Turn,
            ask: Callable[[Fault, str], str | None]) -> tuple[str | None, list[Tool]]:  # fmt: skip
        """The turn's answer after the repairs, and the tools its last try offered; `ask(fault,
        text)` records the fault on the answer it retries and returns the model's next try.
        A try that keeps the fault its own grammar was asked under stands: asking again the
        same way reads the same prompt under the same grammar."""
        last: Fault | None = None
        for _ in range(self.budget):
            fault = self.find(text, turn) if text is not None else None
            if fault is None or _same_ask(fault, last):
                break
            last = fault
            again = ask(fault, text)
            if again is None:
                break
            text = again
            turn = replace(turn, tools=fault.tools, constraint=fault.constraint,
                           finish_reason=None, tries=turn.tries + 1)  # fmt: skip
        return text, turn.tools


def _same_ask(fault: Fault, last: Fault | None) -> bool:
    """Whether a fault would ask again exactly as the last one did (same check and grammar)."""
    return (last is not None and fault.constraint is not None
            and (fault.check, fault.constraint) == (last.check, last.constraint))  # fmt: skip


def said_of(messages: Sequence[Message], system: str = "") -> str:
    """What a conversation states (`Turn.said`): the client's system text, then its user
    turns and tool results, one a line."""
    texts = [system, *(m.content for m in messages if m.role in ("user", "tool"))]
    return "\n".join(t for t in texts if t)


def results_of(messages: Sequence[Message]) -> tuple[str, ...]:
    """The tool results after the conversation's last user turn (`Turn.results`)."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    after = messages[users[-1] + 1 :] if users else messages
    return tuple(m.content for m in after if m.role == "tool" and m.content)
