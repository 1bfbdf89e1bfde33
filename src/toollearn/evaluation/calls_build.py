"""Build the general suite (`evaluation.calls_suite`) from a seed: `toollearn datagen suite`.

Per split (test from the held-out test sets, dev from the validation sets; `calls_sources`):
- simple: a ToolDEER or Seal-Tools one-call query with its tool alone (ToolDEER's Call and
  NoCall queries alike: each is an example of its own tool);
- multiple: a ToolDEER or Seal-Tools one-call query with its tool and 3-19 far distractors;
- parallel: 2-3 ToolDEER queries of one tool joined into one request (`datagen.natural`'s
  connectives), the tool alone;
- parallel-multiple: Seal-Tools several-call instances (no nesting) with 0-4 far distractors;
- dependent: Seal-Tools nested instances, one item per turn: first the calls that need no
  result, then, with the earlier calls' simulated results in the history, the calls that take
  a value from them (the value written out);
- decline: a query's own tool removed (Hammer's way), 4-6 far tools shown (ToolDEER) or 3-9
  (Seal-Tools), and the hand-written requests no shown tool serves;
- chit-chat: hand-written small talk with 2-6 tools shown, and closing turns ("thanks!") after a
  tool result and its reply; no call, a reply;
- chat: hand-written short factual questions (accepted answers: the chat-quality proxy), no
  tools; for dev also ToolDEER's general (NoSearch) queries, scored for form only;
- multi-turn: after a call and its result, the answer in text (mentioning a result's value);
  after the first calls of a several-call request and their results, the rest; after a
  finished exchange, a follow-up request that needs another tool;
- formats: hand-written (values as descriptions ask, enums, units, optional arguments, types,
  the user's system prompt).
Gold values of the data's calls that the conversation never states (ToolDEER's authors often
invented user ids, limits and dates) are free: not scored (`unstated`, `calls_ast`). Queries
are never reused across the categories of a split where the sources allow it. Every random
choice comes from the seed, so the same seed and data give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.types import Ref, Tool, ToolCall
from toollearn.envs.simulated import simulate
from toollearn.evaluation.calls_sources import Material, load_material, tool_key
from toollearn.evaluation.calls_suite import CATEGORIES, SuiteItem
from toollearn.evaluation.metrics.calls_ast import GoldCall
from toollearn.formats.openai_messages import call_turn, openai_tool, plain, result_turn, user
from toollearn.retrieval.far_tools import NEAR_TOOL, Distractors

COUNTS = {
    "test": {"simple": 150, "multiple": 150, "parallel": 120, "parallel-multiple": 150,
             "decline-deer": 75, "decline-seal": 25, "answer": 50, "next-call": 50,
             "follow-up": 50, "chit-chat-lists": 2},
    "dev": {"simple": 60, "multiple": 60, "parallel": 40, "parallel-multiple": 60,
            "decline-deer": 30, "decline-seal": 10, "answer": 20, "next-call": 20,
            "follow-up": 20, "chit-chat-lists": 2, "nosearch": 40},
}  # fmt: skip
QUICK = 20


class Builder:
    """Makes one split's items; tools shown are added to the shared tool table."""

    def __init__(self, m: Material, seed: int, table: dict[str, dict[str, Any]],
                 distractors: Distractors):  # fmt: skip
        self.m, self.seed, self.table, self.far = m, seed, table, distractors
        self.items: list[SuiteItem] = []
        self.used: set[str] = set()  # query ids already in an item

    def rng(self, *parts: Any) -> random.Random:
        return random.Random(":".join(map(str, (self.seed, self.m.split, *parts))))

    def key(self, source: str, tool: Tool) -> str:
        return tool_key(source, tool)

    def add(
        self,
        category: str,
        kind: str,
        source: str,
        messages: list[dict[str, Any]],
        tools: Sequence[str],
        calls: Sequence[ToolCall] = (),
        alternatives: dict[int, dict[str, list[Any]]] | None = None,
        ground: bool = True,
        **expect: Any,
    ) -> None:
        """Append an item, its shown tools to the table (`alternatives`: accepted values by
        call index and argument; `ground`: gold values the conversation never states are free,
        `unstated`)."""
        for k in tools:
            self.table.setdefault(k, openai_tool(self.far.tools[k]))
        alternatives = alternatives or {}
        text = " ".join(str(m.get("content") or "") for m in messages if m["role"] != "assistant")
        gold = tuple(GoldCall(c.name, plain(c.arguments), alternatives.get(i, {}),
                              unstated(plain(c.arguments), text) if ground else ())
                     for i, c in enumerate(calls))  # fmt: skip
        n = sum(it.category == category for it in self.items)
        self.items.append(SuiteItem(f"{self.m.split}-{category}-{n:04d}", category,
                                    tuple(messages), tuple(tools), gold, kind=kind,
                                    source=source, **expect))  # fmt: skip

    def fresh(self, pool: Sequence[Any], n: int, *tag: Any) -> list[Any]:
        """n members of `pool` (by `.id`) not used yet, at random; marks them used."""
        left = [x for x in pool if x.id not in self.used]
        picked = self.rng("pick", *tag).sample(left, min(n, len(left)))
        self.used |= {x.id for x in picked}
        return picked


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def stated(value: Any, words: str, numbers: set[float]) -> bool:
    """Whether the conversation states `value`: a string's words appear in it (in order,
    case and punctuation aside), a number appears as a number, every element of a list or
    object does; booleans and empty values never count as stated."""
    from toollearn.datagen.leakage import normalise

    if isinstance(value, bool) or value in (None, "", [], {}):
        return False
    if isinstance(value, int | float):
        return float(value) in numbers
    if isinstance(value, list):
        return all(stated(v, words, numbers) for v in value)
    if isinstance(value, dict):
        return all(stated(v, words, numbers) for v in value.values())
    key = normalise(str(value))
    try:
        if float(str(value).replace(",", "")) in numbers:
            return True
    except ValueError:
        pass
    return bool(key) and f" {key} " in words


