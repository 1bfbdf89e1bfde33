"""A GBNF grammar for an app's program language, for constrained decoding.

Programs are lines `API.fn(args)`: the app's `first_calls` in order, then the other API
functions, then `API.<last_call>()`. With `order="app"` (the default) the other functions come
at most once each, in the app's definition order; with `order="any"` they come in any order, as
many calls as there are such functions (the app runs them in any order; a repeated setter
overwrites its criterion). Arguments are
typed from the method hints: integer and number literals, double-quoted strings, enum
literals, string lists, `Loc("...")` and `Date(month, day, year)` (month 1-12, day 1-31).
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


ORDERS = ("app", "any")


def program_grammar(cls: type[App], order: str = "app") -> str:
    """GBNF text (root rule `root`) admitting well-typed programs of `cls`.

    `order="app"`: the other API functions come at most once each, in the app's definition
    order (the criteria's order does not change the result). `order="any"`: in any order, at
    most as many calls as there are such functions, so a model trained on programs in another
    order is not forced off its next call. Either way every program is bounded (a small model
    left free repeats setters until it runs out of tokens and never reaches `search()`).
    """
    if order not in ORDERS:
        raise ValueError(f"unknown grammar order {order!r}; use one of {', '.join(ORDERS)}")
    names = cls.api_names()
    rules = [f"{rule_name('call', n)} ::= {_call_rule(cls, n)}" for n in names]
    middle = [n for n in names if n not in cls.first_calls and n != cls.last_call]
    if order == "app":
        start, seq = keyed_sequence(
            "middle", [(f'{rule_name("call", n)} "\\n"', False) for n in middle], sep='""'
        )
    else:
        alternatives = gbnf_alternatives(rule_name("call", n) for n in middle)
        start, seq = f"middle{{0,{len(middle)}}}", [f'middle ::= {alternatives} "\\n"']
    head = " ".join(f'{rule_name("call", n)} "\\n"' for n in cls.first_calls)
    root = f"root ::= {head} {start} {rule_name('call', cls.last_call)}"
    return "\n".join([root, PRIMITIVES, *rules, *seq]) + "\n"


def program_constraint(cls: type[App], order: str = "app") -> Constraint:
    """The grammar as a `Constraint` engines accept."""
    suffix = "" if order == "app" else f"-{order}-order"
    return Constraint("gbnf", program_grammar(cls, order), name=f"{cls.name}-program{suffix}")
