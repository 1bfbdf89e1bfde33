"""The general tool-calling mixture (formats.answers.tool_calls) for any user's tools.

Kinds, each a conversation exactly as `agents.tool_calls.ToolCallsAgent` holds it:
- one: one tool listed, one call;       pick: several tools listed, one call;
- parallel: several calls of one tool with different values;
- multi: several different tools in one call list;
- nested: a call, its (simulated) result as a `tool` message, then a call that takes a value
  from that result (two samples: the first turn and the second);
- answer: after the calls and their results, `[]` and a reply built from the results (so the
  model learns to stop calling);
- none: no listed tool fits the request (another tool's request), answered `[]` and a
  decline (about 12%);
- missing: a request that leaves out a required value, answered `[]` and a question for it.
Part of the copies rename every tool and parameter to random strings (function masking, so
the model reads descriptions rather than names), the listed tools are shuffled, and optional
parameters are sometimes filled and sometimes left out. Values come by meaning
(`datagen.realistic`), requests are written as people write them (`datagen.requests`), results
are shaped by the tool (`datagen.results`), and every instance passes `datagen.checker`.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Sequence
from typing import Any

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message, Tool, ToolCall
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions, QueryIndex
from toollearn.datagen.realistic import NoValue, fill_arguments
from toollearn.datagen.requests import referring_request, write_request
from toollearn.formats.answers import tool_calls

DEFAULT_MIX = {"one": 0.12, "pick": 0.2, "parallel": 0.12, "multi": 0.16, "nested": 0.1,
               "answer": 0.14, "none": 0.12, "missing": 0.06}  # fmt: skip
DECLINES = (
    "None of my tools can do that, so I can't help with this request.",
    "I don't have a tool for that.",
    "That is outside what the available tools can do.",
    "Sorry, no listed tool fits this request.",
    "I can't do this with the tools I have.",
)


def _random_name(rng: random.Random, prefix: str) -> str:
    return prefix + "_" + "".join(rng.choices(string.ascii_lowercase + string.digits, k=6))


def mask(tools: Sequence[Tool], calls: Sequence[ToolCall], rng: random.Random):
    """Tools and calls with every tool and parameter renamed to random strings."""
    names = {t.name: _random_name(rng, "fn") for t in tools}
    params = {t.name: {p: _random_name(rng, "p") for p in t.properties} for t in tools}
    masked = []
    for t in tools:
        rename = params[t.name]
        schema = dict(t.parameters)
        schema["properties"] = {rename[k]: v for k, v in t.properties.items()}
        schema["required"] = [rename[k] for k in t.required]
        meta = {**t.metadata, "alias_of": t.name, "original_params": list(t.properties)}
        masked.append(Tool(names[t.name], t.description, schema, t.responses, t.category, meta))
    new_calls = [
        ToolCall(names[c.name], {params[c.name].get(k, k): v for k, v in c.arguments.items()})
        for c in calls
    ]
    return masked, new_calls


def _fits(value: Any, spec: Any) -> bool:
    """Whether a simulated output value has the type a parameter declares."""
    jtype = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(spec, dict) and spec.get("enum"):
        return value in spec["enum"]
    if isinstance(value, bool):
        return jtype == "boolean"
    if isinstance(value, int | float):
        return jtype in ("number", "integer") and (jtype == "number" or isinstance(value, int))
    return jtype in (None, "string")


class MixtureBuilder:
    """Builds the samples of each kind from a tool pool (values and queries seeded)."""

    def __init__(self, tools: Sequence[Tool], p_mask: float = 0.2, max_listed: int = 6):
        if not tools:
            raise ValueError("the mixture needs at least one tool")
        names = [t.name for t in tools]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"tool names must be unique; listed more than once: {twice}")
        self.tools, self.p_mask, self.max_listed = list(tools), p_mask, max_listed

    def listed(self, gold: Sequence[Tool], rng: random.Random, extra: int) -> list[Tool]:
        """The gold tools plus up to `extra` others (at most max_listed in all), shuffled."""
        others = [t for t in self.tools if t not in gold]
        room = max(0, min(extra, self.max_listed - len(gold), len(others)))
        shown = list(gold) + rng.sample(others, room)
        rng.shuffle(shown)
        return shown

    def calls_for(self, kind: str, rng: random.Random) -> tuple[list[Tool], list[ToolCall]]:
        if kind == "parallel":
            tool = rng.choice([t for t in self.tools if t.properties] or self.tools)
            calls = [
                ToolCall(tool.name, fill_arguments(tool, rng)) for _ in range(rng.randint(2, 3))
            ]
            return [tool], calls
        k = rng.randint(2, min(4, len(self.tools))) if kind in ("multi", "nested") else 1
        if kind == "missing":
            fits = [t for t in self.tools if t.required] or self.tools
            gold = [rng.choice(fits)]
            return gold, [ToolCall(gold[0].name, fill_arguments(gold[0], rng))]
        gold = rng.sample(self.tools, max(1, min(k, len(self.tools))))
        return gold, [ToolCall(t.name, fill_arguments(t, rng)) for t in gold]

    def conversation(self, kind: str, rng: random.Random):
        """(query, listed tools, [(history, target)], gold tool names) for one instance."""
        from toollearn.datagen.results import realistic_result as simulate

        try:
            gold, calls = self.calls_for(kind, rng)
        except NoValue:
            return None
        if kind == "nested" and len(calls) >= 2:
            return self._nested(gold[:2], calls[:2], rng)
        if len({json.dumps(c.to_dict(), sort_keys=True) for c in calls}) < len(calls):
            return None  # parallel calls drew the same values
        query = write_request(calls, {t.name: t for t in gold}, rng)[0]
        if _faults(query, calls, gold):
            return None
        if kind == "missing":
            from toollearn.datagen.requests import missing_request

            made = missing_request(calls[0], gold[0], rng)
            if made is None:
                return None
            asked, question, _ = made
            if _faults(asked, [], gold, question):
                return None
            shown = self.listed(gold, rng, rng.randint(0, 3))
            return asked, shown, [([], tool_calls.render_target((), shown, question))], []
        if kind == "none":
            shown = [t for t in self.listed([], rng, rng.randint(1, 4)) if t not in gold]
            if not shown:
                return None
            return (
                query,
                shown,
                [([], tool_calls.render_target((), shown, rng.choice(DECLINES)))],
                [],
            )
        extra = 0 if kind == "one" else rng.randint(1, 4)
        shown = self.listed(gold, rng, extra)
        turns = [([], tool_calls.render_calls(calls, shown))]
        if kind == "answer":
            from toollearn.datagen.results import answer_text

            by_name = {t.name: t for t in gold}
            results = [(c, simulate(by_name[c.name], c.arguments, rng.randrange(10**6)))
                       for c in calls]  # fmt: skip
            if any(out is None for _, out in results):
                return None  # a result nothing says the shape of
            history = [Message("assistant", turns[0][1])] + [
                tool_calls.tool_result_message(c, out) for c, out in results
            ]
            reply = " ".join(answer_text(by_name[c.name], out, rng) for c, out in results)
            turns = [(history, tool_calls.render_target((), shown, reply))]
        return query, shown, turns, [t.name for t in gold]

    def _nested(self, gold: list[Tool], calls: list[ToolCall], rng: random.Random):
        from toollearn.datagen.results import realistic_result as simulate

        first, second = calls
        out = simulate(gold[0], first.arguments, rng.randrange(10**6))
        if out is None:
            return None
        scalars = [(k, v) for k, v in out.items() if isinstance(v, str | int | float)]
        params = list(gold[1].properties)
        if not scalars or not params:
            return None
        field, value = rng.choice(scalars)
        params = [p for p in params if _fits(value, gold[1].properties[p])]
        if not params:
            return None
        param = rng.choice(params)
        from toollearn.datagen.checker import value_faults

        if value_faults(value, gold[1].properties[param], param):
            return None  # e.g. a status where a date is asked for
        by_name = {t.name: t for t in gold}
        query = referring_request(first, by_name[first.name], second, by_name[second.name], param,
                                  field, rng)
        shown = self.listed(gold, rng, rng.randint(0, 3))
        call1 = tool_calls.render_calls([first], shown)
        final = ToolCall(second.name, {**second.arguments, param: value})
        history = [Message("assistant", call1), tool_calls.tool_result_message(first, out)]
        turns = [([], call1), (history, tool_calls.render_calls([final], shown))]
        return query, shown, turns, [t.name for t in gold]


def _faults(query: str, calls: Sequence[ToolCall], gold: Sequence[Tool], text: str = ""
            ) -> list[str]:  # fmt: skip
    """The checker's faults of calls for a request (`datagen.checker`)."""
    from toollearn.datagen.checker import check
    from toollearn.datagen.schema_variety import Conversation
    from toollearn.formats.openai_messages import openai_tool

    conv = Conversation([openai_tool(t) for t in gold], [{"role": "user", "content": query}],
                        list(calls), text, [query])  # fmt: skip
    return check(conv)


