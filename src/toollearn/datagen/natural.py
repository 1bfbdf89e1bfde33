"""Natural queries from ToolDEER: its GPT-4-written (query, call) examples as call samples in
every call format we serve (the general tool-calls format and Seal-Tools).

- single: one example, one call, shown among 5 candidates (the gold tool and 4 random training
  tools, shuffled);
- multi: the queries of 2-3 examples of different tools joined into one request, one call each,
  in order (the gold tools plus random distractors, 5 candidates in all);
- parallel: 2-3 examples of the same tool joined (several value sets of one tool), one call
  each;
- none: one example's query shown with 5 random training tools that are not its own, answered
  `[]` and a decline (general format only: Seal-Tools has no way to decline). Random others
  rarely do the same job among ToolDEER's 900 training tools (DEER's "random" NoCall branch).
Joined requests use varied connectives ("First, ..., then ...", "Also, ...", "...; and ...",
"After that, ...") and de-capitalise the parts they continue only when the first word is a
common word (its lower-case form occurs mid-sentence in the corpus more often than its
capitalised form), so names and "I" keep their capitals. The examples are filtered exactly as
`datagen.deer` filters them (unseen test tools, held-out queries and near-copies, calls that do
not fit their tool: all counted); tools are shown without tool.json's examples. Seal-Tools calls
get response ids numbered across the list as Seal-Tools does (`response_count` per call).
Metadata: "kind", "query" (single) or "queries" (the original example queries, so the leakage
check sees each), "tools" (the candidates), "gold" (the called tools), "connectives".
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Example, Tool, ToolCall
from toollearn.datagen.dataset import Generated
from toollearn.datagen.deer import ToolExample, shown, training_tools, usable_examples
from toollearn.datagen.leakage import Exclusions, deer_exclusions
from toollearn.datagen.mixture import DECLINES
from toollearn.datagen.samples import to_training_sample
from toollearn.decoding.seal_tools import response_count

SOURCE = "datagen-natural"
FORMATS = ("tool-calls", "seal-tools")
CANDIDATES = 5
P_THREE = 0.25
_END = re.compile(r"[.?!]$")
_WORD = re.compile(r"[A-Za-z][\w']*")
_STARTS = ".?!:;\"'(\n"  # after these a word may be capitalised as a sentence start


@dataclass(frozen=True)
class Connective:
    """How two requests are joined: `text` formats {A} (the first as written), {a} (the first
    de-capitalised) and {b} (the second de-capitalised); `open` drops the first's end mark."""

    name: str
    text: str
    open: bool = False
    questions: bool = True  # reads well when a part is a question


CONNECTIVES = (
    Connective("also", "{A} Also, {b}"),
    Connective("first-then", "First, {a}, then {b}", open=True, questions=False),
    Connective("semicolon-and", "{A}; and {b}", open=True, questions=False),
    Connective("after-that", "{A} After that, {b}"),
    Connective("additionally", "{A} Additionally, {b}"),
    Connective("once-done", "{A} Once that is done, {b}", questions=False),
    Connective("in-addition", "{A} In addition, {b}"),
    Connective("next", "{A} Next, {b}"),
    Connective("and-also", "{A}, and also {b}", open=True, questions=False),
    Connective("besides", "{A} Besides that, {b}"),
    Connective("on-top", "{A} On top of that, {b}"),
    Connective("then", "{A} Then {b}", questions=False),
)
FINALLY = Connective("finally", "{A} Finally, {b}")


class Decapitaliser:
    """Lower-cases a sentence's first letter when its first word is a common word: seen
    lower-case mid-sentence in the corpus more often than capitalised, or seen only at sentence
    starts (imperatives like "Browse"); words seen capitalised mid-sentence are names, kept."""

    def __init__(self, corpus: Sequence[str]):
        self.lower: Counter = Counter()
        self.upper: Counter = Counter()
        self.starts: Counter = Counter()
        for text in corpus:
            for m in _WORD.finditer(text):
                word, before = m.group(0), text[: m.start()].rstrip()
                if not before or before[-1] in _STARTS:  # a sentence start: case says nothing
                    self.starts[word.lower()] += word[0].isupper()
                else:
                    (self.lower if word[0].islower() else self.upper)[word.lower()] += 1

    def __call__(self, text: str) -> str:
        m = _WORD.match(text)
        if not m:
            return text
        word = m.group(0)
        if word == "I" or word.startswith("I'") or not word[0].isupper():
            return text
        if any(ch.isupper() for ch in word[1:]):
            return text  # an acronym or a CamelCase name
        key = word.lower()
        common = self.lower[key] > self.upper[key] or (not self.upper[key] and self.starts[key])
        return text[0].lower() + text[1:] if common else text


