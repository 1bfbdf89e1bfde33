"""The general call-list constraint (formats.answers.tool_calls): calls to the listed tools, or
an explicit no-call.

Admits `[{"name": "<tool>", "arguments": {...}}, ...]` (arguments typed from each tool's JSON
Schema: nested objects, arrays with typed items, enums, numbers; strings may hold any
character), or, when `allow_no_call`, `[]` optionally followed by a newline and a plain-text
answer. `required=True` (OpenAI's tool_choice "required") removes the no-call branch;
`no_call_constraint` admits only the no-call answer (a call gate declined for the model).
`sequence`: the tool names the list must call, in that order (a call plan's batch); a None in
it is a call of any listed tool that the list may make there or leave out.
`reply`: a JSON Schema the reply must follow (OpenAI's `response_format`; `{"type":
"object"}` for any JSON object); the reply is then required. `reply_constraint` is the same
without tools.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import gbnf_literal
from toollearn.decoding.json_schema import JSON_VALUE_RULES, SchemaRules

MAX_CALLS = 8
NO_CALL = "[]"
ANSWER_RULE = 'answer ::= ("\\n" [^\\x00]+)?'


def tool_calls_grammar(
    tools: Sequence[Tool],
    allow_no_call: bool = True,
    max_calls: int = MAX_CALLS,
    reply: dict[str, Any] | None = None,
    sequence: Sequence[str | None] | None = None,
) -> str:
    """GBNF text of the general call list over these tools (with `sequence`: exactly those
    calls, in order, each None an optional call of any tool)."""
    if not tools:
        raise ValueError("a call-list grammar needs at least one tool")
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    index = {tool.name: i for i, tool in enumerate(tools)}
    named = [n for n in sequence or () if n is not None]
    if sequence is not None and (not named or any(n not in index for n in named)):
        raise ValueError(f"a call sequence names listed tools only: {list(sequence)}")
    rules = SchemaRules()
    answer = _answer_rule(rules, reply)
    alts = []
    for i, tool in enumerate(tools):
        schema = {**tool.parameters, "type": "object"}
        args = rules.value(schema) if tool.properties else '"{}"'
        head = gbnf_literal('{"name": ' + json.dumps(tool.name, ensure_ascii=False))
        rules.lines.append(f'call{i} ::= {head} ", \\"arguments\\": " {args} "}}"')
        alts.append(f"call{i}")
    more = f' (", " call){{0,{max_calls - 1}}}' if max_calls > 1 else ""
    root = f'"[" call{more} "]"'
    if sequence is not None:
        root = f'"[" {_sequence(sequence, index)} "]"'
    if allow_no_call:
        root += f" | {gbnf_literal(NO_CALL)} answer"
    free = sequence is None or None in sequence
    call = ["call ::= " + " | ".join(alts)] if free else []
    lines = [f"root ::= {root}", *call, *rules.lines]
    if allow_no_call:
        lines.append(answer)
    return "\n".join([*lines, JSON_VALUE_RULES]) + "\n"


def _sequence(sequence: Sequence[str | None], index: dict[str, int]) -> str:
    """The calls of a sequence, comma-separated; a None is `call` or nothing (its comma goes
    after it before the first named call, before it after one)."""
    parts, named = [], False
    for name in sequence:
        if name is None:
            parts.append('(", " call)?' if named else '(call ", ")?')
        else:
            parts.append(('", " ' if named else "") + f"call{index[name]}")
            named = True
    return " ".join(parts)


def _answer_rule(rules: SchemaRules, reply: dict[str, Any] | None) -> str:
    """The `answer` rule after `[]`: free text (optional) or a JSON value (required)."""
    if reply is None:
        return ANSWER_RULE
    return f'answer ::= "\\n" {rules.value(reply)}'


def tool_calls_constraint(
    tools: Sequence[Tool],
    allow_no_call: bool = True,
    max_calls: int = MAX_CALLS,
    reply: dict[str, Any] | None = None,
    sequence: Sequence[str | None] | None = None,
) -> Constraint:
    """A GBNF constraint admitting only general call lists (or the no-call answer)."""
    grammar = tool_calls_grammar(tools, allow_no_call, max_calls, reply, sequence)
    return Constraint("gbnf", grammar, "tool-calls")


def no_call_constraint(
    reply: dict[str, Any] | None = None, opening: str | None = None, whole: bool = False
) -> Constraint:
    """A GBNF constraint admitting only the no-call answer: `[]`, then optionally a newline
    and a plain-text reply (or, with `reply`, a newline and that JSON value; with `opening`, a
    newline and a reply that starts so, going on for at least a character, or, `whole`, the
    opening may be the whole reply)."""
    rules = SchemaRules()
    answer = _answer_rule(rules, reply)
    if opening is not None and reply is None:
        rest = "*" if whole else "+"
        answer = f'answer ::= "\\n" {gbnf_literal(opening)} [^\\x00]{rest}'
    grammar = "\n".join([f"root ::= {gbnf_literal(NO_CALL)} answer", answer, *rules.lines])
    if reply is not None:
        grammar += "\n" + JSON_VALUE_RULES
    return Constraint("gbnf", grammar + "\n", "tool-calls-no-call")


def reply_constraint(reply: dict[str, Any]) -> Constraint:
    """A GBNF constraint admitting only a JSON value of the `reply` schema (no tools)."""
    rules = SchemaRules()
    root = rules.value(reply)
    grammar = "\n".join([f"root ::= {root}", *rules.lines, JSON_VALUE_RULES]) + "\n"
    return Constraint("gbnf", grammar, "json-reply")
