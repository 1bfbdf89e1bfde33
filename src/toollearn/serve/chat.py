"""OpenAI chat requests <-> toollearn's general call-list format (formats.answers.tool_calls).

`parse_request` turns a `/v1/chat/completions` body into a `ChatJob`: the prompt as the model
was trained to read it (the tools' system message, the conversation with assistant tool calls
rendered as call lists and tool results as `tool` turns) and the grammar that `tool_choice`
asks for: auto = a call list over the request's tools or `[]` plus a reply; required = at
least one call; a named function = calls to that function only; none = plain chat. Every
problem with a request is a `RequestError` naming the parameter (an HTTP 400 in OpenAI's error
shape). `chat_response` turns the model's text back into an OpenAI message with `tool_calls`.
`gate_query` is the user turn a call gate reads (tool_choice auto, the user's turn last; the
server's `--call-gate`). No model output is ever executed or evaluated here: it is parsed as
JSON data.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from toollearn.core.errors import FormatError, SchemaError
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.tool_calls import tool_calls_constraint
from toollearn.formats.answers import tool_calls
from toollearn.formats.schemas.openai import tool_from_openai

ROLES = ("system", "developer", "user", "assistant", "tool")


class RequestError(Exception):
    """A bad request: HTTP `status`, OpenAI error `code` and the `param` at fault."""

    def __init__(self, message: str, param: str | None = None, code: str = "invalid_request",
                 status: int = 400):  # fmt: skip
        super().__init__(message)
        self.message, self.param, self.code, self.status = message, param, code, status

    def body(self) -> dict[str, Any]:
        kind = "invalid_request_error" if self.status < 500 else "server_error"
        return {"error": {"message": self.message, "type": kind, "param": self.param,
                          "code": self.code}}  # fmt: skip


@dataclass
class ChatJob:
    """One chat completion to generate: prompt, grammar, limits, and how to read the answer."""

    model: str
    messages: list[Message]
    tools: list[Tool] = field(default_factory=list)
    constraint: Constraint | None = None
    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    stop: tuple[str, ...] = ()
    stream: bool = False
    include_usage: bool = False
    gate_query: str | None = None  # tool_choice auto, the last turn the user's: a gate may decline

    @property
    def calls_tools(self) -> bool:
        """Whether the answer is read as a call list (tools shown and not tool_choice none)."""
        return self.constraint is not None or bool(self.tools)


def _text(content: Any, param: str) -> str:
    """A message's content: a string, a list of text parts, or None."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for i, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") != "text":
                raise RequestError("only text content parts are supported", f"{param}[{i}]")
            out.append(str(part.get("text", "")))
        return "".join(out)
    raise RequestError("content must be a string or a list of text parts", param)


def _call_from_openai(tc: Any, param: str) -> tuple[str, ToolCall]:
    """(id, ToolCall) of an assistant message's tool call; arguments must be a JSON object."""
    if not isinstance(tc, dict) or not isinstance(tc.get("function"), dict):
        raise RequestError("a tool call is {id, type: function, function: {name, arguments}}",
                           param)  # fmt: skip
    fn = tc["function"]
    name, args = fn.get("name"), fn.get("arguments", "{}")
    if not isinstance(name, str) or not name:
        raise RequestError("a tool call needs a function name", f"{param}.function.name")
    try:
        value = json.loads(args) if isinstance(args, str) else args
    except json.JSONDecodeError:
        raise RequestError("tool call arguments are not valid JSON",
                           f"{param}.function.arguments") from None  # fmt: skip
    if not isinstance(value, dict):
        raise RequestError("tool call arguments must be a JSON object",
                           f"{param}.function.arguments")  # fmt: skip
    return str(tc.get("id") or ""), ToolCall(name, value)


def conversation(raw: Any, tools: list[Tool]) -> tuple[list[Message], str]:
    """The request's messages in the call-list format, and the client's system text."""
    if not isinstance(raw, list) or not raw:
        raise RequestError("messages must be a non-empty list", "messages")
    out: list[Message] = []
    system: list[str] = []
    names: dict[str, str] = {}  # tool_call_id -> function name
    for i, m in enumerate(raw):
        param = f"messages[{i}]"
        if not isinstance(m, dict) or m.get("role") not in ROLES:
            raise RequestError(f"each message has a role among {', '.join(ROLES)}", param)
        role = m["role"]
        text = _text(m.get("content"), f"{param}.content")
        if role in ("system", "developer"):
            system.append(text)
        elif role == "user":
            out.append(Message("user", text))
        elif role == "assistant":
            calls = []
            for j, tc in enumerate(m.get("tool_calls") or []):
                call_id, call = _call_from_openai(tc, f"{param}.tool_calls[{j}]")
                names[call_id] = call.name
                calls.append(call)
            if calls:
                out.append(Message("assistant", tool_calls.render_calls(calls, tools)))
            elif tools:
                out.append(Message("assistant", tool_calls.render_target([], tools, text)))
            else:
                out.append(Message("assistant", text))
        else:  # tool
            call_id = m.get("tool_call_id")
            if call_id not in names:
                raise RequestError("tool message answers no earlier assistant tool call id",
                                   f"{param}.tool_call_id")  # fmt: skip
            result = tool_calls.tool_result_message(ToolCall(names[call_id]), text)
            out.append(result)
    if not out:
        raise RequestError("messages hold no user turn", "messages")
    return out, "\n\n".join(s for s in system if s)


