"""Interpret `API.f(...)` programs against an App: parsed with `ast`, checked against an
allow-list, then applied call by call. Nothing in a program is ever executed as Python.

Allowed statements: `API.<api function>(<values>)` and `<name> = <value>`. Allowed values:
str/int/float/bool/None literals, negative numbers, lists/tuples of values, helper calls
(`Loc(...)`, `Date(...)` when the app declares them) and names assigned earlier. Anything else
(attribute access beyond `API.f`, imports, dunder names, other calls, ...) is a FormatError
raised while parsing, before the app sees a single call.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any

from toollearn.apps.base import HELPERS, App, AppError
from toollearn.core.errors import FormatError

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n\s*```\s*$", re.S)
_MAX_CHARS = 20_000


@dataclass(frozen=True)
class Value:
    """A parsed argument: a literal, a helper call, a list, or a variable reference."""

    kind: str  # const | helper | list | var
    data: Any = None
    items: tuple[Value, ...] = ()


@dataclass(frozen=True)
class Statement:
    """One program line: a call `API.fn(...)` or an assignment `target = value`."""

    line: int
    fn: str = ""
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()
    target: str = ""
    value: Value | None = None


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


def _fail(node: ast.AST, message: str) -> FormatError:
    return FormatError(f"line {getattr(node, 'lineno', '?')}: {message}")


def _check_name(node: ast.AST, name: str) -> None:
    if name.startswith("_") or "__" in name:
        raise _fail(node, f"name {name!r} is not allowed (no private or dunder names)")


class _Parser:
    """Turns an `ast.Module` into Statements, refusing every node outside the allow-list."""

    def __init__(self, api_names: list[str], helpers: tuple[str, ...]):
        self.api_names, self.helpers = set(api_names), set(helpers)
        self.assigned: set[str] = set()

    def value(self, node: ast.expr) -> Value:
        if isinstance(node, ast.Constant) and isinstance(
            node.value, str | int | float | bool | type(None)
        ):
            return Value("const", node.value)
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub | ast.UAdd)
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float)
        ):
            sign = -1 if isinstance(node.op, ast.USub) else 1
            return Value("const", sign * node.operand.value)
        if isinstance(node, ast.List | ast.Tuple):
            return Value("list", items=tuple(self.value(x) for x in node.elts))
        if isinstance(node, ast.Name):
            _check_name(node, node.id)
            if node.id not in self.assigned:
                raise _fail(node, f"name {node.id!r} is not defined")
            return Value("var", node.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            _check_name(node, node.func.id)
            if node.func.id not in self.helpers:
                raise _fail(node, f"call to {node.func.id!r} is not allowed")
            if node.keywords:
                raise _fail(node, f"{node.func.id}(...) takes positional arguments only")
            return Value("helper", node.func.id, tuple(self.value(a) for a in node.args))
        raise _fail(node, f"{type(node).__name__} is not allowed as a value")

    def statement(self, node: ast.stmt) -> Statement:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return self.call(node.value)
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                raise _fail(node, "only plain names can be assigned")
            _check_name(node, target.id)
            if target.id == "API" or target.id in self.helpers:
                raise _fail(node, f"{target.id!r} cannot be reassigned")
            value = self.value(node.value)
            self.assigned.add(target.id)
            return Statement(node.lineno, target=target.id, value=value)
        raise _fail(node, f"{type(node).__name__} statements are not allowed")

    def call(self, node: ast.Call) -> Statement:
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "API"
        ):
            raise _fail(node, "only API.<function>(...) calls are allowed as statements")
        _check_name(node, func.attr)
        if func.attr not in self.api_names:
            raise _fail(node, f"API.{func.attr} is not an API function")
        kwargs = []
        for kw in node.keywords:
            if kw.arg is None:
                raise _fail(node, "**kwargs are not allowed")
            _check_name(node, kw.arg)
            kwargs.append((kw.arg, self.value(kw.value)))
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise _fail(node, "*args are not allowed")
        args = tuple(self.value(a) for a in node.args)
        return Statement(node.lineno, fn=func.attr, args=args, kwargs=tuple(kwargs))


def clean_program(text: str) -> str:
    """Strip surrounding whitespace and one Markdown code fence; the rest must be code."""
    text = text.strip()
    match = _FENCE.match(text)
    return match.group(1).strip() if match else text


def parse_program(text: str, app_cls: type[App]) -> list[Statement]:
    """Parse a program for `app_cls`; FormatError on a syntax error or any disallowed node."""
    code = clean_program(text)
    if not code:
        raise FormatError("the program is empty")
    if len(code) > _MAX_CHARS:
        raise FormatError(f"the program is longer than {_MAX_CHARS} characters")
    try:
        module = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise FormatError(f"not valid Python syntax: {exc}") from None
    parser = _Parser(app_cls.api_names(), app_cls.helpers)
    return [parser.statement(node) for node in module.body]


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
