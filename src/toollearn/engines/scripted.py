"""A scripted engine for unit tests: canned answers, no model, records what it was asked."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import Completion, Prompt, cut_at_stop

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint


class ScriptedEngine:
    """Answers from a list (in order, one per prompt) or from a function of the prompt.

    Stop strings are applied like a real engine would; `requests` keeps every call's prompts
    and options so tests can assert what an agent sent. Running out of answers is an error.
    logprobs: a function (prompt, continuation) -> log-probability, which gives the engine
    `continuation_logprobs` (what a scoring agent needs); without it the engine has none.
    """

    name = "scripted"
    supports_constraints = True

    def __init__(
        self,
        responses: list[str] | Callable[[Prompt], str],
        logprobs: Callable[[Prompt, str], float] | None = None,
    ):
        if logprobs is not None:
            self.continuation_logprobs = lambda prompt, conts: [logprobs(prompt, c) for c in conts]
        self._fn = responses if callable(responses) else None
        self._queue = [] if callable(responses) else list(responses)
        self.requests: list[dict[str, Any]] = []

    @property
    def prompts(self) -> list[Prompt]:
        """Every prompt received so far, in order."""
        return [p for r in self.requests for p in r["prompts"]]

    def _next(self, prompt: Prompt) -> str:
        if self._fn is not None:
            return self._fn(prompt)
        if not self._queue:
            raise EngineError("ScriptedEngine ran out of scripted responses")
        return self._queue.pop(0)

    def complete(
        self,
        prompts: Sequence[Prompt],
        *,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        constraint: Constraint | None = None,
    ) -> list[Completion]:
        """Return the scripted answers for `prompts`, cut at the first stop string."""
        self.requests.append(
            {
                "prompts": list(prompts),
                "max_tokens": max_tokens,
                "stop": tuple(stop),
                "temperature": temperature,
                "top_p": top_p,
                "seed": seed,
                "constraint": constraint,
            }
        )
        out = []
        for p in prompts:
            text, _ = cut_at_stop(self._next(p), stop)
            out.append(Completion(text, "stop", completion_tokens=len(text.split())))
        return out
