"""Requests with gold calls, as users and the hand-written sets write them, as suite items.

One JSON object a line: `id`, `kind`, `query` (or `messages`: OpenAI chat messages), `calls`
(the gold calls: `name`, `arguments`, optional `alternatives` per argument and `free`
arguments; [] where no call is right), optional `tools` (the tool names shown; default every
tool of the file) and `mentions` (words one of which a reply without calls must hold). The
kinds map onto the suite's categories (`CATEGORY`); the kind is kept, so scores come per
kind too. `load_set("travel", "test")` reads a shipped set (`evaluation/sets/`);
`load_examples(path, tools)` any file against any tool file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.evaluation.calls_suite import Suite, SuiteItem

SETS = Path(__file__).with_name("sets")
CATEGORY = {"single": "multiple", "parallel": "parallel", "multi-tool": "parallel-multiple",
            "dependent": "dependent", "follow-up": "multi-turn", "answer": "multi-turn",
            "decline": "decline", "missing": "missing", "small-talk": "chit-chat"}  # fmt: skip


def set_names() -> list[str]:
    """The shipped sets."""
    return sorted(p.name for p in SETS.iterdir() if (p / "tools.json").is_file())


def _tool_table(path: Path) -> dict[str, dict[str, Any]]:
    from toollearn.formats.convert import read_tools
    from toollearn.formats.openai_messages import openai_tool

    return {t.name: openai_tool(t) for t in read_tools(str(path), "auto")}


def item_from_example(d: dict[str, Any], names: list[str], where: str) -> SuiteItem:
    """One example line as a suite item (module doc)."""
    kind = str(d.get("kind") or ("single" if d.get("calls") else "decline"))
    if kind not in CATEGORY:
        raise DataError(f"{where}: unknown kind {kind!r}; use {', '.join(CATEGORY)}")
    if "messages" in d:
        messages = d["messages"]
    elif isinstance(d.get("query"), str):
        messages = [{"role": "user", "content": d["query"]}]
    else:
        raise DataError(f"{where}: neither query nor messages")
    shown = list(d.get("tools") or names)
    unknown = sorted(set(shown) - set(names)) + sorted(
        {c["name"] for c in d.get("calls") or ()} - set(shown))  # fmt: skip
    if unknown:
        raise DataError(f"{where}: names tools the tool file does not show: {unknown}")
    calls = d.get("calls") or []
    return SuiteItem.from_dict({
        "id": str(d.get("id") or where), "category": CATEGORY[kind], "kind": kind,
        "source": "examples", "messages": messages, "tools": shown,
        "expect": {"calls": calls, "reply": not calls,
                   "mentions": list(d.get("mentions") or ())},
    })  # fmt: skip


def load_examples(path: str | Path, tools: str | Path, split: str = "test") -> Suite:
    """A file of examples against a tool file, as a `Suite`."""
    table = _tool_table(Path(tools))
    items = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except ValueError as exc:
            raise DataError(f"not JSON: {exc}", str(path), n) from None
        items.append(item_from_example(d, list(table), f"{path}:{n}"))
    return Suite(items, table, split)


def load_set(name: str, split: str = "test") -> Suite:
    """A shipped hand-written set (`set_names()`), or a folder laid out the same way."""
    folder = SETS / name if (SETS / name).is_dir() else Path(name)
    if not (folder / "tools.json").is_file():
        raise DataError(f"no evaluation set {name!r}; shipped: {', '.join(set_names())}")
    return load_examples(folder / f"{split}.jsonl", folder / "tools.json", split)
