"""The general tool-calling format, for any user's tools (the default of `call` and `run`).

Prompt: a system message listing the tools as JSON documents (name, description, JSON Schema
parameters; toollearn's internal `x-...` keys never shown) with the answer rules, then the
conversation. `docs="compact"` lists each tool as a signature line plus one line per described
parameter instead (about half the tokens: `benchmarks/prompt_tokens.py`); a model is trained
and served with one style, recorded with it. The model answers with a JSON list of calls,
  [{"name": "get_weather", "arguments": {"city": "Paris"}}, ...]
several calls allowed, or declines with `[]`, optionally followed by a newline and a plain-text
reply. Tool results come back as `tool` messages holding {"name", "content"} JSON. With no tools
the prompt is the bare conversation and the answer plain text.

Rendering, the target and the parser live here, the grammar in `decoding.tool_calls` (which
writes values exactly as `render_target` does), so training samples and served prompts cannot
drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message, Tool, ToolCall, unlink_refs
from toollearn.formats.schemas.openai import strip_extensions

NO_CALL = "[]"
INSTRUCTIONS = (
    "To use tools, reply with only a JSON list of calls: "
    '[{"name": "<tool name>", "arguments": {<argument>: <value>}}]. '
    "Several calls may go in one list. If no tool fits the request, reply [] and then "
    "answer in plain text on the next line."
)


@dataclass(frozen=True)
class ToolCallsAnswer:
    """A parsed answer: the calls (empty when the model declined) and any plain text."""

    calls: tuple[ToolCall, ...]
    text: str = ""

    @property
    def declined(self) -> bool:
        return not self.calls


def tool_doc(tool: Tool) -> dict[str, Any]:
    """What the model is shown of a tool."""
    params = strip_extensions(tool.parameters) or {"type": "object", "properties": {}}
    return {"name": tool.name, "description": tool.description, "parameters": params}


_SHORT_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool",
                "object": "dict", "array": "list", "null": "None"}  # fmt: skip


def _short_type(schema: dict[str, Any]) -> str:
    """`str`, `list[int]`, `"c"|"f"` ...: a parameter's type in a few tokens."""
    if "enum" in schema:
        return "|".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return "|".join(_SHORT_TYPES.get(k, str(k)) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"list[{_short_type(schema['items'])}]"
    if kind == "object" and schema.get("properties"):
        return json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    return _SHORT_TYPES.get(kind, str(kind))


def compact_doc(tool: Tool) -> str:
    """`name(a: str, b?: int = 3): description` and an indented line per described parameter
    (`?` marks an optional one); nested object schemas stay JSON."""
    params = strip_extensions(tool.parameters) or {}
    props, required = params.get("properties", {}), set(params.get("required", []))
    items = []
    for name, schema in props.items():
        default = f" = {json.dumps(schema['default'])}" if "default" in schema else ""
        items.append(f"{name}{'' if name in required else '?'}: {_short_type(schema)}{default}")
    lines = [f"{tool.name}({', '.join(items)}): {tool.description}".rstrip(": ")]
    lines += [f"  {n}: {s['description']}" for n, s in props.items() if s.get("description")]
    return "\n".join(lines)


DOC_STYLES = ("json", "compact")


def system_prompt(tools: Sequence[Tool], docs: str = "json") -> str:
    """The system message: the tools (one JSON document per line, or compact), then the rules."""
    if docs not in DOC_STYLES:
        raise FormatError(f"unknown tool doc style {docs!r}; use one of {DOC_STYLES}")
    if docs == "compact":
        listing = "\n".join(compact_doc(t) for t in tools)
    else:
        listing = "\n".join(json.dumps(tool_doc(t), ensure_ascii=False) for t in tools)
    return f"You can use these tools:\n{listing}\n{INSTRUCTIONS}"


def render_messages(
    query: str, tools: Sequence[Tool], history: Sequence[Message] = (), docs: str = "json"
) -> list[Message]:
    """The prompt: the tool system message (none without tools), the user's query, then the
    turns after it (assistant call lists, tool results, further user turns)."""
    head = [Message("system", system_prompt(tools, docs))] if tools else []
    return [*head, Message("user", query), *history]


def render_conversation(
    tools: Sequence[Tool], messages: Sequence[Message], docs: str = "json"
) -> list[Message]:
    """The prompt for a whole conversation given as messages (what a chat server receives)."""
    head = [Message("system", system_prompt(tools, docs))] if tools else []
    return [*head, *messages]


def tool_result_message(call: ToolCall, content: Any) -> Message:
    """A tool result turn as the model sees it."""
    text = json.dumps({"name": call.name, "content": content}, ensure_ascii=False, default=str)
    return Message("tool", text)


def _ordered_arguments(call: ToolCall, tools: Sequence[Tool]) -> dict[str, Any]:
    from toollearn.formats.schemas import order_like_schema

    tool = next((t for t in tools if t.name == call.name), None)
    args = unlink_refs(call.arguments)
    return order_like_schema(args, tool.parameters) if tool else args


def render_calls(calls: Sequence[ToolCall], tools: Sequence[Tool] = ()) -> str:
    """A call list as the grammar writes it (arguments in each tool's declared order)."""
    items = [
        json.dumps({"name": c.name, "arguments": _ordered_arguments(c, tools)}, ensure_ascii=False)
        for c in calls
    ]
    return "[" + ", ".join(items) + "]"


def render_target(
    calls: Sequence[ToolCall], tools: Sequence[Tool] = (), answer: str | None = None
) -> str:
    """The model's turn: the call list, or `[]` (plus the answer text when there is one)."""
    if calls:
        return render_calls(calls, tools)
    return NO_CALL + (f"\n{answer.strip()}" if answer and answer.strip() else "")


def parse(text: str) -> ToolCallsAnswer:
    """Read an answer. A reply that does not start with a list (after an optional code fence)
    is plain text with no calls; a list that is not a list of {"name", "arguments"} objects
    is a FormatError."""
    if not isinstance(text, str):
        raise FormatError(f"expected text, got {type(text).__name__}")
    body = _unfence(text.strip())
    if not body.startswith("["):
        return ToolCallsAnswer((), text.strip())
    try:
        value, end = json.JSONDecoder().raw_decode(body)
    except ValueError as exc:
        raise FormatError(f"the call list is not valid JSON: {exc}") from None
    if not isinstance(value, list):
        raise FormatError("the answer must be a JSON list of calls")
    calls = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise FormatError(f"call {i} is not an object with a string 'name'")
        args = item.get("arguments", {})
        if isinstance(args, str):  # OpenAI's wire format carries arguments as a JSON string
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                raise FormatError(f"call {i}: arguments are not JSON") from None
        if not isinstance(args, dict):
            raise FormatError(f"call {i}: 'arguments' must be an object")
        calls.append(ToolCall(item["name"], args))
    return ToolCallsAnswer(tuple(calls), body[end:].strip())


def finished_calls(text: str) -> int:
    """How many complete call objects a (possibly cut off) call list holds."""
    depth, quote, escape, done = 0, False, False, 0
    for ch in text.lstrip():
        if escape:
            escape = False
        elif quote:
            escape = ch == "\\"
            quote = ch != '"'
        elif ch == '"':
            quote = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            done += ch == "}" and depth == 1
    return done


def _unfence(text: str) -> str:
    if text.startswith("```"):
        first_newline = text.find("\n")
        inner = text[first_newline + 1 :] if first_newline >= 0 else ""
        return inner.split("```", 1)[0].strip()
    return text
