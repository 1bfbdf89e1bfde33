"""Check a call's arguments against its tool's JSON Schema before anything runs.

Validation is what turns a model's slightly-wrong call into a recorded error kind
(MISSING_ARGUMENT, UNKNOWN_ARGUMENT, INVALID_ARGUMENT) instead of a tool crash. Scalar
strings that spell the declared type ("40.7" for a number) are coerced, because real
datasets (Seal-Tools gold calls included) are full of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toollearn.core.types import ErrorKind, Ref, Tool, ToolCall


@dataclass(frozen=True)
class Problem:
    """One validation failure: its kind and a message naming the argument."""

    kind: ErrorKind
    detail: str


_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def _coerce(value: Any, json_type: str | None) -> tuple[bool, Any]:
    """(ok, value) for one argument against one JSON type; strings may be coerced."""
    if json_type is None or isinstance(value, Ref):
        return True, value  # untyped, or resolved later from another call's output
    if json_type == "string":
        if isinstance(value, str):
            return True, value
        if isinstance(value, bool | int | float):
            return True, str(value)
        return False, value
    if json_type == "boolean":
        if isinstance(value, bool):
            return True, value
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            return True, value.strip().lower() in _TRUE
        return False, value
    if json_type == "integer":
        return _coerce_int(value)
    if json_type == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return True, value
        if isinstance(value, str):
            try:
                return True, float(value.strip())
            except ValueError:
                return False, value
        return False, value
    if json_type == "array":
        return isinstance(value, list | tuple), list(value) if isinstance(value, tuple) else value
    if json_type == "object":
        return isinstance(value, dict), value
    if json_type == "null":
        return value is None, value
    return True, value  # a type this checker does not know: accept


def _coerce_int(value: Any) -> tuple[bool, Any]:
    if isinstance(value, bool):
        return False, value
    if isinstance(value, int):
        return True, value
    if isinstance(value, float) and value.is_integer():
        return True, int(value)
    if isinstance(value, str):
        try:
            return True, int(value.strip())
        except ValueError:
            return False, value
    return False, value


def _allowed_types(spec: Any) -> list[str | None]:
    if not isinstance(spec, dict):
        return [None]
    t = spec.get("type")
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)] or [None]
    return [t if isinstance(t, str) else None]


def check_value(name: str, value: Any, spec: Any) -> tuple[Problem | None, Any]:
    """Validate (and maybe coerce) one argument value against its property schema."""
    if value is None and "null" not in _allowed_types(spec):
        # An explicit None for an optional argument means "not given".
        return None, value
    for json_type in _allowed_types(spec):
        ok, coerced = _coerce(value, json_type)
        if ok:
            enum = spec.get("enum") if isinstance(spec, dict) else None
            if enum and not isinstance(coerced, Ref) and coerced not in enum:
                return Problem(ErrorKind.INVALID_ARGUMENT, f"{name}={value!r} not in {enum}"), value
            return None, coerced
    want = "/".join(str(t) for t in _allowed_types(spec))
    detail = f"{name}={value!r} is not of type {want}"
    return Problem(ErrorKind.INVALID_ARGUMENT, detail), value


def validate_call(
    call: ToolCall, tool: Tool | None, *, allow_extra: bool = False
) -> tuple[list[Problem], dict[str, Any]]:
    """All problems of `call` against `tool`, and the (coerced) arguments to run it with.

    An unknown tool is one UNKNOWN_TOOL problem. Explicit None values of optional
    arguments are dropped from the returned arguments (Python signatures default them).
    """
    if tool is None:
        return [Problem(ErrorKind.UNKNOWN_TOOL, f"no tool named {call.name!r}")], {}
    problems: list[Problem] = []
    args: dict[str, Any] = {}
    props = tool.properties
    for name, value in call.arguments.items():
        if name not in props:
            if not allow_extra:
                detail = f"{tool.name} has no argument {name!r} (has: {sorted(props)})"
                problems.append(Problem(ErrorKind.UNKNOWN_ARGUMENT, detail))
                continue
            args[name] = value
            continue
        problem, coerced = check_value(name, value, props[name])
        if problem:
            problems.append(problem)
        elif coerced is not None or "null" in _allowed_types(props[name]):
            args[name] = coerced
    for name in tool.required:
        if name not in args and not any(p.detail.startswith(f"{name}=") for p in problems):
            detail = f"{tool.name} requires {name!r}"
            problems.append(Problem(ErrorKind.MISSING_ARGUMENT, detail))
    return problems, args
