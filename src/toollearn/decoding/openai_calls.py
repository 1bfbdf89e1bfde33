"""OpenAI-style call-list constraint: `[{"name": ..., "arguments": {...}}, ...]` or `[]`."""

from __future__ import annotations

import json
from collections.abc import Sequence

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import JSON_PRIMITIVES, gbnf_literal
from toollearn.decoding.seal_tools import params_rules

MAX_CALLS = 6


def openai_calls_grammar(
    tools: Sequence[Tool], allow_empty: bool = True, max_calls: int = MAX_CALLS
) -> str:
    """GBNF for a JSON list of calls to these tools (typed arguments, required present)."""
    if not tools:
        raise ValueError("openai_calls_constraint needs at least one tool")
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    lines, names = [], []
    for i, tool in enumerate(tools):
        start, plines = params_rules(tool, f"t{i}-p", ref_rule=None)
        head = gbnf_literal(
            '{"name": ' + json.dumps(tool.name, ensure_ascii=False) + ', "arguments": {'
        )
        lines += [*plines, f'call{i} ::= {head} {start} "}}}}"']
        names.append(f"call{i}")
    calls = f'call ("," call){{0,{max_calls - 1}}}' if max_calls > 1 else "call"
    root = f'"[" {calls} "]"' + (' | "[]"' if allow_empty else "")
    return (
        "\n".join([f"root ::= {root}", "call ::= " + " | ".join(names), *lines, JSON_PRIMITIVES])
        + "\n"
    )


def openai_calls_constraint(
    tools: Sequence[Tool], allow_empty: bool = True, max_calls: int = MAX_CALLS
) -> Constraint:
    """A GBNF constraint admitting only OpenAI-style call lists over these tools."""
    return Constraint("gbnf", openai_calls_grammar(tools, allow_empty, max_calls), "openai-calls")
