"""The one Python-call grammar: `name(arg=value, ...)` for DEER's answers and the agents.

Keyword arguments in each tool's declared order, required ones present, optional ones
skippable; values are Python literals of the declared type (an enum's values, or None as well
for an optional argument).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import (
    PY_PRIMITIVES,
    PY_TYPE_RULES,
    gbnf_alternatives,
    gbnf_literal,
    keyed_sequence,
)


def py_value_rule(spec: Any, optional: bool) -> str:
    """GBNF expression for a Python literal of a JSON-Schema property's type."""
    enum = spec.get("enum") if isinstance(spec, dict) else None
    if enum:
        rules = [gbnf_literal(repr(v)) for v in enum]
    else:
        jtype = spec.get("type") if isinstance(spec, dict) else None
        types = jtype if isinstance(jtype, list) else [jtype] if jtype else []
        rules = [PY_TYPE_RULES[t] for t in types if t in PY_TYPE_RULES] or ["pval"]
    if optional and "pnone" not in rules and "pval" not in rules:
        rules.append("pnone")
    return gbnf_alternatives(rules)


def pycall_rules(tools: Sequence[Tool], rule: str = "pycall") -> list[str]:
    """Rules `<rule> ::= ...` admitting a keyword-argument call to one of the tools."""
    if not tools:
        raise ValueError("a Python-call grammar needs at least one tool")
    lines, names = [], []
    for i, tool in enumerate(tools):
        required = set(tool.required)
        items = [
            (f"{gbnf_literal(arg + '=')} {py_value_rule(spec, arg not in required)}",
             arg in required)
            for arg, spec in tool.properties.items()
        ]  # fmt: skip
        start, plines = keyed_sequence(f"{rule}{i}-a", items)
        lines += [*plines, f'{rule}{i} ::= {gbnf_literal(tool.name + "(")} {start} ")"']
        names.append(f"{rule}{i}")
    return [f"{rule} ::= " + " | ".join(names), *lines]


def pycall_constraint(tools: Sequence[Tool]) -> Constraint:
    """A Python call to one of `tools`."""
    rules = pycall_rules(tools)
    return Constraint(
        "gbnf", "\n".join(["root ::= pycall", *rules, PY_PRIMITIVES]) + "\n", "pycall"
    )
