"""What every agent shares: the Agent protocol and a Recorder that builds the Trace.

A `Recorder` asks an engine for text and records the exact prompt and completion as a
Step, turning engine failures into ENGINE_ERROR steps and blank outputs into EMPTY_OUTPUT
steps, so no agent ever raises because a model misbehaved. Every engine call uses the run's
`Sampling` (temperature, top-p, seed), which the finished Trace records in its meta.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from toollearn.core.errors import ToollearnError
from toollearn.core.types import ErrorKind, Message, Step, Tool, ToolCall, Trace
from toollearn.engines.base import Sampling
from toollearn.envs.result import CallResult


@runtime_checkable
class Agent(Protocol):
    """Anything that runs one query against tools and returns the Trace of what it did."""

    name: str

    def run(
        self, query: str, tools: Sequence[Tool] | None = None, *, example_id: str = ""
    ) -> Trace: ...


def engine_label(engine: Any) -> str:
    return str(getattr(engine, "name", type(engine).__name__))


def call_key(call: ToolCall) -> str:
    """A canonical text of a call, to spot repeated identical calls."""
    return call.name + json.dumps(call.to_dict()["arguments"], sort_keys=True, default=repr)


class Recorder:
    """Collects Steps of one run; `.model(...)` queries an engine and records the exchange.

    A str prompt goes as one user message when chat=True (the model's chat template applies)
    or as raw text; a message list goes as it is (a final assistant message is continued).
    The Step's `prompt` is the str prompt, or for a message list the last message's text with
    the whole list in `data["messages"]`.
    """

    def __init__(
        self,
        query: str,
        example_id: str = "",
        chat: bool = True,
        sampling: Sampling | None = None,
    ):
        self.query, self.example_id, self.chat = query, example_id, chat
        self.sampling = sampling or Sampling()
        self.steps: list[Step] = []
        self.started = time.perf_counter()

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step

    def error(self, role: str, kind: ErrorKind, detail: str, **fields: Any) -> Step:
        return self.add(Step(role=role, kind="error", error=kind, detail=detail, **fields))

    def observe(self, result: CallResult, role: str = "tool", **data: Any) -> Step:
        step = result.to_step(role)
        if data:
            step = Step(**{**step.__dict__, "data": {**step.data, **data}})
        return self.add(step)

    def model(
        self,
        engine: Any,
        prompt: str | Sequence[Message],
        *,
        role: str,
        kind: str,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
        constraint: Any = None,
        data: dict[str, Any] | None = None,
    ) -> str | None:
        """Ask `engine` to continue `prompt`; record it. None when there is no usable text."""
        extra: dict[str, Any] = {}
        if isinstance(prompt, str):
            sent: Any = [Message("user", prompt)] if self.chat else prompt
        else:
            sent = list(prompt)
            extra["messages"] = [m.to_dict() for m in sent]
            prompt = sent[-1].content if sent else ""
        try:
            completion = engine.complete(
                [sent], max_tokens=max_tokens, stop=stop, constraint=constraint,
                **self.sampling.kwargs(),
            )[0]  # fmt: skip
        except (ToollearnError, RuntimeError, ValueError, OSError) as exc:
            self.error(role, ErrorKind.ENGINE_ERROR, f"{type(exc).__name__}: {exc}", prompt=prompt,
                       data=extra)  # fmt: skip
            return None
        info = {
            **extra,
            "engine": engine_label(engine),
            "constrained": constraint is not None,
            "completion_tokens": completion.completion_tokens,
            "seconds": round(completion.seconds, 3),
            "finish_reason": completion.finish_reason,
            **(data or {}),
        }
        if completion.error:
            self.error(role, ErrorKind.ENGINE_ERROR, completion.error, prompt=prompt, data=info)
            return None
        text = completion.text
        if not text.strip():
            self.error(role, ErrorKind.EMPTY_OUTPUT, "the model produced no text", prompt=prompt,
                       content=text, data=info)  # fmt: skip
            return None
        self.add(Step(role=role, kind=kind, content=text, prompt=prompt, data=info))
        return text

    def amend_last(self, **fields: Any) -> None:
        """Replace fields of the last step (e.g. attach the parsed calls to a model step)."""
        last = self.steps[-1]
        merged = {**last.__dict__, **fields}
        if "data" in fields:
            merged["data"] = {**last.data, **fields["data"]}
        self.steps[-1] = Step(**merged)

    def finish(self, answer: str | None, **meta: Any) -> Trace:
        meta["seconds"] = round(time.perf_counter() - self.started, 3)
        meta["sampling"] = self.sampling.to_dict()
        meta["n_errors"] = sum(1 for s in self.steps if s.error is not None)
        return Trace(self.query, tuple(self.steps), answer, self.example_id, meta)
