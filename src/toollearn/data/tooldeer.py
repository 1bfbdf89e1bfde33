"""ToolDEER loaders (github.com/Ericmututu/ToolDEER): tools, valid/test, baseline tests.

`root` is the folder holding tool.json/test.json or a data root with a `tooldeer/` folder.
Every loader returns all records or raises `DataError` naming the file and record.
Tool names: `Tool.name` is the function name of `api_function` (what gold calls use);
`metadata["api_name"]` is the listed pool name (see formats/schemas/tooldeer.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError, FormatError, SchemaError
from toollearn.core.types import Example, Tool, ToolCall
from toollearn.data.jsonl import read_json_list
from toollearn.formats.answers import deer as fmt
from toollearn.formats.pycall import call_name, parse_call_lenient
from toollearn.formats.schemas.toolbench import tool_from_rapidapi
from toollearn.formats.schemas.tooldeer import tool_from_deer

SPLITS = ("valid", "test")
BASELINES = ("tool_bench", "tool_corpus")
_TARGET = re.compile(
    re.escape(f"{fmt.BEGIN} {fmt.SEARCH_TEXT} {fmt.SEARCH} {fmt.POOL_HEAD}")
    + r"(\[.*?\])"
    + re.escape(fmt.POOL_MID)
    + r"(.*?) (#CallAPI# .*|#NoCallAPI# .*)\Z",
    re.S,
)
_NO_SEARCH = f"{fmt.BEGIN} {fmt.NO_SEARCH_TEXT} {fmt.END}"


def deer_dir(root: str | Path) -> Path:
    """The ToolDEER folder under `root` (root itself if it holds tool.json or test.json)."""
    p = Path(root).expanduser()
    for cand in (p, p / "tooldeer"):
        if any((cand / n).is_file() for n in ("tool.json", "test.json", "valid.json")):
            return cand
    raise DataError("no ToolDEER data here (expected tool.json/test.json or tooldeer/)", str(p))


def load_tools(root: str | Path) -> list[Tool]:
    """All tools of tool.json (977 in the release); metadata["examples"] = [{query, call}]."""
    path = deer_dir(root) / "tool.json"
    tools, seen = [], set()
    for index, rec in enumerate(read_json_list(path)):
        try:
            tool = tool_from_deer(rec)
        except SchemaError as exc:
            raise DataError(f"record {index}: {exc}", str(path)) from None
        if tool.name in seen:
            raise DataError(f"record {index}: duplicate tool name {tool.name!r}", str(path))
        seen.add(tool.name)
        tools.append(tool)
    return tools


def _pool(names_text: str, lines_text: str) -> list[Tool]:
    names = ast.literal_eval(names_text)
    lines = lines_text.split("\n")
    if not isinstance(names, list) or len(names) != len(lines):
        raise DataError(f"pool lists {len(names)} names but describes {len(lines)} tools")
    tools = []
    for name, line in zip(names, lines):
        entry = ast.literal_eval(line)
        tool = tool_from_deer(entry)
        if tool.metadata["api_name"] != name:
            raise DataError(f"pool entry {tool.metadata['api_name']!r} does not match {name!r}")
        tools.append(tool)
    return tools


def _gold_call(decision: str, pool: list[Tool], meta: dict[str, Any]) -> tuple[ToolCall, ...]:
    """The gold call after #CallAPI#; arguments that are not literals are recorded, not dropped."""
    text = decision[len(fmt.CALL) :].split(fmt.RESPONSE, 1)[0].strip()
    meta["call_text"] = text
    name = call_name(text)
    tool = next((t for t in pool if t.name == name), None)
    try:
        return (parse_call_lenient(text, tool),)
    except FormatError as exc:
        if not name:
            raise DataError(f"#CallAPI# holds no call: {text[:60]!r}") from None
        meta["call_error"] = str(exc)
        return (ToolCall(name=name),)