def unstated(arguments: dict[str, Any], text: str) -> tuple[str, ...]:
    """The arguments whose gold value the conversation text never states (scored free)."""
    from toollearn.datagen.leakage import normalise

    words = f" {normalise(text)} "
    numbers = {float(n.replace(",", "")) for n in _NUMBER.findall(text)}
    return tuple(k for k, v in arguments.items() if not stated(v, words, numbers))


def reply_text(result: dict[str, Any]) -> str:
    """The assistant's plain answer after a result (the history of follow-up items)."""
    facts = "; ".join(f"{k.replace('_', ' ')}: {plain(v)}" for k, v in result.items())
    return f"I checked: {facts}."


def seal_source(e: Any) -> str:
    return f"seal-tools/{e.id}"


# -- the categories ---------------------------------------------------------------------------


def simple_and_multiple(b: Builder, counts: dict[str, int]) -> None:
    m = b.m
    calls = list(m.deer)  # Call and NoCall queries alike: each is an example of its own tool
    easy = [e for e in m.seal if len(e.calls) == 1 and not e.nested]
    for category in ("simple", "multiple"):
        half = counts[category] // 2
        for q in b.fresh(calls, half, category, "deer"):
            tools = [b.key("tooldeer", q.tool)]
            if category == "multiple":
                rng = b.rng(category, q.id)
                tools += b.far.draw(tools, rng.randint(3, 19), rng)
                rng.shuffle(tools)
            b.add(category, "tooldeer", f"tooldeer/{q.id}", [user(q.query)], tools, [q.call])
        for e in b.fresh(easy, counts[category] - half, category, "seal"):
            gold = b.key("seal-tools", m.seal_tools[e.calls[0].name])
            tools = [gold]
            if category == "multiple":
                rng = b.rng(category, e.id)
                tools += b.far.draw([gold], rng.randint(3, 19), rng)
                rng.shuffle(tools)
            b.add(category, "seal-tools", seal_source(e), [user(e.query)], tools, e.calls)


def parallel(b: Builder, n: int) -> None:
    from toollearn.datagen.natural import Decapitaliser, join_queries

    decap = Decapitaliser([q.query for q in b.m.deer])
    by_tool: dict[str, list[Any]] = {}
    for q in b.m.deer:
        if q.id not in b.used and q.call.arguments:
            by_tool.setdefault(q.tool.name, []).append(q)
    made, tries = 0, 0
    while made < n and tries < 20 * n:
        rng = b.rng("parallel", tries)
        tries += 1
        names = sorted(t for t, qs in by_tool.items()
                       if len([q for q in qs if q.id not in b.used]) >= 2)  # fmt: skip
        if not names:
            break
        left = [q for q in by_tool[rng.choice(names)] if q.id not in b.used]
        parts = rng.sample(left, min(len(left), 3 if rng.random() < 0.25 else 2))
        if len({json.dumps(plain(p.call.arguments), sort_keys=True) for p in parts}) < len(parts):
            continue
        b.used |= {p.id for p in parts}
        query, _ = join_queries([p.query for p in parts], rng, decap)
        b.add(
            "parallel",
            "tooldeer",
            "+".join(f"tooldeer/{p.id}" for p in parts),
            [user(query)],
            [b.key("tooldeer", parts[0].tool)],
            [p.call for p in parts],
        )
        made += 1


