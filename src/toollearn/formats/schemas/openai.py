"""OpenAI function-calling tool schema <-> `Tool` (also what vLLM, Ollama and llama.cpp serve).

Accepts `{"type": "function", "function": {...}}`, a bare function dict, and the Gorilla/BFCL
variant whose schemas say `"type": "dict"` (and "float", "tuple", "any"); the variant is
normalised to JSON Schema and remembered in `metadata["openai_style"] = "dict"` so
`tool_to_openai` writes it back the same way.
"""

from __future__ import annotations

from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Tool, empty_schema
from toollearn.formats.schemas import check_name, need

# BFCL spelling -> JSON Schema spelling.
_DICT_STYLE = {"dict": "object", "float": "number", "tuple": "array"}
_TO_DICT_STYLE = {"object": "dict", "number": "float"}


def _has_dict_style(schema: Any) -> bool:
    if isinstance(schema, dict):
        t = schema.get("type")
        if isinstance(t, str) and (t in _DICT_STYLE or t == "any"):
            return True
        return any(_has_dict_style(v) for v in schema.values())
    if isinstance(schema, list):
        return any(_has_dict_style(v) for v in schema)
    return False


def _convert_types(schema: Any, to_json: bool) -> Any:
    """Rename "type" values between BFCL and JSON Schema spelling, in every nested schema.

    BFCL types without a JSON twin ("tuple", "any") are kept under "x-bfcl-type"."""
    if isinstance(schema, list):
        return [_convert_types(v, to_json) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str) and to_json:
            if value == "any":
                out["x-bfcl-type"] = value
                continue
            out[key] = _DICT_STYLE.get(value, value)
            if value in _DICT_STYLE and _TO_DICT_STYLE.get(out[key]) != value:
                out["x-bfcl-type"] = value
        elif key == "type" and isinstance(value, str):
            out[key] = schema.get("x-bfcl-type") or _TO_DICT_STYLE.get(value, value)
        elif key == "x-bfcl-type" and not to_json:
            if "type" not in schema:
                out["type"] = value
        elif key == "properties" and isinstance(value, dict):
            out[key] = {k: _convert_types(v, to_json) for k, v in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf"):
            out[key] = _convert_types(value, to_json)
        else:
            out[key] = value
    return out


def tool_from_openai(d: dict[str, Any]) -> Tool:
    """Build a `Tool` from an OpenAI tool dict (wrapped or bare function, either style)."""
    if isinstance(d, dict) and d.get("type") == "function" and "function" in d:
        fn = need(d, "function", dict, "OpenAI")
    else:
        fn = d
    name = check_name(need(fn, "name", str, "OpenAI"), "OpenAI")
    description = fn.get("description", "")
    if not isinstance(description, str):
        raise SchemaError(f"OpenAI tool {name!r}: 'description' must be a string")
    params = fn.get("parameters")
    if params is None:
        params = empty_schema()
    if not isinstance(params, dict):
        raise SchemaError(f"OpenAI tool {name!r}: 'parameters' must be an object")
    metadata: dict[str, Any] = {}
    if _has_dict_style(params):
        metadata["openai_style"] = "dict"
        params = _convert_types(params, to_json=True)
    if params.get("type", "object") != "object":
        raise SchemaError(f"OpenAI tool {name!r}: parameters type must be object/dict")
    props = params.get("properties", {})
    if not isinstance(props, dict) or not all(isinstance(v, dict) for v in props.values()):
        raise SchemaError(f"OpenAI tool {name!r}: 'properties' must map names to schemas")
    required = params.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"OpenAI tool {name!r}: 'required' must be a list of names")
    extra = {k: v for k, v in fn.items() if k not in ("name", "description", "parameters")}
    if extra:
        metadata["openai_extra"] = extra
    if "parameters" not in fn:
        metadata["openai_no_parameters"] = True
    return Tool(name=name, description=description, parameters=params, metadata=metadata)


def strip_extensions(schema: Any) -> Any:
    """A copy of a schema without toollearn's "x-..." bookkeeping keys (for strict servers)."""
    if isinstance(schema, list):
        return [strip_extensions(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if isinstance(key, str) and key.startswith("x-"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: strip_extensions(v) for k, v in value.items()}
        else:
            out[key] = strip_extensions(value)
    return out


def tool_to_openai(
    t: Tool, style: str | None = None, wrap: bool = True, extensions: bool = True
) -> dict[str, Any]:
    """Write a `Tool` as an OpenAI tool; style "dict" writes the BFCL variant (default: as read).

    extensions=False drops the "x-..." keys other formats leave in the schema (e.g.
    "x-python-type"), for servers that reject unknown keywords; the round trip needs them."""
    style = style or t.metadata.get("openai_style", "json")
    params: dict[str, Any] = dict(t.parameters) if t.parameters else empty_schema()
    if style == "dict":
        params = _convert_types(params, to_json=False)
    elif style != "json":
        raise SchemaError(f"unknown OpenAI schema style {style!r} (use 'json' or 'dict')")
    if not extensions:
        params = strip_extensions(params)
    fn: dict[str, Any] = {"name": t.name, "description": t.description}
    if not t.metadata.get("openai_no_parameters"):
        fn["parameters"] = params
    fn.update(t.metadata.get("openai_extra", {}))
    return {"type": "function", "function": fn} if wrap else fn
