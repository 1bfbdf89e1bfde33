"""The `Constraint` value engines accept: a grammar that only admits well-formed answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CONSTRAINT_KINDS = ("gbnf", "json_schema", "regex")


@dataclass(frozen=True)
class Constraint:
    """A decoding constraint: `kind` says how `grammar` is written.

    kind "gbnf": llama.cpp's GBNF text (root rule `root`); "json_schema": a JSON Schema as JSON
    text; "regex": a regular expression. `name` is a short label for logs and run configs.
    """

    kind: str
    grammar: str
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in CONSTRAINT_KINDS:
            kinds = ", ".join(CONSTRAINT_KINDS)
            raise ValueError(f"unknown constraint kind {self.kind!r}; use one of {kinds}")
        if not self.grammar.strip():
            raise ValueError("a constraint needs a non-empty grammar")


def choice_constraint(options: Sequence[str], name: str = "choice") -> Constraint:
    """A grammar admitting exactly one of `options` (yes/no, a tool name, a role)."""
    from toollearn.decoding.gbnf import gbnf_alternatives, gbnf_literal

    if not options:
        raise ValueError("choice_constraint needs at least one option")
    root = gbnf_alternatives([gbnf_literal(o) for o in options])
    return Constraint("gbnf", f"root ::= {root}\n", name=name)
