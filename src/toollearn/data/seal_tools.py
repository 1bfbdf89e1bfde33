"""Seal-Tools loaders (github.com/fairyshine/Seal-Tools): tool pool, fields, splits, prompts.

`root` is either the folder holding `tool.jsonl` or a data root with a `seal-tools/` folder.
Every loader returns all records or raises `DataError` naming the file and line/record.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError, SchemaError
from toollearn.core.types import Example, Tool, ToolCall, link_refs
from toollearn.data.jsonl import read_json_list, read_jsonl
from toollearn.formats.schemas.seal_tools import tool_from_seal

SPLITS = ("dev", "test_in_domain", "test_out_domain")
_ID = re.compile(r"^(dev|test_in_domain|test_out_domain)-(easy|difficult)-(\d+)$")
_PROMPT = re.compile(r"api_list = (\[.*\])\ntask_instruction = \"(.*)\"\nOutput:\n\Z", re.S)


def seal_dir(root: str | Path) -> Path:
    """The Seal-Tools folder under `root` (root itself if it holds tool.jsonl or splits)."""
    p = Path(root).expanduser()
    for cand in (p, p / "seal-tools"):
        if (cand / "tool.jsonl").is_file() or (cand / "dataset_for_finetune").is_dir():
            return cand
    raise DataError("no Seal-Tools data here (expected tool.jsonl or seal-tools/)", str(p))


def _check_split(split: str) -> str:
    if split not in SPLITS:
        raise DataError(f"unknown Seal-Tools split {split!r}; choose from {', '.join(SPLITS)}")
    return split


def load_tools(root: str | Path) -> list[Tool]:
    """All tools of tool.jsonl (4,076 in the release), in file order."""
    path = seal_dir(root) / "tool.jsonl"
    tools, seen = [], set()
    for lineno, rec in read_jsonl(path):
        try:
            tool = tool_from_seal(rec)
        except SchemaError as exc:
            raise DataError(str(exc), str(path), lineno) from None
        if tool.name in seen:
            raise DataError(f"duplicate tool name {tool.name!r}", str(path), lineno)
        seen.add(tool.name)
        tools.append(tool)
    return tools


def load_fields(root: str | Path) -> dict[str, list[str]]:
    """field.jsonl as {field: [sub-fields]} (146 fields, 5,859 sub-fields in the release)."""
    path = seal_dir(root) / "field.jsonl"
    fields: dict[str, list[str]] = {}
    for lineno, rec in read_jsonl(path):
        for name, subs in rec.items():
            if not isinstance(subs, list) or not all(isinstance(s, str) for s in subs):
                raise DataError(f"field {name!r} must map to a list of strings", str(path), lineno)
            if name in fields:
                raise DataError(f"duplicate field {name!r}", str(path), lineno)
            fields[name] = subs
    return fields


def calls_from_seal(items: list[dict[str, Any]]) -> list[ToolCall]:
    """Seal-Tools calling list -> ToolCalls ("API_call_k" values become linked `Ref`s)."""
    if not isinstance(items, list):
        raise DataError(f"a calling list must be a list, got {type(items).__name__}")
    calls = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("api"), str):
            raise DataError(f"call {i} must be an object with a string 'api'")
        params = item.get("parameters", {})
        responses = item.get("responses", [])
        if not isinstance(params, dict):
            raise DataError(f"call {i} ({item['api']}): 'parameters' must be an object")
        if not isinstance(responses, list) or not all(isinstance(r, str) for r in responses):
            raise DataError(f"call {i} ({item['api']}): 'responses' must be a list of strings")
        calls.append(ToolCall(name=item["api"], arguments=dict(params), responses=tuple(responses)))
    return link_refs(calls)


def _difficulty(example_id: str, where: str, line: int | None) -> str:
    m = _ID.match(example_id)
    if not m:
        raise DataError(f"id {example_id!r} is not <split>-<easy|difficult>-<n>", where, line)
    return m.group(2)


def _calls(items: Any, where: str, line: int) -> tuple[ToolCall, ...]:
    try:
        return tuple(calls_from_seal(items))
    except DataError as exc:
        raise DataError(str(exc), where, line) from None


def load_split(root: str | Path, split: str) -> list[Example]:
    """A split in the new format ({id, query, calling}); tools = the gold tools, in call order
    (taken from tool.jsonl when it is present next to the split)."""
    base = seal_dir(root)
    path = base / f"{_check_split(split)}.jsonl"
    pool = {t.name: t for t in load_tools(base)} if (base / "tool.jsonl").is_file() else {}
    out = []
    for lineno, rec in read_jsonl(path):
        for key, typ in (("id", str), ("query", str), ("calling", list)):
            if not isinstance(rec.get(key), typ):
                raise DataError(f"'{key}' missing or not a {typ.__name__}", str(path), lineno)
        calls = _calls(rec["calling"], str(path), lineno)
        gold = tuple(dict.fromkeys(c.name for c in calls))
        out.append(
            Example(
                id=rec["id"],
                query=rec["query"],
                tools=tuple(pool[n] for n in gold if n in pool),
                calls=calls,
                split=split,
                difficulty=_difficulty(rec["id"], str(path), lineno),
                metadata={"source": "seal-tools"},
            )
        )
    return out


def load_split_old(root: str | Path, split: str) -> list[Example]:
    """A split in the old format ([call or [calls], query]); ids rebuilt as in the new format
    (the files are in the same order: easy = a single call dict, difficult = a list)."""
    path = seal_dir(root) / "dataset_in_old_format" / f"{_check_split(split)}.jsonl"
    if not path.is_file():
        raise DataError("file not found", str(path))
    out = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            rec = _json_line(line, str(path), i + 1)
            if not (isinstance(rec, list) and len(rec) == 2 and isinstance(rec[1], str)):
                raise DataError("expected [call or [calls], query]", str(path), i + 1)
            easy = isinstance(rec[0], dict)
            calls = _calls([rec[0]] if easy else rec[0], str(path), i + 1)
            difficulty = "easy" if easy else "difficult"
            out.append(
                Example(
                    id=f"{split}-{difficulty}-{i}",
                    query=rec[1],
                    calls=calls,
                    split=split,
                    difficulty=difficulty,
                    metadata={"source": "seal-tools-old"},
                )
            )
    return out


def _json_line(line: str, where: str, lineno: int) -> Any:
    import json

    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"invalid JSON: {exc.msg} (column {exc.colno})", where, lineno) from None


def parse_eval_prompt(prompt: str) -> tuple[list[Tool], str]:
    """(the 5 candidate tools in prompt order, the query) from a Seal-Tools eval prompt."""
    m = _PROMPT.search(prompt)
    if not m:
        raise DataError("prompt lacks 'api_list = [...]\\ntask_instruction = \"...\"\\nOutput:'")
    try:
        api_list = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise DataError(f"api_list is not a Python literal: {exc}") from None
    if not isinstance(api_list, list):
        raise DataError("api_list is not a list")
    try:
        tools = [tool_from_seal(d) for d in api_list]
    except SchemaError as exc:
        raise DataError(f"api_list: {exc}") from None
    return tools, m.group(2)


def _eval_record(rec: Any, split: str) -> Example:
    if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
        raise DataError("record must be an object with a string 'id'")
    conv = rec.get("conversations")
    if not (isinstance(conv, list) and len(conv) == 2 and all(isinstance(c, dict) for c in conv)):
        raise DataError("'conversations' must hold a human turn and a gpt turn")
    prompt, target = conv[0].get("value"), conv[1].get("value")
    if [c.get("from") for c in conv] != ["human", "gpt"] or not isinstance(prompt, str):
        raise DataError("'conversations' must be [{from: human}, {from: gpt}] with string values")
    if not isinstance(target, str):
        raise DataError("the gpt target must be a string")
    tools, query = parse_eval_prompt(prompt)
    try:
        items = ast.literal_eval(target)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise DataError(f"gpt target is not a Python literal list: {exc}") from None
    return Example(
        id=rec["id"],
        query=query,
        tools=tuple(tools),
        calls=tuple(calls_from_seal(items)),
        split=split,
        difficulty=_difficulty(rec["id"], "", None),
        metadata={"source": "seal-tools-prompts", "prompt": prompt, "target": target},
    )


def load_eval_prompts(root: str | Path, split: str) -> list[Example]:
    """The paper's evaluation prompts (dataset_for_finetune/<split>.json): tools = the 5
    candidates in prompt order, calls = the gold target, metadata prompt/target verbatim."""
    path = seal_dir(root) / "dataset_for_finetune" / f"{_check_split(split)}.json"
    out = []
    for index, rec in enumerate(read_json_list(path)):
        try:
            out.append(_eval_record(rec, split))
        except DataError as exc:
            raise DataError(f"record {index}: {exc}", str(path)) from None
    return out
