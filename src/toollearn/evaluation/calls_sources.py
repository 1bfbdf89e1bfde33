"""What the general suite is built from: held-out queries of ToolDEER and Seal-Tools, the
hand-written items, and a tool table in OpenAI's shape (`evaluation.calls_build` uses it).

- ToolDEER (`test.json` on its 77 unseen tools for the test split, `valid.json` for dev): every
  Call and NoCall query with its own tool and call, read from `tool.json`'s examples (which
  hold every test and valid query; a Call query's tool and call must agree with its target);
  Call queries keep their released 5-tool pool.
- Seal-Tools (`test_in_domain` + `test_out_domain` for test, `dev` for dev): every instance,
  its calls (nested ones linked) and the whole tool pool for distractors.
- Hand-written (`suite/handwritten/`): tools, format items, declines, chit-chat, plain chat.
Distractors never sit close to a gold tool (`retrieval.far_tools`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.types import Example, Tool, ToolCall
from toollearn.formats.schemas.openai import tool_from_openai

HANDWRITTEN = Path(__file__).with_name("suite") / "handwritten"
DEER_SPLIT = {"test": "test", "dev": "valid"}
SEAL_SPLITS = {"test": ("test_in_domain", "test_out_domain"), "dev": ("dev",)}


@dataclass(frozen=True)
class DeerQuery:
    """A ToolDEER query with its own tool and call (and the released pool of a Call query)."""

    id: str
    query: str
    tool: Tool
    call: ToolCall
    decision: str  # Call | NoCall
    pool: tuple[Tool, ...] = ()


@dataclass
class Material:
    """One split's sources, with counts of what was dropped and why."""

    split: str
    deer: list[DeerQuery]
    seal: list[Example]
    seal_tools: dict[str, Tool]
    deer_tools: dict[str, Tool]
    hand_tools: dict[str, Tool]
    hand: dict[str, Any]
    nosearch: list[str] = field(default_factory=list)  # ToolDEER's general queries (dev)
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, why: str) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + 1


def tool_key(source: str, tool: Tool) -> str:
    return f"{source}:{tool.name}"


def load_material(root: str | Path, split: str, hand_dir: Path = HANDWRITTEN) -> Material:
    """The split's ToolDEER, Seal-Tools and hand-written material."""
    from toollearn.data import seal_tools
    from toollearn.datagen.deer import shown

    deer_all = {t.name: shown(t) for t in _deer_tools(root)}
    seal_tools_all = {t.name: t for t in seal_tools.load_tools(root)}
    seal = [e for s in SEAL_SPLITS[split] for e in seal_tools.load_split(root, s)]
    garbled = [e for e in seal if _garbled(e.query)]
    hand = {name: json.loads((hand_dir / f"{name}.json").read_text(encoding="utf-8"))
            for name in ("tools", "formats", "declines", "chitchat", "chat")}  # fmt: skip
    hand_tools = {t.name: t for t in (tool_from_openai(d) for d in hand["tools"])}
    m = Material(split, [], [e for e in seal if e not in garbled], seal_tools_all, deer_all,
                 hand_tools, hand)  # fmt: skip
    for _ in garbled:
        m.drop("seal-tools: the query is a dump of calls, not a request")
    m.deer, m.nosearch = _deer_queries(root, DEER_SPLIT[split], m)
    return m


def _garbled(query: str) -> bool:
    """A query that is a printed call list rather than a request (a few Seal-Tools items)."""
    text = query.strip()
    return text[:1] in "{[" or "'api'" in text or '"api"' in text


def _deer_tools(root: str | Path) -> list[Tool]:
    from toollearn.data.tooldeer import load_tools

    return load_tools(root)


def _deer_queries(root: str | Path, split: str, m: Material) -> tuple[list[DeerQuery], list[str]]:
    from toollearn.data.tooldeer import load_split, load_tools
    from toollearn.datagen.deer import check_call
    from toollearn.datagen.leakage import normalise

    owner: dict[str, tuple[Tool, str]] = {}
    for tool in load_tools(root):
        for ex in tool.metadata.get("examples", ()):
            owner.setdefault(normalise(ex["query"]), (tool, ex["call"]))
    out, general = [], []
    for e in load_split(root, split):
        decision = e.metadata["decision"]
        if decision == "NoSearch":
            general.append(e.query)
            continue
        found = owner.get(normalise(e.query))
        if found is None:
            m.drop(f"tooldeer {decision}: the query is no tool.json example")
            continue
        call, why = check_call(found[1], found[0])
        if call is None:
            m.drop(f"tooldeer {decision}: {why}")
            continue
        if decision == "Call" and (not e.calls or e.calls[0].name != call.name):
            m.drop("tooldeer Call: the target calls another tool than the example")
            continue
        pool = tuple(m.deer_tools[t.name] for t in e.tools if t.name in m.deer_tools)
        if decision == "Call" and len(pool) != len(e.tools):
            m.drop("tooldeer Call: a pool tool is not in tool.json")
            continue
        out.append(DeerQuery(e.id, e.query, m.deer_tools[call.name], call, decision,
                             pool if decision == "Call" else ()))  # fmt: skip
    return out, general
