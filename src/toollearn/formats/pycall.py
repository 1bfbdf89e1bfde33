"""Python call strings (`f(a=1, b='x')`) <-> `ToolCall`, parsed with `ast` and never executed.

Only a bare function name and literal argument values (str, int, float, bool, None, lists,
tuples and dicts of those) are accepted; anything else (attribute calls, names, lambdas,
f-strings, operators, nested calls, `*args`) is a `FormatError`. `parse_call_lenient` first
repairs the two faults found in released data (an unescaped apostrophe inside a single-quoted
string; a raw newline inside a string) and reads JSON's true/false/null, then parses the same
strict way.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Tool, ToolCall, unlink_refs

MAX_CALL_CHARS = 100_000
_JSON_NAMES = {"true": True, "false": False, "null": None}
_APOSTROPHE = re.compile(r"(?<=[A-Za-z])'(?=[A-Za-z])")


def _literal(node: ast.AST, json_names: bool) -> Any:
    """The value of a literal node; FormatError for anything that is not plain data."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool | int | float | str) or node.value is None:
            if isinstance(node.value, float) and node.value != node.value:
                raise FormatError("NaN is not an allowed argument value")
            return node.value
        raise FormatError(f"constant of type {type(node.value).__name__} is not allowed")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand, json_names)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise FormatError("a sign is only allowed before a number")
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(x, json_names) for x in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise FormatError("'**' inside a dict literal is not allowed")
            key = _literal(k, json_names)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise FormatError(f"dict key {key!r} is not a scalar")
            out[key] = _literal(v, json_names)
        return out
    if json_names and isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    what = type(node).__name__
    if isinstance(node, ast.Name):
        raise FormatError(f"argument value is a name ({node.id}), not a literal")
    if isinstance(node, ast.JoinedStr):
        raise FormatError("f-strings are not allowed as argument values")
    raise FormatError(f"argument value must be a literal, got a {what} expression")


def _parse(text: str, tool: Tool | None, json_names: bool) -> ToolCall:
    if not isinstance(text, str):
        raise FormatError(f"a call must be a string, got {type(text).__name__}")
    src = text.strip()
    if not src:
        raise FormatError("empty call string")
    if len(src) > MAX_CALL_CHARS:
        raise FormatError(f"call string longer than {MAX_CALL_CHARS} characters")
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise FormatError(f"not a Python call: {exc.__class__.__name__}: {exc}") from None
    node = tree.body
    if not isinstance(node, ast.Call):
        raise FormatError(f"expected a call like f(a=1), got a {type(node).__name__} expression")
    if not isinstance(node.func, ast.Name):
        raise FormatError("only plain function names may be called (no attributes or calls)")
    try:
        args = [_literal(a, json_names) for a in node.args if not isinstance(a, ast.Starred)]
        if len(args) != len(node.args):
            raise FormatError("'*args' is not allowed in a call")
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise FormatError("'**kwargs' is not allowed in a call")
            kwargs[kw.arg] = _literal(kw.value, json_names)
    except RecursionError:
        raise FormatError("argument value nested too deeply") from None
    return ToolCall(name=node.func.id, arguments=_bind(node.func.id, args, kwargs, tool))


def _bind(name: str, args: list[Any], kwargs: dict[str, Any], tool: Tool | None) -> dict:
    """Map positional values to the tool's parameter names (in schema order)."""
    if not args:
        return kwargs
    if tool is None:
        raise FormatError(f"{name}(...) has positional arguments; pass the tool to name them")
    order = list(tool.properties)
    if len(args) > len(order):
        raise FormatError(f"{name} takes {len(order)} parameters, got {len(args)} positional")
    bound = dict(zip(order, args))
    for key, value in kwargs.items():
        if key in bound:
            raise FormatError(f"{name}: parameter {key!r} given twice")
        bound[key] = value
    return bound


def parse_call(text: str, tool: Tool | None = None) -> ToolCall:
    """Parse one Python call string into a `ToolCall` (literal arguments only, never run)."""
    return _parse(text, tool, json_names=False)


def _escape_raw_controls(src: str) -> str:
    """Escape raw newlines/tabs/CRs that occur inside quoted strings."""
    out, quote, i = [], "", 0
    while i < len(src):
        ch = src[i]
        if quote:
            if ch == "\\" and i + 1 < len(src):
                out.append(src[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = ""
            ch = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, ch)
        elif ch in "\"'":
            quote = ch
        out.append(ch)
        i += 1
    return "".join(out)


def repair_call_text(text: str) -> str:
    """Fix an apostrophe inside a 'single-quoted' word and raw newlines inside strings."""
    return _escape_raw_controls(_APOSTROPHE.sub(r"\\'", text.strip()))


def parse_call_lenient(text: str, tool: Tool | None = None) -> ToolCall:
    """Like `parse_call`, but first tries the repairs that released gold calls need."""
    try:
        return _parse(text, tool, json_names=False)
    except FormatError as first:
        try:
            return _parse(repair_call_text(text), tool, json_names=True)
        except FormatError:
            raise first from None


def call_name(text: str) -> str | None:
    """The function name a call string starts with (even if its arguments are unreadable)."""
    m = re.match(r"\s*([A-Za-z_]\w*)\s*\(", text)
    return m.group(1) if m else None


def render_call(call: ToolCall) -> str:
    """Write a `ToolCall` as a Python call string that `parse_call` reads back equal."""
    if not call.name.isidentifier():
        raise FormatError(f"tool name {call.name!r} is not a Python identifier")
    parts = []
    for key, value in call.arguments.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise FormatError(f"argument name {key!r} is not a Python identifier")
        parts.append(f"{key}={unlink_refs(value)!r}")
    return f"{call.name}({', '.join(parts)})"


def callable_alias(tool: Tool) -> Tool:
    """The tool itself, or a copy named with a Python identifier a model can write (ToolBench
    names like "Foo-Bar| baz" are not identifiers); the original name stays in metadata."""
    if tool.name.isidentifier():
        return tool
    name = re.sub(r"\W+", "_", tool.name).strip("_") or "api"
    name = name if name[0].isalpha() else f"api_{name}"
    meta = {k: v for k, v in tool.metadata.items() if k not in ("signature", "api_name")}
    meta["alias_of"] = tool.name
    return Tool(name, tool.description, tool.parameters, tool.responses, tool.category, meta)


def in_declared_order(call: ToolCall, tool: Tool | None) -> ToolCall:
    """The call with its arguments in the tool's declared order (undeclared ones last), the
    order the Python-call grammar writes them in."""
    if tool is None:
        return call
    props = tool.properties
    keys = [k for k in props if k in call.arguments] + [k for k in call.arguments if k not in props]
    return ToolCall(call.name, {k: call.arguments[k] for k in keys}, call.id, call.responses)
