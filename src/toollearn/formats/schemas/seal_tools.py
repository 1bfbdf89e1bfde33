"""Seal-Tools tool JSON <-> `Tool`, exactly reversible on the released 4,076 tools.

Seal-Tools writes `{"api_name", "api_description", "field", "parameters": {name: {"type":
str|int|float|bool, "description", ...}}, "required", "responses": {...}}`. Types become JSON
Schema types; extra keys inside a parameter/response (e.g. "example", "unit") stay in place;
extra top-level keys go to `metadata["seal_extra"]`; a type outside the table is kept verbatim
under "x-seal-type".
"""

from __future__ import annotations

from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Tool
from toollearn.formats.schemas import JSON_TO_PY as JSON_TO_SEAL
from toollearn.formats.schemas import PY_TO_JSON as SEAL_TO_JSON
from toollearn.formats.schemas import check_name, need

_KNOWN = ("api_name", "api_description", "field", "parameters", "required", "responses")


def _field_from_seal(spec: Any, where: str) -> dict[str, Any]:
    if not isinstance(spec, dict):
        raise SchemaError(f"Seal-Tools {where} must be an object, got {type(spec).__name__}")
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "type":
            if isinstance(value, str) and value in SEAL_TO_JSON:
                out["type"] = SEAL_TO_JSON[value]
            else:
                out["x-seal-type"] = value
        else:
            out[key] = value
    return out


def _field_to_seal(spec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if key == "type":
            out["type"] = JSON_TO_SEAL.get(value, value)
        elif key == "x-seal-type":
            out["type"] = value
        else:
            out[key] = value
    return out


def tool_from_seal(d: dict[str, Any]) -> Tool:
    """Build a `Tool` from one Seal-Tools tool record."""
    name = check_name(need(d, "api_name", str, "Seal-Tools"), "Seal-Tools")
    params = need(d, "parameters", dict, "Seal-Tools")
    required = d.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise SchemaError(f"Seal-Tools tool {name!r}: 'required' must be a list of names")
    responses = d.get("responses", {})
    if not isinstance(responses, dict):
        raise SchemaError(f"Seal-Tools tool {name!r}: 'responses' must be an object")
    description = d.get("api_description", "")
    field = d.get("field", "")
    if not isinstance(description, str) or not isinstance(field, str):
        raise SchemaError(f"Seal-Tools tool {name!r}: 'api_description'/'field' must be strings")
    props = {k: _field_from_seal(v, f"parameter {name}.{k}") for k, v in params.items()}
    resps = {k: _field_from_seal(v, f"response {name}.{k}") for k, v in responses.items()}
    metadata: dict[str, Any] = {}
    extra = {k: v for k, v in d.items() if k not in _KNOWN}
    if extra:
        metadata["seal_extra"] = extra
    missing = [k for k in _KNOWN if k not in d]
    if missing:
        metadata["seal_missing"] = missing
    return Tool(
        name=name,
        description=description,
        parameters={"type": "object", "properties": props, "required": list(required)},
        responses=resps,
        category=field,
        metadata=metadata,
    )


def tool_to_seal(t: Tool) -> dict[str, Any]:
    """Write a `Tool` as a Seal-Tools tool record (the inverse of `tool_from_seal`)."""
    out: dict[str, Any] = {
        "api_name": t.name,
        "api_description": t.description,
        "field": t.category,
        "parameters": {k: _field_to_seal(v) for k, v in t.properties.items()},
        "required": t.required,
        "responses": {k: _field_to_seal(v) for k, v in t.responses.items()},
    }
    for key in t.metadata.get("seal_missing", ()):
        out.pop(key, None)
    out.update(t.metadata.get("seal_extra", {}))
    return out
