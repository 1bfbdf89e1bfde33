"""The single-LLM ReAct baseline alpha-UMi compares with: one model writes a thought and an
action (or `Action: Finish`) per turn, with real observations in between. Constrained, the
thought is written freely up to `Action:` and the action under a grammar over the tools and
Finish (`react_turn`, shared with the stepwise runner)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.agents.acting import start_episode
from toollearn.agents.base import engine_label
from toollearn.core.errors import FormatError
from toollearn.core.types import ErrorKind, Message, Tool, ToolCall, Trace
from toollearn.engines.base import Sampling
from toollearn.envs.environment import Environment
from toollearn.envs.result import failed
from toollearn.formats.answers import umi


class ReActAgent:
    """Thought + Action + Action Input per turn until Finish, a loop, or the step budget."""

    name = "react"

    def __init__(
        self,
        engine: Any,
        env: Environment | None = None,
        *,
        max_steps: int = 6,
        max_repeats: int = 2,
        max_format_errors: int = 2,
        constrained: bool = False,
        chat: bool = True,
        seed: int = 0,
        sampling: Sampling | None = None,
    ):
        self.engine, self.env, self.max_steps = engine, env, max_steps
        self.constrained = constrained
        self.sampling = sampling or Sampling(seed=seed)
        self.max_repeats, self.max_format_errors = max_repeats, max_format_errors
        self.chat, self.seed = chat, seed

    def config(self) -> dict[str, Any]:
        return {
            "agent": self.name,
            "engine": engine_label(self.engine),
            "max_steps": self.max_steps,
            "constrained": self.constrained,
        }

    def run(
        self, query: str, tools: Sequence[Tool] | None = None, *, example_id: str = ""
    ) -> Trace:
        """One episode of the single-LLM loop."""
        shown, rec, runner = start_episode(
            self.env, tools, seed=self.seed, query=query, example_id=example_id, chat=self.chat,
            sampling=self.sampling,
        )  # fmt: skip
        history, format_errors = [Message("user", query)], 0
        for _ in range(self.max_steps):
            text = react_turn(rec, self.engine, umi.react_prompt(shown, history), shown,
                              self.constrained)  # fmt: skip
            if text is None:
                return rec.finish(None, **self.config(), outcome="no_output")
            try:
                turn = umi.parse_react(text)
            except FormatError as exc:
                format_errors += 1
                rec.amend_last(error=ErrorKind.FORMAT, detail=str(exc))
                if format_errors >= self.max_format_errors:
                    return rec.finish(None, **self.config(), outcome="format_error")
                result = failed(ToolCall(""), ErrorKind.FORMAT, str(exc))
            else:
                if turn.finish == "give_answer":
                    return rec.finish(turn.answer, **self.config(), outcome="concluded")
                if turn.finish:
                    return rec.finish(None, **self.config(), outcome="give_up")
                assert turn.call is not None
                rec.amend_last(calls=(turn.call,))
                result = runner.run(turn.call)
            rec.observe(result)
            history += [
                Message("assistant", text),
                Message("observation", result.observation_text()),
            ]
            if runner.repeats >= self.max_repeats:
                rec.error(
                    "agent", ErrorKind.REPEATED_CALL, f"{runner.repeats} identical calls in a row"
                )
                return rec.finish(None, **self.config(), outcome="loop")
        rec.error("agent", ErrorKind.STEP_LIMIT, f"no Finish after {self.max_steps} steps")
        return rec.finish(None, **self.config(), outcome="step_limit")


def react_turn(
    rec: Any,
    engine: Any,
    prompt: str,
    tools: Sequence[Tool],
    constrained: bool,
    max_tokens: int = 256,
) -> str | None:
    """One single-LLM turn through a Recorder: free, or the thought free up to `Action:` and the
    action continued under `action_constraint(tools, finish=True)`; returns the whole turn."""
    from toollearn.decoding.umi import action_constraint

    if not constrained:
        return rec.model(engine, prompt, role="agent", kind="call", max_tokens=max_tokens,
                         stop=["\nObservation"])  # fmt: skip
    thought = rec.model(engine, prompt, role="agent", kind="thought", max_tokens=max_tokens,
                        stop=["Action:", "\nObservation"])  # fmt: skip
    if thought is None and rec.steps[-1].error != ErrorKind.EMPTY_OUTPUT:
        return None
    head = umi.react_head(thought or "")
    turn = [Message("user", prompt), Message("assistant", head)]
    action = rec.model(engine, turn, role="agent", kind="call", max_tokens=max_tokens,
                       constraint=action_constraint(tools, finish=True))  # fmt: skip
    return None if action is None else head + action