def parallel_multiple(b: Builder, n: int) -> None:
    several = [e for e in b.m.seal if len(e.calls) > 1 and not e.nested
               and len({c.name for c in e.calls}) == len(e.calls)]  # fmt: skip
    for e in b.fresh(several, n, "parallel-multiple"):
        rng = b.rng("parallel-multiple", e.id)
        gold = [b.key("seal-tools", b.m.seal_tools[c.name]) for c in e.calls]
        tools = gold + b.far.draw(gold, rng.randint(0, 4), rng)
        rng.shuffle(tools)
        b.add("parallel-multiple", "seal-tools", seal_source(e), [user(e.query)], tools, e.calls)


def _levels(calls: Sequence[ToolCall]) -> list[int] | None:
    """Each call's turn: 0 without references, else one after the latest call it reads (in
    any order of the list); None for a cycle."""
    levels: list[int | None] = [None] * len(calls)
    refs = [[r.call for r in c.refs()] for c in calls]
    for _ in calls:
        for i, rs in enumerate(refs):
            if levels[i] is None and all(levels[r] is not None for r in rs):
                levels[i] = 1 + max(levels[r] for r in rs) if rs else 0  # type: ignore[type-var]
    return None if None in levels else levels  # type: ignore[return-value]


def _resolve(value: Any, outputs: dict[int, list[Any]]) -> Any:
    if isinstance(value, Ref):
        return outputs[value.call][value.output]
    if isinstance(value, list):
        return [_resolve(v, outputs) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, outputs) for k, v in value.items()}
    return value


def dependent(b: Builder) -> None:
    for e in [e for e in b.m.seal if e.nested]:
        if any(r.call is None or r.output is None for c in e.calls for r in c.refs()):
            b.m.drop("seal-tools nested: a dangling reference")
            continue
        levels, outputs = _levels(e.calls), {}
        if levels is None:
            b.m.drop("seal-tools nested: references in a cycle")
            continue
        tools_by = {c.name: b.m.seal_tools[c.name] for c in e.calls}
        rng = b.rng("dependent", e.id)
        gold = [b.key("seal-tools", t) for t in tools_by.values()]
        shown = gold + b.far.draw(gold, rng.randint(0, 3), rng)
        rng.shuffle(shown)
        history: list[dict[str, Any]] = [user(e.query)]
        next_id = 0
        for turn in range(max(levels) + 1):
            idx = [i for i, lv in enumerate(levels) if lv == turn]
            calls = [ToolCall(e.calls[i].name, _resolve(e.calls[i].arguments, outputs))
                     for i in idx]  # fmt: skip
            b.add("dependent", "first" if turn == 0 else "next", seal_source(e),
                  list(history), shown, calls)  # fmt: skip
            history.append(call_turn(calls, next_id))
            for i, c in zip(idx, calls):
                result = simulate(tools_by[c.name], plain(c.arguments), b.seed)
                outputs[i] = list(result.values())
                history.append(result_turn(next_id, result))
                next_id += 1


def declines(b: Builder, counts: dict[str, int]) -> None:
    m = b.m
    for q in b.fresh(m.deer, counts["decline-deer"], "decline", "deer"):
        rng = b.rng("decline", q.id)
        own = b.key("tooldeer", q.tool)
        b.add(
            "decline",
            "tooldeer",
            f"tooldeer/{q.id}",
            [user(q.query)],
            b.far.draw([own], rng.randint(4, 6), rng, exclude=_seal_keys(b)),
            reply=True,
        )
    easy = [e for e in m.seal if len(e.calls) == 1 and not e.nested]
    for e in b.fresh(easy, counts["decline-seal"], "decline", "seal"):
        rng = b.rng("decline", e.id)
        own = b.key("seal-tools", m.seal_tools[e.calls[0].name])
        b.add(
            "decline",
            "seal-tools",
            seal_source(e),
            [user(e.query)],
            b.far.draw([own], rng.randint(3, 9), rng, exclude=_deer_keys(b)),
            reply=True,
        )
    for d in _hand(b, "declines"):
        tools = [b.key("hand", m.hand_tools[t]) for t in d["tools"]]
        b.add(
            "decline",
            "handwritten",
            f"handwritten/declines/{d['id']}",
            [user(d["query"])],
            tools,
            reply=True,
        )


def _seal_keys(b: Builder) -> list[str]:
    return [k for k in b.far.keys if not k.startswith("tooldeer:")]


def _deer_keys(b: Builder) -> list[str]:
    return [k for k in b.far.keys if not k.startswith("seal-tools:")]