def closed(text: str) -> str:
    """The request with an end mark (a full stop when it has none)."""
    text = text.strip()
    return text if _END.search(text) else text + "."


def join_queries(
    parts: Sequence[str], rng: random.Random, decap: Callable[[str], str]
) -> tuple[str, list[str]]:
    """The parts as one request, and the names of the connectives used."""
    text, used = closed(parts[0]), []
    for i, part in enumerate(parts[1:], start=1):
        question = text.endswith("?") or closed(part).endswith("?")
        if i == len(parts) - 1 and i > 1:
            conn = FINALLY
        else:
            options = [c for c in CONNECTIVES if (c.questions or not question)]
            options = options if i == 1 else [c for c in options if c.name != "first-then"]
            conn = rng.choice(options)
        first = text[:-1] if conn.open else text
        text = conn.text.format(A=first, a=decap(first), b=decap(closed(part)))
        used.append(conn.name)
    return text, used


def seal_calls(calls: Sequence[ToolCall], tools: dict[str, Tool]) -> tuple[ToolCall, ...]:
    """The calls with Seal-Tools response ids, numbered across the list."""
    out, k = [], 0
    for call in calls:
        n = response_count(tools[call.name])
        out.append(replace(call, responses=tuple(f"API_call_{k + i}" for i in range(n))))
        k += n
    return tuple(out)


def candidates(gold: Sequence[Tool], pool: Sequence[Tool], rng: random.Random) -> list[Tool]:
    """The gold tools plus random distractors, CANDIDATES in all (every gold kept), shuffled."""
    names = {t.name for t in gold}
    unique = list({t.name: t for t in gold}.values())
    others = [t for t in pool if t.name not in names]
    chosen = unique + rng.sample(others, max(0, CANDIDATES - len(unique)))
    rng.shuffle(chosen)
    return chosen


def render(
    kind: str,
    sid: str,
    query: str,
    parts: Sequence[ToolExample],
    tools: list[Tool],
    formats: Sequence[str],
) -> list[TrainingSample]:
    """One instance in every format (same query, candidates and calls)."""
    calls = tuple(p.call for p in parts)
    by_name = {t.name: t for t in tools}
    out = []
    for fmt in formats:
        fcalls = seal_calls(calls, by_name) if fmt == "seal-tools" else calls
        example = Example(sid, query, tuple(tools), fcalls, split=kind,
                          metadata={"source": SOURCE})  # fmt: skip
        out += to_training_sample(example, fmt)
    return out


def _meta(sample: TrainingSample, kind: str, parts, tools, connectives) -> TrainingSample:
    meta: dict[str, Any] = {"kind": kind, "tools": [t.name for t in tools],
                            "gold": [p.tool.name for p in parts]}  # fmt: skip
    if kind == "single":
        meta["query"] = parts[0].query
    else:
        meta["queries"] = [p.query for p in parts]
        meta["connectives"] = connectives
    return replace(sample, metadata=meta)


def single_samples(examples, pool, formats, seed) -> list[TrainingSample]:
    """Every example as a one-call sample in every format."""
    out = []
    for ex in examples:
        rng = random.Random(f"{seed}:natural:single:{ex.tool.name}:{ex.index}")
        tools = candidates([ex.tool], pool, rng)
        sid = f"{ex.tool.name}:{ex.index}"
        out += [_meta(s, "single", [ex], tools, []) for s in
                render("single", sid, ex.query, [ex], tools, formats)]  # fmt: skip
    return out


