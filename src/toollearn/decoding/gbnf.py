"""GBNF building blocks shared by every answer-format constraint.

The grammars are written for llama.cpp's GBNF dialect (rules `name ::= ...`, literals in double
quotes, character classes, `{m,n}` repetition). Everything a model may write inside a value is
bounded (digits, call counts) so a constrained answer always terminates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

# JSON primitives. Strings exclude the backslash (no escapes) and control characters, plus
# whatever characters a format's scorer cannot read (`json_primitives(unsafe=...)`).
_JSON_PRIMITIVES = r"""
jstr ::= "\"" jchar+ "\""
jchar ::= [^"\\{unsafe}\x00-\x1f]
jint ::= "-"? ([0-9] | [1-9] [0-9]{{1,15}})
jnum ::= jint ("." [0-9]{{1,17}})? ([eE] [-+]? [0-9]{{1,3}})?
jbool ::= "true" | "false"
jnull ::= "null"
jref ::= "\"API_call_" [0-9]{{1,3}} "\""
jval ::= jstr | jnum | jbool | jnull | jarr | jobj
jarr ::= "[" (jval (", " jval){{0,31}})? "]"
jobj ::= "{{" (jstr ": " jval (", " jstr ": " jval){{0,31}})? "}}"
""".strip()


def json_primitives(unsafe: str = "") -> str:
    """The JSON primitive rules; string values may not contain any character of `unsafe`."""
    escaped = "".join("\\" + c if c in "[]^-\\" else c for c in unsafe)
    return _JSON_PRIMITIVES.format(unsafe=escaped)


JSON_PRIMITIVES = json_primitives()

# Python literals for call strings (DEER's `f(a='x', b=3)`), with the same bounds; strings
# may hold the escapes `repr` writes for quotes, backslashes, newlines and tabs.
PY_PRIMITIVES = r"""
pstr ::= "'" pschar* "'" | "\"" pdchar* "\""
pschar ::= [^'\\\x00-\x1f] | pesc
pdchar ::= [^"\\\x00-\x1f] | pesc
pesc ::= "\\" ["'\\nrt]
pint ::= "-"? ([0-9] | [1-9] [0-9]{1,15})
pnum ::= pint ("." [0-9]{1,17})? ([eE] [-+]? [0-9]{1,3})?
pbool ::= "True" | "False"
pnone ::= "None"
pval ::= pstr | pnum | pbool | pnone | plist | pdict
plist ::= "[" (pval (", " pval){0,31})? "]"
pdict ::= "{" (pstr ": " pval (", " pstr ": " pval){0,31})? "}"
""".strip()

# Which primitive rule a JSON-Schema type maps to, per dialect.
JSON_TYPE_RULES = {
    "string": "jstr",
    "integer": "jint",
    "number": "jnum",
    "boolean": "jbool",
    "array": "jarr",
    "object": "jobj",
    "null": "jnull",
}
PY_TYPE_RULES = {
    "string": "pstr",
    "integer": "pint",
    "number": "pnum",
    "boolean": "pbool",
    "array": "plist",
    "object": "pdict",
    "null": "pnone",
}

_RULE_NAME_BAD = re.compile(r"[^a-zA-Z0-9-]")


def gbnf_literal(text: str) -> str:
    """A GBNF string literal matching `text` exactly (quotes, backslashes, controls escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def json_key_literal(key: str) -> str:
    """A GBNF literal for a JSON object key, quoted and JSON-escaped: `"key": `."""
    return gbnf_literal(json.dumps(key, ensure_ascii=False) + ": ")


def gbnf_alternatives(options: Iterable[str]) -> str:
    """`a | b | c` over already-written GBNF expressions (parenthesised for safe embedding)."""
    opts = list(options)
    if not opts:
        raise ValueError("gbnf_alternatives needs at least one option")
    return opts[0] if len(opts) == 1 else "(" + " | ".join(opts) + ")"


def rule_name(*parts: object) -> str:
    """A valid, readable GBNF rule name built from parts (other characters become '-')."""
    return "-".join(_RULE_NAME_BAD.sub("-", str(p)) for p in parts).strip("-") or "r"


def keyed_sequence(
    prefix: str, items: Sequence[tuple[str, bool]], sep: str = '", "'
) -> tuple[str, list[str]]:
    """Rules for items emitted in order where optional ones may be skipped.

    items: (gbnf expression, required). Separators appear only between emitted items. Returns
    the name of the start rule and the rule lines (linear in the number of items).
    """
    n = len(items)
    lines: list[str] = []
    # first{i}: nothing emitted yet, continue from item i; rest{i}: something emitted already.
    for i in range(n, -1, -1):
        first, rest = f"{prefix}-f{i}", f"{prefix}-r{i}"
        if i == n:
            lines += [f'{first} ::= ""', f'{rest} ::= ""']
            continue
        expr, required = items[i]
        take_first = f"{expr} {prefix}-r{i + 1}"
        take_rest = f"{sep} {expr} {prefix}-r{i + 1}"
        if required:
            lines += [f"{first} ::= {take_first}", f"{rest} ::= {take_rest}"]
        else:
            lines += [
                f"{first} ::= {take_first} | {prefix}-f{i + 1}",
                f"{rest} ::= {take_rest} | {prefix}-r{i + 1}",
            ]
    return f"{prefix}-f0", lines[::-1]
