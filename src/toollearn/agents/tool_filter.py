"""A retriever's second opinion on which candidate tools a multi-tool query asks for.

The tuned 135M model finds the gold tools among Seal-Tools' five candidates (Tool R 89) but
also calls the distractors beside them (Tool P 75): in 723 of the 1,354 test answers at least
one call goes to a tool the query never asks for. A sentence encoder tells them apart better
when it reads the query one request at a time: `support` splits the query into clauses
(sentences, and "then" / "also" / "additionally" / ... inside them), scores every clause
against every candidate's text, and gives each tool its best margin over the clause's top
tool (0: the closest tool of some clause; -0.2: 0.2 of cosine behind the closest one there).
On Seal-Tools dev this margin separates gold tools from distractors with ROC AUC 0.943 (the
whole query's similarity: 0.712).

`ToolFilter.filter_answer` drops the calls of a Seal-Tools answer whose tool is further than
`margin` behind (support < -margin), except calls whose response a kept call reads (nested
calls), and keeps the best-supported call when it would drop them all (the official scorer
counts an empty answer as a format failure). It runs after generation, so it can be applied
to any finished run's answers (`toollearn eval seal-filter`); the answer as generated is kept
beside the filtered one. `owners` gives each candidate the clauses it is the closest tool of,
which `agents.foreign_values` reads to drop arguments copied from another tool's request.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.agents import refill_values
from toollearn.agents.date_values import iso_dates
from toollearn.agents.foreign_values import foreign_values
from toollearn.agents.generic_values import generic_values
from toollearn.agents.missing_calls import add_missing
from toollearn.agents.word_spans import cut_words
from toollearn.core.types import Tool

STEP_WORDS = r"\b(?:and then|then|after that|also|additionally|finally|next)\b"
_CLAUSE_BREAK = re.compile(rf"(?<=[.!?])\s+|{STEP_WORDS}", re.I)
_RESPONSE = re.compile(r"API_call_\d+")
MIN_CLAUSE_CHARS = 9


def clauses(query: str) -> list[str]:
    """The query's requests, one per sentence or "then"/"also"/... part; the query if none."""
    parts = [p.strip() for p in _CLAUSE_BREAK.split(query) if p and p.strip()]
    return [p for p in parts if len(p) >= MIN_CLAUSE_CHARS] or [query]


def cosines(encoder: Any, texts: Sequence[str], tools: Sequence[Tool]) -> Any:
    """Each text's cosine with each tool's indexed text (texts x tools)."""
    from toollearn.retrieval.text import tool_text

    vecs = encoder.encode([*texts, *(tool_text(t) for t in tools)])
    return vecs[: len(texts)] @ vecs[len(texts) :].T


@dataclass
class FilterResult:
    """A filtered answer: its text, the calls dropped and every candidate's support."""

    output: str
    dropped: list[dict[str, Any]] = field(default_factory=list)
    support: dict[str, float] = field(default_factory=dict)


class ToolFilter:
    """Drops calls to candidates the query's clauses do not point at (see the module doc)."""

    def __init__(
        self, margin: float | None, model: str | Path | None = None, threads: int | None = 1
    ):
        """margin None: a filter that only scores (support, owners) and drops no call."""
        from toollearn.retrieval.dense import CachingEncoder, MiniLMEncoder

        if margin is not None and margin < 0:
            raise ValueError(f"the tool filter's margin is a cosine distance >= 0, not {margin}")
        self.margin = margin
        self.encoder = CachingEncoder(MiniLMEncoder(path=model, threads=threads))

    def similarities(self, query: str, tools: Sequence[Tool]) -> tuple[list[str], Any]:
        """The query's clauses and their cosine with each tool (clauses x tools)."""
        parts = clauses(query)
        return parts, cosines(self.encoder, parts, tools)

    def support(self, query: str, tools: Sequence[Tool]) -> dict[str, float]:
        """Each tool's best margin over the top tool of a clause (0 = top of some clause)."""
        if not tools:
            return {}
        _, sims = self.similarities(query, tools)
        best = (sims - sims.max(axis=1, keepdims=True)).max(axis=0)
        return {t.name: round(float(s), 4) for t, s in zip(tools, best)}

    def owners(self, query: str, tools: Sequence[Tool]) -> dict[str, list[str]]:
        """Each tool's own clauses: those it is the closest candidate of, else its closest one."""
        if not tools:
            return {}
        parts, sims = self.similarities(query, tools)
        top = sims.argmax(axis=1)
        closest = sims.argmax(axis=0)  # each tool's closest clause
        return {t.name: [p for p, k in zip(parts, top) if k == j] or [parts[int(closest[j])]]
                for j, t in enumerate(tools)}  # fmt: skip

    def filter_answer(self, text: str, query: str, tools: Sequence[Tool]) -> FilterResult:
        """The answer without its unsupported calls; unparsable answers are returned as they are."""
        from toollearn.formats.answers.seal_tools import parse_call_dicts

        calls = parse_call_dicts(text or "")
        support = self.support(query, tools)
        if not calls or self.margin is None:
            return FilterResult(text, [], support)
        keep = [support.get(str(c.get("api")), 0.0) >= -self.margin for c in calls]
        _keep_read_responses(calls, keep)
        if not any(keep):
            scores = [support.get(str(c.get("api")), 0.0) for c in calls]
            keep[scores.index(max(scores))] = True
        if all(keep):
            return FilterResult(text, [], support)
        kept = [c for c, k in zip(calls, keep) if k]
        dropped = [c for c, k in zip(calls, keep) if not k]
        return FilterResult(json.dumps(kept, ensure_ascii=False), dropped, support)

    def describe(self) -> dict[str, Any]:
        return {
            "encoder": self.encoder.model_id,
            "margin": self.margin,
            "support": "max over clauses of (cosine - the clause's best cosine)",
            "keeps": "calls whose responses a kept call reads; the best call if none",
        }


