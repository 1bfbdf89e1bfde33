"""Seal-Tools instances (paper section 3.1): single-tool, multi-tool and nested calling lists over
any tool pool, written as queries, checked, and shown with 5 candidate tools.

- single: one tool, its required arguments and some optional ones.
- multi: 2-5 related tools (same sub-field, else same field, else retrieval neighbours), or,
  with a `SealShape`, a drawn number of tools, each from a different field for a share of them
  (the paper's cross-field callings: LLMs picked tools that combine from a large candidate list).
- nested: a later call takes an earlier call's response field as an argument (`API_call_k`),
  chosen where a response field and a parameter agree in name (or share a word) and type;
  sometimes one more independent call (with a `SealShape`: as many as its counts draw).
Values come from the tools' own examples ("e.g., ..."), else typed generators (datagen.values);
the query writer is pluggable (templates by default: datagen.phrasing; varied templates shaped
like the dev split: datagen.phrasing_varied; any `Engine` as teacher: datagen.teacher). Every
instance is checked: calls valid against the schemas, every literal value findable in the query
(a date also in words), references to earlier calls only (a DAG), no duplicate query;
rejections are counted by reason. Candidates are the paper's protocol: the gold tools plus the
retriever's top distractors, 5 in all, shuffled.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toollearn.core.types import Example, Tool, ToolCall, link_refs
from toollearn.core.words import param_words
from toollearn.datagen.dataset import Generated
from toollearn.datagen.leakage import Exclusions, normalise
from toollearn.datagen.phrasing import literals, write_query
from toollearn.datagen.samples import to_training_sample
from toollearn.datagen.values import spoken_forms, value_for

KINDS = ("single", "multi", "nested")
DEFAULT_MIX = {"single": 0.3, "multi": 0.55, "nested": 0.15}


@dataclass(frozen=True)
class SealShape:
    """How multi-tool calling lists are drawn. calls: weights of the number of calls of a
    multi-tool instance (nested ones too: producer, consumer, then independent calls);
    cross_field: the share of them whose tools each come from a different field (the rest are
    related tools: same sub-field, field, neighbours)."""

    calls: dict[int, float]
    cross_field: float = 0.0

    def __post_init__(self):
        if (
            not self.calls
            or min(self.calls) < 2
            or min(self.calls.values()) < 0
            or not any(self.calls.values())
        ):
            raise ValueError(f"calls weights need counts >= 2 and a positive weight: {self.calls}")
        if not 0.0 <= self.cross_field <= 1.0:
            raise ValueError(f"cross_field is a share in [0, 1], not {self.cross_field}")

    def count(self, rng: random.Random) -> int:
        counts = sorted(self.calls)
        return rng.choices(counts, weights=[self.calls[c] for c in counts])[0]

    def to_dict(self) -> dict[str, Any]:
        return {"calls": {str(k): v for k, v in sorted(self.calls.items())},
                "cross_field": self.cross_field}  # fmt: skip


def parse_calls(text: str) -> dict[int, float]:
    """{3: 75.0, 4: 17.0} from "3:75,4:17" (number of calls: weight)."""
    out: dict[int, float] = {}
    for part in text.split(","):
        count, _, weight = part.strip().partition(":")
        try:
            out[int(count)] = float(weight)
        except ValueError:
            raise ValueError(f"{part!r} is not COUNT:WEIGHT (e.g. 3:75)") from None
    return out


QueryWriter = Callable[[Sequence[ToolCall], dict[str, Tool], random.Random], "str | None"]


class ToolPool:
    """Tools grouped by sub-field and field, with a retriever for neighbours and candidates."""

    def __init__(self, tools: Sequence[Tool], exclusions: Exclusions | None = None):
        from toollearn.retrieval import ToolRetriever

        banned = exclusions.tools if exclusions else set()
        self.tools = [t for t in tools if t.name not in banned]
        self.by_name = {t.name: t for t in self.tools}
        self.sub: dict[str, list[Tool]] = {}
        self.field: dict[str, list[Tool]] = {}
        for t in self.tools:
            self.sub.setdefault(t.category, []).append(t)
            self.field.setdefault(t.category.split("/")[0], []).append(t)
        self.retriever = ToolRetriever(self.tools, "bm25")

    def related(self, first: Tool, n: int, rng: random.Random) -> list[Tool]:
        """n tools related to `first` (itself included): its sub-field, field, neighbours."""
        chosen = [first]
        for group in (self.sub.get(first.category, []),
                      self.field.get(first.category.split("/")[0], [])):  # fmt: skip
            others = [t for t in group if t not in chosen]
            rng.shuffle(others)
            chosen += others[: n - len(chosen)]
            if len(chosen) >= n:
                return chosen
        hits = self.retriever.search(first.description or first.name, 3 * n)
        chosen += [h.item for h in hits if h.item not in chosen][: n - len(chosen)]
        return chosen

    def across_fields(self, first: Tool, n: int, rng: random.Random) -> list[Tool]:
        """`first` and n - 1 tools drawn from other fields, one field each."""
        here = first.category.split("/")[0]
        fields = [f for f in self.field if f != here]
        chosen = [first]
        for f in rng.sample(fields, min(n - 1, len(fields))):
            chosen.append(rng.choice(self.field[f]))
        return chosen

    def pick(self, first: Tool, n: int, cross: bool, rng: random.Random) -> list[Tool]:
        return self.across_fields(first, n, rng) if cross else self.related(first, n, rng)

    def candidates(self, query: str, gold: Sequence[str], rng: random.Random, k: int = 5):
        """Gold tools plus the top retrieved distractors, k in all (all gold kept), shuffled."""
        top = [h.item for h in self.retriever.search(query, k + len(gold))]
        distract = [t for t in top if t.name not in gold][: max(0, k - len(set(gold)))]
        pool = [self.by_name[g] for g in dict.fromkeys(gold)] + distract
        rng.shuffle(pool)
        return pool


def fill_arguments(tool: Tool, rng: random.Random, p_optional: float = 0.5) -> dict[str, Any]:
    """Required arguments always, optional ones with probability p_optional (declared order)."""
    required = set(tool.required)
    return {
        name: value_for(name, spec, rng)
        for name, spec in tool.properties.items()
        if name in required or rng.random() < p_optional
    }


def number_responses(calls: list[ToolCall], tools: dict[str, Tool]) -> list[ToolCall]:
    """Seal-Tools response ids, numbered across the list: max(1, #response fields) per call."""
    out, k = [], 0
    for call in calls:
        n = max(1, len(tools[call.name].responses))
        ids = tuple(f"API_call_{k + i}" for i in range(n))
        out.append(ToolCall(call.name, call.arguments, call.id, ids))
        k += n
    return out


def _compatible(field: str, fspec: Any, name: str, pspec: Any) -> bool:
    ftype = fspec.get("type") if isinstance(fspec, dict) else None
    ptype = pspec.get("type") if isinstance(pspec, dict) else None
    if ftype and ptype and ftype != ptype:
        return False
    fw, pw = set(param_words(field).split()), set(param_words(name).split())
    return field == name or bool(fw & pw - {"id", "name", "type", "data", "info"})


def nested_pair(
    pool: ToolPool, rng: random.Random, tries: int = 25
) -> tuple[Tool, str, Tool, str] | None:
    """(producer, response field, consumer, parameter): a producer drawn at random and a
    consumer from its sub-field or field with a parameter its response can fill (up to
    `tries` producers are drawn)."""
    for _ in range(tries):
        producer = rng.choice(pool.tools)
        if not producer.responses:
            continue
        field_tools = pool.field.get(producer.category.split("/")[0], [])
        for group in (pool.sub.get(producer.category, []), field_tools):
            pairs = [
                (field, b, name)
                for b in group
                if b.name != producer.name
                for field, fspec in producer.responses.items()
                for name, pspec in b.properties.items()
                if _compatible(field, fspec, name, pspec)
            ]
            if pairs:
                field, consumer, name = rng.choice(pairs)
                return producer, field, consumer, name
    return None


def plan_calls(
    pool: ToolPool, kind: str, rng: random.Random, shape: SealShape | None = None
) -> list[ToolCall] | None:
    """A calling list of one kind (None when the tools drawn cannot make one)."""
    link = None
    cross = shape is not None and rng.random() < shape.cross_field
    if kind == "nested":
        found = nested_pair(pool, rng)
        if found is None:
            return None
        producer, field, consumer, name = found
        tools = [producer, consumer]
        if shape is None:  # sometimes a third, independent call
            extra = int(rng.random() < 0.4)
            more = pool.related(producer, 3, rng)
        else:
            extra = shape.count(rng) - 2
            more = pool.pick(producer, len(tools) + extra + 1, cross, rng)
        tools += [t for t in more if t not in tools][:extra]
        link = (0, field, 1, name)
    else:
        first = rng.choice(pool.tools)
        if kind == "single":
            tools = [first]
        elif shape is None:
            tools = pool.related(first, rng.randint(2, 5), rng)
        else:
            tools = pool.pick(first, shape.count(rng), cross, rng)
        if kind == "multi" and len(tools) < 2:
            return None
    calls = [ToolCall(t.name, fill_arguments(t, rng)) for t in tools]
    calls = number_responses(calls, {t.name: t for t in tools})
    if link:
        i, field, j, name = link
        rid = calls[i].responses[list(tools[i].responses).index(field)]
        args = {**calls[j].arguments, name: rid}
        calls[j] = ToolCall(calls[j].name, args, calls[j].id, calls[j].responses)
    return calls


def check_instance(query: str, calls: list[ToolCall], tools: dict[str, Tool]) -> str:
    """The reason an instance is rejected, or "" when it passes every check."""
    from toollearn.envs.validate import validate_call

    linked = link_refs(calls)
    for call in linked:
        problems, _ = validate_call(call, tools.get(call.name))
        if problems:
            return f"invalid call: {problems[0].kind.value}"
    for i, call in enumerate(linked):  # only earlier calls: a DAG, never a cycle
        if any(r.call is None or r.call >= i for r in call.refs()):
            return "reference not to an earlier call"
    produced = {r for c in calls for r in c.responses}
    text = query.lower()
    for value in literals(calls, produced):  # as written, or a date in words
        if not any(form.lower() in text for form in spoken_forms(value)):
            return "value not in query"
    return ""


def generate_seal(
    tools: Sequence[Tool],
    n: int,
    *,
    seed: int = 0,
    mix: dict[str, float] | None = None,
    exclusions: Exclusions | None = None,
    writer: QueryWriter | None = None,
    max_tries: int = 20,
    shape: SealShape | None = None,
) -> Generated:
    """n checked instances as Seal-Tools training samples (mix of kinds, seeded). shape: how
    multi-tool lists are drawn (None: 2-5 related tools, the generator's first behaviour)."""
    mix = mix or DEFAULT_MIX
    pool = ToolPool(tools, exclusions)
    config = {"generator": "seal", "n": n, "seed": seed, "mix": mix, "pool": len(pool.tools),
              "excluded_tools": len(tools) - len(pool.tools),
              "writer": getattr(writer, "name", "templates")}  # fmt: skip
    if shape is not None:
        config["shape"] = shape.to_dict()
    out = Generated(config=config)
    writer = writer or write_query
    seen = {normalise(q) for q in (exclusions.queries if exclusions else ())}
    kinds = list(mix)
    steps: Any = range(n)
    templates = str(getattr(writer, "name", "templates")).startswith("templates")
    if not templates:  # a teacher: slow, resumable, so show progress
        import sys

        from tqdm import tqdm

        steps = tqdm(steps, desc="seal (teacher)", file=sys.stderr)
    for i in steps:
        rng = random.Random(f"seal:{seed}:{i}")
        kind = rng.choices(kinds, weights=[mix[k] for k in kinds])[0]
        for _ in range(max_tries):
            sample = _one(pool, kind, rng, writer, seen, out, f"seal-{seed}-{i}", shape)
            if sample is not None:
                out.samples.append(sample)
                break
        else:
            out.reject("gave up after max tries")
    return out


def _one(pool, kind, rng, writer, seen, out: Generated, sid: str, shape=None):
    calls = plan_calls(pool, kind, rng, shape)
    if calls is None:
        out.reject(f"{kind}: no related tools or no nested link for the tools drawn")
        return None
    by_name = {c.name: pool.by_name[c.name] for c in calls}
    query = writer(calls, by_name, rng)
    if not query:
        out.reject("query writer gave no query")
        return None
    reason = check_instance(query, calls, by_name)
    if not reason and normalise(query) in seen:
        reason = "duplicate or held-out query"
    if reason:
        out.reject(reason)
        return None
    seen.add(normalise(query))
    candidates = pool.candidates(query, [c.name for c in calls], rng)
    ex = Example(sid, query, tuple(candidates), tuple(link_refs(calls)), split="train",
                 difficulty="easy" if len(calls) == 1 else "difficult",
                 metadata={"source": "toollearn-seal"})  # fmt: skip
    [sample] = to_training_sample(ex, "seal-tools")
    meta = {"kind": kind, "query": query, "tools": [t.name for t in candidates]}
    return replace(sample, metadata={**sample.metadata, **meta})
