"""A call plan read off the query: each request's closest tool, in the order the user asks.

A small agent's commonest multi-step failure is order: asked to "retrieve information about a
hedge fund, then its returns", it calls the returns tool first (a close neighbour of the due
one), and its reply maps results to steps by position. A sentence encoder reading the query one
request at a time orders the tools better than the 135M model does: `requests` splits the query
into requests (sentences, a sentence starting in lower case kept with the one before it, since
that full stop ended a quoted value; then "then" / "next" / "also" / ... and ", and <verb>"
inside them), and `ClausePlanner.plan` gives each request the shown tool its text is closest
to (the embedded MiniLM, as `agents.tool_filter` reads clauses), in request order, a tool
asked twice listed once. A request whose closest tool is below `min_similarity` ("I have a few
tasks.") asks for none. A request whose closest tool an earlier request already took gets the
closest tool not yet planned instead, when that one is at most `distinct_margin` (cosine)
further ("property rights" and "property ownership" both closest to `getPropertyOwnership`);
a tool asked twice by name ("the weather in Oslo ... the weather in Cairo") has no neighbour
that close and stays one step. The margin, 0.06, was chosen on dev's plans
(`results/agent-plan-distinct`); None or a negative margin turns it off.

Two requests that still share a tool and whose cosines with it differ by more than
`unfit_gap` (0.15, chosen on dev's plans) mark the weaker one unfit: no shown tool fits it (the
tool it asks for is not there, so it lands on a sibling's), and the plan ends before it
(`Plan.unfit`); the agent then replies after the planned calls instead of calling on
(`results/agent-plan-unfit`). A sentence that `joins` the request before it (below) is not
compared: it adds details and asks nothing new. None or a negative gap turns it off.

A sentence that does not open a request (no step word: "The tomatoes will be planted in loam
soil.") and lands on the tool of the request before it adds to that request (`joins`). A
request that takes a value from an earlier one's result ("the ID obtained from the
registration", "the same patient", "add 8 to the result": `WAITS`) waits for it
(`Plan.calls`). For `"batch"` (`ClausePlanner.for_mode`) a request that opens after a planned
one is planned at a lower similarity (`FOLLOW_SIMILARITY`, 0.2: "Besides that, create a task
..." against a task tool), and "... and <the same preposition> <another value>" ("the weather
in Paris and in Rome") is the request before it again, of another value (`again`): a second
call of its tool, or, where that tool has an array parameter (several values in one call),
joined to it. A request that opens (or comes before any planned one) but is close to no tool
is `open`: the batch leaves an optional call of any shown tool in its place (`Plan.slots`), so
a question the encoder cannot place ("What should I focus on to grow?" before "Next, cast the
runes ...") is neither forced into a call nor dropped from the list. These rules were set on
the general suite's dev split (`results/calls-suite/dev-general-gate-plan-batch`; open places
and the joins rule: `dev-gpu-default-open`, 55.5 -> 57.0).

`agents.tool_calls.ToolCallsAgent(plan=...)` follows it: until every planned tool has been
called, each turn may call only the due one (`"due"`), or the due one and any tool outside the
plan (`"order"`: a later step's tool cannot come first); then the model is free again, or
(`"due-reply"`) the due one each turn and, once every planned tool has been called, the
reply; or (`"batch"`) every request's call in one list, a tool asked twice called twice, an
open request's optional call in its place (the first list only), a request that waits once
every request before it is made, then the reply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.agents.tool_filter import MIN_CLAUSE_CHARS, STEP_WORDS, cosines
from toollearn.core.types import Step, Tool

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_STEP_WORD = re.compile(STEP_WORDS, re.I)
_VERBS = (
    "retrieve|get|fetch|find|search|look up|calculate|compute|create|add|update|delete|remove|"
    "send|check|generate|analyze|book|list|translate|convert|submit|schedule|cancel|track|set|"
    "estimate|predict|play|make|show|provide|give|tell"
)
_AND_VERB = re.compile(rf",?\s+and\s+(?=(?:{_VERBS})\b)", re.I)
# "the weather in Paris and in Rome": the same preposition again asks the same thing of another
# value; the part from "and" on is its own request (`AGAIN`)
_AGAIN = re.compile(
    r"(?P<head>.*?\b(?P<prep>in|for|at|to|from|on|of|about|with) [^,.?!]+?),? "
    r"(?P<tail>and (?P=prep) .+)", re.I | re.S)  # fmt: skip
AGAIN = re.compile(r"and (in|for|at|to|from|on|of|about|with) ", re.I)
MODES = ("due", "due-reply", "order", "batch")
OPENS = re.compile(
    r"(?:and then|then|after that|also|additionally|finally|next|besides(?: that)?|"
    r"in addition|on top of that|lastly|moreover|furthermore|plus|secondly|thirdly|as well)\b",
    re.I,
)
FOLLOW_SIMILARITY = 0.2
# a request that names an earlier request's result: it waits for that result (chosen on dev)
WAITS = re.compile(
    r"\b(obtained|previous(ly)?|results? (of|from)|the results?|returned|output|the same|"
    r"from (it|that|this|them|there)|(use|using|with) (it|that|this|these|those|them)|"
    r"the (resulting|generated|encoded|hashed|converted|translated|calculated|computed|"
    r"retrieved|above))\b",
    re.I,
)
DISTINCT_MARGIN = 0.06
UNFIT_GAP = 0.15


def requests(query: str) -> list[str]:
    """The query's requests in order (see the module doc); the query itself if none."""
    return [part for part, _ in request_parts(query)]


