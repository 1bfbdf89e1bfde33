"""The outcome of executing one call: an output or a recorded error, never an exception."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from toollearn.core.types import ErrorKind, Step, ToolCall


def to_jsonable(value: Any) -> Any:
    """A JSON-safe copy of a tool output (unknown objects become their repr)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return repr(value)


@dataclass(frozen=True)
class CallResult:
    """What happened when `call` (with `arguments` after ref substitution) was executed.

    `outputs` lists the call's referenceable outputs in order (Seal-Tools response fields;
    a plain Python return value is output 0). `error` is None on success.
    """

    call: ToolCall
    output: Any = None
    outputs: tuple[Any, ...] = ()
    arguments: dict[str, Any] = field(default_factory=dict)
    error: ErrorKind | None = None
    detail: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None

    def observation_text(self) -> str:
        """The text a model sees: the JSON output, or `Error (kind): detail`."""
        if self.error is not None:
            return f"Error ({self.error.value}): {self.detail}"
        out = to_jsonable(self.output)
        return out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)

    def to_step(self, role: str = "tool") -> Step:
        """This result as an observation Step of a Trace."""
        return Step(
            role=role,
            kind="observation",
            content=self.observation_text(),
            calls=(self.call,),
            observation=to_jsonable(self.output),
            error=self.error,
            detail=self.detail,
            data={"arguments": to_jsonable(self.arguments), "seconds": round(self.seconds, 4)},
        )


def failed(call: ToolCall, kind: ErrorKind, detail: str, seconds: float = 0.0) -> CallResult:
    """A CallResult for a call that could not run or did not finish."""
    return CallResult(call=call, error=kind, detail=detail, seconds=seconds)
