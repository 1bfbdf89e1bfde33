"""One checker for every sample a model learns from, generated or imported.

`check(conv)` returns the reasons a `Conversation` (the tools shown, the messages before the
model's turn, the answer's calls or text) must not be trained on, [] when it passes:
- format (APIGen's): every call names a shown tool, its arguments are a JSON object, the
  answer is calls or text, never both empty where tools are asked for;
- schema: every required argument is there, no argument the tool does not declare, each
  value of its declared type, inside its enum, its minimum/maximum, its `pattern`, its
  `format` (date YYYY-MM-DD, date-time, time HH:MM, email, uri) and the "YYYY-MM-DD"/"HH:MM"
  formats a description states;
- grounding: every literal value of the calls is stated in the conversation (user, system and
  tool turns; `datagen.spoken.grounded`: a date in words, a time on the 12-hour clock, a count
  in words, a currency's name for its code) or is the parameter's declared default; booleans
  and enum values a request implies ("unlock", "business class") are not asked for;
- placeholders: no placeholder-like token in a value, the request or the answer
  (`result_2f5dcd`, `nationality_9b8e9c`, `YYYY-MM-DD`, `<name>`, `{city}`, `API_call_0`,
  `lorem ipsum`, `foo`, `string`, `N/A`, ...).
`Checked` counts rejections by reason (the generators record them in `stats.json`).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toollearn.core.types import Ref, ToolCall
from toollearn.datagen.spoken import grounded

PLACEHOLDER = re.compile(
    r"\b[a-z]+(?:_[a-z]+)*_[0-9a-f]{6}\b|\bAPI_call_\d+\b|\bYYYY-MM-DD\b|\bHH:MM\b|"
    r"<[a-z_ ]+>|\{[a-z_]+\}|\blorem ipsum\b|\b(?:foo|baz|qux|foobar)\b|\bplaceholder\b|"
    r"\bTODO\b|\bxxx+\b|\bdummy\b|\bsample_?(?:value|text|string)\b",
    re.IGNORECASE,
)
WHOLE_PLACEHOLDER = re.compile(r"^(?:string|value|text|example|none|null|n/?a|test|unknown|\?+)$",
                               re.IGNORECASE)  # fmt: skip
DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$")
DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$")
EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
URI = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$", re.IGNORECASE)
_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool,
          "array": list, "object": dict}  # fmt: skip


@dataclass
class Checked:
    """Rejections by reason, and how many passed."""

    passed: int = 0
    rejected: Counter = field(default_factory=Counter)

    def record(self, reasons: Sequence[str]) -> bool:
        if reasons:
            self.rejected[reasons[0]] += 1
            return False
        self.passed += 1
        return True

    def to_dict(self) -> dict[str, Any]:
        total = self.passed + sum(self.rejected.values())
        return {"checked": total, "passed": self.passed,
                "rejected": dict(self.rejected.most_common())}  # fmt: skip


def _schemas(tools: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for t in tools:
        fn = t.get("function", t)
        out[str(fn.get("name"))] = fn.get("parameters") or {}
    return out


def _jtype(spec: Mapping[str, Any]) -> str | None:
    t = spec.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    if not isinstance(t, str):
        return None
    aliases = {"str": "string", "int": "integer", "float": "number", "bool": "boolean",
               "list": "array", "dict": "object"}  # fmt: skip
    return aliases.get(t, t)


def value_faults(value: Any, spec: Any, where: str) -> list[str]:
    """What is wrong with one value under its parameter's schema ([]: nothing)."""
    if not isinstance(spec, dict):
        return []
    if isinstance(value, Ref):
        return []
    jtype = _jtype(spec)
    if jtype in _TYPES:
        ok = isinstance(value, _TYPES[jtype])
        if jtype in ("integer", "number") and isinstance(value, bool):
            ok = False
        if jtype == "integer" and isinstance(value, float) and value.is_integer():
            ok = True
        if not ok:
            return [f"schema: {where} is not of type {jtype}"]
    if isinstance(spec.get("enum"), list) and spec["enum"] and value not in spec["enum"]:
        return [f"schema: {where} is outside its enum"]
    faults = []
    if isinstance(value, int | float) and not isinstance(value, bool):
        lo, hi = spec.get("minimum"), spec.get("maximum")
        if isinstance(lo, int | float) and value < lo or isinstance(hi, int | float) and value > hi:
            faults.append(f"range: {where} is outside [{lo}, {hi}]")
        rng = re.search(r"\b(-?\d+(?:\.\d+)?)\s*(?:to|-)\s*(-?\d+(?:\.\d+)?)\b",
                        str(spec.get("description", "")))  # fmt: skip
        if rng and not float(rng.group(1)) <= value <= float(rng.group(2)):
            faults.append(f"range: {where} is outside the stated {rng.group(0)}")
    if isinstance(value, str):
        faults += _format_faults(value, spec, where)
    if isinstance(value, list):
        items = spec.get("items")
        for i, v in enumerate(value):
            faults += value_faults(v, items, f"{where}[{i}]")
    if isinstance(value, dict) and isinstance(spec.get("properties"), dict):
        faults += argument_faults(value, spec, where)
    return faults