def generate_mixture(
    tools: Sequence[Tool],
    n: int,
    *,
    seed: int = 0,
    mix: dict[str, float] | None = None,
    p_mask: float = 0.2,
    exclusions: Exclusions | None = None,
    source: str = "tools",
    max_tries: int = 10,
    docs: str = "json",
) -> Generated:
    """n instances of the general mixture (nested ones give two samples), seeded; tools shown
    in the `docs` style of `formats.answers.tool_calls`."""
    mix = mix or DEFAULT_MIX
    banned = exclusions.tools if exclusions else set()
    pool = [t for t in tools if t.name not in banned]
    builder = MixtureBuilder(pool, p_mask)
    out = Generated(config={"generator": "mixture", "n": n, "seed": seed, "mix": mix,
                            "p_mask": p_mask, "tools": len(pool), "source": source,
                            **({"docs": docs} if docs != "json" else {})})  # fmt: skip
    held = QueryIndex(exclusions.queries if exclusions else ())
    kinds = list(mix)
    for i in range(n):
        rng = random.Random(f"mixture:{seed}:{i}")
        kind = rng.choices(kinds, weights=[mix[k] for k in kinds])[0]
        for _ in range(max_tries):
            made = builder.conversation(kind, rng)
            if made is not None:
                break
            out.reject(f"{kind}: the tools drawn cannot make one (drawn again)")
        else:
            continue
        query, shown, turns, gold = made
        found = held.match(query)
        if found:
            out.reject(f"held-out query ({found[0]})")  # exact, or a near copy
            continue
        out.samples += _samples(
            query, shown, turns, gold, kind, rng.random() < p_mask, rng, i, docs
        )
    return out


