"""Imported records (`recipes/data/imports`) as training turns, each through the checker.

A record is one dialogue: its tools and OpenAI messages. Each assistant turn the model should
learn becomes a `Conversation` with the messages before it:
- "call": a turn that calls tools (its calls);
- "answer": a text turn right after tool results (the reply stating them);
- "ask": a text turn whose dialogue acts REQUEST a slot before any call of the turn (a
  required value the user has not given: the question back);
- "plain": a record marked `no_call` (a command no tool should serve: SLURP's chat intents).
Other text turns (offers, confirmations, goodbyes) are left out. `read_records` reads a
converted file; `turns` makes the conversations; `check_import` runs every turn through
`datagen.checker` and counts the rejections by reason.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toollearn.datagen.checker import Checked, check, parse_calls
from toollearn.datagen.schema_variety import Conversation

IMPORTS = Path(__file__).resolve().parents[4] / "recipes" / "data" / "imports"
_KEEP = ("role", "content", "tool_calls", "tool_call_id")


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """The records of a converted `.jsonl.gz` file."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _clean(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if k in _KEEP}


def turns(record: dict[str, Any]) -> Iterator[Conversation]:
    """The record's learnable assistant turns (module doc); a call whose arguments do not
    parse yields a conversation with no calls and no text, which the checker rejects."""
    messages = record["messages"]
    tools = record.get("tools") or []
    meta = {"source": record.get("source", ""), "record": record.get("id", "")}
    if record.get("no_call"):
        users = [m["content"] for m in messages if m.get("role") == "user"]
        yield Conversation(tools, [_clean(m) for m in messages], [], "", users[-1:],
                           [], {**meta, "sub": "plain"})  # fmt: skip
        return
    for i, m in enumerate(messages):
        if m.get("role") != "assistant":
            continue
        before = [_clean(x) for x in messages[:i]]
        users = [x["content"] for x in messages[:i] if x.get("role") == "user"]
        if not users:
            continue
        if m.get("tool_calls"):
            try:
                calls = parse_calls(m)
            except ValueError:
                calls = []
            yield Conversation(tools, before, calls, "", users[-1:], [],
                               {**meta, "sub": "call"})  # fmt: skip
        elif isinstance(m.get("content"), str) and m["content"].strip():
            prev = messages[i - 1].get("role") if i else ""
            if prev == "tool":
                sub = "answer"
            elif "REQUEST" in (m.get("acts") or ()) and prev == "user":
                sub = "ask"
            else:
                continue
            yield Conversation(tools, before, [], m["content"], users[-1:], [],
                               {**meta, "sub": sub})  # fmt: skip


def check_import(path: str | Path, limit: int | None = None) -> dict[str, Any]:
    """Every turn of a converted file through the checker: counts by kind and by reason."""
    by_sub: dict[str, Checked] = {}
    for n, record in enumerate(read_records(path)):
        if limit is not None and n >= limit:
            break
        for conv in turns(record):
            by_sub.setdefault(conv.meta["sub"], Checked()).record(check(conv))
    return {sub: c.to_dict() for sub, c in sorted(by_sub.items())}
