"""General queries that need no tool: DEER's NoSearch side, written offline.

The paper samples 2,000 queries from a general conversational dataset (Xu et al. 2023a). None
is available here (the network is closed, and ToolDEER's own 193 NoSearch queries are its
validation set, held out), so the queries come from template families with value pools
written for this project (`data/general_queries.json`): explain a concept (to an audience, by
an analogy), write a poem / story / email / note / cover letter, advice and tips, define a
word, compare two things, summarize an idea, small arithmetic word problems to reason through,
history (people, events) and everyday-science questions, brainstorming, grammar and style
fixes, small programming exercises, opinions on qualities, animal facts, pros and cons.
68 phrasings over 18 families give 2,950 distinct queries (more with the style requests).
Every one is something a chat model answers from its own knowledge; none asks for live data,
an account, a booking, a search, a purchase or a conversion (`looks_like_tool_request` drops
any query with a word that would; the pools avoid them).

`general_queries(n, seed)` returns n distinct queries, deterministic for a seed: each family's
expansions are shuffled by its own seeded generator and drawn round-robin over the families
(in a seeded order), so any prefix is balanced across families; a fifth get a short style
request appended ("Keep it brief.").

`general_queries(n, seed, style="evol")` draws them the way DEER's source dataset was made:
WizardLM's Evol-Instruct (Xu et al. 2023a) grew its instructions in breadth (new topics and
tasks) and in depth (add constraints, deepen, concretize, add reasoning steps, complicate the
input). Offline and without an LLM, `data/general_evol.json` gives 8 more families (plans,
code in 16 languages, analyses, role scenarios, rewriting given passages, classifying given
items, multi-step word problems, creative forms) and the five in-depth operators as templated
clauses; each drawn query (plain or new family) gets 0, 1 or 2 distinct operators (20/50/30%).
The valid split's 193 NoSearch queries are never read here; `nosearch_queries` drops any
generated query that matches a held-out query.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import string
from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("data") / "general_queries.json"
EVOL = Path(__file__).with_name("data") / "general_evol.json"
STYLES = ("plain", "evol")
P_SUFFIX = 0.2
P_OPERATORS = (0.2, 0.5, 0.3)  # evol: chance of 0, 1 and 2 in-depth operators
TOOL_WORDS = re.compile(
    r"\b(weather|forecast|book|booking|reserv\w*|search\w*|database|look ?up|prices?|stocks?|"
    r"live|latest|current(ly)?|today|tonight|tomorrow|news|flights?|hotels?|buy|purchase|"
    r"order|shop\w*|convert\w*|translat\w*|schedul\w*|remind\w*|download|upload|send|api|"
    r"urls?|https?|www|website|apps?|account|near me|exchange rate|scores?|traffic|calendar|"
    r"playlist|tickets?)\b",
    re.IGNORECASE,
)


def looks_like_tool_request(query: str) -> bool:
    """Whether a query names something only a tool can do (live data, services, actions)."""
    return bool(TOOL_WORDS.search(query))


@cache
def _spec() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


@cache
def _evol() -> dict:
    return json.loads(EVOL.read_text(encoding="utf-8"))


def _fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def expand(template: str, pools: dict[str, list[str]]) -> list[str]:
    """Every filling of a template's slots from the pools, in a fixed order."""
    fields = list(dict.fromkeys(_fields(template)))
    return [
        template.format(**dict(zip(fields, values)))
        for values in itertools.product(*(pools[f] for f in fields))
    ]


def _expand_families(spec: dict) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for name, templates in spec["families"].items():
        found = (q for t in templates for q in expand(t, spec["pools"]))
        out[name] = tuple(q for q in dict.fromkeys(found) if not looks_like_tool_request(q))
    return out


@cache
def families(style: str = "plain") -> dict[str, tuple[str, ...]]:
    """{family: its distinct base queries (no tool-like ones)}, in a fixed order; "evol" adds
    the in-breadth families of `general_evol.json` to the plain ones."""
    if style not in STYLES:
        raise ValueError(f"unknown general-query style {style!r} (one of {', '.join(STYLES)})")
    out = _expand_families(_spec())
    if style == "evol":
        out.update({f"evol-{k}": v for k, v in _expand_families(_evol()).items()})
    return out


def evolve(query: str, rng: random.Random) -> str:
    """The query with 0-2 distinct in-depth operators of `general_evol.json` applied, in the
    order drawn; each operator's slots are filled from its pools (and `aspect`)."""
    spec = _evol()
    pools = {**spec["operator_pools"], "aspect": spec["pools"]["aspect"]}
    k = rng.choices(range(len(P_OPERATORS)), weights=P_OPERATORS)[0]
    for op in rng.sample(sorted(spec["operators"]), k):
        template = rng.choice(spec["operators"][op])
        values = {f: rng.choice(pools[f]) for f in _fields(template) if f != "query"}
        if "{query}" in template:
            query = template.format(query=query, **values)
        else:
            query += template.format(**values)
    return query


def phrasings(style: str = "plain") -> list[str]:
    """All templates (one per phrasing)."""
    specs = [_spec()] + ([_evol()] if style == "evol" else [])
    return [t for spec in specs for ts in spec["families"].values() for t in ts]


def available(style: str = "plain") -> int:
    """How many distinct base queries the families can produce (before suffixes/operators)."""
    return sum(len(qs) for qs in families(style).values())


def general_queries(n: int, seed: int = 0, style: str = "plain") -> list[str]:
    """n distinct general queries, balanced over the families, deterministic for a seed:
    "plain" (a fifth with a style suffix) or "evol" (0-2 in-depth operators each, `evolve`)."""
    if n > available(style):
        raise ValueError(f"only {available(style)} distinct general queries exist, asked for {n}")
    fams = families(style)
    order = sorted(fams)
    random.Random(f"{seed}:general:order").shuffle(order)
    queues = {}
    for name in order:
        items = list(fams[name])
        random.Random(f"{seed}:general:{name}").shuffle(items)
        queues[name] = iter(items)
    rng = random.Random(f"{seed}:general:suffix")
    evol_rng = random.Random(f"{seed}:general:evol")
    suffixes = _spec()["suffixes"]
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n and queues:
        for name in list(queues):
            query = next(queues[name], None)
            if query is None:
                del queues[name]
                continue
            if style == "evol":
                query = evolve(query, evol_rng)
                if looks_like_tool_request(query):
                    continue
            elif rng.random() < P_SUFFIX:
                query += rng.choice(suffixes)
            if query not in seen:
                seen.add(query)
                out.append(query)
            if len(out) == n:
                break
    return out
