"""Constrained decoding: grammars that only admit well-formed tool-call answers.

`Constraint` is what engines accept. Builders: `seal_calls_constraint(tools)` (Seal-Tools call
list), `openai_calls_constraint(tools)` (OpenAI-style JSON call list), `deer_constraint(tools,
stage)` (DEER markers with a Python call). GBNF helpers live in `toollearn.decoding.gbnf`.
"""

from __future__ import annotations

from toollearn.decoding.constraint import CONSTRAINT_KINDS, Constraint
from toollearn.decoding.deer import deer_constraint
from toollearn.decoding.gbnf import gbnf_alternatives, gbnf_literal, keyed_sequence
from toollearn.decoding.openai_calls import openai_calls_constraint
from toollearn.decoding.seal_tools import seal_calls_constraint

__all__ = [
    "CONSTRAINT_KINDS",
    "Constraint",
    "deer_constraint",
    "gbnf_alternatives",
    "gbnf_literal",
    "keyed_sequence",
    "openai_calls_constraint",
    "seal_calls_constraint",
]
