"""Interpret `API.f(...)` programs against an App: parsed with `ast` and checked against an
allow-list (`toollearn.formats.answers.programs`, given the app's API and helper names), then
applied call by call. Nothing in a program is ever executed as Python: a disallowed node is a
FormatError raised while parsing, before the app sees a single call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toollearn.apps.base import HELPERS, App, AppError
from toollearn.core.errors import FormatError
from toollearn.formats.answers import programs
from toollearn.formats.answers.programs import Statement, Value, clean_program

__all__ = [
    "Execution",
    "Statement",
    "Value",
    "clean_program",
    "parse_program",
    "program_names",
    "run_program",
]


@dataclass
class Execution:
    """The outcome of running a program: executable or not, the criteria, the error, the calls.

    `names` lists the vocabulary words the program uses (API functions and helpers, repeats
    counted): the input of the API complexity score.
    """

    executable: bool
    criteria: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    error_kind: str = ""  # "" | format | execution
    names: list[str] = field(default_factory=list)


def parse_program(text: str, app_cls: type[App]) -> list[Statement]:
    """Parse a program for `app_cls` (its API functions and helpers); FormatError on a syntax
    error or any disallowed node (`toollearn.formats.answers.programs.parse_program`)."""
    return programs.parse_program(text, app_cls.api_names(), app_cls.helpers)


def _evaluate(value: Value, env: dict[str, Any], names: list[str]) -> Any:
    if value.kind == "const":
        return value.data
    if value.kind == "var":
        return env[value.data]
    if value.kind == "list":
        return [_evaluate(v, env, names) for v in value.items]
    names.append(value.data)
    args = [_evaluate(v, env, names) for v in value.items]
    try:
        return HELPERS[value.data](*args)
    except TypeError as exc:
        raise AppError(f"{value.data}(...): {exc}") from None


def _apply(st: Statement, app: App, env: dict[str, Any], names: list[str]) -> None:
    """Apply one statement: bind a variable or make one API call."""
    if st.target:
        env[st.target] = _evaluate(st.value, env, names)
        return
    names.append(st.fn)
    args = tuple(_evaluate(v, env, names) for v in st.args)
    kwargs = {k: _evaluate(v, env, names) for k, v in st.kwargs}
    app.invoke(st.fn, args, kwargs)


def run_program(text: str, app_cls: type[App]) -> Execution:
    """Parse then apply a program to a fresh app; never raises for a bad program."""
    try:
        statements = parse_program(text, app_cls)
    except FormatError as exc:
        return Execution(False, error=str(exc), error_kind="format")
    app, env, names = app_cls(), {}, []
    try:
        for st in statements:
            try:
                _apply(st, app, env, names)
            except AppError as exc:
                raise AppError(f"line {st.line}: {exc}") from None
        criteria = app.result()
    except AppError as exc:
        return Execution(False, error=str(exc), error_kind="execution", names=names)
    return Execution(True, criteria=criteria, names=names)


def program_names(text: str, app_cls: type[App]) -> list[str]:
    """The API functions and helpers a program uses, in order, repeats counted."""
    names: list[str] = []
    for st in parse_program(text, app_cls):
        if not st.target:
            names.append(st.fn)
        for v in list(st.args) + [v for _, v in st.kwargs] + ([st.value] if st.value else []):
            names.extend(_helper_names(v))
    return names


def _helper_names(value: Value) -> list[str]:
    out = [value.data] if value.kind == "helper" else []
    for item in value.items:
        out.extend(_helper_names(item))
    return out
