"""`@tool`: build a `Tool` from a Python function's type hints and docstring (smolagents-style).

The docstring's first paragraph is the description; parameter descriptions come from a
Google-style `Args:` section (`name (type): text`) or a NumPy-style `Parameters` section.
Parameters without a default are required; a literal default is kept in the schema.
"""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Tool

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean",
           list: "array", tuple: "array", dict: "object"}  # fmt: skip
_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:?\s*$")
_END = re.compile(r"^\s*(Returns?|Yields?|Raises?|Examples?|Notes?|See Also|Attributes)\s*:?\s*$")
_GOOGLE_ITEM = re.compile(r"^(\s*)(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\s*)(\w+)\s*(?::\s*(.*))?$")


def json_schema_of(hint: Any) -> dict[str, Any]:
    """A JSON Schema for a Python type hint (str, int, list[str], Optional[...], Literal...)."""
    if hint is inspect.Parameter.empty or hint is Any:
        return {}
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return {"type": _SIMPLE.get(type(args[0]), "string"), "enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        schema = json_schema_of(rest[0]) if len(rest) == 1 else {}
        return {**schema, "nullable": True} if len(rest) < len(args) else schema
    if origin in (list, tuple, set, frozenset) or origin is typing.Sequence:
        schema: dict[str, Any] = {"type": "array"}
        if args and args[0] is not Ellipsis:
            item = json_schema_of(args[0])
            if item:
                schema["items"] = item
        return schema
    if origin in (dict,) or origin is typing.Mapping:
        return {"type": "object"}
    raise SchemaError(f"cannot express type hint {hint!r} as a JSON Schema")


def _is_rule(line: str) -> bool:
    return bool(line.strip()) and set(line.strip()) == {"-"}


def _doc_sections(doc: str) -> tuple[str, dict[str, str]]:
    """(description = first paragraph, {param: description}) from a docstring."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    para: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line):
            break
        para.append(line.strip())
    params: dict[str, str] = {}
    for i, line in enumerate(lines):
        if _SECTION.match(line):
            numpy = i + 1 < len(lines) and _is_rule(lines[i + 1])
            params.update(_read_items(lines[i + 1 + numpy :], numpy))
    return " ".join(para), params


def _read_items(lines: list[str], numpy: bool) -> dict[str, str]:
    """Parameter items of one Args/Parameters section, until the next section."""
    params: dict[str, str] = {}
    current, base = None, None
    for j, line in enumerate(lines):
        nxt = lines[j + 1] if j + 1 < len(lines) else ""
        if _END.match(line) or _SECTION.match(line) or (numpy and _is_rule(nxt)):
            break
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        base = indent if base is None else base
        m = (_NUMPY_ITEM if numpy else _GOOGLE_ITEM).match(line)
        if indent == base and m:
            current = m.group(2).lstrip("*")
            params[current] = "" if numpy else m.group(4).strip()
        elif current is not None:
            params[current] = (params[current] + " " + line.strip()).strip()
    return params


def tool_from_function(
    fn: Callable[..., Any], name: str | None = None, description: str | None = None
) -> Tool:
    """Build a `Tool` from a function's signature, type hints and docstring."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:  # unresolvable forward references
        raise SchemaError(f"cannot read type hints of {fn.__name__}: {exc}") from None
    doc_desc, doc_params = _doc_sections(inspect.getdoc(fn) or "")
    props: dict[str, Any] = {}
    required: list[str] = []
    for pname, param in inspect.signature(fn).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        prop = json_schema_of(hints.get(pname, inspect.Parameter.empty))
        if pname in doc_params:
            prop["description"] = doc_params[pname]
        if param.default is inspect.Parameter.empty:
            required.append(pname)
        elif param.default is None or isinstance(param.default, str | int | float | bool):
            prop["default"] = param.default
        props[pname] = prop
    return Tool(
        name=name or fn.__name__,
        description=description if description is not None else doc_desc,
        parameters={"type": "object", "properties": props, "required": required},
        metadata={"python": f"{fn.__module__}.{fn.__qualname__}"},
    )


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None,
         description: str | None = None) -> Any:  # fmt: skip
    """Decorator: `@tool` or `@tool(name=..., description=...)`; sets `fn.tool` and returns fn."""

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        f.tool = tool_from_function(f, name=name, description=description)  # type: ignore[attr-defined]
        return f

    return wrap(fn) if fn is not None else wrap
