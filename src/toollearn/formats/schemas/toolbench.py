"""ToolBench tool docs <-> `Tool`.

- alpha-UMi trajectories list tools as `{"Name", "function": description,
  "input": {arg: "type, description"}}`.
- ToolDEER's baseline files (ToolBench/ToolAlpaca tools) use RapidAPI-style entries
  `{"name", "description", "parameters": [{"name", "type": "STRING"|..., "description",
  "default"}]}` or `"parameters": "{}"` (a JSON string).
The original type words are kept ("x-toolbench-type"/"x-rapidapi-type") so writing back is exact.
"""

from __future__ import annotations

import json
from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Tool
from toollearn.formats.schemas import PY_TO_JSON, check_name, need

# a type word may be a JSON Schema type or a Python one
_WORD_TO_JSON = {**PY_TO_JSON, **{t: t for t in PY_TO_JSON.values()}}


def _json_type(word: str) -> str | None:
    return _WORD_TO_JSON.get(word.strip().lower())


def tool_from_toolbench(d: dict[str, Any]) -> Tool:
    """Build a `Tool` from an alpha-UMi tool doc {"Name", "function", "input"}."""
    name = check_name(need(d, "Name", str, "ToolBench"), "ToolBench")
    description = d.get("function", "")
    if not isinstance(description, str):
        raise SchemaError(f"ToolBench tool {name!r}: 'function' must be a string")
    inputs = d.get("input", {})
    if not isinstance(inputs, dict):
        raise SchemaError(f"ToolBench tool {name!r}: 'input' must map arg names to text")
    props: dict[str, Any] = {}
    for arg, text in inputs.items():
        if not isinstance(text, str):
            raise SchemaError(f"ToolBench tool {name!r}: input {arg!r} must be 'type, description'")
        word, sep, desc = text.partition(",")
        prop: dict[str, Any] = {}
        jtype = _json_type(word) if sep else None
        if jtype:
            prop["type"] = jtype
            if word != jtype:
                prop["x-toolbench-type"] = word
            prop["description"] = desc[1:] if desc.startswith(" ") else desc
            if not desc.startswith(" "):
                prop["x-toolbench-nospace"] = True
        else:
            prop["description"] = text
        props[arg] = prop
    extra = {k: v for k, v in d.items() if k not in ("Name", "function", "input")}
    return Tool(
        name=name,
        description=description,
        parameters={"type": "object", "properties": props, "required": []},
        metadata={"toolbench_extra": extra} if extra else {},
    )


def tool_to_toolbench(t: Tool) -> dict[str, Any]:
    """Write a `Tool` as an alpha-UMi tool doc ("type, description" per input)."""
    inputs: dict[str, str] = {}
    for arg, prop in t.properties.items():
        word = prop.get("x-toolbench-type") or prop.get("type")
        desc = str(prop.get("description", ""))
        if word:
            inputs[arg] = f"{word},{'' if prop.get('x-toolbench-nospace') else ' '}{desc}"
        else:
            inputs[arg] = desc
    out: dict[str, Any] = {"Name": t.name, "function": t.description, "input": inputs}
    out.update(t.metadata.get("toolbench_extra", {}))
    return out


def _rapidapi_params(raw: Any, name: str) -> tuple[dict[str, Any], bool]:
    """(properties, parameters-were-a-JSON-string) of a RapidAPI-style parameter list."""
    as_string = isinstance(raw, str)
    if as_string:
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise SchemaError(f"RapidAPI tool {name!r}: 'parameters' string is not JSON") from exc
        if raw == {}:
            raw = []
    if not isinstance(raw, list):
        raise SchemaError(f"RapidAPI tool {name!r}: 'parameters' must be a list")
    props: dict[str, Any] = {}
    for p in raw:
        pname = need(p, "name", str, f"RapidAPI tool {name!r} parameter")
        word = p.get("type", "")
        prop: dict[str, Any] = {}
        jtype = _json_type(word) if isinstance(word, str) else None
        if jtype:
            prop["type"] = jtype
        prop["x-rapidapi-type"] = word
        prop.update({k: v for k, v in p.items() if k not in ("name", "type")})
        props[pname] = prop
    return props, as_string


def tool_from_rapidapi(d: dict[str, Any]) -> Tool:
    """Build a `Tool` from a RapidAPI-style entry (ToolDEER baselines' api_list items)."""
    name = check_name(need(d, "name", str, "RapidAPI"), "RapidAPI")
    description = d.get("description", "")
    if not isinstance(description, str):
        raise SchemaError(f"RapidAPI tool {name!r}: 'description' must be a string")
    props, as_string = _rapidapi_params(d.get("parameters", []), name)
    metadata: dict[str, Any] = {"rapidapi_parameters_as": "string" if as_string else "list"}
    return Tool(
        name=name,
        description=description,
        parameters={"type": "object", "properties": props, "required": []},
        metadata=metadata,
    )


def tool_to_rapidapi(t: Tool) -> dict[str, Any]:
    """Write a `Tool` as a RapidAPI-style entry (the inverse of `tool_from_rapidapi`)."""
    params = []
    for pname, prop in t.properties.items():
        entry: dict[str, Any] = {"name": pname, "type": prop.get("x-rapidapi-type", "")}
        if not entry["type"]:
            entry["type"] = str(prop.get("type", "string")).upper()
        entry.update({k: v for k, v in prop.items() if k not in ("type", "x-rapidapi-type")})
        params.append(entry)
    as_string = t.metadata.get("rapidapi_parameters_as") == "string"
    value: Any = json.dumps(params) if as_string and params else "{}" if as_string else params
    return {"name": t.name, "description": t.description, "parameters": value}