def none_samples(examples, pool, n: int, seed) -> list[TrainingSample]:
    """n examples' queries among 5 tools that are not theirs, answered `[]` and a decline."""
    if not examples or n <= 0:
        return []
    rng = random.Random(f"{seed}:natural:none")
    picked = rng.sample(examples, min(n, len(examples)))
    out = []
    for ex in picked:
        r = random.Random(f"{seed}:natural:none:{ex.tool.name}:{ex.index}")
        tools = r.sample([t for t in pool if t.name != ex.tool.name], CANDIDATES)
        example = Example(f"none:{ex.tool.name}:{ex.index}", ex.query, tuple(tools), (),
                          answer=r.choice(DECLINES), split="none",
                          metadata={"source": SOURCE})  # fmt: skip
        out += [replace(s, metadata={"kind": "none", "tools": [t.name for t in tools],
                                     "gold": [], "query": ex.query})
                for s in to_training_sample(example, "tool-calls")]  # fmt: skip
    return out


def composed_samples(
    kind: str, n: int, examples, pool, formats, seed, decap, out: Generated
) -> list[TrainingSample]:
    """n multi (different tools) or parallel (one tool, several value sets) instances."""
    by_tool: dict[str, list[ToolExample]] = {}
    for ex in examples:
        by_tool.setdefault(ex.tool.name, []).append(ex)
    names = sorted(by_tool) if kind == "multi" else sorted(t for t, v in by_tool.items()
                                                           if len(v) >= 2)  # fmt: skip
    samples, seen = [], set()
    i = 0
    while len(seen) < n and i < 3 * n and names:
        rng = random.Random(f"{seed}:natural:{kind}:{i}")
        i += 1
        k = 3 if rng.random() < P_THREE else 2
        if kind == "multi":
            parts = [rng.choice(by_tool[t]) for t in rng.sample(names, min(k, len(names)))]
        else:
            group = by_tool[rng.choice(names)]
            parts = rng.sample(group, min(k, len(group)))
        key = tuple((p.tool.name, p.index) for p in parts)
        if len(parts) < 2 or key in seen:
            out.reject(f"{kind}: repeated combination")
            continue
        seen.add(key)
        query, used = join_queries([p.query for p in parts], rng, decap)
        tools = candidates([p.tool for p in parts], pool, rng)
        samples += [_meta(s, kind, parts, tools, used) for s in
                    render(kind, str(len(seen) - 1), query, parts, tools, formats)]  # fmt: skip
    return samples


def training_examples(
    root: str | Path, exclusions: Exclusions | None, out: Generated
) -> tuple[list[Tool], list[ToolExample], list[Tool]]:
    """ToolDEER's training tools, their usable examples (`datagen.deer`'s filters, rejections
    counted in `out`) and the tools as samples show them; `exclusions` defaults to DEER's."""
    exclusions = deer_exclusions(root) if exclusions is None else exclusions
    tools = training_tools(root, exclusions, out)
    return tools, usable_examples(tools, exclusions, out), [shown(t) for t in tools]


def generate_natural(
    root: str | Path,
    *,
    seed: int = 0,
    formats: Sequence[str] = FORMATS,
    n_multi: int = 2000,
    n_parallel: int = 1000,
    n_none: int = 0,
    exclusions: Exclusions | None = None,
) -> Generated:
    """Single, multi and parallel call samples from ToolDEER's examples (module docstring)."""
    unknown = set(formats) - set(FORMATS)
    if unknown:
        raise ValueError(f"unknown formats {sorted(unknown)}; natural queries serve {FORMATS}")
    out = Generated()
    tools, examples, pool = training_examples(root, exclusions, out)
    decap = Decapitaliser([ex.query for ex in examples])
    out.samples = single_samples(examples, pool, formats, seed)
    for kind, n in (("multi", n_multi), ("parallel", n_parallel)):
        out.samples += composed_samples(kind, n, examples, pool, formats, seed, decap, out)
    if "tool-calls" in formats:
        out.samples += none_samples(examples, pool, n_none, seed)
    kinds = Counter(s.metadata["kind"] for s in out.samples)
    out.config = {
        "generator": "natural",
        "seed": seed,
        "formats": list(formats),
        "candidates": CANDIDATES,
        "n_multi": n_multi,
        "n_parallel": n_parallel,
        "n_none": n_none,
        "tools_train": len(tools),
        "tools_used": len({g for s in out.samples for g in s.metadata["gold"]}),
        "examples_used": len(examples),
        "by_kind": dict(sorted(kinds.items())),
        "by_task": dict(sorted(Counter(s.task for s in out.samples).items())),
    }
    return out