def request_parts(query: str, again: bool = False) -> list[tuple[str, bool]]:
    """The query's requests, each with whether it opens a new request: it follows a step
    word or ", and <verb>", or starts with one (`OPENS`); a sentence that does not adds to
    the request before it. `again`: "... and <the same preposition> <another value>" is a
    request too (it opens)."""
    sentences: list[str] = []
    for sentence in _SENTENCE.split(query.strip()):
        if sentences and sentence[:1].islower():
            sentences[-1] += " " + sentence
        elif sentence:
            sentences.append(sentence)
    parts = []
    for sentence in sentences:
        for k, step in enumerate(_STEP_WORD.split(sentence)):
            for j, part in enumerate(_AND_VERB.split(step)):
                part = part.strip(" ,;")
                parts.append((part, k > 0 or j > 0 or bool(OPENS.match(part))))
                while again and (value := _AGAIN.match(parts[-1][0])) is not None:
                    parts[-1:] = [(value["head"], parts[-1][1]), (value["tail"], True)]
    return [(p, o) for p, o in parts if len(p) >= MIN_CLAUSE_CHARS] or [(query, True)]


@dataclass
class Plan:
    """The planned tools in order, and each request with its closest tool and cosine."""

    tools: list[str]
    requests: list[dict[str, Any]] = field(default_factory=list)
    unfit: str | None = None  # the request no shown tool fits: the plan ends before it

    @property
    def calls(self) -> list[tuple[str, bool]]:
        """Each planned request's (tool, waits for an earlier result), in order, a tool asked
        twice listed twice; up to an unfit request."""
        return [(tool, waits) for tool, waits in self.slots if tool is not None]

    @property
    def slots(self) -> list[tuple[str | None, bool]]:
        """`calls` with each `open` request (no shown tool close enough) in its place as
        (None, False): a call the batch may make there or not, of any shown tool; [] where no
        request is planned."""
        out: list[tuple[str | None, bool]] = []
        for r in self.requests:
            if r.get("unfit"):
                break
            if r.get("open"):
                out.append((None, False))
            elif r["tool"] is not None and not r.get("joins"):
                out.append((r["tool"], bool(r.get("waits"))))
        return out if any(tool for tool, _ in out) else []

    def due(self, called: set[str]) -> str | None:
        """The first planned tool not called yet; None once all are."""
        return next((name for name in self.tools if name not in called), None)

    def step(self, detail: str, end: str = "the reply") -> Step:
        """The plan as an agent's `planner` thought step (what follows an unfit request: `end`)."""
        named = ", ".join(self.tools) or "(none: no request is close enough to a tool)"
        if self.unfit:  # the plan ends before it
            named = f"{', '.join(self.tools) or '(no call)'}, then {end}: no shown tool fits"
        data = {"plan": self.tools, "requests": self.requests,
                **({"unfit": self.unfit} if self.unfit else {})}  # fmt: skip
        return Step("planner", "thought", named, detail=detail, data=data)


def _takes_lists(tools: Sequence[Tool], name: str) -> bool:
    """Whether the named tool has an array parameter (one call can take several values)."""
    tool = next(t for t in tools if t.name == name)
    return any((spec or {}).get("type") == "array" for spec in tool.properties.values())


def margin_on(margin: float | None) -> float | None:
    """A margin or gap in force: None when off (None or negative)."""
    return None if margin is None or margin < 0 else margin


def plan_settings(margin: float | None = None, gap: float | None = None) -> dict[str, float]:
    """The distinct margin and unfit gap in force, each given or the default (None) and
    recorded only when on: {"distinct_margin": ..., "unfit_gap": ...}."""
    out = {"distinct_margin": margin_on(DISTINCT_MARGIN if margin is None else margin),
           "unfit_gap": margin_on(UNFIT_GAP if gap is None else gap)}  # fmt: skip
    return {k: v for k, v in out.items() if v is not None}


