"""Grammars the agents decode with, built from E's GBNF helpers.

- `choice_constraint(options)`: exactly one of a few strings (yes/no, a tool name, a role).
- `action_constraint(tools)`: alpha-UMi's caller turn, `Action: <name>\\nAction Input: {...}`
  with that tool's declared arguments (required present, typed values).
- `pycall_constraint(tools)`: a DEER-style Python call `name(arg=value, ...)`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import (
    JSON_PRIMITIVES,
    JSON_TYPE_RULES,
    PY_PRIMITIVES,
    PY_TYPE_RULES,
    gbnf_alternatives,
    gbnf_literal,
    json_key_literal,
    keyed_sequence,
)


def choice_constraint(options: Sequence[str], name: str = "choice") -> Constraint:
    """A grammar admitting exactly one of `options`."""
    if not options:
        raise ValueError("choice_constraint needs at least one option")
    root = gbnf_alternatives([gbnf_literal(o) for o in options])
    return Constraint("gbnf", f"root ::= {root}\n", name=name)


def action_constraint(tools: Sequence[Tool]) -> Constraint:
    """alpha-UMi caller output over these tools (no nested refs: one call per turn)."""
    if not tools:
        raise ValueError("action_constraint needs at least one tool")
    lines, alts = [], []
    for i, tool in enumerate(tools):
        required = set(tool.required)
        items = [
            (f"{json_key_literal(arg)} {_value(spec, JSON_TYPE_RULES, 'jval', json.dumps)}",
             arg in required)
            for arg, spec in tool.properties.items()
        ]  # fmt: skip
        start, plines = keyed_sequence(f"a{i}-p", items)
        lines += plines
        head = gbnf_literal(f"Action: {tool.name}\nAction Input: {{")
        lines.append(f'act{i} ::= {head} {start} "}}"')
        alts.append(f"act{i}")
    root = f"root ::= {' | '.join(alts)}"
    return Constraint("gbnf", "\n".join([root, *lines, JSON_PRIMITIVES]) + "\n", name="umi-action")


def _value(spec: object, rules: dict[str, str], any_rule: str, show: Callable) -> str:
    """The GBNF expression of one argument value of a property schema in a dialect."""
    jtype = spec.get("type") if isinstance(spec, dict) else None
    enum = spec.get("enum") if isinstance(spec, dict) else None
    if enum:
        return gbnf_alternatives([gbnf_literal(show(v)) for v in enum])
    if isinstance(jtype, list):
        return gbnf_alternatives([rules[t] for t in jtype if t in rules] or [any_rule])
    return rules.get(jtype, any_rule) if isinstance(jtype, str) else any_rule


def pycall_constraint(tools: Sequence[Tool]) -> Constraint:
    """A Python call to one of `tools` with keyword arguments in declared order."""
    if not tools:
        raise ValueError("pycall_constraint needs at least one tool")
    lines, alts = [], []
    for i, tool in enumerate(tools):
        required = set(tool.required)
        items = [
            (
                f"{gbnf_literal(arg + '=')} {_value(spec, PY_TYPE_RULES, 'pval', repr)}",
                arg in required,
            )
            for arg, spec in tool.properties.items()
        ]
        start, plines = keyed_sequence(f"c{i}-p", items, sep='", "')
        lines += plines
        lines.append(f'call{i} ::= {gbnf_literal(tool.name + "(")} {start} ")"')
        alts.append(f"call{i}")
    root = f"root ::= {' | '.join(alts)}"
    return Constraint("gbnf", "\n".join([root, *lines, PY_PRIMITIVES]) + "\n", name="pycall")