def _keep_read_responses(calls: Sequence[dict[str, Any]], keep: list[bool]) -> None:
    """Mark kept every call whose response a kept call's parameters name, until nothing changes."""
    names = [{str(r) for r in c.get("responses") or [] if isinstance(r, str)} for c in calls]
    changed = True
    while changed:
        changed = False
        read = set()
        for c, k in zip(calls, keep):
            if k:
                read |= set(_RESPONSE.findall(json.dumps(c.get("parameters"), ensure_ascii=False)))
        for i, k in enumerate(keep):
            if not k and names[i] & read:
                keep[i] = changed = True


def postprocess(
    text: str,
    query: str,
    tools: Sequence[Tool],
    tool_filter: ToolFilter | None,
    dates: bool,
    foreign: str | None = None,
    *,
    whole_words: bool = False,
    refill: Any = None,
    refill_scope: str = "dropped",
    generic: bool = False,
    missing: Any = None,
) -> dict[str, Any]:
    """A Seal-Tools answer through the tool filter (if given; a None margin drops no call),
    foreign values (`foreign`: "optional" or "all" arguments, with the filter's clauses; see
    `agents.foreign_values`), cut words (`whole_words`: `agents.word_spans`), refill (`refill`:
    an engine asked again for the required arguments those two dropped, on the call's own
    clauses, or with `refill_scope` "required" for all of a multi-call answer's:
    `agents.refill_values`), generic values (`generic`: `agents.generic_values`), missing calls
    (`missing`: an engine asked for a call to each candidate a clause points at first that no
    call uses: `agents.missing_calls`) and ISO dates (if `dates`): {output,
    dropped_calls, tool_support, dropped_values, cut_values, refilled_values, generic_values,
    added_calls, date_changes} (the ones after output for the steps run)."""
    if (foreign or refill is not None or missing is not None) and tool_filter is None:
        raise ValueError("foreign values, refill and missing calls need the tool filter's "
                         "clauses: give one")  # fmt: skip
    if refill is not None and not (foreign or whole_words):
        raise ValueError("refill asks again for what foreign values or whole words dropped")
    out: dict[str, Any] = {"output": text}
    if tool_filter is not None:
        res = tool_filter.filter_answer(text, query, tools)
        out.update(output=res.output, dropped_calls=res.dropped, tool_support=res.support)
    if not (foreign or dates or whole_words or generic or missing is not None):
        return out
    from toollearn.formats.answers.seal_tools import parse_call_dicts

    @functools.cache
    def own() -> dict[str, list[str]]:  # each tool's clauses, computed once, when needed
        return tool_filter.owners(query, tools)

    def refilled(calls: list[Any]) -> tuple[list[Any], list[dict[str, Any]]]:
        lost = [*out.get("dropped_values", []), *out.get("cut_values", [])]
        if not (lost or refill_scope == "required"):
            return calls, []
        return refill_values.refill(refill, calls, lost, own(), tools, scope=refill_scope)

    steps: list[tuple[str, Any]] = []  # (record key, calls -> (calls, what changed)), in order
    if foreign:
        steps.append(("dropped_values",
                      lambda c: foreign_values(c, query, own(), tools, foreign)))  # fmt: skip
    if whole_words:
        steps.append(("cut_values", lambda c: cut_words(c, query)))
    if refill is not None:
        steps.append(("refilled_values", refilled))
    if generic:
        steps.append(("generic_values", lambda c: generic_values(c, tools)))
    if missing is not None:
        support = out["tool_support"]
        steps.append(("added_calls", lambda c: add_missing(missing, c, support, own(), tools)))
    if dates:
        steps.append(("date_changes", lambda c: iso_dates(c, tools)))
    calls = parse_call_dicts(out["output"] or "")  # the argument steps edit these dicts
    changed = False
    for key, step in steps:
        found: list[dict[str, Any]] = []
        if calls:
            calls, found = step(calls)
        out[key], changed = found, changed or bool(found)
    if changed:
        out["output"] = json.dumps(calls, ensure_ascii=False)
    return out
