"""Names and values in words, as the general data and the results check write them: one
renderer for a parameter's name ("departure date"), a literal ("yes", "a, b") and a tool
result's fields ("total price is 42")."""

from __future__ import annotations

import re
from typing import Any


def param_words(name: str) -> str:
    """A parameter or tool name as words: `departureDate` -> "departure date"."""
    return " ".join(re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split())


def literal_text(value: Any) -> str:
    """How a value is written in a query (numbers and strings as they are; booleans as words)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(literal_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{param_words(k)} {literal_text(v)}" for k, v in value.items())
    return str(value)


def result_fact_parts(result: dict[str, Any]) -> list[str]:
    """Each field of a tool result in words ("total price is 42")."""
    return [f"{param_words(k)} is {literal_text(v)}" for k, v in result.items()]


def result_facts(result: dict[str, Any]) -> str:
    """A tool result's fields in words, as the general data's replies state them ("total price
    is 42; currency is EUR"; the first six)."""
    return "; ".join(result_fact_parts(result)[:6]) or "the call succeeded"
