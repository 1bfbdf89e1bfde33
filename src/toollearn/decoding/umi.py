"""alpha-UMi constraints (formats.answers.umi): the planner's next role, the caller's action.

- `next_constraint(allowed)`: what follows `Next: ` in a planner turn: `caller.`,
  `conclusion.` or `give up.` (the allowed ones).
- `action_constraint(tools, finish=False)`: `Action: <tool>\\nAction Input: {...}` with that
  tool's arguments typed from its schema; `finish=True` also admits the single-LLM format's
  `Action: Finish` with {"return_type": ..., "final_answer": "..."}.
"""

from __future__ import annotations

from collections.abc import Sequence

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint, choice_constraint
from toollearn.decoding.gbnf import gbnf_literal
from toollearn.decoding.json_schema import JSON_VALUE_RULES, SchemaRules
from toollearn.formats.answers.umi import FINISH, NEXT_OPTIONS

FINISH_INPUT = (
    '"{\\"return_type\\": " ("\\"give_answer\\"" | "\\"give_up_and_restart\\"") '
    '", \\"final_answer\\": " gstr "}"'
)


def next_constraint(allowed: Sequence[str] = NEXT_OPTIONS) -> Constraint:
    """The planner's choice after `Next: `, ending with the period of the released format."""
    unknown = [a for a in allowed if a not in NEXT_OPTIONS]
    if unknown or not allowed:
        raise ValueError(f"next roles must be among {NEXT_OPTIONS}, got {list(allowed)}")
    return choice_constraint([f"{a}." for a in allowed], "umi-next")


def action_constraint(tools: Sequence[Tool], finish: bool = False) -> Constraint:
    """A caller turn over these tools (one call per turn, no nested references)."""
    if not tools and not finish:
        raise ValueError("action_constraint needs at least one tool")
    rules, alts = SchemaRules(), []
    for i, tool in enumerate(tools):
        args = rules.value({**tool.parameters, "type": "object"}) if tool.properties else '"{}"'
        head = gbnf_literal(f"Action: {tool.name}\nAction Input: ")
        rules.lines.append(f"act{i} ::= {head} {args}")
        alts.append(f"act{i}")
    if finish:
        rules.lines.append(f"finish ::= {gbnf_literal(f'Action: {FINISH}' + chr(10))} "
                           f'"Action Input: " {FINISH_INPUT}')  # fmt: skip
        alts.append("finish")
    lines = [f"root ::= {' | '.join(alts)}", *rules.lines, JSON_VALUE_RULES]
    return Constraint("gbnf", "\n".join(lines) + "\n", name="umi-action")