def parse_tools(raw: Any) -> list[Tool]:
    """The request's `tools` (OpenAI function tools), validated; duplicates are an error."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RequestError("tools must be a list", "tools")
    tools: list[Tool] = []
    for i, t in enumerate(raw):
        if not isinstance(t, dict) or t.get("type", "function") != "function":
            raise RequestError("only function tools are supported", f"tools[{i}]")
        try:
            tools.append(tool_from_openai(t))
        except (SchemaError, KeyError, TypeError, ValueError) as exc:
            raise RequestError(f"invalid tool schema: {exc}", f"tools[{i}]",
                               "invalid_tool_schema") from None  # fmt: skip
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise RequestError("tool names must be unique", "tools")
    return tools


def grammar_for(tool_choice: Any, tools: list[Tool]) -> tuple[list[Tool], Constraint | None]:
    """(tools shown, constraint) for a tool_choice: see the module doc."""
    if not tools:
        if tool_choice not in (None, "none", "auto"):
            raise RequestError("tool_choice needs tools", "tool_choice")
        return [], None
    if tool_choice in (None, "auto"):
        return tools, tool_calls_constraint(tools, allow_no_call=True)
    if tool_choice == "none":
        return [], None
    if tool_choice == "required":
        return tools, tool_calls_constraint(tools, allow_no_call=False)
    if isinstance(tool_choice, dict) and isinstance(tool_choice.get("function"), dict):
        name = tool_choice["function"].get("name")
        chosen = [t for t in tools if t.name == name]
        if not chosen:
            raise RequestError(f"tool_choice names a function not in tools: {name!r}",
                               "tool_choice", "unknown_tool")  # fmt: skip
        return tools, tool_calls_constraint(chosen, allow_no_call=False)
    raise RequestError("tool_choice is none, auto, required or {type: function, function: "
                       "{name}}", "tool_choice")  # fmt: skip


def _number(body: dict[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise RequestError(f"{key} must be a number from {lo} to {hi}", key)
    return value


def parse_request(body: Any, model_id: str, max_tokens_cap: int, docs: str = "json") -> ChatJob:
    """A ChatJob from a chat completions body; RequestError on anything invalid. `docs`: how
    the system message lists the tools (as the served model was trained)."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    if body.get("n", 1) != 1:
        raise RequestError("only n = 1 is supported", "n")
    model = body.get("model") or model_id
    if model != model_id:
        raise RequestError(f"unknown model {model!r}; this server serves {model_id!r}",
                           "model", "model_not_found", 404)  # fmt: skip
    all_tools = parse_tools(body.get("tools"))
    shown, constraint = grammar_for(body.get("tool_choice"), all_tools)
    messages, system = conversation(body.get("messages"), shown)
    head = [Message("system", tool_calls.system_prompt(shown, docs))] if shown else []
    if system:
        head = [Message("system", "\n\n".join([*(m.content for m in head), system]))]
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    max_tokens = int(_number({"max_tokens": limit}, "max_tokens", 256, 1, max_tokens_cap))
    stop = body.get("stop") or ()
    stop = (stop,) if isinstance(stop, str) else stop
    if not isinstance(stop, list | tuple) or not all(isinstance(s, str) for s in stop):
        raise RequestError("stop must be a string or a list of strings", "stop")
    options = body.get("stream_options") or {}
    auto = shown and body.get("tool_choice") in (None, "auto")
    last = messages[-1] if messages else None
    return ChatJob(
        model=model_id,
        messages=[*head, *messages],
        tools=shown,
        constraint=constraint,
        max_tokens=max_tokens,
        temperature=_number(body, "temperature", 0.0, 0.0, 2.0),
        top_p=_number(body, "top_p", 1.0, 0.0, 1.0),
        seed=int(_number(body, "seed", 0, -(2**31), 2**31 - 1)),
        stop=() if shown else tuple(stop),  # call lists end by the grammar, not stop strings
        stream=bool(body.get("stream", False)),
        include_usage=bool(isinstance(options, dict) and options.get("include_usage")),
        gate_query=last.content if auto and last is not None and last.role == "user" else None,
    )


def read_answer(job: ChatJob, text: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(content, OpenAI tool_calls) of the model's text; a malformed call list (possible only
    unconstrained) is returned as content, never executed."""
    if not job.calls_tools:
        return text, []
    try:
        answer = tool_calls.parse(text)
    except FormatError:
        return text, []
    if answer.declined:
        return answer.text, []
    calls = [{"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
              "function": {"name": c.name, "arguments": json.dumps(c.arguments,
                                                                   ensure_ascii=False)}}
             for c in answer.calls]  # fmt: skip
    return None, calls


def chat_response(job: ChatJob, text: str, finish: str, usage: dict[str, int]) -> dict[str, Any]:
    """The chat.completion object for a finished generation."""
    content, calls = read_answer(job, text)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    reason = "tool_calls" if calls else ("length" if finish == "length" else "stop")
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": job.model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": reason, "logprobs": None}
        ],  # fmt: skip
        "usage": usage,
    }


def chunk(job: ChatJob, cid: str, delta: dict[str, Any], finish: str | None = None,
          usage: dict[str, int] | None = None) -> dict[str, Any]:  # fmt: skip
    """One chat.completion.chunk of a stream (an empty choice list carries the usage)."""
    choices = [] if usage is not None else [{"index": 0, "delta": delta, "finish_reason": finish,
                                               "logprobs": None}]  # fmt: skip
    out = {"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
           "model": job.model, "choices": choices}  # fmt: skip
    if usage is not None:
        out["usage"] = usage
    return out
