"""Calls the answer leaves out, asked of the model on their own clauses.

Offered only the candidates some clause of the query points at (`--prune-candidates 0`), the
tuned 135M model still leaves some of them uncalled: on the 175 Seal-Tools dev queries, 29
candidates that are the closest tool of a clause got no call, 19 of them gold tools (11% of
the gold calls the answers miss). `add_missing` asks the same model once per such candidate
with only that tool and its own clauses (`ToolFilter.owners`), as `agents.refill_values` asks
for a dropped value: one call under the call-list grammar, strings as spans of those clauses,
optional parameters only stated ones; the values taken are the ones the clauses state, and
the call is appended with the next free response ids. Dev: Tool F1 90.6 -> 91.9, Param F1
68.2 -> 69.3 (results/seal-filter-dev/compare-missing.md).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from toollearn.agents.refill_values import RefillJob, job_request, take_values
from toollearn.core.types import Tool

_RESPONSE_ID = re.compile(r"API_call_(\d+)")


def missing_jobs(
    calls: Sequence[Any],
    support: Mapping[str, float],
    owners: Mapping[str, Sequence[str]],
    tools: Sequence[Tool],
) -> list[RefillJob]:
    """One job per candidate that is the closest tool of some clause (support 0, as
    `ToolFilter.support` gives it) and that no call uses, wanting all its parameters."""
    called = {c.get("api") for c in calls if isinstance(c, dict)}
    return [
        RefillJob(-1, t, tuple(owners[t.name]), tuple(t.properties))
        for t in tools
        if t.name not in called and support.get(t.name, -1.0) >= 0 and owners.get(t.name)
    ]


def next_response_id(calls: Sequence[Any]) -> int:
    """One past the highest API_call_<n> among the calls' responses (0 for none)."""
    ids = [
        int(m)
        for c in calls
        if isinstance(c, dict) and isinstance(c.get("responses"), list)
        for r in c["responses"]
        for m in _RESPONSE_ID.findall(str(r))
    ]
    return max(ids, default=-1) + 1


def add_missing(
    engine: Any,
    calls: Sequence[Any],
    support: Mapping[str, float],
    owners: Mapping[str, Sequence[str]],
    tools: Sequence[Tool],
    seed: int = 0,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The calls plus one call to each candidate a clause points at first that none uses (see
    the module doc), and those added ({api, parameters, clauses}); one engine batch."""
    from toollearn.engines.llama_batch import complete_requests
    from toollearn.formats.schemas import order_like_schema

    out = list(calls)
    jobs = missing_jobs(out, support, owners, tools)
    if not jobs:
        return out, []
    added = []
    start = next_response_id(out)
    for job, comp in zip(jobs, complete_requests(engine, [job_request(j, seed) for j in jobs])):
        if not comp.ok:
            continue
        values = take_values(job, comp.text)
        count = max(1, len(job.tool.responses))
        call = {"api": job.tool.name,
                "parameters": order_like_schema(values, job.tool.parameters),
                "responses": [f"API_call_{start + k}" for k in range(count)]}  # fmt: skip
        start += count
        out.append(call)
        added.append({"api": job.tool.name, "parameters": call["parameters"],
                      "clauses": job.query})  # fmt: skip
    return out, added
