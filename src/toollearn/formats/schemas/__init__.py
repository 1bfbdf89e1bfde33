"""Tool schema formats: each module converts one external tool description to and from `Tool`."""

from __future__ import annotations

from typing import Any

from toollearn.core.errors import SchemaError

# Python's builtin type names and the JSON Schema types they stand for (one table for the
# Seal-Tools, Python-signature and ToolBench formats, which all write types as Python names).
PY_TO_JSON = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "list": "array",
    "dict": "object",
}
JSON_TO_PY = {v: k for k, v in PY_TO_JSON.items()}


def need(d: Any, key: str, typ: type | tuple[type, ...], fmt: str) -> Any:
    """Return d[key] if present with the right type, else raise a SchemaError naming both."""
    if not isinstance(d, dict):
        raise SchemaError(f"{fmt} tool must be a JSON object, got {type(d).__name__}")
    if key not in d:
        label = d.get("name") or d.get("api_name") or d.get("Name")
        label = f" {label!r}" if isinstance(label, str) else ""
        raise SchemaError(f"{fmt} tool{label} lacks the key '{key}'")
    value = d[key]
    if not isinstance(value, typ):
        names = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise SchemaError(
            f"{fmt} tool field '{key}' must be {names}, got {type(value).__name__}: {value!r:.60}"
        )
    return value


def check_name(name: str, fmt: str) -> str:
    """Reject empty tool names (every format needs one to call the tool)."""
    if not name.strip():
        raise SchemaError(f"{fmt} tool has an empty name")
    return name


def order_like_schema(value: Any, schema: Any) -> Any:
    """`value` with object keys in the schema's declared order (undeclared keys last), as the
    grammar writes them: a gold answer rendered this way is one the grammar admits."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        keys = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: order_like_schema(value[k], props.get(k)) for k in keys}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [order_like_schema(v, schema["items"]) for v in value]
    return value