class ClausePlanner:
    """Plans calls from the query's requests (see the module doc)."""

    def __init__(
        self, min_similarity: float = 0.35, model: str | Path | None = None,
        threads: int | None = 1, distinct_margin: float | None = DISTINCT_MARGIN,
        unfit_gap: float | None = UNFIT_GAP, follow_similarity: float | None = None,
    ):  # fmt: skip
        from toollearn.retrieval.dense import CachingEncoder, MiniLMEncoder

        self.min_similarity, self.follow_similarity = min_similarity, follow_similarity
        self.distinct_margin = margin_on(distinct_margin)
        self.unfit_gap = margin_on(unfit_gap)
        self.encoder = CachingEncoder(MiniLMEncoder(path=model, threads=threads))

    @classmethod
    def with_settings(cls, margin: float | None = None, gap: float | None = None,
                      **options: Any) -> ClausePlanner:  # fmt: skip
        """A planner with the margin and gap given, or the defaults (None); negative: off."""
        settings = plan_settings(margin, gap)
        return cls(distinct_margin=settings.get("distinct_margin"),
                   unfit_gap=settings.get("unfit_gap"), **options)  # fmt: skip

    def plan(self, query: str, tools: Sequence[Tool]) -> Plan:
        if not tools:
            return Plan([])
        parts = request_parts(query, again=self.follow_similarity is not None)
        sims = cosines(self.encoder, [part for part, _ in parts], tools)
        names: list[str] = []
        asked: list[dict[str, Any]] = []
        for (part, opens), row in zip(parts, sims):
            best = self._pick(row, tools, names)
            score = round(float(row[best]), 4)
            last = next((r["tool"] for r in reversed(asked) if r["tool"] is not None), None)
            follows = opens and last and self.follow_similarity is not None
            floor = self.follow_similarity if follows else self.min_similarity
            tool = tools[best].name if score >= floor else None
            again = last is not None and self.follow_similarity is not None and AGAIN.match(part)
            if again:  # the request before it, of another value: its tool, unless that one
                tool, opens = last, not _takes_lists(tools, last)  # takes several at once
            asked.append(
                {
                    "request": part,
                    "tool": tool,
                    "similarity": score,
                    **({"again": True} if again else {}),
                    **({"waits": True} if asked and WAITS.search(part) else {}),
                    **({"joins": True} if tool and tool == last and not opens else {}),
                    **({"open": True} if tool is None and (opens or not last) else {}),
                }
            )
            if tool is not None and tool not in names:
                names.append(tool)
        cut = self._unfit(asked)
        if cut is None:
            return Plan(names, asked)
        asked[cut]["unfit"] = True
        before = [r["tool"] for r in asked[:cut] if r["tool"] is not None]
        return Plan(list(dict.fromkeys(before)), asked, unfit=asked[cut]["request"])

    def _unfit(self, asked: list[dict[str, Any]]) -> int | None:
        """The first request that shares its tool with an earlier one and is the weaker of the
        two by more than `unfit_gap`, or the earlier one where that is the weaker; None. A
        request asked `again` of another value is not compared (its words name no tool), nor
        a sentence that `joins` the request before it (it adds details, asks nothing new)."""
        if self.unfit_gap is None:
            return None
        first: dict[str, int] = {}
        for k, r in enumerate(asked):
            if r["tool"] is None or r.get("again") or r.get("joins"):
                continue
            j = first.setdefault(r["tool"], k)
            gap = r["similarity"] - asked[j]["similarity"]
            if j != k and abs(gap) > self.unfit_gap:
                return k if gap <= 0 else j
        return None

    def _pick(self, row: Any, tools: Sequence[Tool], planned: list[str]) -> int:
        """The request's tool: its closest, or with `distinct_margin` the closest not planned
        yet where the closest is planned and that one is within the margin."""
        best = int(row.argmax())
        if self.distinct_margin is None or tools[best].name not in planned:
            return best
        free = [i for i in range(len(tools)) if tools[i].name not in planned]
        if not free:
            return best
        alt = max(free, key=lambda i: float(row[i]))
        return alt if float(row[best] - row[alt]) <= self.distinct_margin else best

    @classmethod
    def for_mode(cls, mode: str, **options: Any) -> ClausePlanner:
        """The planner a plan mode reads with: `"batch"` also plans a request that opens after
        a planned one at `FOLLOW_SIMILARITY` (its calls all come at once)."""
        if mode == "batch":
            options.setdefault("follow_similarity", FOLLOW_SIMILARITY)
        return cls(**options)

    def describe(self) -> dict[str, Any]:
        out = {"planner": "clauses", "encoder": self.encoder.model_id,
               "min_similarity": self.min_similarity}  # fmt: skip
        if self.distinct_margin is not None:
            out["distinct_margin"] = self.distinct_margin
        if self.unfit_gap is not None:
            out["unfit_gap"] = self.unfit_gap
        if self.follow_similarity is not None:  # the batch planner: its lists keep open places
            out["follow_similarity"] = self.follow_similarity
            out["open_places"] = True
        return out
