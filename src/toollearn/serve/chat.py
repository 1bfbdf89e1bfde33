"""OpenAI chat requests <-> toollearn's general call-list format (formats.answers.tool_calls).

`parse_request` turns a `/v1/chat/completions` body into a `ChatJob`: the prompt as the model
was trained to read it (the tools' system message, the conversation with assistant tool calls
rendered as call lists and tool results as `tool` turns) and the grammar that `tool_choice`
asks for: auto = a call list over the request's tools or `[]` plus a reply; required = at
least one call; a named function = calls to that function only; none = plain chat;
`parallel_tool_calls: false` = one call at most; `response_format` (`json_object`,
`json_schema`) = the reply is JSON of that schema, through the same grammar. Every problem with
a request is a `RequestError` naming the parameter (an HTTP 400 in OpenAI's error shape);
fields this server does not use (`user`, `metadata`, `store`, ...) are accepted and ignored.
`chat_response` turns the model's texts back into OpenAI messages with `tool_calls`.
With a `TemplatePrompt` (`toollearn serve --prompt-format template`, a model not trained by
toollearn) the prompt is the model's own chat template rendering the tools, and the grammar
and the parser are those of the call syntax that template defines (`formats.template_tools`).
`gate_query` is the user turn a call gate reads (tool_choice auto, the user's turn last; the
server's `--call-gate`). No model output is ever executed or evaluated here: it is parsed as
JSON data.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from toollearn.core.errors import FormatError, SchemaError
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.repair_loop import results_of, said_of
from toollearn.decoding.template_calls import template_calls_constraint
from toollearn.decoding.tool_calls import (
    MAX_CALLS,
    no_call_constraint,
    reply_constraint,
    tool_calls_constraint,
)
from toollearn.formats import template_tools
from toollearn.formats.answers import tool_calls
from toollearn.formats.chat import ChatTemplate
from toollearn.formats.schemas.openai import tool_from_openai

ROLES = ("system", "developer", "user", "assistant", "tool")
MAX_CHOICES = 8  # `n`: choices per request


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


@dataclass(frozen=True)
class TemplatePrompt:
    """Prompts in the model's own chat template and tool-call syntax (`dialect`)."""

    template: ChatTemplate
    dialect: str


@dataclass(frozen=True)
class Episode:
    """Where a request stands in a tool-calling episode (what a call plan reads): the last
    user turn's text, the tools called after it in order, and the assistant turns after it."""

    query: str
    called: tuple[str, ...]
    steps: int


def episode_of(raw: list[dict[str, Any]]) -> Episode | None:
    """The episode of validated request messages: it starts at the last user turn (None
    where that turn has no text)."""
    users = [i for i, m in enumerate(raw) if m.get("role") == "user"]
    query = _text(raw[users[-1]].get("content"), "messages") if users else ""
    if not query:
        return None
    after = raw[users[-1] + 1 :]
    called = [(tc.get("function") or {}).get("name") for m in after
              if m.get("role") == "assistant" for tc in m.get("tool_calls") or []]  # fmt: skip
    steps = sum(m.get("role") == "assistant" for m in after)
    return Episode(query, tuple(called), steps)


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
    episode: Episode | None = None  # tool_choice auto: what a call plan reads
    n: int = 1
    max_calls: int = MAX_CALLS  # 1 with parallel_tool_calls false
    reply: dict[str, Any] | None = None  # the JSON Schema of response_format, None: free text
    logprobs: int | None = None  # asked for: each token's log-prob and this many alternatives
    prompt: str | None = None  # the rendered text, in a model's own template (TemplatePrompt)
    dialect: str | None = None  # that template's call syntax
    offered: tuple[Tool, ...] | None = None  # the tools a call plan left this turn (None: all)
    said: str = ""  # what the conversation states (the repair loop's grounded check)
    results: tuple[str, ...] = ()  # the tool results after the last user turn (uses_results)

    @property
    def engine_prompt(self) -> str | list[Message]:
        """What the engine reads: the rendered template text, or the messages."""
        return self.prompt if self.prompt is not None else self.messages

    @property
    def calls_tools(self) -> bool:
        """Whether the answer is read as a call list (tools shown and not tool_choice none)."""
        return bool(self.tools)

    @property
    def engine_stop(self) -> tuple[str, ...]:
        """Stop strings for the engine: a call list ends by its grammar (a stop string inside
        an argument would cut the call), so with tools `stop` cuts only the reply text."""
        return () if self.calls_tools or self.reply is not None else self.stop

    def decided(self, decision: str) -> ChatJob:
        """The job after a call gate: "no call" leaves only the reply, "sure call" only calls."""
        if self.dialect and decision in ("no call", "sure call"):
            calls = decision == "sure call"
            constraint = template_calls_constraint(self.dialect, self.tools, calls, not calls,
                                                   self.max_calls)  # fmt: skip
            return replace(self, constraint=constraint)
        if decision == "no call":
            return replace(self, constraint=no_call_constraint(self.reply))
        if decision == "sure call":
            constraint = tool_calls_constraint(self.tools, False, self.max_calls, self.reply)
            return replace(self, constraint=constraint)
        return self


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


