"""Executing one model-chosen call inside a multi-step loop, with loop protection.

Shared by the multi-role and ReAct agents: a call to a tool that was not shown is
UNKNOWN_TOOL, an identical call made before is REPEATED_CALL (not run again; the earlier
result is repeated to the model), everything else goes to the environment.
"""

from __future__ import annotations

from collections.abc import Sequence

from toollearn.agents.base import Recorder, call_key
from toollearn.core.types import ErrorKind, Tool, ToolCall
from toollearn.engines.base import Sampling
from toollearn.envs.environment import Environment
from toollearn.envs.result import CallResult, failed


class ActionRunner:
    """Runs calls for one episode and counts consecutive repeats."""

    def __init__(self, env: Environment, tools: Sequence[Tool]):
        self.env, self.names = env, {t.name for t in tools}
        self.seen: dict[str, CallResult] = {}
        self.repeats = 0

    def made(self, call: ToolCall) -> bool:
        """Whether this exact call (tool and arguments) ran before in the episode."""
        return call_key(call) in self.seen

    def run(self, call: ToolCall) -> CallResult:
        """The result of `call` (or a recorded error), never an exception."""
        if call.name not in self.names:
            shown = ", ".join(sorted(self.names))
            return failed(call, ErrorKind.UNKNOWN_TOOL, f"{call.name!r} is not one of: {shown}")
        key = call_key(call)
        if key in self.seen:
            self.repeats += 1
            before = self.seen[key].observation_text()
            detail = f"this exact call was already made; its result was: {before}"
            return failed(call, ErrorKind.REPEATED_CALL, detail)
        self.repeats = 0
        result = self.env.execute(call)
        self.seen[key] = result
        return result


def start_episode(
    env: Environment | None,
    tools: Sequence[Tool] | None,
    *,
    seed: int,
    query: str,
    example_id: str,
    chat: bool,
    sampling: Sampling | None = None,
) -> tuple[list[Tool], Recorder, ActionRunner]:
    """Set up one looped episode: the tools shown (given, else the environment's), a reset
    environment (simulated from the shown tools when none is given), a Recorder, a runner."""
    shown = list(tools if tools is not None else (env.tools if env else []))
    env = env or Environment.simulated(shown, seed=seed)
    env.reset()
    return shown, Recorder(query, example_id, chat, sampling), ActionRunner(env, shown)
