"""DEER constraint: the released format's decisions, with a typed Python call when calling.

Stages (formats.answers.deer):
  "search": what the model writes first: `#Begin# Need to look up the API Pool. #SearchAPI#`
            or the no-search answer `#Begin# Don't need to look up the API Pool, ... #End#`;
  "call":   what it writes after the agent inserted the pool:
            ` #CallAPI# f(a=..., b=...) #APIResponse#` or the released NoCall sentence
            ` #NoCallAPI# There is no proper API and ... #End#`;
  "args":   the call alone, once the agent has decided to call and written ` #CallAPI#`
            itself: ` f(a=..., b=...) #APIResponse#`.
Call arguments follow `decoding.pycall` (declared order, required present, typed literals).
"""

from __future__ import annotations

from collections.abc import Sequence

from toollearn.core.types import Tool
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.gbnf import PY_PRIMITIVES, gbnf_literal
from toollearn.decoding.pycall import pycall_rules
from toollearn.formats.answers.deer import (
    CALL,
    NO_CALL_SPAN,
    NO_SEARCH_SPAN,
    RESPONSE,
    SEARCH_SPAN,
    pool_tools,
)

STAGES = ("search", "call", "args")


def deer_grammar(tools: Sequence[Tool], stage: str = "call") -> str:
    """GBNF text of the DEER constraint for a stage (tools as the model sees them)."""
    if stage not in STAGES:
        raise ValueError(f"unknown DEER stage {stage!r}; use one of {STAGES}")
    if stage == "search":
        return f"root ::= {gbnf_literal(SEARCH_SPAN)} | {gbnf_literal(NO_SEARCH_SPAN)}\n"
    if not tools:
        raise ValueError("a DEER call decision needs the pool's tools")
    call = f"{gbnf_literal(' ')} pycall {gbnf_literal(f' {RESPONSE}')}"
    if stage == "args":
        lines = [f"root ::= {call}"]
    else:
        lines = [f"root ::= {gbnf_literal(f' {CALL}')} {call} | {gbnf_literal(NO_CALL_SPAN)}"]
    return "\n".join([*lines, *pycall_rules(tools), PY_PRIMITIVES]) + "\n"


def deer_constraint(tools: Sequence[Tool], stage: str = "call") -> Constraint:
    """A GBNF constraint admitting only well-formed DEER output for a stage, over the pool as
    the model sees it (tools whose names are not identifiers under their alias)."""
    return Constraint("gbnf", deer_grammar(pool_tools(tools), stage), name=f"deer-{stage}")
