"""String arguments that only repeat their parameter's name: not values.

With `--copy-strings` a string value must be a span of the query, and where the query states no
value (Seal-Tools nested calls: "the building with the ID from the previous response") the tuned
135M model copies the words that name the thing instead: building_id = "building", location =
"location", database_name = "database". Such a value is never the gold one; in a later call it
stands where the gold call reads an earlier call's response. `generic_values` takes the value of
a string argument whose words all come from its parameter's name (plus articles and a few
words that point to another call's output) and, in a call after the first, puts a reference to
the previous call's first response there when the parameter is required; otherwise it drops it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool

FILLER_WORDS = frozenset({"the", "a", "an", "of", "from", "in", "this", "that", "its",
                          "unique", "specific", "given", "same", "first"})  # fmt: skip
POINTER_WORDS = frozenset({"api", "call", "response", "previous", "obtained", "retrieved", "id",
                           "identifier"})  # fmt: skip


def words(text: str) -> list[str]:
    """The lowercase words of a value or a parameter name (snake_case, camelCase); digits stay
    in their word ("index1")."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return re.findall(r"[a-z0-9]+", spaced.lower())


def is_generic(value: Any, param: str) -> bool:
    """Whether a string value's words all come from the parameter's name, `FILLER_WORDS` and
    `POINTER_WORDS`, one at least from the name or the pointers: "building" for building_id,
    "API call" for anything, not "index1" for index_name."""
    if not isinstance(value, str):
        return False
    found, own = words(value), set(words(param))
    allowed = own | FILLER_WORDS | POINTER_WORDS
    return any(w in own or w in POINTER_WORDS for w in found) and all(w in allowed for w in found)


def generic_values(
    calls: Sequence[Any], tools: Sequence[Tool]
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The calls with generic string arguments replaced by the previous call's first response
    (a required parameter of a call after the first) or dropped, and what changed ({api,
    parameter, value, and `ref` where a reference took its place})."""
    required = {t.name: set(t.required) for t in tools}
    out, changes = [], []
    previous: str | None = None
    for call in calls:
        params = call.get("parameters") if isinstance(call, dict) else None
        if not isinstance(params, dict):
            out.append(call)
            continue
        api = str(call.get("api"))
        kept = {}
        for param, value in params.items():
            if not is_generic(value, param):
                kept[param] = value
                continue
            change = {"api": api, "parameter": param, "value": value}
            if previous and param in required.get(api, ()):
                kept[param] = change["ref"] = previous
            changes.append(change)
        out.append({**call, "parameters": kept})
        responses = call.get("responses")
        if isinstance(responses, list) and responses and isinstance(responses[0], str):
            previous = responses[0]
    return out, changes