def _format_faults(value: str, spec: Mapping[str, Any], where: str) -> list[str]:
    fmt, desc = str(spec.get("format", "")), str(spec.get("description", ""))
    checks = {"date": DATE, "date-time": DATETIME, "time": TIME, "email": EMAIL, "uri": URI}
    if fmt in checks and not checks[fmt].match(value):
        return [f"format: {where} is not a {fmt}"]
    if "YYYY-MM-DD" in desc and "T" not in desc and not DATE.match(value):
        return [f"format: {where} is not YYYY-MM-DD"]
    if re.search(r"\bHH:MM\b", desc) and not TIME.match(value):
        return [f"format: {where} is not HH:MM"]
    pattern = spec.get("pattern")
    if isinstance(pattern, str):
        try:
            if not re.search(pattern, value):
                return [f"format: {where} does not match its pattern"]
        except re.error:
            return []
    return []


def argument_faults(args: Mapping[str, Any], schema: Mapping[str, Any], where: str
                    ) -> list[str]:  # fmt: skip
    """Schema faults of one call's arguments (required, declared, typed, in range)."""
    props = schema.get("properties") or {}
    faults = [f"schema: {where} lacks required {r!r}" for r in schema.get("required") or ()
              if r not in args]  # fmt: skip
    faults += [f"schema: {where} has undeclared {k!r}" for k in args if props and k not in props]
    for k, v in args.items():
        faults += value_faults(v, props.get(k), f"{where}.{k}")
    return faults


def _literals(value: Any) -> list[Any]:
    if isinstance(value, Ref):
        return []
    if isinstance(value, list):
        return [x for v in value for x in _literals(v)]
    if isinstance(value, dict):
        return [x for v in value.values() for x in _literals(v)]
    return [value]


def conversation_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text a value may be stated in: user, system and tool turns, earlier calls."""
    parts = []
    for m in messages:
        if m.get("role") in ("user", "system", "tool") and isinstance(m.get("content"), str):
            parts.append(m["content"])
        for tc in m.get("tool_calls") or ():
            parts.append(str((tc.get("function") or {}).get("arguments", "")))
    return "\n".join(parts)


def grounding_faults(call: ToolCall, schema: Mapping[str, Any], text: str) -> list[str]:
    """Literal values of a call the conversation never states (module doc)."""
    from toollearn.datagen.realistic import kind_of

    props = schema.get("properties") or {}
    faults = []
    for name, value in call.arguments.items():
        spec = props.get(name) if isinstance(props.get(name), dict) else {}
        if "default" in spec and spec["default"] == value:
            continue
        if spec.get("enum") or isinstance(value, bool):
            continue
        if isinstance(spec.get("items"), dict) and spec["items"].get("enum"):
            continue
        kind = kind_of(name, spec)
        for v in _literals(value):
            if not grounded(v, text, kind.name if kind else ""):
                faults.append(f"grounding: {call.name}.{name} is not in the conversation")
                break
    return faults


def placeholder_faults(values: Iterable[Any], texts: Iterable[str]) -> list[str]:
    """Placeholder-like tokens in values or texts."""
    for v in values:
        if isinstance(v, str) and (WHOLE_PLACEHOLDER.match(v.strip()) or PLACEHOLDER.search(v)):
            return [f"placeholder: value {v[:30]!r}"]
    for t in texts:
        m = PLACEHOLDER.search(t or "")
        if m:
            return [f"placeholder: text holds {m.group(0)!r}"]
    return []


def check(conv: Any, ground: bool = True) -> list[str]:
    """The reasons `conv` (a `schema_variety.Conversation`) must not be trained on ([]: it
    passes; see the module doc)."""
    schemas = _schemas(conv.tools)
    faults: list[str] = []
    if conv.tools and not conv.calls and not (conv.text or "").strip():
        return ["format: neither calls nor a text answer"]
    text = conversation_text(conv.messages)
    for call in conv.calls:
        if call.name not in schemas:
            return [f"format: {call.name!r} is not a shown tool"]
        if not isinstance(call.arguments, dict):
            return ["format: arguments are not a JSON object"]
        faults += argument_faults(call.arguments, schemas[call.name], call.name)
        if ground:
            faults += grounding_faults(call, schemas[call.name], text)
    values = [v for c in conv.calls for v in _literals(c.arguments)]
    texts = [conv.text] + [m.get("content") for m in conv.messages
                           if m.get("role") in ("user", "assistant")
                           and isinstance(m.get("content"), str)]  # fmt: skip
    faults += placeholder_faults(values, texts)
    return faults


def parse_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    """An OpenAI assistant message's calls (arguments parsed; a bad one raises ValueError)."""
    out = []
    for tc in message.get("tool_calls") or ():
        fn = tc.get("function") or {}
        args = fn.get("arguments")
        args = json.loads(args) if isinstance(args, str) else args
        if not isinstance(args, dict):
            raise ValueError("arguments are not a JSON object")
        out.append(ToolCall(str(fn.get("name")), args))
    return out
