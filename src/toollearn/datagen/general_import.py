"""Openly licensed function-calling conversations added to `datagen general` (`--import`).

- `glaive`: glaive-function-calling-v2 (Glaive AI, Apache-2.0) in LLaMA-Factory's ShareGPT
  form (`human` / `gpt` / `function_call` / `observation` turns, `tools` as a JSON list), e.g.
  github.com/hiyouga/LLaMA-Factory `data/glaive_toolcall_en_demo.json` (Apache-2.0);
- `toolrl`: ToolRL's SFT mix (github.com/qiancheng0/ToolRL `dataset/rlla_4k_raw/rlla_sft.json`,
  Apache-2.0; built from ToolACE, Apache-2.0, and xLAM / Hammer, CC-BY-4.0): a system prompt
  listing tools as "Name / Description / Parameters", a tagged history and a tagged answer.
Both are training data (neither has a test split in these files). Each model turn becomes one
sample with the turns before it as history, put in the kind its shape asks for: calls as the
first turn (simple, or parallel for several), calls or an answer after tool results
(multi-turn), a text answer with tools shown (decline: refusals and questions back), and
without tools (chat). A conversation whose requests are held out (exact or near copies), that
shows a held-out tool, or that cannot be read is skipped and counted by reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toollearn.core.types import ToolCall
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions, QueryIndex
from toollearn.datagen.schema_variety import Conversation

LICENSES = {
    "glaive": "glaive-function-calling-v2 (Glaive AI), Apache-2.0",
    "toolrl": "ToolRL rlla_sft (ToolACE, Apache-2.0; xLAM/Hammer, CC-BY-4.0), Apache-2.0",
}


class Unreadable(Exception):
    """A conversation this importer cannot read."""


def import_conversations(name: str, path: str | Path, ex: Exclusions, out: Generated,
                         docs: str = "json") -> None:  # fmt: skip
    """Append the samples of one source file to `out` (see the module doc)."""
    from toollearn.datagen.checker import check
    from toollearn.datagen.general import _reason, render

    if name not in READERS:
        raise ValueError(f"unknown import {name!r}; use {', '.join(READERS)}")
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":  # gzip
        import gzip

        raw = gzip.decompress(raw)
    held = QueryIndex(ex.queries)
    kept = 0
    for i, record in enumerate(json.loads(raw)):
        try:
            convs = list(READERS[name](record))
        except (Unreadable, ValueError, KeyError, TypeError) as exc:
            out.reject(f"{name}: unreadable ({type(exc).__name__})")
            continue
        queries = {q for c in convs for q in c.queries}
        if any(held.match(q) for q in queries):
            out.reject(f"{name}: a held-out query or a near copy")
            continue
        if {n for c in convs for n in c.names} & ex.tools:
            out.reject(f"{name}: shows a held-out tool")
            continue
        for turn, conv in enumerate(convs):
            faults = check(conv)
            if faults:
                out.reject(f"{name}: checker: {_reason(faults[0])}")
                continue
            try:
                sample = render(conv, conv.meta["kind"], f"{name}-{i}:{turn}", docs)
            except Exception as exc:  # noqa: BLE001 - a schema the server refuses: skip it
                out.reject(f"{name}: the server path refuses it ({type(exc).__name__})")
                continue
            out.samples.append(sample)
            kept += 1
    out.config.setdefault("imports", {})[name] = {
        "file": str(path), "sha256": hashlib.sha256(raw).hexdigest(), "license": LICENSES[name],
        "samples": kept}  # fmt: skip


def _kind(history: list[dict[str, Any]], tools: list[dict[str, Any]], calls: list[ToolCall]
          ) -> str:  # fmt: skip
    if any(m["role"] == "tool" for m in history):
        return "multi-turn"
    if len(calls) > 1:
        return "parallel" if len({c.name for c in calls}) == 1 else "parallel-multiple"
    if calls:
        return "simple"
    return "decline" if tools else "chat"


def _turns(history: list[dict[str, Any]], tools: list[dict[str, Any]], calls: list[ToolCall],
           text: str, source: str) -> Conversation:  # fmt: skip
    queries = [m["content"] for m in history if m["role"] == "user"]
    names = [t["function"]["name"] for t in tools]
    kind = _kind(history, tools, calls)
    return Conversation(
        tools,
        list(history),
        calls,
        text,
        queries,
        names,
        {"kind": kind, "source": source, "sub": "imported"},
    )


def _call_message(calls: list[ToolCall], first: int) -> dict[str, Any]:
    from toollearn.formats.openai_messages import call_turn

    return call_turn(calls, first)


def glaive(record: dict[str, Any]) -> Iterator[Conversation]:
    """One glaive conversation: a sample per `gpt` or `function_call` turn."""
    tools = [{"type": "function", "function": f} for f in json.loads(record.get("tools") or "[]")]
    history: list[dict[str, Any]] = []
    pending: list[str] = []  # ids of calls awaiting their result
    n = 0
    for turn in record["conversations"]:
        role, value = turn["from"], turn["value"]
        if role == "human":
            history.append({"role": "user", "content": value})
        elif role == "function_call":
            call = json.loads(value)
            args = call.get("arguments") or {}
            args = json.loads(args) if isinstance(args, str) else args
            calls = [ToolCall(call["name"], args)]
            yield _turns(history, tools, calls, "", "glaive")
            history.append(_call_message(calls, n))
            pending.append(f"call_{n}")
            n += 1
        elif role == "observation":
            if not pending:
                raise Unreadable("a result without a call")
            history.append({"role": "tool", "tool_call_id": pending.pop(0), "content": value})
        elif role == "gpt":
            yield _turns(history, tools, [], value, "glaive")
            history.append({"role": "assistant", "content": value})
        else:
            raise Unreadable(f"turn {role!r}")


_TOOL = re.compile(r"^\d+\. Name: (.+)\nDescription: (.*)\nParameters: (.*)$", re.M)
_TAG = re.compile(r"<(user|tool_call|obs|response)>(.*?)</\1>", re.S)
_TYPES = {"str": "string", "string": "string", "int": "integer", "integer": "integer",
          "float": "number", "number": "number", "bool": "boolean", "boolean": "boolean",
          "dict": "object", "object": "object", "list": "array", "array": "array"}  # fmt: skip


def _schema(params: dict[str, Any]) -> dict[str, Any]:
    """xLAM-style parameters ({name: {type: "str, optional", description, default}}) as JSON
    Schema."""
    props, required = {}, []
    for name, spec in params.items():
        kind = str(spec.get("type", "str"))
        optional = "optional" in kind
        base = kind.split(",")[0].strip()
        outer = base.split("[")[0].strip().lower()
        prop: dict[str, Any] = {"type": _TYPES.get(outer, "string")}
        inner = base[len(outer) + 1 : -1].strip().lower() if "[" in base else ""
        if prop["type"] == "array" and inner in _TYPES:
            prop["items"] = {"type": _TYPES[inner]}
        if spec.get("description"):
            prop["description"] = str(spec["description"])
        if "default" in spec and spec["default"] not in (None, ""):
            prop["default"] = spec["default"]
            optional = True
        props[name] = prop
        if not optional:
            required.append(name)
    return {"type": "object", "properties": props, "required": required}


def _tool_calls(text: str) -> list[ToolCall]:
    calls = []
    for line in text.strip().splitlines():
        if line.strip():
            call = json.loads(line)
            calls.append(ToolCall(call["name"], call.get("parameters") or call.get("arguments")
                                  or {}))  # fmt: skip
    return calls


def toolrl(record: dict[str, Any]) -> Iterator[Conversation]:
    """One ToolRL SFT record: its history and its final answer (one sample)."""
    tools = [{"type": "function", "function": {"name": m.group(1).strip(),
              "description": m.group(2).strip(), "parameters": _schema(json.loads(m.group(3)))}}
             for m in _TOOL.finditer(record["instruction"])]  # fmt: skip
    history: list[dict[str, Any]] = []
    pending: list[str] = []
    n = 0
    for tag, body in _TAG.findall(record["input"]):
        body = body.strip()
        if tag == "user":
            history.append({"role": "user", "content": body})
        elif tag == "tool_call":
            calls = _tool_calls(body)
            history.append(_call_message(calls, n))
            pending += [f"call_{n + i}" for i in range(len(calls))]
            n += len(calls)
        elif tag == "obs":
            if not pending:
                raise Unreadable("a result without a call")
            history.append({"role": "tool", "tool_call_id": pending.pop(0), "content": body})
        else:
            history.append({"role": "assistant", "content": body})
    answer = dict((t, b.strip()) for t, b in _TAG.findall(record["output"]))
    if not history or history[-1]["role"] == "assistant":
        raise Unreadable("no request to answer")
    if answer.get("tool_call"):
        yield _turns(history, tools, _tool_calls(answer["tool_call"]), "", "toolrl")
    elif answer.get("response"):
        yield _turns(history, tools, [], answer["response"], "toolrl")
    else:
        raise Unreadable("no answer")


READERS = {"glaive": glaive, "toolrl": toolrl}