def _samples(query, shown, turns, gold, kind, masked, rng, i, docs) -> list[TrainingSample]:
    """The turns of one instance as samples (masked copies rename tools and parameters)."""
    if masked:
        table = {t.name: m for t, m in zip(shown, mask(shown, [], rng)[0])}
        shown_out = list(table.values())
        turns = [(_rename_history(h, table), _rename_calls(target, table)) for h, target in turns]
    else:
        shown_out = shown
    samples = []
    for step, (history, target) in enumerate(turns):
        messages = tool_calls.render_messages(query, shown_out, history, docs)
        meta = {"kind": kind, "query": query, "tools": [t.name for t in shown], "masked": masked,
                "gold": gold, "turn": step}  # fmt: skip
        samples.append(TrainingSample(tuple(messages), target, tools=tuple(shown_out),
                                      task="tool-calls", role="agent",
                                      source=f"mixture/{i}:{step}", metadata=meta))  # fmt: skip
    return samples


def _rename_calls(text: str, table: dict[str, Tool]) -> str:
    """A rendered call list (or `[]` answer) with tools and parameters renamed as masked."""
    answer = tool_calls.parse(text)
    if answer.declined:
        return text
    calls = []
    for c in answer.calls:
        masked = table[c.name]
        rename = dict(zip(masked.metadata["original_params"], masked.properties))
        calls.append(ToolCall(masked.name, {rename.get(k, k): v for k, v in c.arguments.items()}))
    return tool_calls.render_calls(calls, list(table.values()))


def _rename_history(history: list[Message], table: dict[str, Tool]) -> list[Message]:
    out = []
    for m in history:
        if m.role == "assistant":
            out.append(Message("assistant", _rename_calls(m.content, table)))
        elif m.role == "tool":
            payload = json.loads(m.content)
            payload["name"] = table[payload["name"]].name
            out.append(Message("tool", json.dumps(payload, ensure_ascii=False)))
        else:
            out.append(m)
    return out
