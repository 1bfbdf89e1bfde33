"""General tool-calling training data at scale: `toollearn datagen general`.

Every category the general suite measures (`evaluation.calls_suite`), from training splits
only: natural ToolDEER requests on its 900 training tools, template requests over Seal-Tools'
training-eligible tools and the apps' APIs, hand-written small talk, general questions with the
base model's own answers, and optionally openly licensed function-calling conversations
(`general_import`). Kinds and their default shares (`DEFAULT_MIX`, of the instances):

- simple 0.08, multiple 0.16 (4-20 tools shown), parallel 0.08, parallel-multiple 0.10,
  dependent 0.05 (two turns each), multi-turn 0.15: calls, 0.62 in all;
- decline 0.12, chit-chat 0.08, chat 0.10: no call, 0.30 in all, because the general path's
  main failure was calling where nothing fits ("hi" answered with a call);
- missing 0.04: a request that leaves out a required value, answered by a question asking
  for it (`requests.missing_request`);
- formats 0.08: values as the schema asks (dates in words, enums, numbers in words, nested
  objects, a value only the user's system prompt states, optional arguments only when stated,
  declared defaults left out, naming styles).
Of the tool-bearing instances `P_MASK` get random tool and parameter names (function masking)
and `P_STYLE` another naming style (`schema_variety`).

Template requests take values by meaning (`datagen.realistic`) and are written as people write
them (`datagen.requests`); every instance passes the one checker (`datagen.checker`: schema,
formats, ranges, values stated in the conversation, no placeholder token) or is dropped with its
reason. Every sample is rendered through the server's own request path
(`serve.chat.parse_request`, the general format's renderer), so a training prompt is byte for
byte what `toollearn serve` and `eval calls` send. Held out (`benchmark_exclusions`,
`evaluation.calls_suite.held_out` and the defaults): the test and validation queries and tools
of `datagen.leakage`, every query of the general suite (both splits) and every tool it expects
called, its hand-written tools, the evaluation requests of nine other tool-calling benchmarks
(BFCL, APIBench, ACEBench, ToolBench, API-Bank, tau-bench, tau2-bench, ToolAlpaca, When2Call:
`data/benchmark_queries.NOTICE`), and any further list (`--exclude-queries`). A request that
equals or nearly copies (word-trigram Jaccard >= 0.7) a held-out one is dropped and counted.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Any

from toollearn.core.samples import TrainingSample
from toollearn.datagen.checker import check
from toollearn.datagen.dataset import Generated
from toollearn.datagen.general_kinds import CONTEXTS, KINDS, PERSONAS, Kinds, _conv, _Retry
from toollearn.datagen.general_sources import Sources, pick
from toollearn.datagen.leakage import Exclusions, QueryIndex
from toollearn.datagen.schema_variety import (
    FORMATS,
    STYLES,
    Conversation,
    masked,
    restyled,
    with_defaults,
)
from toollearn.serve.chat import RequestError

DEFAULT_MIX = {"simple": 0.08, "multiple": 0.16, "parallel": 0.08, "parallel-multiple": 0.10,
               "dependent": 0.05, "decline": 0.12, "chit-chat": 0.08, "chat": 0.10,
               "multi-turn": 0.15, "formats": 0.08, "missing": 0.04}  # fmt: skip
P_MASK = 0.15
P_STYLE = 0.2
TRIES = 20
FORMAT_SUBS = ("date-in-words", "enum", "number-in-words", "nested-object", "system-context",
               "system-persona", "optional-absent", "optional-present", "naming-style")  # fmt: skip


BENCHMARK_QUERIES = Path(__file__).with_name("data") / "benchmark_queries.jsonl.gz"


def benchmark_queries() -> dict[str, list[str]]:
    """Other benchmarks' evaluation requests by benchmark (`data/benchmark_queries.NOTICE`)."""
    import gzip
    import json

    out: dict[str, list[str]] = {}
    with gzip.open(BENCHMARK_QUERIES, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out.setdefault(rec["source"].split("/")[0], []).append(rec["query"])
    return out


def benchmark_exclusions() -> Exclusions:
    """The evaluation requests of other tool-calling benchmarks (`benchmark_queries`), held out
    of the general data besides the defaults and the general suite's own
    (`evaluation.calls_suite.held_out`)."""
    ex = Exclusions()
    for bench, found in benchmark_queries().items():
        ex.add_queries(found, f"{bench} evaluation requests (datagen/data/benchmark_queries)")
    return ex


def formats(kinds: Kinds, rng: random.Random) -> list[Conversation]:
    """A one-call request whose values must follow the schema (FORMAT_SUBS)."""
    from toollearn.formats.openai_messages import user

    sub = pick(rng, FORMAT_SUBS)
    if sub in FORMATS:
        for _ in range(TRIES):
            keys, calls, query, source = kinds.request(rng)
            conv = _conv(kinds, keys, kinds.shown(keys, 0, 5, rng), [user(query)], calls, [query],
                         source, sub)  # fmt: skip
            made = FORMATS[sub](conv, rng)
            if made is not None:
                return [made]
        raise _Retry(f"no request to write as {sub}")
    if sub == "system-context":
        return [_system_context(kinds, rng)]
    if sub.startswith("optional"):
        keys, calls, query = kinds.template(rng, p_optional=1.0 if sub.endswith("present") else 0)
        if all(p in kinds.tool(keys[0]).required for p in kinds.tool(keys[0]).properties):
            raise _Retry("the tool has no optional parameter")
        conv = _conv(kinds, keys, kinds.shown(keys, 0, 5, rng), [user(query)], calls, [query],
                     "template", sub)  # fmt: skip
        return [with_defaults(conv, rng) or conv if sub.endswith("absent") else conv]
    keys, calls, query, source = kinds.request(rng)
    conv = _conv(kinds, keys, kinds.shown(keys, 0, 5, rng), [user(query)], calls, [query], source,
                 sub)  # fmt: skip
    if sub == "system-persona":
        conv.messages = [{"role": "system", "content": pick(rng, PERSONAS)}, *conv.messages]
        return [conv]
    styled = restyled(conv, pick(rng, STYLES), kinds.banned)
    if styled is None:
        raise _Retry("restyled names collide or name a held-out tool")
    return [styled]


def missing(kinds: Kinds, rng: random.Random) -> list[Conversation]:
    """A request that leaves out a required value, answered by a question asking for it."""
    from toollearn.datagen.requests import missing_request
    from toollearn.formats.openai_messages import user

    keys, calls, _ = kinds.template(rng)
    made = missing_request(calls[0], kinds.tool(keys[0]), rng)
    if made is None:
        raise _Retry("the tool requires nothing a person could leave out")
    query, question, param = made
    return [_conv(kinds, [], kinds.shown(keys, 0, 4, rng), [user(query)], [], [query],
                  "template", f"asks for {param}", text=question)]  # fmt: skip


def _system_context(kinds: Kinds, rng: random.Random) -> Conversation:
    """A required string value left out of the request and stated by the system prompt."""
    from toollearn.core.types import ToolCall
    from toollearn.core.words import param_words
    from toollearn.datagen.requests import write_request
    from toollearn.formats.openai_messages import user

    keys, calls, _ = kinds.template(rng)
    tool, call = kinds.tool(keys[0]), calls[0]
    options = [p for p in tool.required if isinstance(call.arguments.get(p), str)]
    if len(tool.required) < 2 or not options:
        raise _Retry("no second required string argument")
    param = pick(rng, options)
    rest = ToolCall(call.name, {k: v for k, v in call.arguments.items() if k != param})
    query = write_request([rest], {tool.name: tool}, rng)[0]
    system = pick(rng, CONTEXTS).format(words=param_words(param), value=call.arguments[param])
    messages = [{"role": "system", "content": system}, user(query)]
    return _conv(kinds, keys, kinds.shown(keys, 0, 5, rng), messages, calls, [query],
                 "template", "system-context")  # fmt: skip


def vary(conv: Conversation, rng: random.Random, banned: Collection[str] = ()) -> Conversation:
    """Function masking or another naming style on a share of tool-bearing conversations (never
    one that would name a `banned` tool)."""
    if not conv.tools or conv.meta.get("sub") == "naming-style":
        return conv
    roll = rng.random()
    if roll < P_MASK:
        return masked(conv, rng)
    if roll < P_MASK + P_STYLE:
        return restyled(conv, pick(rng, STYLES), banned) or conv
    return conv


def render(conv: Conversation, kind: str, sid: str, docs: str = "json") -> TrainingSample:
    """The sample as the server renders the conversation (prompt) and the answer (target)."""
    from toollearn.formats.answers import tool_calls
    from toollearn.serve.chat import parse_request

    body: dict[str, Any] = {"messages": conv.messages}
    if conv.tools:
        body["tools"] = conv.tools
    job = parse_request(body, "general", 1 << 20, docs)
    if conv.calls:
        target = tool_calls.render_calls(conv.calls, job.tools)
    elif job.tools:
        target = tool_calls.render_target([], job.tools, conv.text)
    else:
        target = conv.text.strip()
    meta = {"kind": kind, **conv.meta, "queries": conv.queries, "tools": conv.names}
    return TrainingSample(tuple(job.messages), target, tools=tuple(job.tools),
                          task="tool-calls" if job.tools else "chat", role="agent",
                          source=f"general/{kind}/{sid}", metadata=meta)  # fmt: skip


def generate_general(src: Sources, n: int, *, seed: int = 0, mix: dict[str, float] | None = None,
                     exclusions: Exclusions | None = None, docs: str = "json",
                     out: Generated | None = None) -> Generated:  # fmt: skip
    """About n instances in the kinds' shares (`DEFAULT_MIX`), seeded; see the module doc."""
    mix = mix or DEFAULT_MIX
    unknown = set(mix) - set(DEFAULT_MIX)
    if unknown:
        raise ValueError(f"unknown kinds {sorted(unknown)}; use {', '.join(DEFAULT_MIX)}")
    out = out or Generated()
    held = QueryIndex(exclusions.queries if exclusions else ())
    kinds = Kinds(src, exclusions.tools if exclusions else ())
    total = sum(mix.values())
    counts = {k: round(n * share / total) for k, share in mix.items()}
    for kind, count in counts.items():
        build = {"formats": formats, "missing": missing}.get(kind) or KINDS[kind]
        for i in range(count):
            rng = random.Random(f"{seed}:general:{kind}:{i}")
            convs = _draw(build, kinds, rng, kind, out)
            if convs is None:
                continue
            hit = next((held.match(q) for c in convs for q in c.queries if held.match(q)), None)
            if hit:
                out.reject(f"{kind}: a held-out query or a near copy ({hit[0]})")
                continue
            faults = next((f for c in convs if (f := check(c))), None)
            if faults:
                out.reject(f"{kind}: checker: {_reason(faults[0])}")
                continue
            for turn, conv in enumerate(convs):
                try:
                    out.samples.append(
                        render(vary(conv, rng, kinds.banned), kind, f"{i}:{turn}", docs)
                    )
                except RequestError as exc:  # e.g. two shown tools with one name
                    out.reject(f"{kind}: the server path refuses it ({exc.message})")
    out.config.update(generator="general", n=n, seed=seed, mix=mix, counts=counts,
                      p_mask=P_MASK, p_style=P_STYLE, docs=docs,
                      sources=_sources(out.samples))  # fmt: skip
    return out


def _reason(fault: str) -> str:
    """A checker fault without its tool and parameter names (so reasons add up by kind)."""
    head, _, rest = fault.partition(": ")
    if head not in ("schema", "range", "format", "grounding"):
        return fault
    return f"{head}: " + re.sub(r"^\S+ ", "a value ", rest)


def _draw(build: Any, kinds: Kinds, rng: random.Random, kind: str, out: Generated
          ) -> list[Conversation] | None:  # fmt: skip
    for _ in range(TRIES):
        try:
            return build(kinds, rng)
        except _Retry as why:
            out.reject(f"{kind}: {why} (drawn again)")
    out.reject(f"{kind}: no instance after {TRIES} draws")
    return None


def _sources(samples: list[TrainingSample]) -> dict[str, dict[str, int]]:
    """Samples per kind and source family (natural ToolDEER, template, small talk, ...)."""
    out: dict[str, Counter] = {}
    for s in samples:
        source = s.metadata.get("source", "")
        family = "natural" if source.startswith("tooldeer/") else source.split("/")[0] or "?"
        if "+" in source and source.startswith("tooldeer/"):
            family = "natural"
        out.setdefault(s.metadata["kind"], Counter())[family] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}
