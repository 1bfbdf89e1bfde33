"""A teacher `Engine` in the generators: it writes queries for calling lists, and new tools for
fields and sub-fields (Seal-Tools' self-instruct), and the paper's checks decide what is kept.

Any engine works: the embedded model, a transformers model, an OpenAI-compatible server. A
query writer's answers are cached in a JSONL file keyed by the calling list, so an interrupted
run resumes without asking again. New tools are checked as the paper does: the JSON must be a
Seal-Tools tool, its name and its description must not duplicate an existing tool's (names
exactly, descriptions by word-trigram overlap), and every parameter must document example
values ("(e.g., ...)").
"""

from __future__ import annotations

import json
import random
import re
import zlib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import SchemaError
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.datagen.leakage import trigrams

QUERY_PROMPT = (
    "Write the request a user would send to get these API calls made:\n{calls}\n"
    "The APIs:\n{docs}\n"
    "Write one natural request in plain English. Include every argument value exactly as "
    "written above. Do not mention API names. Reply with the request only."
)
TOOL_PROMPT = (
    'Write one new API for the field "{field}", sub-field "{sub}", as one JSON object with '
    'the keys "api_name" (camelCase), "api_description", "parameters" (each '
    '{{"type": "str"|"int"|"float"|"bool", "description": "... (e.g., value1, value2)"}}), '
    '"required" (a list of parameter names) and "responses" (each {{"type": ..., '
    '"description": ...}}). Reply with the JSON only.'
)
_EG = re.compile(r"\(e\.g\.,?[^()]+\)", re.IGNORECASE)


class TeacherQueryWriter:
    """A query writer (see datagen.seal) backed by an engine, with a resumable cache."""

    name = "teacher"

    def __init__(self, engine: Any, cache: str | Path | None = None, max_tokens: int = 120,
                 temperature: float = 0.7):  # fmt: skip
        self.engine, self.max_tokens, self.temperature = engine, max_tokens, temperature
        self.cache_path = Path(cache) if cache else None
        self.cache: dict[str, str] = {}
        if self.cache_path and self.cache_path.is_file():
            for line in self.cache_path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    rec = json.loads(line)
                    self.cache[rec["key"]] = rec["query"]

    def __call__(self, calls: Sequence[ToolCall], tools: dict[str, Tool], rng: random.Random):
        from toollearn.formats.pycall import render_call

        key = json.dumps([c.to_dict() for c in calls], sort_keys=True, ensure_ascii=False)
        if key not in self.cache:
            shown = "\n".join(render_call(_plain(c)) for c in calls)
            docs = "\n".join(f"- {t.name}: {t.description}" for t in tools.values())
            prompt = [Message("user", QUERY_PROMPT.format(calls=shown, docs=docs))]
            seed = rng.randint(0, 2**31 - 1)
            comp = self.engine.complete([prompt], max_tokens=self.max_tokens,
                                        temperature=self.temperature, seed=seed)[0]  # fmt: skip
            self.cache[key] = "" if comp.error else _first_line(comp.text)
            if self.cache_path:
                self.cache_path.parent.mkdir(parents=True, exist_ok=True)
                with self.cache_path.open("a", encoding="utf-8") as fh:
                    rec = {"key": key, "query": self.cache[key]}
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        return self.cache[key] or None


def _plain(call: ToolCall) -> ToolCall:
    """A call whose nested references read as the producing output's id."""
    from toollearn.core.types import unlink_refs

    return ToolCall(call.name, unlink_refs(call.arguments))


def _first_line(text: str) -> str:
    lines = [ln.strip().strip('"').strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[0] if lines else ""


def check_tool(tool: Tool, names: set[str], descriptions: Sequence[frozenset]) -> str:
    """Why a generated tool is rejected, or "" when it passes the paper's checks."""
    if tool.name in names:
        return "duplicate name"
    grams = trigrams(tool.description)
    for other in descriptions:
        union = len(grams | other)
        if union and len(grams & other) / union >= 0.7:
            return "duplicate description"
    if not tool.properties:
        return "no parameters"
    for spec in tool.properties.values():
        if not isinstance(spec, dict) or not _EG.search(str(spec.get("description", ""))):
            return "parameter without example values"
    if not tool.responses:
        return "no response fields"
    return ""


def parse_tool(text: str, category: str) -> Tool:
    """The first JSON object in a teacher's answer as a Seal-Tools tool (SchemaError else)."""
    from toollearn.formats.schemas.seal_tools import tool_from_seal

    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise SchemaError("no JSON object in the answer")
    try:
        record = json.loads(text[start : end + 1])
    except ValueError as exc:
        raise SchemaError(f"not JSON: {exc}") from None
    if not isinstance(record, dict):
        raise SchemaError("the answer is not a JSON object")
    record = {"field": category, **record}
    return tool_from_seal(record)


def self_instruct_tools(
    engine: Any,
    fields: dict[str, Sequence[str]],
    *,
    per_subfield: int = 1,
    existing: Sequence[Tool] = (),
    seed: int = 0,
    max_tokens: int = 400,
) -> tuple[list[Tool], Counter]:
    """New tools for every (field, sub-field), checked; returns (tools, rejections)."""
    names = {t.name for t in existing}
    descriptions = [trigrams(t.description) for t in existing]
    made: list[Tool] = []
    rejected: Counter = Counter()
    for field_name, subs in fields.items():
        for sub in subs:
            for k in range(per_subfield):
                prompt = [Message("user", TOOL_PROMPT.format(field=field_name, sub=sub))]
                draw = zlib.crc32(f"{seed}:{field_name}:{sub}:{k}".encode())
                comp = engine.complete([prompt], max_tokens=max_tokens, temperature=0.7,
                                       seed=draw)[0]  # fmt: skip
                try:
                    tool = parse_tool(comp.text, f"{field_name}/{sub}")
                except SchemaError as exc:
                    rejected[f"bad format: {str(exc).split(':')[0]}"] += 1
                    continue
                reason = check_tool(tool, names, descriptions)
                if reason:
                    rejected[reason] += 1
                    continue
                made.append(tool)
                names.add(tool.name)
                descriptions.append(trigrams(tool.description))
    return made, rejected
