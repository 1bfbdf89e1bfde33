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
P_SUFFIX = 0.2
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


def _fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def expand(template: str, pools: dict[str, list[str]]) -> list[str]:
    """Every filling of a template's slots from the pools, in a fixed order."""
    fields = list(dict.fromkeys(_fields(template)))
    return [
        template.format(**dict(zip(fields, values)))
        for values in itertools.product(*(pools[f] for f in fields))
    ]


@cache
def families() -> dict[str, tuple[str, ...]]:
    """{family: its distinct queries (no tool-like ones)}, in a fixed order."""
    spec = _spec()
    out: dict[str, tuple[str, ...]] = {}
    for name, templates in spec["families"].items():
        found = (q for t in templates for q in expand(t, spec["pools"]))
        out[name] = tuple(q for q in dict.fromkeys(found) if not looks_like_tool_request(q))
    return out


def phrasings() -> list[str]:
    """All templates (one per phrasing)."""
    return [t for ts in _spec()["families"].values() for t in ts]


def available() -> int:
    """How many distinct queries the families can produce (before style suffixes)."""
    return sum(len(qs) for qs in families().values())


def general_queries(n: int, seed: int = 0) -> list[str]:
    """n distinct general queries, balanced over the families, deterministic for a seed."""
    if n > available():
        raise ValueError(f"only {available()} distinct general queries exist, asked for {n}")
    fams = families()
    order = sorted(fams)
    random.Random(f"{seed}:general:order").shuffle(order)
    queues = {}
    for name in order:
        items = list(fams[name])
        random.Random(f"{seed}:general:{name}").shuffle(items)
        queues[name] = iter(items)
    rng = random.Random(f"{seed}:general:suffix")
    suffixes = _spec()["suffixes"]
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n and queues:
        for name in list(queues):
            query = next(queues[name], None)
            if query is None:
                del queues[name]
                continue
            if rng.random() < P_SUFFIX:
                query += rng.choice(suffixes)
            if query not in seen:
                seen.add(query)
                out.append(query)
            if len(out) == n:
                break
    return out
