"""DEER constraint: the decision markers, with a typed Python call when a tool is called.

Stages (the released DEER targets, see formats.answers.deer):
  "search": `#Begin# Need to look up the API Pool. #SearchAPI#` or the no-search answer
            `#Begin# Don't need to look up the API Pool, ... #End#`;
  "call":   after the pool is shown: `#CallAPI# f(a=..., b=...) #APIResponse#` or
            `#NoCallAPI# <reason> #End#`;
  "both":   no-search, or `#Begin# Need to look up the API Pool. #SearchAPI# ` followed by the
            call decision (for prompts that already show the pool).
Call arguments are keywords in signature order, required ones present, values Python literals
of the declared type (None also allowed for optional ones).
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

SEARCH = "#Begin# Need to look up the API Pool. #SearchAPI#"
NO_SEARCH = (
    "#Begin# Don't need to look up the API Pool, I can answer this question with my own knowledge."
)
STAGES = ("search", "call", "both")


def py_value_rule(spec: Any, optional: bool) -> str:
    """GBNF expression for a Python literal of a JSON-Schema property's type."""
    jtype = spec.get("type") if isinstance(spec, dict) else None
    types = jtype if isinstance(jtype, list) else [jtype] if jtype else []
    rules = [PY_TYPE_RULES[t] for t in types if t in PY_TYPE_RULES] or ["pval"]
    if optional and "pnone" not in rules and "pval" not in rules:
        rules.append("pnone")
    return gbnf_alternatives(rules)


def pycall_rules(tools: Sequence[Tool]) -> list[str]:
    """Rules `pycall ::= ...` for a keyword-argument call to one of the tools."""
    lines, names = [], []
    for i, tool in enumerate(tools):
        required = set(tool.required)
        items = [
            (
                f"{gbnf_literal(name + '=')} {py_value_rule(spec, name not in required)}",
                name in required,
            )
            for name, spec in tool.properties.items()
        ]
        start, plines = keyed_sequence(f"c{i}-a", items)
        lines += [*plines, f'pc{i} ::= {gbnf_literal(tool.name + "(")} {start} ")"']
        names.append(f"pc{i}")
    return ["pycall ::= " + " | ".join(names), *lines]


def deer_grammar(tools: Sequence[Tool], stage: str = "call") -> str:
    """GBNF text of the DEER constraint for a stage."""
    if stage not in STAGES:
        raise ValueError(f"unknown DEER stage {stage!r}; use one of {STAGES}")
    if stage != "search" and not tools:
        raise ValueError("a DEER call decision needs the pool's tools")
    no_search = f"{gbnf_literal(NO_SEARCH)} {gbnf_literal(' #End#')}"
    lines = [
        "reason ::= [^#\\x00-\\x1f]{1,300}",
        'decision ::= "#CallAPI# " pycall " #APIResponse#" | "#NoCallAPI# " reason "#End#"',
    ]
    if stage == "search":
        root = f"root ::= {gbnf_literal(SEARCH)} | {no_search}"
        return root + "\n"
    root = (
        "root ::= decision"
        if stage == "call"
        else (f"root ::= {no_search} | {gbnf_literal(SEARCH + ' ')} decision")
    )
    return "\n".join([root, *lines, *pycall_rules(tools), PY_PRIMITIVES]) + "\n"


def deer_constraint(tools: Sequence[Tool], stage: str = "call") -> Constraint:
    """A GBNF constraint admitting only well-formed DEER decisions over the pool's tools."""
    return Constraint("gbnf", deer_grammar(tools, stage), name=f"deer-{stage}")
