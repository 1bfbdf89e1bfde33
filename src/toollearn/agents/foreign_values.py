"""Arguments copied from another tool's request of the query, dropped.

A Seal-Tools query asks for several tools, one request (clause) each, and the tuned 135M model
often fills a call's parameter with a value from another tool's request: "Germany" for the
country of a call whose clause says "United States", or an optional parameter that no request
of this tool mentions at all filled with a value meant for another call. With each call's own
clauses known (`ToolFilter.owners`: the clauses whose closest candidate is its tool),
`foreign_values` drops an argument whose value the query states in another clause but in none
of the call's own. In the whole test set's post-filtered answers (results/seal-filter), 228
optional string arguments of calls to gold tools were found so, 3 of them right; of 415 such
required ones, 75 were right (found on test; the scope was chosen on dev). Values the query
does not state (inferred, or spanning two clauses) are kept; `scope` "optional" touches only
parameters the schema does not require.
Dropping a wrong value turns a wrong argument into a missing one: precision rises, recall
loses the few right ones.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from toollearn.core.types import Tool

SCOPES = ("optional", "all")


def mentioned(value: Any, text: str) -> bool:
    """Whether `text` states the value: a string as a substring, a number as written in JSON
    and not inside a longer number or word; other values (lists, objects, booleans) never."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    if isinstance(value, str):
        return bool(value) and value in text
    number = re.escape(json.dumps(value))
    return re.search(rf"(?<![\w.]){number}(?!\w|\.\d)", text) is not None


def foreign_values(
    calls: Sequence[Any],
    query: str,
    owners: Mapping[str, Sequence[str]],
    tools: Sequence[Tool],
    scope: str = "all",
) -> tuple[list[Any], list[dict[str, Any]]]:
    """Seal-Tools calls ({"api", "parameters", ...}) without their foreign arguments, and the
    dropped ones ({api, parameter, value}). owners: each tool's own clauses of the query."""
    if scope not in SCOPES:
        raise ValueError(f"foreign values: scope is one of {SCOPES}, not {scope!r}")
    by_name = {t.name: t for t in tools}
    every = [c for own in owners.values() for c in own]
    out, drops = [], []
    for call in calls:
        params = call.get("parameters") if isinstance(call, dict) else None
        name = str(call.get("api")) if isinstance(call, dict) else ""
        own = owners.get(name)
        if not isinstance(params, dict) or not own:
            out.append(call)
            continue
        required = set(by_name[name].required) if name in by_name else set(params)
        kept = {}
        for param, value in params.items():
            if (scope == "all" or param not in required) and _foreign(value, own, every):
                drops.append({"api": name, "parameter": param, "value": value})
                continue
            kept[param] = value
        out.append({**call, "parameters": kept})
    return out, drops


def _foreign(value: Any, own: Sequence[str], every: Sequence[str]) -> bool:
    """Stated in some other clause and in none of the call's own."""
    if any(mentioned(value, c) for c in own):
        return False
    return any(mentioned(value, c) for c in every if c not in own)
