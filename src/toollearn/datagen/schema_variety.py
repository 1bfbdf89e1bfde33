"""Schema variety for `datagen general`: the same request under other tool schemas.

A conversation is kept at the level a client sends it (OpenAI tools and messages, gold calls)
and rewritten consistently everywhere a name or value appears:
- `rename`: tools and parameters renamed through a map (the shown tools, the gold calls, the
  calls already in the history); `styled` spells a name snake_case, camelCase, PascalCase or as
  a dotted `module.func`; `masked` gives random names (function masking: the model must read
  the descriptions);
- value formats: a date the request states as written becomes a date in words while the
  parameter's description asks for YYYY-MM-DD (`date_in_words`); a string parameter whose
  description lists its values becomes an enum, spelled snake_case where the request says the
  words (`as_enum`); an integer the request states in digits is spelled out in words
  (`number_in_words`); 2-3 arguments grouped under one object parameter (`nested_object`);
  declared defaults for the optional parameters a call leaves out (`with_defaults`).
"""

from __future__ import annotations

import copy
import json
import random
import re
import string
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from toollearn.core.types import ToolCall

STYLES = ("snake", "camel", "pascal", "dotted")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_EG = re.compile(r"\(e\.g\.,?\s*([^()]*)\)", re.IGNORECASE)
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                 "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                 "seventeen", "eighteen", "nineteen", "twenty")  # fmt: skip


@dataclass
class Conversation:
    """One training conversation as a client sends it, and the answer the model should give.

    tools: the OpenAI tools shown; messages: the OpenAI messages before the model's turn;
    calls: the answer's calls (none: a text answer, `text`). queries: the requests in it (the
    leakage check reads them); names: the tools' original names; meta: kind, source, ...
    """

    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    queries: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)


def words(name: str) -> list[str]:
    """An identifier's words, lower case: `getFilmDetails`, `get_film_details` -> get film
    details."""
    return [w.lower() for w in _PARTS.findall(name.replace(".", "_"))] or [name.lower()]


def styled(name: str, style: str) -> str:
    """`name` spelled in a naming style (see STYLES)."""
    ws = words(name)
    if style == "snake":
        return "_".join(ws)
    if style == "camel":
        return ws[0] + "".join(w.capitalize() for w in ws[1:])
    if style == "pascal":
        return "".join(w.capitalize() for w in ws)
    if style == "dotted":
        return f"{ws[1]}.{'_'.join([ws[0], *ws[2:]])}" if len(ws) > 1 else f"tools.{ws[0]}"
    raise ValueError(f"unknown naming style {style!r}; use one of {STYLES}")


def _random_name(rng: random.Random, prefix: str) -> str:
    return prefix + "_" + "".join(rng.choices(string.ascii_lowercase + string.digits, k=6))


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    return tool["function"]


def restyled(conv: Conversation, style: str, banned: Collection[str] = ()) -> Conversation | None:
    """Tools and parameters in a naming style (None where two names would collide, or where a
    new tool name is `banned`: a held-out tool's name)."""
    tools = {}
    params = {}
    for t in conv.tools:
        fn = _function(t)
        tools[fn["name"]] = styled(fn["name"], style)
        props = (fn.get("parameters") or {}).get("properties") or {}
        params[fn["name"]] = {p: styled(p, "camel" if style in ("camel", "pascal") else "snake")
                              for p in props}  # fmt: skip
    if (
        len(set(tools.values())) < len(tools)
        or any(len(set(m.values())) < len(m) for m in params.values())
        or set(tools.values()) & set(banned)
    ):
        return None
    out = rename(conv, tools, params)
    out.meta = {**out.meta, "style": style}
    return out


def masked(conv: Conversation, rng: random.Random) -> Conversation:
    """Every tool and parameter renamed to a random string (function masking)."""
    tools = {_function(t)["name"]: _random_name(rng, "fn") for t in conv.tools}
    params = {
        _function(t)["name"]: {p: _random_name(rng, "p") for p in
                               ((_function(t).get("parameters") or {}).get("properties") or {})}
        for t in conv.tools
    }  # fmt: skip
    out = rename(conv, tools, params)
    out.meta = {**out.meta, "masked": True}
    return out


