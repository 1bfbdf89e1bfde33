"""Programmatic data from templates and value pools (SambaNova ToolBench, Sec. 4.1).

A `Template` is goal text with placeholders plus the matching program lines; a pool is a list
of candidate values for a placeholder. Filling picks values with a seeded RNG, so the same
spec and seed always give the same data. Nothing here knows about a particular app: specs are
plain JSON (`load_spec`) and programs are plain text lines.

Placeholders: `{slot}` or `{slot.field}`, in goals optionally with a format spec (`{price:,}`).
A pool entry may be a scalar or a dict; a dict renders its "text" field in goals and its
"value" field in programs unless a field is named. In program lines values are written as
Python literals (strings quoted), in goals as plain text. Slots map to pools through the
template's `slots` (default: the pool named like the slot); slots that share a pool get
distinct values.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError

PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)(?:\.(\w+))?(?::([^{}]*))?\}")


@dataclass(frozen=True)
class Template:
    """Goal text with placeholders and the program lines that achieve it."""

    id: str
    goal: str
    calls: tuple[str, ...]
    slots: dict[str, str] = field(default_factory=dict)
    tags: tuple[str, ...] = ()

    __hash__ = object.__hash__

    def slot_names(self) -> list[str]:
        """Every slot the goal or the calls mention, in first-use order."""
        names: list[str] = []
        for text in (self.goal, *self.calls):
            for m in PLACEHOLDER.finditer(text):
                if m.group(1) not in names:
                    names.append(m.group(1))
        return names

    def pool_of(self, slot: str) -> str:
        return self.slots.get(slot, slot)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Template:
        return cls(
            id=d["id"],
            goal=d["goal"],
            calls=tuple(d["calls"]),
            slots=dict(d.get("slots") or {}),
            tags=tuple(d.get("tags") or ()),
        )


@dataclass(frozen=True)
class Filled:
    """One instantiated template: goal text, program text and the values chosen."""

    template: str
    goal: str
    program: str
    values: dict[str, Any]


def _pick(value: Any, fieldname: str | None, default: str) -> Any:
    if fieldname:
        if not isinstance(value, dict) or fieldname not in value:
            raise DataError(f"pool value {value!r} has no field {fieldname!r}")
        return value[fieldname]
    if isinstance(value, dict):
        return value.get(default, value.get("value"))
    return value


def literal(value: Any) -> str:
    """A value as a Python literal for a program line (strings double-quoted)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise DataError(f"cannot write {value!r} as a program literal")


def render(text: str, values: dict[str, Any], code: bool) -> str:
    """Replace placeholders in goal text (code=False) or a program line (code=True)."""

    def sub(m: re.Match) -> str:
        slot, fieldname, spec = m.group(1), m.group(2), m.group(3)
        if slot not in values:
            raise DataError(f"no value for placeholder {{{slot}}} in {text!r}")
        value = _pick(values[slot], fieldname, "value" if code else "text")
        if code:
            return literal(value)
        return format(value, spec) if spec else str(value)

    return PLACEHOLDER.sub(sub, text)


def fill(template: Template, values: dict[str, Any]) -> Filled:
    """Instantiate a template with chosen values."""
    goal = render(template.goal, values, code=False)
    program = "\n".join(render(line, values, code=True) for line in template.calls)
    return Filled(template.id, goal, program, dict(values))


def choose(template: Template, pools: dict[str, list[Any]], rng: random.Random) -> dict:
    """Pick one value per slot; slots sharing a pool get distinct values."""
    values: dict[str, Any] = {}
    used: dict[str, list[int]] = {}
    for slot in template.slot_names():
        pool_name = template.pool_of(slot)
        pool = pools.get(pool_name)
        if not pool:
            raise DataError(f"template {template.id!r}: no value pool {pool_name!r}")
        taken = used.setdefault(pool_name, [])
        free = [i for i in range(len(pool)) if i not in taken] or list(range(len(pool)))
        idx = rng.choice(free)
        taken.append(idx)
        values[slot] = pool[idx]
    return values


def generate(
    templates: Sequence[Template],
    pools: dict[str, list[Any]],
    per_template: int,
    seed: int = 0,
    max_tries: int = 50,
) -> list[Filled]:
    """`per_template` distinct instances of every template, deterministic in `seed`."""
    rng = random.Random(seed)
    out: list[Filled] = []
    seen: set[str] = set()
    for template in templates:
        made = 0
        for _ in range(per_template * max_tries):
            if made == per_template:
                break
            filled = fill(template, choose(template, pools, rng))
            if filled.goal in seen:
                continue
            seen.add(filled.goal)
            out.append(filled)
            made += 1
        if made < per_template:
            raise DataError(f"template {template.id!r}: only {made} distinct fillings")
    return out


def expand_pool(name: str, spec: Any) -> list[Any]:
    """A pool from its spec: a list as is, {"range": [lo, hi, step]} or {"dates": {...}}."""
    if isinstance(spec, list):
        return spec
    if isinstance(spec, dict) and "range" in spec:
        lo, hi, *step = spec["range"]
        return list(range(lo, hi + 1, *(step or [1])))
    if isinstance(spec, dict) and "dates" in spec:
        return _date_pool(name, **spec["dates"])
    raise DataError(f"pool {name!r}: expected a list, a range or a dates spec, got {spec!r}")


def _date_fields(prefix: str, day: dt.date) -> dict[str, Any]:
    return {
        f"{prefix}text": f"{day:%B} {day.day}, {day.year}",
        f"{prefix}iso": day.isoformat(),
        f"{prefix}month": day.month,
        f"{prefix}day": day.day,
        f"{prefix}year": day.year,
    }


def _date_pool(name: str, start: str, end: str, count: int, span: Sequence[int] = (0, 0)):
    """`count` dates in [start, end] (seeded by the pool name), each with an end date
    `span` days later: fields text/iso/month/day/year and end_text/end_iso/... and nights."""
    rng = random.Random(f"pool:{name}")
    first, last = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    days = (last - first).days
    out = []
    for _ in range(count):
        begin = first + dt.timedelta(days=rng.randint(0, days))
        nights = rng.randint(span[0], span[1])
        stop = begin + dt.timedelta(days=nights)
        entry = {**_date_fields("", begin), **_date_fields("end_", stop), "nights": nights}
        entry["value"] = begin.isoformat()
        out.append(entry)
    return out


def load_spec(path: str | Path) -> tuple[dict[str, list[Template]], dict[str, list[Any]]]:
    """Read a JSON spec {"pools": {...}, "templates": {split: [...]}} -> (templates, pools)."""
    try:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
        pools = {k: expand_pool(k, v) for k, v in spec["pools"].items()}
        templates = {
            split: [Template.from_dict(t) for t in items]
            for split, items in spec["templates"].items()
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"bad template spec: {exc}", str(path)) from None
    _check_ids(t.id for ts in templates.values() for t in ts)
    return templates, pools


def _check_ids(ids: Iterable[str]) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise DataError(f"duplicate template id {i!r}")
        seen.add(i)