def choose(tool_choice: Any, tools: list[Tool]) -> tuple[list[Tool], list[Tool], bool]:
    """(tools shown, tools the answer may call, whether it may answer without a call) for a
    tool_choice: see the module doc."""
    if not tools:
        if tool_choice not in (None, "none", "auto"):
            raise RequestError("tool_choice needs tools", "tool_choice")
        return [], [], True
    if tool_choice in (None, "auto"):
        return tools, tools, True
    if tool_choice == "none":
        return [], [], True
    if tool_choice == "required":
        return tools, tools, False
    if isinstance(tool_choice, dict) and isinstance(tool_choice.get("function"), dict):
        name = tool_choice["function"].get("name")
        chosen = [t for t in tools if t.name == name]
        if not chosen:
            raise RequestError(f"tool_choice names a function not in tools: {name!r}",
                               "tool_choice", "unknown_tool")  # fmt: skip
        return tools, chosen, False
    raise RequestError("tool_choice is none, auto, required or {type: function, function: "
                       "{name}}", "tool_choice")  # fmt: skip


def grammar_for(
    tool_choice: Any,
    tools: list[Tool],
    max_calls: int = MAX_CALLS,
    reply: dict[str, Any] | None = None,
    dialect: str | None = None,
) -> tuple[list[Tool], Constraint | None]:
    """(tools shown, constraint) for a tool_choice, in the general format or a dialect."""
    shown, callable_tools, may_reply = choose(tool_choice, tools)
    if not callable_tools:
        return [], reply_constraint(reply) if reply is not None else None
    if dialect is not None:
        if reply is not None:
            raise RequestError("response_format with tools is not supported in a model's own "
                               "template format", "response_format")  # fmt: skip
        constraint = template_calls_constraint(dialect, callable_tools, True, may_reply,
                                               max_calls)  # fmt: skip
        return shown, constraint
    return shown, tool_calls_constraint(callable_tools, may_reply, max_calls, reply)


def response_schema(raw: Any) -> dict[str, Any] | None:
    """The JSON Schema a reply must follow (`response_format`), None for free text."""
    if raw is None:
        return None
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "object"}
    if kind == "json_schema":
        spec = raw.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise RequestError("response_format json_schema needs json_schema.schema, a JSON "
                               "Schema object", "response_format.json_schema.schema")  # fmt: skip
        _check_schema(schema, "response_format.json_schema.schema")
        return schema
    raise RequestError("response_format is {type: text}, {type: json_object} or {type: "
                       "json_schema, json_schema: {name, schema, strict}}",
                       "response_format")  # fmt: skip


