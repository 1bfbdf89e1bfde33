"""GBNF for JSON values typed by a JSON Schema: the general call format's arguments.

`SchemaRules` turns a schema into a GBNF expression, adding named rules as it goes: enums and
consts become literals, `type` (or a list of types), `anyOf`/`oneOf`, arrays with typed
`items` (and minItems/maxItems), objects with their declared `properties` in order (required
ones present, optional ones skippable). Anything it cannot type is any JSON value. Strings are
full JSON strings (escapes, apostrophes and brackets allowed); numbers are bounded in digits
and containers in items, so a constrained answer always terminates.
"""

from __future__ import annotations

import json
from typing import Any

from toollearn.decoding.gbnf import (
    gbnf_alternatives,
    gbnf_literal,
    json_key_literal,
    keyed_sequence,
)

MAX_ITEMS = 32
MAX_DEPTH = 6

JSON_VALUE_RULES = r"""
gstr ::= "\"" gchar* "\""
gchar ::= [^"\\\x00-\x1f] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})
gint ::= "-"? ([0-9] | [1-9] [0-9]{1,15})
gnum ::= gint ("." [0-9]{1,17})? ([eE] [-+]? [0-9]{1,3})?
gbool ::= "true" | "false"
gnull ::= "null"
gval ::= gstr | gnum | gbool | gnull | garr | gobj
garr ::= "[" (gval (", " gval){0,31})? "]"
gobj ::= "{" (gstr ": " gval (", " gstr ": " gval){0,31})? "}"
""".strip()

TYPE_RULES = {
    "string": "gstr",
    "integer": "gint",
    "number": "gnum",
    "boolean": "gbool",
    "null": "gnull",
    "array": "garr",
    "object": "gobj",
}


def literal(value: Any) -> str:
    """A GBNF literal of a JSON value as `json.dumps` writes it."""
    return gbnf_literal(json.dumps(value, ensure_ascii=False))


class SchemaRules:
    """Collects the rules of one grammar; `value(schema, name)` returns an expression."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._count = 0

    def _name(self, hint: str) -> str:
        self._count += 1
        return f"v{self._count}-{hint}"

    def value(self, schema: Any, depth: int = 0) -> str:
        """The expression admitting exactly the JSON values `schema` describes (approximately:
        string formats, patterns and numeric ranges are not enforced)."""
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return "gval"
        if "const" in schema:
            return literal(schema["const"])
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return gbnf_alternatives([literal(v) for v in schema["enum"]])
        for key in ("anyOf", "oneOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                return gbnf_alternatives([self.value(o, depth + 1) for o in options])
        jtype = schema.get("type")
        if isinstance(jtype, list):
            known = [t for t in jtype if t in TYPE_RULES]
            if not known:
                return "gval"
            return gbnf_alternatives([self.value({**schema, "type": t}, depth) for t in known])
        if jtype == "array":
            return self._array(schema, depth)
        if jtype == "object" or (jtype is None and isinstance(schema.get("properties"), dict)):
            return self._object(schema, depth)
        return TYPE_RULES.get(jtype, "gval") if isinstance(jtype, str) else "gval"

    def _array(self, schema: dict[str, Any], depth: int) -> str:
        items = schema.get("items")
        if not isinstance(items, dict):
            return "garr"
        item = self.value(items, depth + 1)
        lo = max(0, int(schema.get("minItems", 0) or 0))
        hi = min(MAX_ITEMS, int(schema.get("maxItems", MAX_ITEMS) or MAX_ITEMS))
        hi = max(hi, lo, 1)
        name = self._name("arr")
        more = f'(", " {item}){{{max(lo - 1, 0)},{hi - 1}}}'
        body = f'"[" {item} {more} "]"'
        self.lines.append(f"{name} ::= {body}" + ("" if lo else ' | "[]"'))
        return name

    def _object(self, schema: dict[str, Any], depth: int) -> str:
        props = schema.get("properties")
        if not isinstance(props, dict) or not props:
            return "gobj"
        required = set(schema.get("required") or ())
        name = self._name("obj")
        items = [
            (f"{json_key_literal(key)} {self.value(spec, depth + 1)}", key in required)
            for key, spec in props.items()
        ]
        start, lines = keyed_sequence(name, items)
        self.lines += lines
        self.lines.append(f'{name} ::= "{{" {start} "}}"')
        return name
