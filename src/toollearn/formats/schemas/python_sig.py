"""DEER-style Python signature strings <-> `Tool` (`f(a: str, b: int = 5)`).

The released strings are not always valid Python (`..., optional x: int = None`, a required
parameter after a defaulted one, `**kwargs`, `-> Dict[str, str]`), so this is a small tolerant
parser: it splits the parameter list at top-level commas and reads each default with
`ast.literal_eval` (never evaluated as code). Annotations map to JSON types; the original
annotation text is kept as "x-python-type" when a JSON type cannot say it, a non-literal default
as "x-python-default", and `...`/`*args`/`**kwargs` items in `metadata["signature_extras"]`.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Tool
from toollearn.formats.schemas import JSON_TO_PY as _JSON_TO_PY
from toollearn.formats.schemas import PY_TO_JSON

_PY_TO_JSON = {
    **PY_TO_JSON,
    "List": "array",
    "Dict": "object",
    "tuple": "array",
    "Tuple": "array",
    "Sequence": "array",
    "Mapping": "object",
}
_HEAD = re.compile(r"\s*([A-Za-z_]\w*)\s*\(")
_PARAM = re.compile(
    r"(?:(?P<opt>optional)\s+)?(?P<name>[A-Za-z_]\w*)\s*(?::\s*(?P<ann>[^=]*?))?\s*"
    r"(?:=\s*(?P<default>.+?))?\s*",
    re.S,
)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside brackets and quotes (quotes may be ' or ")."""
    parts, cur, depth, quote, i = [], [], 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            cur.append(ch)
            if ch == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            cur.append(ch)
        elif ch in "([{":
            depth += 1
            cur.append(ch)
        elif ch in ")]}":
            depth -= 1
            cur.append(ch)
        elif ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    if quote or depth:
        raise SchemaError(f"unbalanced quotes or brackets in {text!r:.80}")
    parts.append("".join(cur))
    return [p.strip() for p in parts]


def json_type_of(annotation: str) -> tuple[str | None, bool]:
    """The JSON type of a Python annotation and whether it is exactly expressed by it."""
    ann = annotation.strip()
    if ann in ("str", "int", "float", "bool", "list", "dict"):
        return _PY_TO_JSON[ann], True
    inner = re.fullmatch(r"Optional\[(.*)\]", ann)
    if inner:
        return json_type_of(inner.group(1))[0], False
    base = re.match(r"[A-Za-z_][\w.]*", ann)
    return (_PY_TO_JSON.get(base.group(0)) if base else None), False


def _split_signature(sig: str) -> tuple[str, str, str]:
    """(function name, parameter text, return annotation) of a signature string."""
    head = _HEAD.match(sig)
    if not head:
        raise SchemaError(f"not a Python signature (expected name(...)): {sig!r:.80}")
    depth, quote, start = 0, "", head.end() - 1
    for i in range(start, len(sig)):
        ch = sig[i]
        if quote:
            quote = "" if ch == quote and sig[i - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                rest = sig[i + 1 :].strip()
                if rest and not rest.startswith("->"):
                    raise SchemaError(f"unexpected text after signature: {rest!r:.60}")
                return head.group(1), sig[start + 1 : i], rest[2:].strip()
    raise SchemaError(f"unclosed '(' in signature {sig!r:.80}")


def _param_schema(item: str, sig: str) -> tuple[str, dict[str, Any], bool]:
    """(name, property schema, required) for one parameter item."""
    m = _PARAM.fullmatch(item)
    if not m:
        raise SchemaError(f"cannot read parameter {item!r} in signature {sig!r:.80}")
    prop: dict[str, Any] = {}
    ann = (m.group("ann") or "").strip()
    if ann:
        jtype, exact = json_type_of(ann)
        if jtype:
            prop["type"] = jtype
        if not exact:
            prop["x-python-type"] = ann
    default = m.group("default")
    if default is not None:
        try:
            value = ast.literal_eval(default.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            prop["x-python-default"] = default.strip()
        else:
            prop["default"] = list(value) if isinstance(value, tuple) else value
            if isinstance(value, tuple) or repr(value) != default.strip():
                prop["x-python-default"] = default.strip()
    if m.group("opt"):
        prop["x-optional-prefix"] = True
    required = default is None and not m.group("opt")
    return m.group("name"), prop, required


def tool_from_signature(sig: str, description: str = "") -> Tool:
    """Build a `Tool` from a Python signature string such as `f(a: str, b: int = 5)`."""
    if not isinstance(sig, str):
        raise SchemaError(f"signature must be a string, got {type(sig).__name__}")
    name, params_text, returns = _split_signature(sig)
    props: dict[str, Any] = {}
    required: list[str] = []
    extras: list[list[Any]] = []
    items = split_top_level(params_text) if params_text.strip() else []
    if len(items) > 1 and not items[-1]:
        items.pop()  # a trailing comma, as Python allows
    for pos, item in enumerate(items):
        if item in ("...", "*") or item.startswith("*"):
            extras.append([pos, item])
            continue
        if not item:
            raise SchemaError(f"empty parameter in signature {sig!r:.80}")
        pname, prop, req = _param_schema(item, sig)
        if pname in props:
            raise SchemaError(f"parameter {pname!r} repeated in signature {sig!r:.80}")
        props[pname] = prop
        if req:
            required.append(pname)
    metadata: dict[str, Any] = {"signature": sig}
    if extras:
        metadata["signature_extras"] = extras
    if returns:
        metadata["returns"] = returns
    schema = {"type": "object", "properties": props, "required": required}
    return Tool(name=name, description=description, parameters=schema, metadata=metadata)


def _render_param(pname: str, prop: dict[str, Any], required: bool) -> str:
    ann = prop.get("x-python-type") or _JSON_TO_PY.get(prop.get("type", ""), "")
    text = ("optional " if prop.get("x-optional-prefix") else "") + pname
    if ann:
        text += f": {ann}"
    if "x-python-default" in prop:
        text += f" = {prop['x-python-default']}"
    elif "default" in prop:
        text += f" = {prop['default']!r}"
    elif not required and not prop.get("x-optional-prefix"):
        text += " = None"
    return text


def tool_to_signature(t: Tool) -> str:
    """Write a `Tool` as a canonical Python signature string (defaults and extras kept)."""
    req = set(t.required)
    items = [_render_param(n, p, n in req) for n, p in t.properties.items()]
    for pos, item in t.metadata.get("signature_extras", ()):
        items.insert(min(int(pos), len(items)), item)
    text = f"{t.name}({', '.join(items)})"
    if t.metadata.get("returns"):
        text += f" -> {t.metadata['returns']}"
    return text