def _check_schema(schema: Any, param: str, depth: int = 0) -> None:
    """The parts of a JSON Schema the grammar reads must be well formed."""
    if not isinstance(schema, dict):
        raise RequestError("a schema must be a JSON object", param)
    jtype = schema.get("type")
    if jtype is not None and not (isinstance(jtype, str) or (
            isinstance(jtype, list) and all(isinstance(t, str) for t in jtype))):  # fmt: skip
        raise RequestError("'type' must be a string or a list of strings", f"{param}.type")
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        raise RequestError("'properties' must map names to schemas", f"{param}.properties")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise RequestError("'required' must be a list of names", f"{param}.required")
    if depth < 8:
        for key, sub in props.items():
            _check_schema(sub, f"{param}.properties.{key}", depth + 1)
        if "items" in schema:
            _check_schema(schema["items"], f"{param}.items", depth + 1)


def _max_tokens(body: dict[str, Any], cap: int) -> int:
    """max_completion_tokens (or max_tokens): a positive integer, clamped to the server's cap
    (and later to what the context leaves: `Worker.check_context`)."""
    key = "max_completion_tokens" if body.get("max_completion_tokens") is not None else "max_tokens"
    value = body.get(key)
    if value is None:
        return min(256, cap)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestError(f"{key} must be a positive integer", key)
    return min(value, cap)


