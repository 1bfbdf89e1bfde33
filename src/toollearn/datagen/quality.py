"""How a person-like a generated dataset reads: `measure(records)` over `data.jsonl` lines.

Per sample (its request: the last user turn; its calls: the target's call list):
- rejected: the checker (`datagen.checker.check`) finds a fault (schema, range, format,
  grounding, placeholder), with the reasons counted;
- placeholder: a placeholder-like token in the request, the answer or a value;
- boilerplate: a value introduced by its parameter's name ("setting the check in to ...",
  "with nights 30", "using cedar as the citizenship", "(destination country: Lagos)", "where the
  from currency is ..."): `named_value`;
- violations: values that break their schema's type, enum, format or stated range;
and over the samples: distinct request openings (first three words), mean request length in
words. The system prompt the renderer writes (the tool listing) is left out of the text a value
must be stated in, so a value is grounded only where the conversation states it.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import ToolCall
from toollearn.core.words import param_words
from toollearn.datagen import spoken
from toollearn.datagen.checker import argument_faults, check, placeholder_faults
from toollearn.datagen.schema_variety import Conversation


def _calls(target: str) -> list[ToolCall]:
    text = target.strip()
    if not text.startswith("["):
        return []
    try:
        head = json.JSONDecoder().raw_decode(text)[0]
    except ValueError:
        return []
    return [ToolCall(str(c.get("name")), c.get("arguments") or {}) for c in head
            if isinstance(c, dict)]  # fmt: skip


def _text_after(target: str) -> str:
    text = target.strip()
    if text.startswith("["):
        try:
            _, end = json.JSONDecoder().raw_decode(text)
            return text[end:].strip()
        except ValueError:
            return text
    return text


def named_value(query: str, calls: Sequence[ToolCall]) -> bool:
    """Whether the request introduces a value by its parameter's name (module doc)."""
    q = query.casefold()
    for call in calls:
        for name, value in call.arguments.items():
            if isinstance(value, bool | dict) or value is None:
                continue
            words = re.escape(param_words(name).casefold())
            for form in spoken.forms(value)[:1] + [str(value)]:
                f = re.escape(str(form).casefold())
                if re.search(rf"\b{words}\s*(?:is|:|=|to|set to|of|being|should be)?\s*['\"(]?{f}",
                             q) or re.search(rf"{f}['\"]?\)?\s+as the {words}\b", q):  # fmt: skip
                    return True
    return False


def _tool_dict(t: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": t["name"], "description": t.get(
        "description", ""), "parameters": t.get("parameters") or {}}}  # fmt: skip


def measure(records: Sequence[dict[str, Any]], n: int = 200, seed: int = 0) -> dict[str, Any]:
    """The module doc's figures over `n` random records (seeded)."""
    rows = list(records)
    rows = random.Random(seed).sample(rows, min(n, len(rows)))
    reasons: Counter = Counter()
    counts = Counter()
    openings, lengths = set(), []
    for r in rows:
        messages = [{**m, "content": _text_after(m.get("content") or "")}
                    if m.get("role") == "assistant" else m
                    for m in r["prompt"] if m.get("role") != "system"]  # fmt: skip
        users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
        query = users[-1] if users else ""
        target = r["completion"][0]["content"]
        calls = _calls(target)
        tools = [_tool_dict(t) for t in r.get("tools") or ()]
        conv = Conversation(tools, messages, calls, _text_after(target), [query])
        faults = check(conv)
        counts["rejected"] += bool(faults)
        for f in faults[:1]:
            f = re.sub(r"'[^']*'", "a token", f) if f.startswith("placeholder") else f
            reasons[re.sub(r"\b[\w.\[\]]+ (is|lacks|has)\b", r"a value \1", f, count=1)] += 1
        values = [v for c in calls for v in c.arguments.values()]
        counts["placeholder"] += bool(placeholder_faults(values, [query, _text_after(target)]))
        counts["boilerplate"] += named_value(query, calls)
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
        counts["violations"] += sum(
            1 for c in calls if c.name in schemas
            for f in argument_faults(c.arguments, schemas[c.name], c.name)
            if f.startswith(("range", "format", "schema: ") ) and "lacks" not in f
        )  # fmt: skip
        openings.add(" ".join(query.casefold().split()[:3]))
        lengths.append(len(query.split()))
    total = max(1, len(rows))
    return {
        "samples": len(rows),
        "rejected_pct": round(100 * counts["rejected"] / total, 1),
        "placeholder_pct": round(100 * counts["placeholder"] / total, 1),
        "boilerplate_pct": round(100 * counts["boilerplate"] / total, 1),
        "value_violations": counts["violations"],
        "distinct_openings": len(openings),
        "mean_request_words": round(sum(lengths) / total, 1),
        "rejected_by_reason": dict(reasons.most_common()),
    }
