"""Type-aware AST matching of tool calls against gold, the general suite's scorer (`eval calls`).

The rules (also in the README):
- a value is read under its parameter's JSON Schema first ("JSON typing"): a string that spells
  a number where the schema asks integer or number is that number, "true"/"false" where it asks
  boolean are booleans, a string holding JSON where it asks array or object is parsed; numbers
  then compare numerically (3 == 3.0), a boolean equals only a boolean;
- strings compare after trimming and Unicode normalisation, case-insensitively;
- arrays compare element by element, in order; objects key by key, by these same rules, with
  their own properties' schemas;
- an argument the gold omits may be absent; one the prediction adds counts only when it equals
  the parameter's declared default; a gold argument the prediction omits is missing unless the
  gold value is the declared default;
- a gold argument may list alternatives (any one is right);
- a gold argument marked free (a value the request never states, invented by the data's
  author) is not scored: any value, or none where the schema does not require it;
- several calls are matched one to one, order-free (most same-name pairs, then most equal
  arguments: `metrics.matching.max_weight_matching`).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toollearn.evaluation.metrics.matching import max_weight_matching

_NUMBER = ("integer", "number")


def _kind(schema: Mapping[str, Any] | None) -> str | None:
    kind = (schema or {}).get("type")
    if isinstance(kind, list):  # ["string", "null"]: the first non-null type
        kind = next((k for k in kind if k != "null"), None)
    return kind if isinstance(kind, str) else None


def json_typed(value: Any, schema: Mapping[str, Any] | None) -> Any:
    """`value` read under `schema` (see the module doc); anything else is left as it is."""
    kind = _kind(schema)
    if isinstance(value, str):
        text = value.strip()
        if kind in _NUMBER:
            try:
                number = float(text)
            except ValueError:
                return value
            return int(number) if number.is_integer() and "." not in text else number
        if kind == "boolean" and text.lower() in ("true", "false"):
            return text.lower() == "true"
        if kind in ("array", "object") and text[:1] in "[{":
            try:
                return json.loads(text)
            except ValueError:
                return value
    return value


def _text(value: str) -> str:
    return unicodedata.normalize("NFKC", value).strip().casefold()


def values_match(pred: Any, gold: Any, schema: Mapping[str, Any] | None = None) -> bool:
    """Whether a predicted value equals the gold one under the rules of the module doc."""
    schema = schema or {}
    pred, gold = json_typed(pred, schema), json_typed(gold, schema)
    if isinstance(pred, bool) or isinstance(gold, bool):
        return isinstance(pred, bool) and isinstance(gold, bool) and pred == gold
    if isinstance(pred, int | float) or isinstance(gold, int | float):
        return isinstance(pred, int | float) and isinstance(gold, int | float) and pred == gold
    if isinstance(pred, str) and isinstance(gold, str):
        return _text(pred) == _text(gold)
    if isinstance(pred, list) and isinstance(gold, list):
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        return len(pred) == len(gold) and all(values_match(p, g, items) for p, g in zip(pred, gold))
    if isinstance(pred, dict) and isinstance(gold, dict):
        return arguments_match(pred, gold, schema)
    return pred is None and gold is None


def _has_default(schema: Mapping[str, Any], value: Any) -> bool:
    return "default" in schema and values_match(value, schema["default"], schema)


def arguments_match(
    pred: Mapping[str, Any],
    gold: Mapping[str, Any],
    schema: Mapping[str, Any] | None = None,
    alternatives: Mapping[str, Sequence[Any]] | None = None,
    free: Sequence[str] = (),
) -> bool:
    """Whether two argument objects match: every key of either side by the rules above."""
    return all(argument_verdicts(pred, gold, schema, alternatives, free).values())


def argument_verdicts(
    pred: Mapping[str, Any],
    gold: Mapping[str, Any],
    schema: Mapping[str, Any] | None = None,
    alternatives: Mapping[str, Sequence[Any]] | None = None,
    free: Sequence[str] = (),
) -> dict[str, bool]:
    """{argument: right?} over the union of both sides' keys (see the module doc); a free
    argument appears only when it is required and missing (wrong)."""
    props = (schema or {}).get("properties") or {}
    required = set((schema or {}).get("required") or ())
    alternatives = alternatives or {}
    out = {}
    for key in dict.fromkeys([*gold, *pred]):
        spec = props.get(key) if isinstance(props.get(key), dict) else {}
        if key in free:
            if key not in pred and key in required:
                out[key] = False
        elif key not in pred:
            out[key] = _has_default(spec, gold[key])
        elif key not in gold:
            out[key] = _has_default(spec, pred[key])
        else:
            accepted = [gold[key], *alternatives.get(key, ())]
            out[key] = any(values_match(pred[key], g, spec) for g in accepted)
    return out


@dataclass(frozen=True)
class GoldCall:
    """A gold call: name, arguments, accepted alternatives per argument, free arguments."""

    name: str
    arguments: dict[str, Any]
    alternatives: dict[str, list[Any]] = field(default_factory=dict)
    free: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> GoldCall:
        return cls(
            str(d["name"]),
            dict(d.get("arguments") or {}),
            {k: list(v) for k, v in (d.get("alternatives") or {}).items()},
            tuple(d.get("free") or ()),
        )

    def scored(self) -> int:
        """How many of the gold arguments are scored (not free)."""
        return sum(k not in self.free for k in self.arguments)


@dataclass(frozen=True)
class CallsMatch:
    """How a predicted call list matches the gold one."""

    pairs: tuple[tuple[int, int], ...]  # (pred index, gold index) of same-name calls
    exact: bool  # as many calls as gold, each pair matching in every argument
    tools_correct: int
    args_correct: int  # predicted arguments that match gold (default-valued extras included)
    args_pred: int
    args_gold: int


def match_gold(
    pred: Sequence[tuple[str, Mapping[str, Any]]],
    gold: Sequence[GoldCall],
    schemas: Mapping[str, Mapping[str, Any]],
) -> CallsMatch:
    """Match predicted (name, arguments) calls to gold calls, order-free. `schemas`: each tool's
    parameters schema by name (missing: compared without typing)."""

    def verdicts(p: int, g: int) -> dict[str, bool]:
        return argument_verdicts(pred[p][1], gold[g].arguments, schemas.get(gold[g].name),
                                 gold[g].alternatives, gold[g].free)  # fmt: skip

    total = 1 + sum(len(g.arguments) for g in gold) + sum(len(a) for _, a in pred)
    weights = [
        [
            total + sum(verdicts(i, j).values()) if name == g.name else None
            for j, g in enumerate(gold)
        ]
        for i, (name, _) in enumerate(pred)
    ]
    pairs = tuple(max_weight_matching(weights))
    args_correct, exact = 0, len(pred) == len(gold) == len(pairs)
    args_pred = sum(len(a) for _, a in pred)
    for i, j in pairs:
        v = verdicts(i, j)
        args_correct += sum(ok for k, ok in v.items() if k in pred[i][1])
        args_pred -= sum(k in gold[j].free for k in pred[i][1])
        exact = exact and all(v.values())
    return CallsMatch(
        pairs,
        exact,
        len(pairs),
        args_correct,
        args_pred,
        sum(g.scored() for g in gold),
    )