def _hand(b: Builder, name: str) -> list[dict[str, Any]]:
    return [d for d in b.m.hand[name] if d["split"] == b.m.split]


def chit_chat(b: Builder, lists: int, answered: Sequence[dict[str, Any]]) -> None:
    hand_keys = [b.key("hand", t) for t in b.m.hand_tools.values()]
    for i, text in enumerate(b.m.hand["chitchat"][b.m.split]):
        for j in range(lists):
            rng = b.rng("chit-chat", i, j)
            tools = rng.sample(hand_keys, rng.randint(2, 6))
            b.add(
                "chit-chat", "small-talk", "handwritten/chitchat", [user(text)], tools, reply=True
            )
    closing = b.m.hand["chitchat"][f"after_results_{b.m.split}"]
    for text, done in zip(closing, answered):
        b.add(
            "chit-chat",
            "after-results",
            f"handwritten/chitchat+{done['source']}",
            [*done["messages"], user(text)],
            done["tools"],
            reply=True,
        )


def chat(b: Builder, nosearch: int) -> None:
    for d in _hand(b, "chat"):
        b.add(
            "chat",
            "factual",
            f"handwritten/chat/{d['id']}",
            [user(d["query"])],
            [],
            reply=True,
            answers=tuple(d["answers"]),
        )
    for i, q in enumerate(b.rng("nosearch").sample(b.m.nosearch, min(nosearch, len(b.m.nosearch)))):
        b.add("chat", "general", f"tooldeer/valid NoSearch #{i}", [user(q)], [], reply=True)


def multi_turn(b: Builder, counts: dict[str, int]) -> list[dict[str, Any]]:
    """The multi-turn items; returns finished exchanges (call, result, reply) for chit-chat."""
    m = b.m
    easy = [e for e in m.seal if len(e.calls) == 1 and not e.nested]
    finished = []
    for e in b.fresh(easy, counts["answer"], "answer"):
        tool = m.seal_tools[e.calls[0].name]
        result = simulate(tool, plain(e.calls[0].arguments), b.seed)
        messages = [user(e.query), call_turn(e.calls, 0), result_turn(0, result)]
        rng = b.rng("answer", e.id)
        gold = b.key("seal-tools", tool)
        tools = [gold, *b.far.draw([gold], rng.randint(0, 3), rng)]
        rng.shuffle(tools)
        b.add(
            "multi-turn",
            "answer",
            seal_source(e),
            messages,
            tools,
            reply=True,
            mentions=tuple(str(plain(v)) for v in result.values()),
        )
        finished.append({"messages": [*messages, {"role": "assistant",
                                                  "content": reply_text(result)}],
                         "tools": tools, "source": seal_source(e)})  # fmt: skip
    several = [e for e in m.seal if len(e.calls) > 1 and not e.nested]
    for e in b.fresh(several, counts["next-call"], "next-call"):
        rng = b.rng("next-call", e.id)
        k = rng.randint(1, len(e.calls) - 1)
        messages = [user(e.query), call_turn(e.calls[:k], 0)]
        for i, c in enumerate(e.calls[:k]):
            messages.append(result_turn(i, simulate(m.seal_tools[c.name], plain(c.arguments),
                                                    b.seed)))  # fmt: skip
        gold = [b.key("seal-tools", m.seal_tools[c.name]) for c in e.calls]
        tools = list(dict.fromkeys(gold))
        rng.shuffle(tools)
        b.add("multi-turn", "next-call", seal_source(e), messages, tools, e.calls[k:])
    follow_up(b, easy, counts["follow-up"])
    return finished


def follow_up(b: Builder, easy: Sequence[Any], n: int) -> None:
    m = b.m
    firsts = b.fresh(easy, n, "follow-up", "first")
    seconds = b.fresh(m.deer, len(firsts), "follow-up", "second")
    for e, q in zip(firsts, seconds):
        rng = b.rng("follow-up", e.id)
        tool = m.seal_tools[e.calls[0].name]
        result = simulate(tool, plain(e.calls[0].arguments), b.seed)
        gold = [b.key("seal-tools", tool), b.key("tooldeer", q.tool)]
        tools = gold + b.far.draw(gold, rng.randint(1, 3), rng)
        rng.shuffle(tools)
        messages = [
            user(e.query),
            call_turn(e.calls, 0),
            result_turn(0, result),
            {"role": "assistant", "content": reply_text(result)},
            user(q.query),
        ]
        b.add(
            "multi-turn",
            "follow-up",
            f"{seal_source(e)}+tooldeer/{q.id}",
            messages,
            tools,
            [q.call],
        )