def example_from_conversation(rec: Any, split: str, index: int) -> Example:
    """One valid/test record -> Example with DEER labels, the 5-pool and the gold call."""
    conv = rec.get("conversations") if isinstance(rec, dict) else None
    if not (isinstance(conv, list) and len(conv) == 2 and all(isinstance(c, dict) for c in conv)):
        raise DataError("'conversations' must hold a human turn and a gpt turn")
    if [c.get("from") for c in conv] != ["human", "gpt"]:
        raise DataError("'conversations' must be [{from: human}, {from: gpt}]")
    query, target = conv[0].get("value"), conv[1].get("value")
    if not isinstance(query, str) or not isinstance(target, str):
        raise DataError("conversation values must be strings")
    meta: dict[str, Any] = {"source": "tooldeer", "target": target}
    base = {"id": f"tooldeer-{split}-{index}", "query": query, "split": split}
    if target == _NO_SEARCH:
        meta["decision"] = "NoSearch"
        return Example(**base, needs_tool=False, metadata=meta)
    m = _TARGET.match(target)
    if not m:
        raise DataError(f"gpt target is not a DEER target: {target[:80]!r}...")
    try:
        pool = _pool(m.group(1), m.group(2))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise DataError(f"pool is not Python literals: {exc}") from None
    except SchemaError as exc:
        raise DataError(f"pool: {exc}") from None
    decision = m.group(3)
    if decision == f"{fmt.NOCALL} {fmt.NO_CALL_TEXT} {fmt.END}":
        meta["decision"] = "NoCall"
        return Example(**base, tools=tuple(pool), needs_tool=True, has_suitable_tool=False,
                       metadata=meta)  # fmt: skip
    if not (decision.startswith(fmt.CALL) and decision.endswith(f"{fmt.RESPONSE}  {fmt.END}")):
        raise DataError(f"unexpected decision text: {decision[:80]!r}")
    meta["decision"] = "Call"
    calls = _gold_call(decision, pool, meta)
    return Example(**base, tools=tuple(pool), calls=calls, needs_tool=True,
                   has_suitable_tool=True, metadata=meta)  # fmt: skip


def load_split(root: str | Path, split: str) -> list[Example]:
    """valid.json (Call/NoCall/NoSearch) or test.json (Call/NoCall) as Examples with ids
    `tooldeer-<split>-<index>`; metadata: target, decision, call_text (+ call_error)."""
    if split not in SPLITS:
        raise DataError(f"unknown ToolDEER split {split!r}; choose from {', '.join(SPLITS)}")
    path = deer_dir(root) / f"{split}.json"
    out = []
    for index, rec in enumerate(read_json_list(path)):
        try:
            out.append(example_from_conversation(rec, split, index))
        except DataError as exc:
            raise DataError(f"record {index}: {exc}", str(path)) from None
    return out


def _baseline_example(rec: Any, name: str, index: int) -> Example:
    keys = {"query": str, "api_list": list, "api_label": list, "is_call": bool}
    for key, typ in keys.items():
        if not isinstance(rec, dict) or not isinstance(rec.get(key), typ):
            raise DataError(f"'{key}' missing or not a {typ.__name__}")
    try:
        tools = tuple(tool_from_rapidapi(d) for d in rec["api_list"])
    except SchemaError as exc:
        raise DataError(f"api_list: {exc}") from None
    names = [t.name for t in tools]
    labels = [str(x) for x in rec["api_label"]]
    gold = [lab for lab in labels if lab in names]
    if rec["is_call"] != bool(gold):
        raise DataError(f"is_call={rec['is_call']} but {len(gold)} labelled tools in the pool")
    meta = {"source": f"tooldeer-{name}", "api_label": labels, "decision":
            "Call" if rec["is_call"] else "NoCall"}  # fmt: skip
    if "api_unique" in rec:
        meta["api_unique"] = rec["api_unique"]
    return Example(
        id=f"tooldeer-{name}-{index}",
        query=rec["query"],
        tools=tools,
        calls=tuple(ToolCall(name=g) for g in gold),
        needs_tool=True,
        has_suitable_tool=rec["is_call"],
        split=name,
        metadata=meta,
    )


def load_baseline(root: str | Path, name: str) -> list[Example]:
    """baselines/tool_bench.json (200) or tool_corpus.json (126): unseen-tool Call/NoCall tests.

    calls = the labelled tools present in the pool, name only (the files carry no arguments);
    the scorer checks the first (`metrics.deer`; one ToolBench query, tool_bench-176, has two
    in its pool) and metadata["api_label"] keeps all labels."""
    if name not in BASELINES:
        raise DataError(f"unknown ToolDEER baseline {name!r}; choose from {', '.join(BASELINES)}")
    path = deer_dir(root) / "baselines" / f"{name}.json"
    out = []
    for index, rec in enumerate(read_json_list(path)):
        try:
            out.append(_baseline_example(rec, name, index))
        except DataError as exc:
            raise DataError(f"record {index}: {exc}", str(path)) from None
    return out
