"""Grammars for a foreign model's own call syntax (`formats.template_tools`): calls to the
request's tools with arguments typed by their JSON Schemas, or (where allowed) a text reply
that does not begin like a call.

hermes: `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`, blocks joined by a
newline; llama3-json: one `{"name": "f", "parameters": {...}}`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import gbnf_literal
from toollearn.decoding.json_schema import JSON_VALUE_RULES, SchemaRules
from toollearn.decoding.tool_calls import MAX_CALLS

KEYS = {"hermes": "arguments", "llama3-json": "parameters"}
TEXT_START = {"hermes": "<", "llama3-json": "{<"}  # a reply may not begin like a call


def template_calls_grammar(
    dialect: str,
    tools: Sequence[Tool],
    calls: bool = True,
    text: bool = True,
    max_calls: int = MAX_CALLS,
) -> str:
    """GBNF of the dialect's calls over `tools` (`calls`) and/or a text reply (`text`)."""
    if dialect not in KEYS:
        raise ValueError(f"unknown tool-call dialect {dialect!r}")
    if not (calls and tools) and not text:
        raise ValueError("a grammar needs calls to some tool or a text reply")
    rules, alts, lines = SchemaRules(), [], []
    for i, tool in enumerate(tools if calls else ()):
        schema = {**tool.parameters, "type": "object"}
        args = rules.value(schema) if tool.properties else '"{}"'
        head = gbnf_literal(f'{{"name": {json.dumps(tool.name, ensure_ascii=False)}, '
                            f'"{KEYS[dialect]}": ')  # fmt: skip
        lines.append(f'call{i} ::= {head} {args} "}}"')
        alts.append(f"call{i}")
    root = []
    if alts:
        lines.append("call ::= " + " | ".join(alts))
        if dialect == "hermes":
            block = '"<tool_call>\\n" call "\\n</tool_call>"'
            more = f' ("\\n" {block}){{0,{max_calls - 1}}}' if max_calls > 1 else ""
            root.append(f"{block}{more}")
        else:
            root.append("call")
    if text:
        first = "".join(f"\\x{ord(c):02x}" for c in TEXT_START[dialect])
        lines.append(f"reply ::= [^{first}\\x00] [^\\x00]*")
        root.append("reply")
    head = f"root ::= {' | '.join(root)}"
    return "\n".join([head, *lines, *rules.lines, JSON_VALUE_RULES]) + "\n"


def template_calls_constraint(
    dialect: str,
    tools: Sequence[Tool],
    calls: bool = True,
    text: bool = True,
    max_calls: int = MAX_CALLS,
) -> Constraint:
    """A GBNF constraint of `template_calls_grammar`."""
    grammar = template_calls_grammar(dialect, tools, calls, text, max_calls)
    return Constraint("gbnf", grammar, f"template-{dialect}")