def formats(b: Builder) -> None:
    for d in _hand(b, "formats"):
        tools = [b.key("hand", b.m.hand_tools[t]) for t in d["tools"]]
        messages = [{"role": "system", "content": d["system"]}] if d.get("system") else []
        alternatives: dict[int, dict[str, list[Any]]] = {}
        for key, values in (d.get("alternatives") or {}).items():
            index, _, arg = key.partition(".")
            alternatives.setdefault(int(index), {})[arg] = list(values)
        calls = [ToolCall(c["name"], c["arguments"]) for c in d["calls"]]
        b.add(
            "formats",
            d["aspect"],
            f"handwritten/formats/{d['id']}",
            [*messages, user(d["query"])],
            tools,
            calls,
            alternatives,
            ground=False,
        )


def build_split(m: Material, seed: int, table: dict[str, dict[str, Any]],
                distractors: Distractors) -> list[SuiteItem]:  # fmt: skip
    """Every item of one split, in CATEGORIES order."""
    counts = COUNTS[m.split]
    b = Builder(m, seed, table, distractors)
    simple_and_multiple(b, counts)
    parallel(b, counts["parallel"])
    parallel_multiple(b, counts["parallel-multiple"])
    dependent(b)
    declines(b, counts)
    finished = multi_turn(b, counts)
    chit_chat(b, counts["chit-chat-lists"], finished)
    chat(b, counts.get("nosearch", 0))
    formats(b)
    order = {c: i for i, c in enumerate(CATEGORIES)}
    return sorted(b.items, key=lambda it: (order[it.category], it.id))


def build_suite(root: str | Path, seed: int = 0, hand_dir: Path | None = None,
                encoder: Any = None) -> dict[str, Any]:  # fmt: skip
    """{"tools": table, "test": items, "dev": items, "quick": ids, "build": record}."""
    from toollearn.evaluation.calls_sources import HANDWRITTEN

    table: dict[str, dict[str, Any]] = {}
    out: dict[str, Any] = {"quick": {}}
    dropped = {}
    distractors = None
    for split in ("test", "dev"):
        m = load_material(root, split, hand_dir or HANDWRITTEN)
        if distractors is None:  # the same tools for both splits
            pool = [(tool_key("tooldeer", t), t) for t in m.deer_tools.values()]
            pool += [(tool_key("seal-tools", t), t) for t in m.seal_tools.values()]
            pool += [(tool_key("hand", t), t) for t in m.hand_tools.values()]
            distractors = Distractors(pool, encoder)
        out[split] = build_split(m, seed, table, distractors)
        out["quick"][split] = quick_ids(out[split], seed)
        dropped[split] = dict(sorted(m.dropped.items()))
    out["tools"] = dict(sorted(table.items()))
    out["build"] = {"seed": seed, "near_tool": NEAR_TOOL, "dropped": dropped,
                    "counts": {s: _counts(out[s]) for s in ("test", "dev")},
                    "gold_arguments": {s: _free(out[s]) for s in ("test", "dev")}}  # fmt: skip
    return out


def _free(items: Sequence[SuiteItem]) -> dict[str, int]:
    """Gold arguments scored and free (never stated in the conversation)."""
    calls = [c for it in items for c in it.calls]
    return {"scored": sum(c.scored() for c in calls), "free": sum(len(c.free) for c in calls)}


def _counts(items: Sequence[SuiteItem]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for it in items:
        kinds = out.setdefault(it.category, {})
        kinds[it.kind] = kinds.get(it.kind, 0) + 1
    return out


def quick_ids(items: Sequence[SuiteItem], seed: int) -> list[str]:
    """QUICK items per category, drawn from the seed."""
    ids = []
    for c in CATEGORIES:
        group = [it.id for it in items if it.category == c]
        ids += sorted(random.Random(f"{seed}:quick:{c}").sample(group, min(QUICK, len(group))))
    return ids


def write_suite(built: dict[str, Any], out: str | Path) -> dict[str, str]:
    """Write tools.json, test.jsonl, dev.jsonl, quick.json and build.json; their sha256s."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "tools.json": json.dumps(built["tools"], indent=1, ensure_ascii=False) + "\n",
        "quick.json": json.dumps(built["quick"], indent=1) + "\n",
        **{f"{s}.jsonl": "".join(json.dumps(it.to_dict(), ensure_ascii=False) + "\n"
                                 for it in built[s]) for s in ("test", "dev")},
    }  # fmt: skip
    hashes = {}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        hashes[name] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    record = {**built["build"], "sha256": hashes}
    (folder / "build.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return hashes
