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

from toollearn.core.words import literal_text, param_words

_EG = re.compile(r"e\.g\.,?\s*([^()]*)", re.IGNORECASE)
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip
_RANGE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:to|-)\s*(-?\d+(?:\.\d+)?)")

CITIES = ["Paris", "Tokyo", "New York", "Berlin", "Cairo", "Sydney", "Toronto", "Mumbai",
          "Lagos", "Lima", "Oslo", "Seoul", "Madrid", "Chicago", "Nairobi", "Dublin"]  # fmt: skip
NAMES = ["Alice Johnson", "Bob Smith", "Carlos Diaz", "Dana Lee", "Emma Brown", "Farid Khan",
         "Grace Kim", "Hugo Martin", "Ines Costa", "Jamal Carter", "Kenji Sato",
         "Lena Fischer"]  # fmt: skip
WORDS = ["solar", "garden", "budget", "river", "canvas", "harbor", "orbit", "maple", "signal",
         "ledger", "summit", "meadow", "quartz", "lantern", "voyage", "cedar"]  # fmt: skip
LANGUAGES = ["Spanish", "French", "German", "Japanese", "Swahili", "Hindi", "Portuguese",
             "Korean", "Arabic", "Italian"]  # fmt: skip
COLORS = ["red", "blue", "green", "black", "white", "yellow", "purple", "orange"]
UNITS = ["meters", "kilograms", "celsius", "liters", "miles", "seconds", "dollars", "hours"]
ITEMS = ["milk", "eggs", "bread", "apples", "coffee", "rice", "tomatoes", "cheese", "batteries",
         "light bulbs", "soap", "pasta"]  # fmt: skip
SENTENCES = ["Please review the attached notes before Friday.", "The meeting moved to Tuesday.",
             "Thanks for your help with the project.", "Remember to bring the documents.",
             "Dinner is at seven tonight."]  # fmt: skip
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
    """A plausible value for a parameter from its type, name and description, within its
    minimum/maximum, near its example numbers."""
    spec = spec if isinstance(spec, dict) else {}
    jtype = spec.get("type")
    jtype = jtype[0] if isinstance(jtype, list) and jtype else jtype
    words = f"{param_words(name)} {str(spec.get('description', '')).lower()}"
    if jtype in ("integer", "number"):
        return _number(jtype, words, spec, rng)
    if jtype == "boolean":
        return rng.random() < 0.5
    if jtype == "array":
        items = spec.get("items") if isinstance(spec.get("items"), dict) else {"type": "string"}
        values = [value_for(name, items, rng, depth + 1) for _ in range(rng.randint(1, 3))]
        return list({repr(v): v for v in values}.values())  # no repeated items
    if jtype == "object" and depth < 3:
        props = spec.get("properties") or {}
        return {k: value_for(k, v, rng, depth + 1) for k, v in props.items()} or {"key": "value"}
    return _string(words, rng)


def _number(jtype: str, words: str, spec: dict[str, Any], rng: random.Random) -> int | float:
    numbers = [float(x) for x in example_values(spec) if _cast(x, "number") is not None]
    lo, hi = spec.get("minimum"), spec.get("maximum")
    span = _RANGE.search(str(spec.get("description", "")))
    if span and lo is None and hi is None:
        lo, hi = float(span.group(1)), float(span.group(2))
    if numbers:
        base = rng.choice(numbers)
        lo = lo if lo is not None else base * 0.5
        hi = hi if hi is not None else base * 1.5 or 10
    elif "year" in words:
        lo, hi = lo or 1995, hi or 2025
    elif re.search(r"\bage\b", words):
        lo, hi = lo or 18, hi or 80
    elif re.search(r"percent|%", words):
        lo, hi = lo or 1, hi or 100
    elif re.search(r"count|num|limit|size|page|guests|people|quantity", words):
        lo, hi = lo or 1, hi or 12
    lo, hi = (1 if lo is None else lo), (500 if hi is None else hi)
    lo, hi = min(lo, hi), max(lo, hi)
    if jtype == "integer":
        return rng.randint(int(lo), max(int(lo), int(hi)))
    return round(rng.uniform(lo, hi), rng.choice([1, 2])) or 1.5


def _string(words: str, rng: random.Random) -> str:
    if re.search(r"e-?mail|recipient|\bto\b.*address|\baddress\b.*(mail|recipient)", words):
        return f"{rng.choice(NAMES).split()[0].lower()}{rng.randint(1, 99)}@example.com"
    if re.search(r"\b(city|location|place|destination|origin|country|region)\b", words):
        return rng.choice(CITIES)
    if re.search(r"\b(body|message|content|note|notes|comment)\b", words):
        return rng.choice(SENTENCES)
    if re.search(r"\b(item|items|product|products|ingredient|ingredients)\b", words):
        return rng.choice(ITEMS)
    if re.search(r"\bdate\b", words):
        return f"{rng.randint(2020, 2026)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if "email" in words:
        return f"{rng.choice(NAMES).split()[0].lower()}{rng.randint(1, 99)}@example.com"
    if re.search(
        r"\b(name|author|user|person|customer|patient|employee|attendees?|"
        r"participants?|guests?|members?|contacts?)\b",
        words,
    ):
        return rng.choice(NAMES)
    if re.search(r"\b(id|code|number)\b", words):
        return f"{rng.choice('ABCDEFGHJK')}{rng.randint(1000, 99999)}"
    if re.search(r"\b(topic|subject|query|keyword|text|title|theme)\b", words):
        return rng.choice(TOPICS)
    if re.search(r"\b(language|lang|locale)\b", words):
        return rng.choice(LANGUAGES)
    if re.search(r"\b(color|colour)\b", words):
        return rng.choice(COLORS)
    if re.search(r"\b(unit|units)\b", words):
        return rng.choice(UNITS)
    if re.search(r"\b(time|hour)\b", words):
        return f"{rng.randint(7, 21):02d}:{rng.choice(['00', '15', '30', '45'])}"
    return rng.choice(WORDS)


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


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def date_words(value: Any) -> list[str]:
    """An ISO date in words ("May 1, 2022", "1 May 2022", "May 1st, 2022"); [] for others."""
    m = _ISO.match(value) if isinstance(value, str) else None
    if not m or not 1 <= int(m.group(2)) <= 12 or not 1 <= int(m.group(3)) <= 31:
        return []
    year, month, day = m.group(1), MONTHS[int(m.group(2)) - 1], int(m.group(3))
    return [f"{month} {day}, {year}", f"{day} {month} {year}", f"{month} {_ordinal(day)}, {year}"]


def spoken_forms(value: Any) -> list[str]:
    """Every way a query may state a literal value: as the calls write it, or a date in words."""
    return [literal_text(value), *date_words(value)]
