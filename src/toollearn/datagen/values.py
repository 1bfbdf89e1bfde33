"""Argument values for generated calls: the tool's own examples first, typed generators after.

A parameter's examples are its schema's `enum`, `examples` and `default`, and the values listed
in its description as "(e.g., a, b, c)" (how every Seal-Tools parameter is documented).
Without examples a value is generated from its type and name (a year for `year`, an e-mail for
`email`, a city for `location`, a date for `date`, ...), typed as the schema says. Everything
is drawn from a `random.Random`, so a seed reproduces the values.
"""

from __future__ import annotations

import random
import re
from typing import Any

_EG = re.compile(r"\(e\.g\.,?\s*([^()]*)\)", re.IGNORECASE)

CITIES = ["Paris", "Tokyo", "New York", "Berlin", "Cairo", "Sydney", "Toronto", "Mumbai",
          "Lagos", "Lima", "Oslo", "Seoul", "Madrid", "Chicago", "Nairobi", "Dublin"]  # fmt: skip
NAMES = ["Alice Johnson", "Bob Smith", "Carlos Diaz", "Dana Lee", "Emma Brown", "Farid Khan",
         "Grace Kim", "Hugo Martin", "Ines Costa", "Jamal Carter", "Kenji Sato",
         "Lena Fischer"]  # fmt: skip
WORDS = ["solar", "garden", "budget", "river", "canvas", "harbor", "orbit", "maple", "signal",
         "ledger", "summit", "meadow", "quartz", "lantern", "voyage", "cedar"]  # fmt: skip
TOPICS = ["climate change", "machine learning", "ancient Rome", "renewable energy",
          "jazz history", "ocean currents", "urban planning", "volcanoes"]  # fmt: skip


def _split_examples(text: str) -> list[str]:
    parts = [p.strip().strip("'\"").strip() for p in re.split(r",|;|\bor\b", text)]
    return [p for p in parts if p and p.lower() not in ("etc", "etc.", "...")]


def example_values(spec: Any) -> list[Any]:
    """The example values a parameter schema documents (enum, examples, default, e.g. list)."""
    if not isinstance(spec, dict):
        return []
    found: list[Any] = []
    if isinstance(spec.get("enum"), list):
        found += spec["enum"]
    if isinstance(spec.get("examples"), list):
        found += spec["examples"]
    if "default" in spec and spec["default"] is not None:
        found.append(spec["default"])
    desc = spec.get("description")
    if isinstance(desc, str):
        for m in _EG.finditer(desc):
            found += _split_examples(m.group(1))
    return list(dict.fromkeys(x for x in found if isinstance(x, str | int | float | bool)))


def _words(name: str) -> str:
    return " ".join(re.sub(r"([a-z])([A-Z])", r"\1 \2", name).replace("_", " ").lower().split())


def _cast(value: Any, jtype: str | None) -> Any:
    """An example value in the declared type, or None when it does not convert."""
    if jtype == "integer":
        try:
            return int(str(value).strip())
        except ValueError:
            return None
    if jtype == "number":
        try:
            number = float(str(value).strip())
        except ValueError:
            return None
        return int(number) if number.is_integer() and "." not in str(value) else number
    if jtype == "boolean":
        text = str(value).strip().lower()
        return {"true": True, "false": False, "yes": True, "no": False}.get(text)
    if jtype in (None, "string"):
        return str(value)
    return None


def typed_value(name: str, spec: Any, rng: random.Random, depth: int = 0) -> Any:
    """A plausible value for a parameter from its type and name."""
    spec = spec if isinstance(spec, dict) else {}
    jtype = spec.get("type")
    jtype = jtype[0] if isinstance(jtype, list) and jtype else jtype
    words = _words(name)
    if jtype == "integer":
        if "year" in words:
            return rng.randint(1995, 2025)
        if "age" in words.split():
            return rng.randint(18, 80)
        return rng.randint(1, 20) if re.search(r"count|num|limit|size|page", words) else (
            rng.randint(1, 500))  # fmt: skip
    if jtype == "number":
        return round(rng.uniform(1, 500), rng.choice([0, 1, 2])) or 1.5
    if jtype == "boolean":
        return rng.random() < 0.5
    if jtype == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {"type": "string"}
        return [value_for(f"{name} item", items, rng, depth + 1) for _ in range(rng.randint(1, 3))]
    if jtype == "object" and depth < 3:
        props = spec.get("properties") or {}
        return {k: value_for(k, v, rng, depth + 1) for k, v in props.items()} or {"key": "value"}
    return _string(words, rng)


def _string(words: str, rng: random.Random) -> str:
    if re.search(r"\b(city|location|place|destination|origin|country|region)\b", words):
        return rng.choice(CITIES)
    if re.search(r"\bdate\b", words):
        return f"{rng.randint(2020, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if "email" in words:
        return f"{rng.choice(NAMES).split()[0].lower()}{rng.randint(1, 99)}@example.com"
    if re.search(r"\b(name|author|user|person|customer|patient|employee)\b", words):
        return rng.choice(NAMES)
    if re.search(r"\b(id|code|number)\b", words):
        return f"{rng.choice('ABCDEFGHJK')}{rng.randint(1000, 99999)}"
    if re.search(r"\b(topic|subject|query|keyword|text)\b", words):
        return rng.choice(TOPICS)
    return f"{rng.choice(WORDS)} {rng.choice(WORDS)}"


def value_for(
    name: str, spec: Any, rng: random.Random, depth: int = 0, p_example: float = 0.8
) -> Any:
    """A value for one parameter: usually one of its documented examples (typed), else a
    generated one."""
    jtype = spec.get("type") if isinstance(spec, dict) else None
    jtype = jtype[0] if isinstance(jtype, list) and jtype else jtype
    if isinstance(spec, dict) and isinstance(spec.get("enum"), list) and spec["enum"]:
        return rng.choice(spec["enum"])
    examples = [v for v in (_cast(x, jtype) for x in example_values(spec)) if v is not None]
    if examples and rng.random() < p_example:
        return rng.choice(examples)
    return typed_value(name, spec, rng, depth)


def literal_text(value: Any) -> str:
    """How a value is written in a query (numbers and strings as they are; booleans as words)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(literal_text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{_words(k)} {literal_text(v)}" for k, v in value.items())
    return str(value)


def param_words(name: str) -> str:
    """A parameter or tool name as words: `departureDate` -> "departure date"."""
    return _words(name)
