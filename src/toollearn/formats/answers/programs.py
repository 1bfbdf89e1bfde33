"""SambaNova ToolBench's "action program" format: how a goal is written for a model (system
prompt, API docs, demos, `Task: ...\\nAction:\\n`), the gold program it should write
(`render_target`), and the allow-list parser that reads a program back without running it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message

SYSTEM_PROMPT = (
    "You are an action generator that controls a software tool through its Python API. "
    "Given a task, write the API calls that accomplish it.\n"
    "Rules:\n"
    "- Reply with code only: one call per line, written as API.function(arguments).\n"
    "- Use only the API functions listed below, in the order the tool requires.\n"
    "- Take every argument value from the task.\n"
    "- No explanations, no comments, no Markdown, no text before or after the code."
)
SEPARATOR = "-------------"
STOP = ("------", "Task:")

_FENCE = re.compile(r"^\s*```[\w-]*\s*\n(.*?)\n\s*```\s*$", re.S)
_MAX_CHARS = 20_000

# ---------------------------------------------------------------------------- rendering


def render_target(program: str) -> str:
    """The gold program as the model should write it after `Action:\\n`: its non-empty lines,
    stripped, joined by "\\n" (no trailing newline; generation stops at `STOP`)."""
    return "\n".join(line.strip() for line in program.strip().splitlines() if line.strip())


def render_demo(goal: str, program: str) -> str:
    """A demonstration as ToolBench writes it: the task, then its action."""
    return f"Task: {goal}\nAction:\n{render_target(program)}\n"


def render_body(goal: str, api_docs: Sequence[str], demos: Sequence[tuple[str, str]]) -> str:
    """The prompt without the system prompt: API docs, demos as (goal, program), the task."""
    parts = ["I have the following set of API:\n\n" + "\n".join(api_docs) + "\n" + SEPARATOR]
    if demos:
        shown = "\n".join(render_demo(g, p) for g, p in demos)
        parts.append("I have the following set of examples:\n\n" + shown + SEPARATOR)
    parts.append(f"Task: {goal}\nAction:\n")
    return "\n".join(parts)


def render_messages(
    goal: str,
    api_docs: Sequence[str],
    demos: Sequence[tuple[str, str]] = (),
    system_prompt: bool = False,
) -> list[Message]:
    """The chat form: a system message when `system_prompt`, then the user body."""
    msgs = [Message("system", SYSTEM_PROMPT)] if system_prompt else []
    return msgs + [Message("user", render_body(goal, api_docs, demos))]


def render_prompt(
    goal: str,
    api_docs: Sequence[str],
    demos: Sequence[tuple[str, str]] = (),
    system_prompt: bool = False,
    chat: bool = False,
) -> str | list[Message]:
    """The prompt sent to an engine: raw text (system prompt, blank line, body), or the chat
    messages of `render_messages` when `chat`."""
    if chat:
        return render_messages(goal, api_docs, demos, system_prompt)
    body = render_body(goal, api_docs, demos)
    return f"{SYSTEM_PROMPT}\n\n{body}" if system_prompt else body


# ------------------------------------------------------------------------------ parsing


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


def _fail(node: ast.AST, message: str) -> FormatError:
    return FormatError(f"line {getattr(node, 'lineno', '?')}: {message}")


def _check_name(node: ast.AST, name: str) -> None:
    if name.startswith("_") or "__" in name:
        raise _fail(node, f"name {name!r} is not allowed (no private or dunder names)")


class _Parser:
    """Turns an `ast.Module` into Statements, refusing every node outside the allow-list."""

    def __init__(self, api_names: Iterable[str], helpers: Iterable[str]):
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


def parse_program(
    text: str, api_names: Iterable[str], helpers: Iterable[str] = ()
) -> list[Statement]:
    """Parse a program that may call `API.<one of api_names>` and the `helpers`.

    Allowed statements: `API.<api function>(<values>)` and `<name> = <value>`. Allowed values:
    str/int/float/bool/None literals, negative numbers, lists/tuples of values, helper calls
    (e.g. `Loc(...)`, `Date(...)`) and names assigned earlier. Anything else (attribute access
    beyond `API.f`, imports, dunder names, other calls, ...), an empty or oversized program or
    a syntax error is a FormatError."""
    code = clean_program(text)
    if not code:
        raise FormatError("the program is empty")
    if len(code) > _MAX_CHARS:
        raise FormatError(f"the program is longer than {_MAX_CHARS} characters")
    try:
        module = ast.parse(code, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise FormatError(f"not valid Python syntax: {exc}") from None
    parser = _Parser(api_names, helpers)
    return [parser.statement(node) for node in module.body]
