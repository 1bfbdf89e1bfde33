"""OpenAI chat messages and tools as a client writes them (the general suite's items and
`datagen general`'s conversations are kept in this shape and rendered by the server's path)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool, ToolCall
from toollearn.formats.schemas.openai import tool_to_openai


def plain(value: Any) -> Any:
    """A JSON round trip: plain lists, dicts and scalars (tuples become lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def call_turn(calls: Sequence[ToolCall], first_id: int) -> dict[str, Any]:
    """An assistant message holding `calls` as OpenAI tool calls, ids call_<n> from first_id."""
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{first_id + i}", "type": "function",
         "function": {"name": c.name, "arguments": json.dumps(plain(c.arguments),
                                                              ensure_ascii=False)}}
        for i, c in enumerate(calls)]}  # fmt: skip


def result_turn(call_id: int, result: Any) -> dict[str, Any]:
    """The tool message answering call_<call_id>, its result as JSON text (as clients send)."""
    return {"role": "tool", "tool_call_id": f"call_{call_id}",
            "content": json.dumps(result, ensure_ascii=False)}  # fmt: skip


def openai_tool(tool: Tool) -> dict[str, Any]:
    """The tool as a client sends it (toollearn's `x-` bookkeeping keys dropped)."""
    return tool_to_openai(tool, style="json", extensions=False)
