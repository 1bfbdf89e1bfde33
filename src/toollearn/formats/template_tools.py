"""A foreign model's own tool format: its chat template renders the tools, it answers in the
call syntax that template defines (`toollearn serve --prompt-format template`).

Models not trained by toollearn were tuned on their own chat template's tool format, as
llama.cpp's server (`--jinja`) and vLLM prompt them. The template receives the request's tools
(OpenAI function dicts) and the conversation with assistant `tool_calls` (arguments as objects)
and `tool` results, as transformers' `apply_chat_template(tools=...)` passes them. Two call
syntaxes are read, recognised from the template's text:
- hermes (Qwen2.5/3, Hermes, many fine-tunes): `<tool_call>\n{"name": ..., "arguments": {...}}
  \n</tool_call>`, one block per call;
- llama3-json (Llama 3.1/3.2/3.3): one `{"name": ..., "parameters": {...}}` object, optionally
  after `<|python_tag|>`.
The grammar for each is in `decoding.template_calls`; answers are parsed as JSON data here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import ToolCall

DIALECTS = ("hermes", "llama3-json")
HERMES_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
PYTHON_TAG = "<|python_tag|>"


def dialect_of(template_source: str) -> str | None:
    """The call syntax a chat template defines, or None when it renders no tools."""
    if "tools" not in template_source:
        return None
    if "<tool_call>" in template_source:
        return "hermes"
    if '"parameters"' in template_source and (
        PYTHON_TAG in template_source or "ipython" in template_source
    ):
        return "llama3-json"
    return None


def template_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages as chat templates read them: text contents, tool-call arguments as
    objects, a tool result named after its call (validated by `serve.chat.conversation`
    first)."""
    out, names = [], {}
    for m in messages:
        msg: dict[str, Any] = {"role": m["role"], "content": _text(m.get("content"))}
        calls = []
        for tc in m.get("tool_calls") or []:
            fn = tc["function"]
            args = fn.get("arguments", "{}")
            args = json.loads(args) if isinstance(args, str) else args
            names[str(tc.get("id") or "")] = fn["name"]
            calls.append({"id": tc.get("id"), "type": "function",
                          "function": {"name": fn["name"], "arguments": args}})  # fmt: skip
        if calls:
            msg["tool_calls"] = calls
        if m["role"] == "tool":
            msg["tool_call_id"] = m.get("tool_call_id")
            msg["name"] = names.get(str(m.get("tool_call_id")), "")
        out.append(msg)
    return out


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def parse(dialect: str, text: str) -> tuple[list[ToolCall], str]:
    """(calls, text) of an answer in the dialect; text without calls is the reply. A call that
    is not a JSON object with a name and object arguments is a FormatError."""
    if dialect == "hermes":
        blocks = HERMES_BLOCK.findall(text)
        if not blocks:
            return [], text.strip()
        return [_call(b, "arguments") for b in blocks], ""
    if dialect == "llama3-json":
        body = text.strip().removeprefix(PYTHON_TAG).strip()
        if not body.startswith("{"):
            return [], text.strip()
        return [_call(body, "parameters")], ""
    raise FormatError(f"unknown tool-call dialect {dialect!r}; known: {', '.join(DIALECTS)}")


def _call(block: str, key: str) -> ToolCall:
    try:
        value = json.loads(block)
    except json.JSONDecodeError as exc:
        raise FormatError(f"a tool call is not valid JSON: {exc}") from None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise FormatError("a tool call is a JSON object with a name")
    args = value.get(key, {})
    if not isinstance(args, dict):
        raise FormatError(f"a tool call's {key} must be an object")
    return ToolCall(value["name"], args)
