"""Seal-Tools call-list constraint: only well-formed calls to the candidate tools.

Admits `[{"api": "<candidate>", "parameters": {...}, "responses": ["API_call_k", ...]}, ...]`
where each tool's parameters appear in declared order (required present, optional skippable),
values have the declared JSON type (or are a nested reference "API_call_<n>"), and each call
gets exactly max(1, #response fields) response ids, numbered across the list as in the data.
`[]` (no call) is admitted when `allow_empty`. With `distinct`, each candidate is called at most
once in a list: no Seal-Tools dev answer repeats a tool (0 of 700; 3 of the 1,354 test answers).
With `stated_optional`, an optional parameter is written only with a value the query states (see
`stated_value_rule`): in the dev answers, 85% of the optional values appear verbatim in the
query, none is a boolean, a list or an object, and 1 of 523 is a nested reference.

String values leave out the characters the authors' scorer cannot read (OFFICIAL_UNSAFE): it
turns every ' into " before json.loads, and it finds the end of the list by counting [ and ]
without regard to quotes, so an apostrophe or an unbalanced bracket inside a value would make
an otherwise valid answer a format failure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import (
    JSON_TYPE_RULES,
    gbnf_alternatives,
    gbnf_literal,
    json_key_literal,
    json_primitives,
    keyed_sequence,
)

MAX_CALLS = 6  # the most calls any Seal-Tools answer has
OFFICIAL_UNSAFE = "'[]"
# A number as a query writes it, not part of a word, a date or a version ("ID 44", "$400", "6.0
# liters", "1,000", "-5"; not "2022-10-15", "Q4" or "v2.1").
_STATED_NUMBER = re.compile(
    r"(?<![\w.])(?<!\d-)-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\w|\.\d|-\d)"
)


def param_value_rule(spec: Any, ref_rule: str | None = "jref", string_rule: str = "jstr") -> str:
    """The GBNF expression for one parameter value of a JSON-Schema property spec.

    `ref_rule` names the rule for nested references ("API_call_<n>") admitted where the type is
    not already any string (None: no references); `string_rule` is the rule of string values.
    """
    types = {**JSON_TYPE_RULES, "string": string_rule}
    jtype = spec.get("type") if isinstance(spec, dict) else None
    if isinstance(jtype, list):  # e.g. ["string", "null"]
        rules = [types[t] for t in jtype if t in types]
    else:
        rules = [types.get(jtype, "jval")] if jtype else ["jval"]
    enum = spec.get("enum") if isinstance(spec, dict) else None
    if enum:
        rules = [gbnf_literal(json.dumps(v, ensure_ascii=False)) for v in enum]
    if ref_rule and "jstr" not in rules and "jval" not in rules:
        rules.append(ref_rule)  # a string value already admits "API_call_<n>"
    return gbnf_alternatives(rules)


def stated_numbers(query: str) -> tuple[list[str], list[str]]:
    """The integers and the numbers (integers too) the query writes, as JSON literals."""
    ints: list[str] = []
    nums: list[str] = []
    for m in _STATED_NUMBER.findall(query):
        m = m.replace(",", "")
        literal = json.dumps(float(m)) if "." in m else str(int(m))
        if literal not in nums:
            nums.append(literal)
            if "." not in m:
                ints.append(literal)
    return ints, nums


def stated_value_rule(spec: Any, query: str) -> str | None:
    """The GBNF expression for an optional parameter's value that the query states, or None
    when the query states none (the parameter is then left out).

    A string is a span of the query (`qstr`, from `copy_rules`); an integer or a number is one
    the query writes (`stated_numbers`); an enum member is one whose text the query contains.
    Booleans, lists, objects and nested references are not admitted.
    """
    if not isinstance(spec, dict):
        return None
    enum = spec.get("enum")
    if enum:
        stated = [v for v in enum if not isinstance(v, bool) and str(v) in query]
        rules = [gbnf_literal(json.dumps(v, ensure_ascii=False)) for v in stated]
        return gbnf_alternatives(rules) if rules else None
    jtype = spec.get("type")
    kinds = jtype if isinstance(jtype, list) else [jtype]
    ints, nums = stated_numbers(query)
    rules: list[str] = []
    if "string" in kinds:
        rules.append("qstr")
    numbers = nums if "number" in kinds else ints if "integer" in kinds else []
    rules += [gbnf_literal(n) for n in numbers]
    return gbnf_alternatives(rules) if rules else None


def params_rules(
    tool: Tool,
    prefix: str,
    ref_rule: str | None = "jref",
    string_rule: str = "jstr",
    stated_from: str | None = None,
) -> tuple[str, list[str]]:
    """Rules for one tool's arguments object body (between the braces); with `stated_from` (the
    query), optional parameters take only values it states (`stated_value_rule`)."""
    required = set(tool.required)
    items = []
    for name, spec in tool.properties.items():
        if name in required or stated_from is None:
            value = param_value_rule(spec, ref_rule, string_rule)
        elif (value := stated_value_rule(spec, stated_from)) is None:
            continue
        items.append((f"{json_key_literal(name)} {value}", name in required))
    return keyed_sequence(prefix, items)


def span_char(ch: str, unsafe: str = OFFICIAL_UNSAFE) -> bool:
    """Whether a `copy_rules` span may hold this character (no quote, backslash, control or
    `unsafe` character)."""
    return ch not in unsafe and ch not in '"\\' and ord(ch) >= 0x20


def copy_rules(text: str, unsafe: str = OFFICIAL_UNSAFE) -> list[str]:
    """`qstr`: a JSON string whose content is a span of `text` (the query), in linear size.

    `q<i>` is the character at i optionally followed by `q<i+1>`, so `q<i>` matches every span
    starting at i; a span starts at a non-space character and never holds a quote, backslash,
    control or `unsafe` character (those end it). Falls back to any string (`jstr`) when the
    text has no usable character.
    """
    lines, starts = [], []
    for i, ch in enumerate(text):
        if not span_char(ch, unsafe):
            continue
        more = f" q{i + 1}?" if i + 1 < len(text) and span_char(text[i + 1], unsafe) else ""
        lines.append(f"q{i} ::= {gbnf_literal(ch)}{more}")
        if not ch.isspace():
            starts.append(f"q{i}")
    if not starts:
        return ["qstr ::= jstr"]
    return [f'qstr ::= "\\"" ({" | ".join(starts)}) "\\""', *lines]


def ref_rule_line(offset: int) -> str:
    """`ref<offset>`: a nested reference to one of the responses API_call_0..offset-1."""
    ids = " | ".join(gbnf_literal(f'"API_call_{k}"') for k in range(offset))
    return f"ref{offset} ::= {ids}"


def response_count(tool: Tool) -> int:
    """How many response ids a call of this tool gets in Seal-Tools (at least one)."""
    return max(1, len(tool.responses))


def _responses_literal(offset: int, tool: Tool) -> str:
    ids = ",".join(f'"API_call_{offset + k}"' for k in range(response_count(tool)))
    return gbnf_literal(f'}}, "responses": [{ids}]}}')


def seal_calls_grammar(
    tools: Sequence[Tool],
    allow_empty: bool = True,
    max_calls: int = MAX_CALLS,
    max_string: int | None = None,
    distinct: bool = False,
    copy_from: str | None = None,
    stated_optional: bool = False,
) -> str:
    """The GBNF text of the Seal-Tools call-list constraint for these candidate tools.

    A call whose response ids start at k may reference only API_call_0..k-1 in non-string
    values (so no dangling references there). `max_string` bounds string values (characters);
    `distinct` admits each tool at most once per list; with `copy_from` (the query), a
    string-typed parameter takes a span of it or a nested reference (`copy_rules`), and with
    `stated_optional` too, an optional parameter only a value the query states.
    """
    if not tools:
        raise ValueError("seal_calls_constraint needs at least one candidate tool")
    if max_calls < 1:
        raise ValueError("max_calls must be at least 1")
    if stated_optional and copy_from is None:
        raise ValueError("stated_optional needs copy_from (the query)")
    stated_from = copy_from if stated_optional else None
    lines: list[str] = []
    made: set[tuple[int, int]] = set()
    string_rule = "jstr" if copy_from is None else "qstr"

    def call_rule(i: int, off: int) -> str:
        """Name of the rule for a call of tool i whose first response id is `off`."""
        name = f"call{i}-{off}"
        if (i, off) not in made:
            made.add((i, off))
            ref = f"ref{off}" if off else None
            start, plines = params_rules(tools[i], f"t{i}-{off}-p", ref, string_rule, stated_from)
            lines.extend(plines)
            head = gbnf_literal('{"api": ' + json.dumps(tools[i].name, ensure_ascii=False))
            body = gbnf_literal(', "parameters": {')
            lines.append(f"{name} ::= {head} {body} {start} {_responses_literal(off, tools[i])}")
        return name

    # States (calls so far, responses so far, tools used when `distinct`) decide what may
    # follow and how ids are numbered.
    every = (1 << len(tools)) - 1 if distinct else 0
    start = (0, 0, 0)
    todo, seen, states, offsets = [start], {start}, [], set()
    while todo:
        n, off, used = todo.pop()
        alts = []
        for i, tool in enumerate(tools):
            if used & (1 << i):
                continue
            nxt = (n + 1, off + response_count(tool), used | (1 << i) if distinct else 0)
            tail = '"]"'
            if nxt[0] < max_calls and (not distinct or nxt[2] != every):
                tail = f'("," {_state_name(nxt)} | "]")'
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
            alts.append(f"{call_rule(i, off)} {tail}")
            offsets.add(off)
        states.append(f"{_state_name((n, off, used))} ::= " + " | ".join(alts))
    refs = [ref_rule_line(o) for o in sorted(offsets) if o]
    root = f'"[" {_state_name(start)}' + (' | "[]"' if allow_empty else "")
    prims = json_primitives(OFFICIAL_UNSAFE)
    if max_string:
        prims = prims.replace('jchar+ "', f'jchar{{1,{int(max_string)}}} "')
    copies = [] if copy_from is None else copy_rules(copy_from)
    return "\n".join([f"root ::= {root}", *sorted(states), *lines, *refs, *copies, prims]) + "\n"


def _state_name(state: tuple[int, int, int]) -> str:
    n, off, used = state
    return f"s{n}-{off}" + (f"-u{used}" if used else "")


def seal_calls_constraint(
    tools: Sequence[Tool],
    allow_empty: bool = True,
    max_calls: int = MAX_CALLS,
    max_string: int | None = None,
    distinct: bool = False,
    copy_from: str | None = None,
    stated_optional: bool = False,
) -> Constraint:
    """A GBNF constraint admitting only Seal-Tools call lists over these candidates."""
    grammar = seal_calls_grammar(
        tools, allow_empty, max_calls, max_string, distinct, copy_from, stated_optional
    )
    return Constraint("gbnf", grammar, name="seal-calls")
