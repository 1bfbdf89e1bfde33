"""The kinds of `datagen general`, one per category of the general suite (`eval calls`).

Each kind builds one instance (one or two `Conversation`s) from a seeded `random.Random`:
natural ToolDEER requests where they exist (`P_NATURAL` of the instances of kinds that have
both), template requests over the Seal-Tools and apps pools otherwise. Tool lists hold the
gold tools and far distractors (never a tool close to a gold one), shuffled. Tool results
are shaped by the tool (`datagen.results`; a tool whose result nothing describes makes no
result kind) and sent as JSON text, as clients send them; replies state their values
(`results.answer_text`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from toollearn.core.types import Tool, ToolCall
from toollearn.datagen.general_sources import NaturalQuery, Sources, chitchat, pick, tools_phrase
from toollearn.datagen.results import answer_text
from toollearn.datagen.schema_variety import Conversation
from toollearn.formats.openai_messages import call_turn, openai_tool, result_turn, user

P_NATURAL = 0.6
_PLACEHOLDER = re.compile(r"^[YMDHhms]+(?:[-:/ .][YMDHhms]+)+$")
DECLINES = (
    "None of my tools can do that, so I can't help with this request.",
    "I don't have a tool for that. I can help with {tools}.",
    "Sorry, that is outside what my tools do: they cover {tools}.",
    "I can't do this with the tools I have. Is there something else I can help with?",
    "That isn't something my tools support. I can help with {tools} instead.",
    "Unfortunately none of the available tools fits this request.",
    "I'm not able to do that here; my tools are for {tools}.",
)
PERSONAS = (
    "You are a helpful assistant.",
    "You are a friendly assistant. Keep answers short.",
    "You are an assistant for a small business. Be concise and polite.",
    "Answer in a professional tone.",
    "You are a concise assistant that uses tools when they help.",
    "Be brief and accurate.",
    "You help users with everyday tasks.",
)
CONTEXTS = (
    "The user's {words} is {value}.",
    "Use {value} as the {words} unless the user says otherwise.",
    "Default {words}: {value}.",
    "Context: the user's {words} is {value}.",
)


class Kinds:
    """Builds instances of every kind from the sources (module doc)."""

    def __init__(self, src: Sources, banned: Collection[str] = ()):
        self.src, self.banned = src, frozenset(banned)  # held-out tool names
        self.by_tool = {k: v for k, v in src.by_tool().items() if len(v) >= 2}
        self.questions = sorted(src.answers)  # the chat kind takes them in turn
        self.asked = 0

    # -- the pieces ------------------------------------------------------------------------

    def tool(self, key: str) -> Tool:
        return self.src.tools[key]

    def shown(self, gold: Sequence[str], lo: int, hi: int, rng: random.Random
              ) -> list[dict[str, Any]]:  # fmt: skip
        """The gold tools and lo..hi far distractors, shuffled, as OpenAI tools."""
        keys = list(dict.fromkeys(gold))
        keys += self.src.far.draw(keys, rng.randint(lo, hi), rng)
        rng.shuffle(keys)
        return [openai_tool(self.tool(k)) for k in keys]

    def natural(self, rng: random.Random) -> NaturalQuery:
        return pick(rng, self.src.natural)

    def template(self, rng: random.Random, n_calls: int = 1, same_tool: bool = False,
                 p_optional: float = 0.5) -> tuple[list[str], list[ToolCall], str]:  # fmt: skip
        """(tool keys, calls, a template request for them)."""
        from toollearn.datagen.realistic import NoValue, fill_arguments
        from toollearn.datagen.requests import write_request

        if same_tool:
            keys = [pick(rng, [k for k in self.src.templates if self.tool(k).properties])]
            keys = keys * n_calls
        else:
            keys = rng.sample(self.src.templates, n_calls)
        tools = {self.tool(k).name: self.tool(k) for k in keys}
        if len(tools) < len(set(keys)):
            raise _Retry("two template tools share a name")
        try:
            calls = [ToolCall(self.tool(k).name, fill_arguments(self.tool(k), rng, p_optional))
                     for k in keys]  # fmt: skip
        except NoValue as why:
            raise _Retry(f"no realistic value: {why}") from None
        if len({json.dumps(c.arguments, sort_keys=True) for c in calls}) < len(calls):
            raise _Retry("parallel calls drew the same values")
        if any(_PLACEHOLDER.match(v) for c in calls for v in c.arguments.values()
               if isinstance(v, str)):  # fmt: skip
            raise _Retry("a value is a format placeholder (YYYY-MM-DD)")
        return keys, calls, write_request(calls, tools, rng)[0]

    def joined(self, rng: random.Random, same_tool: bool) -> tuple[list[str], list[NaturalQuery],
                                                                   str]:  # fmt: skip
        """2-3 natural requests joined into one: of one tool, or of different tools."""
        from toollearn.datagen.natural import join_queries

        k = 3 if rng.random() < 0.25 else 2
        if same_tool:
            group = self.by_tool[pick(rng, sorted(self.by_tool))]
            parts = rng.sample(group, min(k, len(group)))
        else:
            parts = [pick(rng, self.by_tool[t]) for t in rng.sample(sorted(self.by_tool), k)]
        if len({json.dumps(p.call.arguments, sort_keys=True) for p in parts}) < len(parts):
            raise _Retry("joined requests make the same call")
        query, _ = join_queries([p.query for p in parts], rng, self.src.decap)
        return [p.key for p in parts], parts, query

    def request(self, rng: random.Random) -> tuple[list[str], list[ToolCall], str, str]:
        """A one-call request: (keys, calls, query, source), natural or template."""
        if rng.random() < P_NATURAL:
            q = self.natural(rng)
            return [q.key], [q.call], q.query, q.id
        keys, calls, query = self.template(rng)
        return keys, calls, query, "template"

    def exchange(self, rng: random.Random) -> tuple[list[dict[str, Any]], list[str], str, str]:
        """A finished exchange: (messages: request, calls, results, reply; keys; query;
        source)."""
        from toollearn.datagen.results import realistic_result as simulate

        keys, calls, query, source = self.request(rng)
        result = simulate(self.tool(keys[0]), calls[0].arguments, rng.randrange(10**6))
        if result is None:
            raise _Retry("nothing says the shape of the tool's result")
        reply = answer_text(self.tool(keys[0]), result, rng)
        messages = [user(query), call_turn(calls, 0), result_turn(0, result),
                    {"role": "assistant", "content": reply}]  # fmt: skip
        return messages, keys, query, source

    # -- the kinds ---------------------------------------------------------------------------

    def single(self, rng: random.Random, lo: int, hi: int) -> list[Conversation]:
        """One call among lo..hi distractors."""
        keys, calls, query, source = self.request(rng)
        return [_conv(self, keys, self.shown(keys, lo, hi, rng), [user(query)], calls, [query],
                      source)]  # fmt: skip

    def simple(self, rng: random.Random) -> list[Conversation]:
        return self.single(rng, 0, 0)

    def multiple(self, rng: random.Random) -> list[Conversation]:
        return self.single(rng, 3, 19)

    def several(self, rng: random.Random, same_tool: bool, most: int, extra: int
                ) -> list[Conversation]:  # fmt: skip
        """Several calls in one turn (of one tool, or of 2..most tools), 0..extra distractors."""
        if rng.random() < P_NATURAL:
            keys, parts, query = self.joined(rng, same_tool)
            calls, source = [p.call for p in parts], "+".join(p.id for p in parts)
            queries = [p.query for p in parts]
        else:
            keys, calls, query = self.template(rng, rng.randint(2, most), same_tool)
            source, queries = "template", [query]
        return [_conv(self, keys, self.shown(keys, 0, extra, rng), [user(query)], calls,
                      queries, source)]  # fmt: skip

    def parallel(self, rng: random.Random) -> list[Conversation]:
        return self.several(rng, True, 3, 3)

    def parallel_multiple(self, rng: random.Random) -> list[Conversation]:
        return self.several(rng, False, 4, 4)

    def dependent(self, rng: random.Random) -> list[Conversation]:
        """A call whose result a second call reads: the first turn, then the second."""
        from toollearn.datagen.checker import value_faults
        from toollearn.datagen.mixture import _fits
        from toollearn.datagen.requests import referring_request
        from toollearn.datagen.results import realistic_result as simulate

        keys, calls, _ = self.template(rng, 2)
        first, second = (self.tool(k) for k in keys)
        out = simulate(first, calls[0].arguments, rng.randrange(10**6))
        if out is None:
            raise _Retry("nothing says the shape of the first tool's result")
        scalars = [(f, v) for f, v in out.items() if isinstance(v, str | int | float)
                   and not isinstance(v, bool)]  # fmt: skip
        params = [p for p in second.properties if scalars
                  and any(_fits(v, second.properties[p]) and _kin(f, p, first, second)
                          for f, v in scalars)]  # fmt: skip
        if not params:
            raise _Retry("no output of the first tool fits a parameter of the second")
        param = pick(rng, params)
        field, value = pick(rng, [(f, v) for f, v in scalars if _fits(v, second.properties[param])
                                  and _kin(f, param, first, second)])  # fmt: skip
        if value_faults(value, second.properties[param], param):
            raise _Retry("the first tool's output breaks the second's format")
        query = referring_request(calls[0], first, calls[1], second, param, field, rng)
        final = ToolCall(second.name, {**calls[1].arguments, param: value})
        shown = self.shown(keys, 0, 3, rng)
        later = [user(query), call_turn(calls[:1], 0), result_turn(0, out)]
        return [
            _conv(self, keys, shown, [user(query)], calls[:1], [query], "template", "first"),
            _conv(self, keys, shown, later, [final], [query], "template", "next"),
        ]

    def decline(self, rng: random.Random) -> list[Conversation]:
        keys, _, query, source = self.request(rng)
        others = self.src.far.draw(keys, rng.randint(1, 8), rng)
        if not others:
            raise _Retry("no far tools")
        shown = [openai_tool(self.tool(k)) for k in others]
        reply = pick(rng, DECLINES).format(tools=tools_phrase([self.tool(k) for k in others]))
        return [_conv(self, [], shown, [user(query)], [], [query], source, text=reply,
                      names=[self.tool(k).name for k in [*keys, *others]])]  # fmt: skip

    def chit_chat(self, rng: random.Random) -> list[Conversation]:
        talk = chitchat()
        if rng.random() < 0.3:  # a closing turn after a finished exchange
            messages, keys, query, source = self.exchange(rng)
            shown = self.shown(keys, 0, 4, rng)
            closing = pick(rng, talk["after_results"])
            return [
                _conv(
                    self,
                    keys,
                    shown,
                    [*messages, user(closing)],
                    [],
                    [query, closing],
                    source,
                    "after-results",
                    text=pick(rng, talk["after_results_replies"]),
                )
            ]
        category = pick(rng, sorted(talk["utterances"]))
        utterance = pick(rng, talk["utterances"][category])
        keys = rng.sample(sorted(self.src.tools), rng.randint(1, 8))
        tools = [self.tool(k) for k in keys]
        if len({t.name for t in tools}) < len(tools):
            raise _Retry("two tools share a name")
        reply = pick(rng, talk["replies"][category]).format(tools=tools_phrase(tools))
        shown = [openai_tool(t) for t in tools]
        return [_conv(self, [], shown, [user(utterance)], [], [utterance], "chitchat", category,
                      text=reply, names=[t.name for t in tools])]  # fmt: skip

    def chat(self, rng: random.Random) -> list[Conversation]:
        if self.asked >= len(self.questions):
            raise _Retry("no chat question left with an answer (--answers-engine)")
        question = self.questions[self.asked]
        self.asked += 1
        return [_conv(self, [], [], [user(question)], [], [question], "general-queries",
                      text=self.src.answers[question])]  # fmt: skip

    def multi_turn(self, rng: random.Random) -> list[Conversation]:
        from toollearn.datagen.results import realistic_result as simulate

        roll = rng.random()
        if roll < 0.4:  # the answer, after the results
            keys, calls, query, source = self.request(rng)
            result = simulate(self.tool(keys[0]), calls[0].arguments, rng.randrange(10**6))
            if result is None:
                raise _Retry("nothing says the shape of the tool's result")
            messages = [user(query), call_turn(calls, 0), result_turn(0, result)]
            reply = answer_text(self.tool(keys[0]), result, rng)
            return [_conv(self, keys, self.shown(keys, 0, 4, rng), messages, [], [query], source,
                          "answer", text=reply)]  # fmt: skip
        if roll < 0.7:  # the rest of the calls, after the first ones
            keys, calls, query = self.template(rng, rng.randint(2, 4))
            k = rng.randint(1, len(calls) - 1)
            messages = [user(query), call_turn(calls[:k], 0)]
            for i, (key, c) in enumerate(zip(keys[:k], calls[:k])):
                result = simulate(self.tool(key), c.arguments, rng.randrange(10**6))
                if result is None:
                    raise _Retry("nothing says the shape of a tool's result")
                messages.append(result_turn(i, result))
            return [_conv(self, keys, self.shown(keys, 0, 3, rng), messages, calls[k:], [query],
                          "template", "next-call")]  # fmt: skip
        messages, keys, query, source = self.exchange(rng)  # a follow-up request
        keys2, calls2, query2, source2 = self.request(rng)
        if self.tool(keys2[0]).name == self.tool(keys[0]).name:
            raise _Retry("the follow-up calls the same tool")
        both = keys + keys2
        return [_conv(self, both, self.shown(both, 0, 3, rng), [*messages, user(query2)], calls2,
                      [query, query2], f"{source}+{source2}", "follow-up")]  # fmt: skip


def _kin(field: str, param: str, first: Tool, second: Tool) -> bool:
    """Whether a result field and a parameter take the same kind of value (`datagen.realistic`):
    a date for a date, a city for a city, an id for an id; never a message for a location."""
    from toollearn.datagen.realistic import kind_of

    out = kind_of(field, first.responses.get(field) or {"type": "string"}, first)
    into = kind_of(param, second.properties.get(param), second)
    return out is not None and into is not None and out.name == into.name


class _Retry(Exception):
    """This draw cannot make an instance of the kind: draw again."""


def _conv(kinds: Kinds, keys: Sequence[str], tools: list[dict[str, Any]],
          messages: list[dict[str, Any]], calls: Sequence[ToolCall], queries: Sequence[str],
          source: str, sub: str = "", text: str = "", names: Sequence[str] = ()
          ) -> Conversation:  # fmt: skip
    shown = [t["function"]["name"] for t in tools]
    return Conversation(
        tools,
        messages,
        list(calls),
        text,
        list(queries),
        list(names) or shown,
        {"source": source, "sub": sub, "gold": [kinds.tool(k).name for k in keys]},
    )


Kind = Callable[[Kinds, random.Random], list[Conversation]]
KINDS: dict[str, Kind] = {
    "simple": Kinds.simple, "multiple": Kinds.multiple, "parallel": Kinds.parallel,
    "parallel-multiple": Kinds.parallel_multiple, "dependent": Kinds.dependent,
    "decline": Kinds.decline, "chit-chat": Kinds.chit_chat, "chat": Kinds.chat,
    "multi-turn": Kinds.multi_turn,
}  # fmt: skip
