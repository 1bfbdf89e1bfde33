"""ToolDEER tool records <-> `Tool`.

A record is `{"api_name", "description_for_human", "description_for_model", "api_function",
"example": [{"query", "call"}]}` (tool.json) or the pool form `{"api_name", "description",
"api_function"}` (inside the released targets).

Naming: `Tool.name` is the function name in `api_function`, because that is what the gold
`#CallAPI#` calls use (36 of 977 tools differ, e.g. api_name 'metar' vs `get_metar_data(...)`,
'momemnt_of_zen_spext' vs `moment_of_zen_spext(...)`) and DEER's P_Call compares call names.
The listed pool name is kept as `metadata["api_name"]`; pools are rendered with it.
"""

from __future__ import annotations

from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Tool
from toollearn.formats.schemas import need
from toollearn.formats.schemas.python_sig import tool_from_signature

_FULL_KEYS = ("api_name", "description_for_human", "description_for_model", "api_function")


def tool_from_deer(d: dict[str, Any]) -> Tool:
    """Build a `Tool` from a ToolDEER tool record (tool.json entry or pool entry)."""
    api_name = need(d, "api_name", str, "ToolDEER")
    signature = need(d, "api_function", str, "ToolDEER")
    if "description_for_human" in d:
        description = need(d, "description_for_human", str, "ToolDEER")
    else:
        description = need(d, "description", str, "ToolDEER")
    try:
        base = tool_from_signature(signature, description)
    except SchemaError as exc:
        raise SchemaError(f"ToolDEER tool {api_name!r}: {exc}") from exc
    metadata: dict[str, Any] = {"api_name": api_name, **base.metadata}
    if "description_for_model" in d:
        metadata["description_for_model"] = need(d, "description_for_model", str, "ToolDEER")
    if "example" in d:
        metadata["examples"] = _examples(d["example"], api_name)
    extra = {k: v for k, v in d.items() if k not in (*_FULL_KEYS, "description", "example")}
    if extra:
        metadata["deer_extra"] = extra
    return Tool(
        name=base.name, description=description, parameters=base.parameters, metadata=metadata
    )


def _examples(raw: Any, api_name: str) -> list[dict[str, Any]]:
    """The tool's {query, call} examples, checked; extra keys (e.g. 'code') are kept."""
    if not isinstance(raw, list):
        raise SchemaError(f"ToolDEER tool {api_name!r}: 'example' must be a list")
    for i, ex in enumerate(raw):
        ok = isinstance(ex, dict) and isinstance(ex.get("query"), str)
        if not ok or not isinstance(ex.get("call"), str):
            raise SchemaError(
                f"ToolDEER tool {api_name!r}: example {i} needs string 'query' and 'call'"
            )
    return [dict(ex) for ex in raw]


def tool_to_deer(t: Tool) -> dict[str, Any]:
    """Write a `Tool` as a tool.json record (signature rendered if none was read)."""
    from toollearn.formats.schemas.python_sig import tool_to_signature

    out: dict[str, Any] = {
        "api_name": t.metadata.get("api_name", t.name),
        "description_for_human": t.description,
        "description_for_model": t.metadata.get("description_for_model", t.description),
        "api_function": t.metadata.get("signature") or tool_to_signature(t),
        "example": list(t.metadata.get("examples", [])),
    }
    out.update(t.metadata.get("deer_extra", {}))
    return out


def deer_pool_entry(t: Tool) -> dict[str, str]:
    """The pool dict that DEER targets print for a tool: api_name, description, api_function."""
    from toollearn.formats.schemas.python_sig import tool_to_signature

    return {
        "api_name": t.metadata.get("api_name", t.name),
        "description": t.description,
        "api_function": t.metadata.get("signature") or tool_to_signature(t),
    }
