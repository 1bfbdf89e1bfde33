"""What `datagen general` draws from: tools, natural queries, templates, small talk, chat.

- ToolDEER's training tools (its 77 unseen test tools never) and their GPT-written example
  queries with checked calls (`datagen.natural`'s filters: held-out queries and near copies,
  calls that do not fit, all counted);
- template pools: Seal-Tools' tools (minus the held-out tools and sub-fields) and the apps'
  APIs, with template queries (`datagen.phrasing`) where no natural query exists;
- the hand-written small talk and replies of `data/general_chitchat.json`;
- general questions (`datagen.general_queries`) answered by the base model (the chat kind).
Every tool is kept as a `Tool` under a key "<source>:<name>"; `retrieval.far_tools` (the
suite's filter too: never a tool close to a gold one) draws the other tools a request shows.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from toollearn.core.types import Tool, ToolCall
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions

CHITCHAT = Path(__file__).with_name("data") / "general_chitchat.json"


@cache
def chitchat() -> dict[str, Any]:
    """The small talk utterances, closings and replies (hand-written for training)."""
    return json.loads(CHITCHAT.read_text(encoding="utf-8"))


_FIRST_CLAUSE = re.compile(r"^(.*?)(?:[.;:(]|\s-\s|$)")


def tool_phrase(tool: Tool) -> str:
    """What a tool does, in a few lowercase words ("get the current weather for a city")."""
    text = _FIRST_CLAUSE.match((tool.description or "").strip()).group(1).strip()
    words = text.split()
    if not words:
        from toollearn.retrieval.text import split_identifier

        return split_identifier(tool.name)
    if words[0][:1].isupper() and not words[0][1:2].isupper():
        words[0] = words[0].lower()
    return " ".join(words[:8])


def tools_phrase(tools: Sequence[Tool], most: int = 3) -> str:
    """The first `most` tools' phrases joined: "a, b and c" ("a, b, c and more")."""
    parts = list(dict.fromkeys(tool_phrase(t) for t in tools))
    if len(parts) > most:
        return ", ".join(parts[:most]) + " and more"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


_LIST = re.compile(r"^(?:List|list)\[(str|int|float|bool)\]$")
_ITEM_TYPES = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}


def typed_items(tool: Tool) -> Tool:
    """A ToolDEER tool whose `List[str]`-style parameters say their items' type in JSON Schema."""
    from dataclasses import replace

    props = dict(tool.properties)
    changed = False
    for name, spec in props.items():
        m = _LIST.match(str(spec.get("x-python-type", "")))
        if m and spec.get("type") == "array" and "items" not in spec:
            props[name] = {**spec, "items": {"type": _ITEM_TYPES[m.group(1)]}}
            changed = True
    return replace(tool, parameters={**tool.parameters, "properties": props}) if changed else tool


@dataclass
class NaturalQuery:
    """A ToolDEER example: a GPT-written request, its tool (key) and its checked call."""

    id: str
    query: str
    key: str
    call: ToolCall


@dataclass
class Sources:
    """Everything the kinds draw from (see the module doc)."""

    tools: dict[str, Tool]  # key -> tool
    natural: list[NaturalQuery]
    templates: list[str]  # keys of the template pools' tools
    far: Any  # retrieval.far_tools.Distractors over every key
    general: list[str] = field(default_factory=list)  # questions for the chat kind
    answers: dict[str, str] = field(default_factory=dict)  # question -> the base model's answer
    decap: Any = None

    def by_tool(self) -> dict[str, list[NaturalQuery]]:
        out: dict[str, list[NaturalQuery]] = {}
        for q in self.natural:
            out.setdefault(q.key, []).append(q)
        return out


def load_sources(root: str | Path, exclusions: Exclusions, out: Generated,
                 encoder: Any = None) -> Sources:  # fmt: skip
    """ToolDEER's training tools and queries, the template pools, the far-tool filter."""
    from toollearn.apps import APPS
    from toollearn.data.seal_tools import load_tools as seal_tools
    from toollearn.datagen.natural import Decapitaliser, training_examples
    from toollearn.retrieval.far_tools import Distractors

    _, examples, pool = training_examples(root, exclusions, out)
    tools = {f"tooldeer:{t.name}": typed_items(t) for t in pool}
    natural = [NaturalQuery(f"tooldeer/{ex.tool.name}#{ex.index}", ex.query,
                            f"tooldeer:{ex.tool.name}", ex.call) for ex in examples]  # fmt: skip
    templates = []
    for t in seal_tools(root):
        if t.name in exclusions.tools:
            out.reject("template tool: held out (Seal-Tools)")
            continue
        tools[f"seal-tools:{t.name}"] = t
        templates.append(f"seal-tools:{t.name}")
    for app in APPS.values():
        for t in app.tools():
            if t.name not in exclusions.tools and t.properties:
                tools[f"app:{t.name}"] = t
                templates.append(f"app:{t.name}")
    far = Distractors(list(tools.items()), encoder)
    decap = Decapitaliser([q.query for q in natural])
    return Sources(tools, natural, templates, far, decap=decap)


def general_questions(n: int, seed: int, exclusions: Exclusions, out: Generated) -> list[str]:
    """n questions a chat model answers from its own knowledge (half plain, half Evol-style),
    none a held-out query or a near copy of one."""
    from toollearn.datagen.general_queries import general_queries
    from toollearn.datagen.leakage import QueryIndex

    held = QueryIndex(exclusions.queries)
    found = []
    for style, k in (("plain", n - n // 2), ("evol", n // 2)):
        for q in general_queries(k, seed, style=style):
            if held.match(q):
                out.reject("chat question: a held-out query or a near copy")
            else:
                found.append(q)
    return found


def answers_for(questions: Sequence[str], engine: Callable[[], Any] | None,
                cache_path: Path | None, out: Generated) -> dict[str, str]:  # fmt: skip
    """The base model's own answers, cached and resumable (`datagen.deer.answer_queries`);
    `engine` makes the engine when a question has no cached answer yet (None: cache only)."""
    from toollearn.datagen.deer import _read_cache, answer_queries

    found = _read_cache(cache_path)
    todo = [q for q in questions if q not in found]
    if todo and engine is not None:
        found.update(answer_queries(todo, engine(), cache_path))
    answers = {}
    for q in questions:
        rec = found.get(q)
        if not rec or rec.get("error") or not (rec.get("answer") or "").strip():
            out.reject("chat: no usable answer from the base model")
            continue
        answers[q] = _complete(rec)
    return answers


def _complete(rec: dict[str, Any]) -> str:
    from toollearn.datagen.deer import complete_sentences

    text = rec["answer"].strip()
    return complete_sentences(text) or text if rec.get("finish_reason") == "length" else text


def pick(rng: random.Random, items: Sequence[Any]) -> Any:
    return items[rng.randrange(len(items))]