def rename(conv: Conversation, tools: Mapping[str, str],
           params: Mapping[str, Mapping[str, str]]) -> Conversation:  # fmt: skip
    """The conversation with tools and their parameters renamed everywhere."""

    def args(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        table = params.get(name, {})
        return {table.get(k, k): v for k, v in arguments.items()}

    new_tools = []
    for t in conv.tools:
        fn = copy.deepcopy(_function(t))
        old = fn["name"]
        schema = fn.get("parameters") or {}
        table = params.get(old, {})
        if schema.get("properties"):
            schema["properties"] = {table.get(k, k): v for k, v in schema["properties"].items()}
            schema["required"] = [table.get(k, k) for k in schema.get("required", [])]
        new_tools.append({"type": "function", "function": {**fn, "name": tools.get(old, old)}})
    messages = []
    for m in conv.messages:
        if m.get("tool_calls"):
            m = copy.deepcopy(m)
            for tc in m["tool_calls"]:
                fn = tc["function"]
                fn["arguments"] = json.dumps(args(fn["name"], json.loads(fn["arguments"])),
                                             ensure_ascii=False)  # fmt: skip
                fn["name"] = tools.get(fn["name"], fn["name"])
        messages.append(m)
    calls = [ToolCall(tools.get(c.name, c.name), args(c.name, c.arguments)) for c in conv.calls]
    return replace(conv, tools=new_tools, messages=messages, calls=calls)


def _param(conv: Conversation, tool: str, name: str) -> dict[str, Any]:
    fn = next(_function(t) for t in conv.tools if _function(t)["name"] == tool)
    return fn["parameters"]["properties"][name]


def _with_query(conv: Conversation, old: str, new: str) -> Conversation | None:
    """The last user turn with `old` replaced by `new` once (None when it is not there)."""
    messages = copy.deepcopy(conv.messages)
    for m in reversed(messages):
        if m["role"] == "user":
            if old not in (m["content"] or ""):
                return None
            m["content"] = m["content"].replace(old, new, 1)
            return replace(conv, tools=copy.deepcopy(conv.tools), messages=messages,
                           queries=[*conv.queries[:-1], m["content"]])  # fmt: skip
    return None


def _arguments(conv: Conversation) -> list[tuple[int, str, Any]]:
    return [(i, k, v) for i, c in enumerate(conv.calls) for k, v in c.arguments.items()]


def date_in_words(conv: Conversation, rng: random.Random) -> Conversation | None:
    """A stated ISO date written in words, the parameter asking for YYYY-MM-DD."""
    from toollearn.datagen.values import date_words

    for i, key, value in _arguments(conv):
        if isinstance(value, str) and _ISO.match(value) and date_words(value):
            out = _with_query(conv, value, rng.choice(date_words(value)))
            if out is None:
                continue
            spec = _param(out, out.calls[i].name, key)
            spec["description"] = _append(spec.get("description", ""), "Date in YYYY-MM-DD format.")
            spec["type"] = "string"
            out.meta = {**out.meta, "format": "date-in-words"}
            return out
    return None


def as_enum(conv: Conversation, rng: random.Random) -> Conversation | None:
    """A string parameter whose description lists its values (`(e.g., a, b, c)`) made an enum
    of them; values of several words spelled snake_case while the request keeps the words."""
    for i, key, value in _arguments(conv):
        if not isinstance(value, str):
            continue
        spec = _param(conv, conv.calls[i].name, key)
        m = _EG.search(spec.get("description", ""))
        options = [o.strip() for o in m.group(1).split(",") if o.strip()] if m else []
        if value not in options or len(options) < 3 or "enum" in spec:
            continue
        snake = any(" " in o for o in options) and rng.random() < 0.7
        spelled = {o: "_".join(o.lower().split()) if snake else o for o in options}
        out = replace(conv, tools=copy.deepcopy(conv.tools))
        new = _param(out, conv.calls[i].name, key)
        new["enum"] = list(dict.fromkeys(spelled.values()))
        new["description"] = _EG.sub("", new.get("description", "")).strip()
        calls = list(out.calls)
        calls[i] = ToolCall(calls[i].name, {**calls[i].arguments, key: spelled[value]})
        return replace(out, calls=calls, meta={**out.meta, "format": "enum"})
    return None


def number_in_words(conv: Conversation, rng: random.Random) -> Conversation | None:
    """An integer from 2 to 20 the request states in digits, written in words."""
    for i, key, value in _arguments(conv):
        spec = _param(conv, conv.calls[i].name, key)
        if spec.get("type") != "integer" or isinstance(value, bool) or not isinstance(value, int):
            continue
        if not 2 <= value <= 20:
            continue
        user = next(m["content"] for m in reversed(conv.messages) if m["role"] == "user")
        if not re.search(rf"(?<![\d.]){value}(?![\d.])", user):
            continue
        out = replace(conv, messages=copy.deepcopy(conv.messages))
        for m in reversed(out.messages):
            if m["role"] == "user":
                m["content"] = re.sub(rf"(?<![\d.]){value}(?![\d.])", _NUMBER_WORDS[value],
                                      m["content"], count=1)  # fmt: skip
                out.queries = [*out.queries[:-1], m["content"]]
                break
        out.meta = {**out.meta, "format": "number-in-words"}
        return out
    return None


def nested_object(conv: Conversation, rng: random.Random) -> Conversation | None:
    """2-3 stated arguments of a call moved under one object parameter ("details")."""
    for i, call in enumerate(conv.calls):
        keys = [k for k in call.arguments if not isinstance(call.arguments[k], dict)]
        if len(keys) < 3:
            continue
        moved = rng.sample(keys, rng.randint(2, min(3, len(keys) - 1)))
        out = replace(conv, tools=copy.deepcopy(conv.tools))
        fn = next(_function(t) for t in out.tools if _function(t)["name"] == call.name)
        schema = fn["parameters"]
        name = next(n for n in ("details", "options", "info", "spec") if n not in
                    schema["properties"])  # fmt: skip
        inner = {k: schema["properties"].pop(k) for k in moved}
        needed = [k for k in moved if k in schema.get("required", [])]
        schema["properties"][name] = {
            "type": "object",
            "properties": inner,
            "required": needed,
            "description": "Grouped settings of the request.",
        }
        schema["required"] = [k for k in schema.get("required", []) if k not in moved]
        schema["required"] += [name] if needed else []
        args = {k: v for k, v in call.arguments.items() if k not in moved}
        args[name] = {k: call.arguments[k] for k in moved}
        calls = list(out.calls)
        calls[i] = ToolCall(call.name, args)
        return replace(out, calls=calls, meta={**out.meta, "format": "nested-object"})
    return None


def with_defaults(conv: Conversation, rng: random.Random) -> Conversation | None:
    """Every optional parameter the calls leave out gets a declared default (the answer still
    leaves it out: a value the request does not state is not written)."""
    from toollearn.datagen.values import value_for

    out = replace(conv, tools=copy.deepcopy(conv.tools))
    added = 0
    for call in out.calls:
        fn = next(_function(t) for t in out.tools if _function(t)["name"] == call.name)
        schema = fn.get("parameters") or {}
        for name, spec in (schema.get("properties") or {}).items():
            if name in call.arguments or name in schema.get("required", []) or "default" in spec:
                continue
            spec["default"] = value_for(name, spec, rng)
            added += 1
    return replace(out, meta={**out.meta, "format": "defaults"}) if added else None


def _append(description: str, sentence: str) -> str:
    text = description.strip()
    if sentence.lower() in text.lower():
        return text
    return f"{text.rstrip('.')}. {sentence}" if text else sentence


FORMATS = {
    "date-in-words": date_in_words,
    "enum": as_enum,
    "number-in-words": number_in_words,
    "nested-object": nested_object,
}
