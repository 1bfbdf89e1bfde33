"""The general call-list constraint (formats.answers.tool_calls): calls to the listed tools, or
an explicit no-call.

Admits `[{"name": "<tool>", "arguments": {...}}, ...]` (arguments typed from each tool's JSON
Schema: nested objects, arrays with typed items, enums, numbers; strings may hold any
character), or, when `allow_no_call`, `[]` optionally followed by a newline and a plain-text
answer. `required=True` (OpenAI's tool_choice "required") removes the no-call branch;
`no_call_constraint` admits only the no-call answer (a call gate declined for the model).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import gbnf_literal
from toollearn.decoding.json_schema import JSON_VALUE_RULES, SchemaRules

MAX_CALLS = 8
NO_CALL = "[]"
ANSWER_RULE = 'answer ::= ("\\n" [^\\x00]+)?'


def tool_calls_grammar(
    tools: Sequence[Tool], allow_no_call: bool = True, max_calls: int = MAX_CALLS
) -> str:
    """GBNF text of the general call list over these tools."""
    if not tools:
        raise ValueError("a call-list grammar needs at least one tool")
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    rules = SchemaRules()
    alts = []
    for i, tool in enumerate(tools):
        schema = {**tool.parameters, "type": "object"}
        args = rules.value(schema) if tool.properties else '"{}"'
        head = gbnf_literal('{"name": ' + json.dumps(tool.name, ensure_ascii=False))
        rules.lines.append(f'call{i} ::= {head} ", \\"arguments\\": " {args} "}}"')
        alts.append(f"call{i}")
    more = f' (", " call){{0,{max_calls - 1}}}' if max_calls > 1 else ""
    root = f'"[" call{more} "]"'
    if allow_no_call:
        root += f" | {gbnf_literal(NO_CALL)} answer"
    lines = [f"root ::= {root}", "call ::= " + " | ".join(alts), *rules.lines]
    if allow_no_call:
        lines.append(ANSWER_RULE)
    return "\n".join([*lines, JSON_VALUE_RULES]) + "\n"


def tool_calls_constraint(
    tools: Sequence[Tool], allow_no_call: bool = True, max_calls: int = MAX_CALLS
) -> Constraint:
    """A GBNF constraint admitting only general call lists (or the no-call answer)."""
    return Constraint("gbnf", tool_calls_grammar(tools, allow_no_call, max_calls), "tool-calls")


def no_call_constraint() -> Constraint:
    """A GBNF constraint admitting only the no-call answer: `[]`, then optionally a newline
    and a plain-text reply."""
    grammar = f"root ::= {gbnf_literal(NO_CALL)} answer\n{ANSWER_RULE}\n"
    return Constraint("gbnf", grammar, "tool-calls-no-call")
