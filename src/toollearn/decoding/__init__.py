"""Constrained decoding: grammars that only admit well-formed answers of each format.

`Constraint` is what engines accept. Builders: `seal_calls_constraint(tools)` (Seal-Tools call
list), `tool_calls_constraint(tools)` (the general JSON call list), `deer_constraint(tools,
stage)` (DEER markers with a Python call), `pycall_constraint(tools)` (a Python call),
`action_constraint` / `next_constraint` (alpha-UMi), `choice_constraint(options)`. GBNF
helpers live in `toollearn.decoding.gbnf`, JSON-Schema typed values in `decoding.json_schema`.
"""

from __future__ import annotations

from toollearn.decoding.constraint import CONSTRAINT_KINDS, Constraint, choice_constraint
from toollearn.decoding.deer import deer_constraint
from toollearn.decoding.gbnf import gbnf_alternatives, gbnf_literal, keyed_sequence
from toollearn.decoding.pycall import pycall_constraint
from toollearn.decoding.seal_tools import seal_calls_constraint
from toollearn.decoding.tool_calls import tool_calls_constraint
from toollearn.decoding.umi import action_constraint, next_constraint

__all__ = [
    "CONSTRAINT_KINDS",
    "Constraint",
    "action_constraint",
    "choice_constraint",
    "deer_constraint",
    "gbnf_alternatives",
    "gbnf_literal",
    "keyed_sequence",
    "next_constraint",
    "pycall_constraint",
    "seal_calls_constraint",
    "tool_calls_constraint",
]