def _number(body: dict[str, Any], key: str, default: float, lo: float, hi: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise RequestError(f"{key} must be a number from {lo} to {hi}", key)
    return value


def parse_request(
    body: Any,
    model_id: str,
    max_tokens_cap: int,
    docs: str = "json",
    template: TemplatePrompt | None = None,
) -> ChatJob:
    """A ChatJob from a chat completions body; RequestError on anything invalid. `docs`: how
    the system message lists the tools (as the served model was trained); `template`: prompt
    in the model's own chat template and call syntax instead."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    n = body.get("n")
    n = 1 if n is None else n
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_CHOICES:
        raise RequestError(f"n must be an integer from 1 to {MAX_CHOICES}", "n")
    if n > 1 and body.get("stream"):
        raise RequestError("n > 1 is not supported with stream", "n")
    logprobs = _logprobs(body)
    model = body.get("model") or model_id
    if model != model_id:
        raise RequestError(f"unknown model {model!r}; this server serves {model_id!r}",
                           "model", "model_not_found", 404)  # fmt: skip
    all_tools = parse_tools(body.get("tools"))
    parallel = body.get("parallel_tool_calls")
    if parallel is not None and not isinstance(parallel, bool):
        raise RequestError("parallel_tool_calls must be true or false", "parallel_tool_calls")
    max_calls = 1 if parallel is False else MAX_CALLS
    reply = response_schema(body.get("response_format"))
    dialect = template.dialect if template is not None else None
    shown, constraint = grammar_for(body.get("tool_choice"), all_tools, max_calls, reply, dialect)
    messages, system = conversation(body.get("messages"), shown)
    head = [Message("system", tool_calls.system_prompt(shown, docs))] if shown else []
    if system:
        head = [Message("system", "\n\n".join([*(m.content for m in head), system]))]
    prompt = None
    if template is not None:
        names = {t.name for t in shown}
        raw_tools = [t for t in body.get("tools") or [] if _tool_name(t) in names]
        try:
            prompt = template.template.render_with_tools(
                template_tools.template_messages(body["messages"]), raw_tools
            )
        except FormatError as exc:  # the template's own raise_exception
            raise RequestError(str(exc), "messages") from None
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
        max_tokens=_max_tokens(body, max_tokens_cap),
        temperature=_number(body, "temperature", 0.0, 0.0, 2.0),
        top_p=_number(body, "top_p", 1.0, 0.0, 1.0),
        seed=int(_number(body, "seed", secrets.randbelow(2**31), -(2**31), 2**31 - 1)),
        stop=tuple(stop),
        stream=bool(body.get("stream", False)),
        include_usage=bool(isinstance(options, dict) and options.get("include_usage")),
        gate_query=last.content if auto and last is not None and last.role == "user" else None,
        episode=episode_of(body["messages"]) if auto else None,
        n=n,
        max_calls=max_calls,
        reply=reply,
        prompt=prompt,
        dialect=dialect,
        logprobs=logprobs,
        said=said_of(messages, system),
        results=results_of(messages) if reply is None else (),  # a JSON reply stays free
    )


def _logprobs(body: dict[str, Any]) -> int | None:
    """logprobs / top_logprobs: None when not asked for, else the alternatives per token."""
    asked, top = body.get("logprobs"), body.get("top_logprobs")
    if asked is not None and not isinstance(asked, bool):
        raise RequestError("logprobs must be true or false", "logprobs")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int)
                            or not 0 <= top <= 20):  # fmt: skip
        raise RequestError("top_logprobs must be an integer from 0 to 20", "top_logprobs")
    if top is not None and not asked:
        raise RequestError("top_logprobs needs logprobs: true", "top_logprobs")
    if not asked:
        return None
    if body.get("stream"):
        raise RequestError("logprobs come with non-streamed answers", "logprobs",
                           "unsupported_parameter")  # fmt: skip
    return top or 0


def _tool_name(raw: Any) -> Any:
    fn = raw.get("function", raw) if isinstance(raw, dict) else {}
    return fn.get("name") if isinstance(fn, dict) else None


def read_answer(
    job: ChatJob, text: str, finish: str
) -> tuple[str | None, list[dict[str, Any]], str]:
    """(content, OpenAI tool_calls, finish_reason) of the model's text; a malformed call list
    (possible only unconstrained) is returned as content, never executed. With tools, `stop`
    cuts the reply here (the engine ran without it: `ChatJob.engine_stop`)."""
    if not job.calls_tools:
        return text, [], "length" if finish == "length" else "stop"
    try:
        if job.dialect is not None:
            calls, reply = template_tools.parse(job.dialect, text)
            answer = tool_calls.ToolCallsAnswer(tuple(calls), reply)
        else:
            answer = tool_calls.parse(text)
    except FormatError:
        return text, [], "length" if finish == "length" else "stop"
    if answer.declined:
        reply = answer.text
        cuts = [i for i in (reply.find(s) for s in job.stop if s) if i >= 0]
        if cuts and job.reply is None:
            return reply[: min(cuts)], [], "stop"
        return reply, [], "length" if finish == "length" else "stop"
    calls = [{"id": f"call_{uuid.uuid4().hex[:24]}", "type": "function",
              "function": {"name": c.name, "arguments": json.dumps(c.arguments,
                                                                   ensure_ascii=False)}}
             for c in answer.calls]  # fmt: skip
    return None, calls, "tool_calls"


def choice(job: ChatJob, index: int, text: str, finish: str,
           logprobs: Any = None) -> dict[str, Any]:  # fmt: skip
    """One choice of a chat.completion (`logprobs`: the Completion's, where asked for)."""
    content, calls, reason = read_answer(job, text, finish)
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    scored = None
    if job.logprobs is not None and logprobs is not None:
        scored = {"content": [{**_token(tok, lp), "top_logprobs": [_token(a, p) for a, p in alts]}
                              for tok, lp, alts in logprobs]}  # fmt: skip
    return {"index": index, "message": message, "finish_reason": reason, "logprobs": scored}


def _token(text: str, logprob: float) -> dict[str, Any]:
    return {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}


def chat_response(
    job: ChatJob, texts: list[tuple[str, str]], usage: dict[str, int], logprobs: Any = None
) -> dict[str, Any]:
    """The chat.completion object for finished generations: (text, finish_reason) per choice,
    and, where asked for, each choice's token log-probs (the model's whole answer text)."""
    scored = logprobs or [None] * len(texts)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": job.model,
        "choices": [
            choice(job, i, text, finish, lp)
            for i, ((text, finish), lp) in enumerate(zip(texts, scored))
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
