"""A GBNF grammar for an app's program language, for constrained decoding.

Programs are lines `API.fn(args)`: the app's `first_calls` in order, then the other API
functions, then `API.<last_call>()`. With `order="app"` (the default) the other functions come
at most once each, in the app's definition order; with `order="any"` they come in any order, as
many calls as there are such functions (the app runs them in any order; a repeated setter
overwrites its criterion). `order="typed"` is "any" plus the app's `branches`: after the
branching call (Trip Booking's booking type) only the functions its value allows, and every
function it requires before `last_call`. Arguments are typed from the method hints: integer
and number literals, double-quoted strings, enum literals, string lists, `Loc("...")` and
`Date(month, day, year)` (month 1-12, day 1-31).
Every repetition is bounded, so a constrained answer always terminates.
"""

from __future__ import annotations

import json
import typing
from typing import Any

from toollearn.apps.base import App, Date, Loc
from toollearn.decoding import Constraint
from toollearn.decoding.gbnf import gbnf_alternatives, gbnf_literal, keyed_sequence, rule_name

PRIMITIVES = r"""
aint ::= [0-9] | [1-9] [0-9]{1,9}
anum ::= aint ("." [0-9]{1,3})?
astr ::= "\"" achar{1,60} "\""
achar ::= [^"\\\x00-\x1f]
alist ::= "[" astr (", " astr){0,7} "]"
aloc ::= "Loc(" astr ")"
adate ::= "Date(" amonth ", " aday ", " ayear ")"
amonth ::= [1-9] | "1" [0-2]
aday ::= [1-9] | [12] [0-9] | "3" [01]
ayear ::= "20" [0-9] [0-9]
""".strip()


def _arg_rule(hint: Any) -> str:
    """The GBNF expression of one argument type."""
    if typing.get_origin(hint) is typing.Literal:
        return gbnf_alternatives(gbnf_literal(json.dumps(v)) for v in typing.get_args(hint))
    if typing.get_origin(hint) is list:
        return "alist"
    table = {int: "aint", float: "anum", str: "astr", Loc: "aloc", Date: "adate"}
    if hint not in table:
        raise ValueError(f"no grammar for argument type {hint!r}")
    return table[hint]


def _call_rule(cls: type[App], name: str) -> str:
    args = [_arg_rule(h) for h in cls.hints(name).values()]
    inner = ' ", " '.join(args)
    body = f"{gbnf_literal(f'API.{name}(')} {inner} {gbnf_literal(')')}".replace("  ", " ")
    return body


ORDERS = ("app", "any", "typed")


def _branch_rules(cls: type[App]) -> tuple[str, list[str]]:
    """The typed grammar's branching call and what follows it: one state per (required
    functions called so far, optional calls made so far), so every required function comes
    once, in any order, and the optional ones at most as many times as there are of them."""
    branching = cls.first_calls[-1]
    starts, lines = [], []
    for b, (value, branch) in enumerate(cls.branches.items()):
        opt = [n for n in branch.allowed if n not in branch.required]
        req = list(branch.required)
        lines.append(f"opt-{b} ::= {gbnf_alternatives(rule_name('call', n) for n in opt)}")
        for mask in range(1 << len(req)):
            for k in range(len(opt) + 1):
                alternatives = [
                    f'{rule_name("call", r)} "\\n" st-{b}-{mask | 1 << i}-{k}'
                    for i, r in enumerate(req)
                    if not mask & 1 << i
                ]
                if k < len(opt):
                    alternatives.append(f'opt-{b} "\\n" st-{b}-{mask}-{k + 1}')
                if mask == (1 << len(req)) - 1:
                    alternatives.append(rule_name("call", cls.last_call))
                lines.append(f"st-{b}-{mask}-{k} ::= {' | '.join(alternatives)}")
        call = gbnf_literal(f"API.{branching}({json.dumps(value)})")
        starts.append(f'{call} "\\n" st-{b}-0-0')
    return gbnf_alternatives(starts), lines


def program_grammar(cls: type[App], order: str = "app") -> str:
    """GBNF text (root rule `root`) admitting well-typed programs of `cls`.

    `order="app"`: the other API functions come at most once each, in the app's definition
    order (the criteria's order does not change the result). `order="any"`: in any order, at
    most as many calls as there are such functions, so a model trained on programs in another
    order is not forced off its next call. `order="typed"`: "any" within the app's `branches`
    (only the calls the branching value allows, each required one exactly once). Every program
    is bounded (a small model left free repeats setters until it runs out of tokens and never
    reaches `search()`).
    """
    if order not in ORDERS:
        raise ValueError(f"unknown grammar order {order!r}; use one of {', '.join(ORDERS)}")
    names = cls.api_names()
    rules = [f"{rule_name('call', n)} ::= {_call_rule(cls, n)}" for n in names]
    if order == "typed" and cls.branches:
        start, seq = _branch_rules(cls)
        parts = [_calls(cls.first_calls[:-1]), start]
    else:  # "typed" without branches is "any"
        middle = [n for n in names if n not in cls.first_calls and n != cls.last_call]
        if order == "app":
            items = [(f'{rule_name("call", n)} "\\n"', False) for n in middle]
            start, seq = keyed_sequence("middle", items, sep='""')
        else:
            alternatives = gbnf_alternatives(rule_name("call", n) for n in middle)
            start, seq = f"middle{{0,{len(middle)}}}", [f'middle ::= {alternatives} "\\n"']
        parts = [_calls(cls.first_calls), start, rule_name("call", cls.last_call)]
    root = "root ::= " + " ".join(p for p in parts if p)
    return "\n".join([root, PRIMITIVES, *rules, *seq]) + "\n"


def _calls(names: tuple[str, ...]) -> str:
    """Fixed calls, one per line ("" for none)."""
    return " ".join(f'{rule_name("call", n)} "\\n"' for n in names)


def program_constraint(cls: type[App], order: str = "app") -> Constraint:
    """The grammar as a `Constraint` engines accept."""
    suffix = "" if order == "app" else f"-{order}-order"
    return Constraint("gbnf", program_grammar(cls, order), name=f"{cls.name}-program{suffix}")
