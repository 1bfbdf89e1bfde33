"""Read and write tool lists in any supported schema format (what `toollearn tools convert` uses).

Formats: seal-tools, openai (add `openai-dict` for the BFCL `"type": "dict"` spelling), python
(signature strings), toolbench (alpha-UMi docs), rapidapi (ToolDEER baselines), tooldeer
(ToolDEER tool.json), toollearn (our `Tool.to_dict`). Input: a JSON list, JSON Lines, or an
object with a "tools" list; python input may also be plain text, one signature per line.
Format "auto" (what `toollearn call` and `run` use by default) tells the format from the first
record's keys (`detect_format`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError, SchemaError
from toollearn.core.types import Tool
from toollearn.formats.schemas import openai, python_sig, seal_tools, toolbench, tooldeer


def _tool_from_dict(d: Any) -> Tool:
    if not isinstance(d, dict) or not isinstance(d.get("name"), str):
        raise SchemaError("toollearn tool must be an object with a string 'name'")
    return Tool.from_dict(d)


def _from_python(d: Any) -> Tool:
    if isinstance(d, str):
        return python_sig.tool_from_signature(d)
    if isinstance(d, dict) and isinstance(d.get("signature"), str):
        return python_sig.tool_from_signature(d["signature"], str(d.get("description", "")))
    raise SchemaError("python tool must be a signature string or {'signature', 'description'}")


def _to_python(t: Tool) -> dict[str, str]:
    return {"signature": python_sig.tool_to_signature(t), "description": t.description}


Reader = Callable[[Any], Tool]
Writer = Callable[[Tool], Any]
FORMATS: dict[str, tuple[Reader, Writer]] = {
    "seal-tools": (seal_tools.tool_from_seal, seal_tools.tool_to_seal),
    "openai": (openai.tool_from_openai, openai.tool_to_openai),
    "openai-dict": (openai.tool_from_openai, lambda t: openai.tool_to_openai(t, style="dict")),
    "python": (_from_python, _to_python),
    "toolbench": (toolbench.tool_from_toolbench, toolbench.tool_to_toolbench),
    "rapidapi": (toolbench.tool_from_rapidapi, toolbench.tool_to_rapidapi),
    "tooldeer": (tooldeer.tool_from_deer, tooldeer.tool_to_deer),
    "toollearn": (_tool_from_dict, Tool.to_dict),
}


def detect_format(record: Any) -> str:
    """The tool format a record is written in, told by its keys; DataError when none fits."""
    if isinstance(record, str):
        return "python"
    if not isinstance(record, dict):
        raise DataError(f"a tool record must be an object or a signature, not {record!r:.60}")
    keys = set(record)
    if record.get("type") == "function" and isinstance(record.get("function"), dict):
        return "openai"
    if "api_name" in keys:
        return "tooldeer" if "api_function" in keys else "seal-tools"
    if {"Name", "function"} <= keys:
        return "toolbench"
    if "signature" in keys:
        return "python"
    if "name" in keys:
        params = record.get("parameters")
        if isinstance(params, list):
            return "rapidapi"
        if keys & {"responses", "category", "metadata"}:
            return "toollearn"
        if isinstance(params, dict) and params.get("type") == "dict":
            return "openai-dict"
        return "openai"
    raise DataError(f"cannot tell the tool format of a record with keys {sorted(keys)}")


def _check_format(fmt: str) -> tuple[Reader, Writer]:
    if fmt not in FORMATS:
        raise DataError(f"unknown tool format {fmt!r}; choose from {', '.join(FORMATS)}")
    return FORMATS[fmt]


def _records(text: str, where: str, fmt: str) -> list[tuple[str, Any]]:
    """(location, record) pairs from JSON, JSONL or (python only) plain signature lines."""
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None  # maybe JSON Lines
        if isinstance(data, dict) and isinstance(data.get("tools"), list):
            data = data["tools"]
        if isinstance(data, list):
            return [(f"{where}: record {i}", rec) for i, rec in enumerate(data)]
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if fmt == "python" and not line.lstrip().startswith(("{", '"')):
            out.append((f"{where}:{lineno}", line.strip()))
            continue
        try:
            out.append((f"{where}:{lineno}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DataError(
                f"invalid JSON: {exc.msg} (column {exc.colno})", where, lineno
            ) from None
    return out


def parse_tools(text: str, fmt: str, where: str = "<input>") -> list[Tool]:
    """Tools from text in format `fmt` ("auto": told from the first record); DataError
    naming the record on any bad one."""
    records = _records(text, where, "python" if fmt == "auto" else fmt)
    if fmt == "auto":
        fmt = detect_format(records[0][1]) if records else "toollearn"
    reader, _ = _check_format(fmt)
    tools = []
    for loc, rec in records:
        try:
            tools.append(reader(rec))
        except SchemaError as exc:
            raise DataError(f"{loc}: {exc}") from None
    return tools


def read_tools(path: str | Path, fmt: str) -> list[Tool]:
    """Tools from a file ('-' = stdin) in format `fmt`."""
    if str(path) == "-":
        return parse_tools(sys.stdin.read(), fmt, "<stdin>")
    p = Path(path)
    if not p.is_file():
        raise DataError("file not found", str(p))
    return parse_tools(p.read_text(encoding="utf-8"), fmt, str(p))


def dump_tools(tools: Sequence[Tool], fmt: str, jsonl: bool = True) -> str:
    """Tools as text in format `fmt`: JSON Lines (default) or one indented JSON list."""
    _, writer = _check_format(fmt)
    records = [writer(t) for t in tools]
    if jsonl:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return json.dumps(records, ensure_ascii=False, indent=2) + "\n"


def write_tools(tools: Sequence[Tool], path: str | Path, fmt: str) -> None:
    """Write tools in format `fmt` to `path` ('-' = stdout); .json -> a JSON list, else JSONL."""
    text = dump_tools(tools, fmt, jsonl=not str(path).endswith(".json"))
    if str(path) == "-":
        sys.stdout.write(text)
        return
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def lost_fields(tools: Sequence[Tool], fmt: str) -> dict[str, int]:
    """How many tools lose each field (description, responses, category) when written in
    `fmt` and read back: what a conversion to a format without a slot for it drops."""
    back = parse_tools(dump_tools(tools, fmt), fmt)
    lost: dict[str, int] = {}
    for before, after in zip(tools, back):
        for name in ("description", "responses", "category"):
            if getattr(before, name) and not getattr(after, name):
                lost[name] = lost.get(name, 0) + 1
    return lost
