"""Required arguments dropped (as foreign, or as cut words), asked of the model again on the
call's own clauses.

`agents.foreign_values` drops an argument the query states only in another tool's clause:
mostly a wrong value (in the whole Seal-Tools test set's pruned answers, 442 of the 526
required ones), but dropping a required argument leaves a hole where the gold call has a value,
and for 370 of those holes the call's own clauses state the right one. `refill` asks the same
model once more per such call, as a single-tool query of the call's own clauses only (the
clauses `ToolFilter.owners` gives it), under the call-list grammar with one call to that tool
whose strings are spans of those clauses and whose optional parameters are only stated ones
(`--copy-strings --stated-optional` for the small query). It takes from the answer the values
of the dropped required parameters and nothing else, and only values those clauses state
(strings copied from them in whole words, numbers written there); the rest of the call is kept
as it was.

`scope` "required" asks more: every call of an answer with two or more calls is asked again for
all its tool's required parameters, and a stated answer replaces the value the call had.
Seal-Tools dev (175 queries, after foreign values and cut words): Param F1 63.3 -> 65.1 with
"dropped", 67.9 with "required" (results/seal-filter-dev/compare-refill.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.agents.foreign_values import mentioned
from toollearn.agents.word_spans import whole_words
from toollearn.core.types import Tool

MAX_TOKENS = 160  # one call to one tool; a longer answer is cut and its values not taken
SCOPES = ("dropped", "required")
_NONE = object()  # a parameter the call does not have


@dataclass(frozen=True)
class RefillJob:
    """One call to ask again: its index in the answer, its tool, its clauses, the keys wanted."""

    index: int
    tool: Tool
    clauses: tuple[str, ...]
    keys: tuple[str, ...]

    @property
    def query(self) -> str:
        return " ".join(self.clauses)


def refill_jobs(
    calls: Sequence[Any],
    drops: Sequence[Mapping[str, Any]],
    owners: Mapping[str, Sequence[str]],
    tools: Sequence[Tool],
    scope: str = "dropped",
) -> list[RefillJob]:
    """One job per call that lost a required argument (drops as `foreign_values` gives them);
    scope "required": also one per call of a multi-call answer, for all required parameters."""
    if scope not in SCOPES:
        raise ValueError(f"refill: scope is one of {SCOPES}, not {scope!r}")
    by_name = {t.name: t for t in tools}
    lost: dict[str, list[str]] = {}
    for d in drops:
        tool = by_name.get(str(d.get("api")))
        if tool is not None and d.get("parameter") in tool.required:
            lost.setdefault(tool.name, []).append(str(d["parameter"]))
    jobs = []
    for i, call in enumerate(calls):
        name = str(call.get("api")) if isinstance(call, dict) else ""
        params = call.get("parameters") if isinstance(call, dict) else None
        if not isinstance(params, dict) or name not in by_name:
            continue
        keys = [k for k in lost.get(name, []) if k not in params]
        if scope == "required" and len(calls) > 1:
            keys = list(by_name[name].required)
        if keys and owners.get(name):
            jobs.append(RefillJob(i, by_name[name], tuple(owners[name]), tuple(keys)))
    return jobs


def job_request(job: RefillJob, seed: int = 0) -> Any:
    """The engine request of a job: the Seal-Tools prompt of its small query, constrained."""
    from toollearn.decoding.seal_tools import seal_calls_constraint
    from toollearn.engines.llama_batch import Request
    from toollearn.formats.answers.seal_tools import render_messages

    constraint = seal_calls_constraint([job.tool], allow_empty=False, max_calls=1,
                                       copy_from=job.query, stated_optional=True)  # fmt: skip
    return Request(render_messages(job.query, [job.tool]), MAX_TOKENS, (), constraint, 0.0, seed)


def take_values(job: RefillJob, answer: str) -> dict[str, Any]:
    """The wanted values of a job's answer that its clauses state: strings in whole words
    (`agents.word_spans`) and not a whole clause (a request is not a value), numbers as
    written; none from an answer that does not parse."""
    from toollearn.formats.answers.seal_tools import parse_call_dicts

    calls = parse_call_dicts(answer or "") or []
    call = next((c for c in calls if isinstance(c, dict) and c.get("api") == job.tool.name), None)
    params = call.get("parameters") if call else None
    if not isinstance(params, dict):
        return {}
    return {k: params[k] for k in job.keys if k in params and _stated(params[k], job)}


def _stated(value: Any, job: RefillJob) -> bool:
    if isinstance(value, str):
        whole = value.strip(" ,.") in {c.strip(" ,.") for c in job.clauses}
        return not whole and whole_words(value, job.query)
    return mentioned(value, job.query)


def refill(
    engine: Any,
    calls: Sequence[Any],
    drops: Sequence[Mapping[str, Any]],
    owners: Mapping[str, Sequence[str]],
    tools: Sequence[Tool],
    seed: int = 0,
    scope: str = "dropped",
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The calls with their dropped required arguments asked again (scope "required": all
    required arguments of multi-call answers), and what was filled or replaced ({api,
    parameter, value, clauses, and `was` for a replaced value}); one engine batch per answer."""
    from toollearn.engines.llama_batch import complete_requests
    from toollearn.formats.schemas import order_like_schema

    out = [dict(c) if isinstance(c, dict) else c for c in calls]
    jobs = refill_jobs(out, drops, owners, tools, scope)
    if not jobs:
        return out, []
    filled = []
    for job, comp in zip(jobs, complete_requests(engine, [job_request(j, seed) for j in jobs])):
        call = out[job.index]
        values = take_values(job, comp.text) if comp.ok else {}
        values = {k: v for k, v in values.items() if call["parameters"].get(k, _NONE) != v}
        if not values:
            continue
        for k, v in values.items():
            entry = {"api": job.tool.name, "parameter": k, "value": v, "clauses": job.query}
            if k in call["parameters"]:
                entry["was"] = call["parameters"][k]
            filled.append(entry)
        call["parameters"] = order_like_schema({**call["parameters"], **values},
                                               job.tool.parameters)  # fmt: skip
    return out, filled
