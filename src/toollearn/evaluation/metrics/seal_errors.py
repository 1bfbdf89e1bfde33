"""Seal-Tools error analysis: why a tool or a parameter was wrong (paper section 5 categories).

Calls are parsed and matched as in the strict scorer (one-to-one, typed values). Then:
  tool errors, per unmatched gold call: `retriever_miss` (its tool was not among the
    candidates shown) or `omitted` (listed, but not called);
  per unmatched predicted call: `duplicate` (a gold tool called once too often),
    `hallucinated` (not among the candidates) or `not_needed` (a listed non-gold tool);
    `wrong_tool` when the example has no candidate list to tell the two apart;
  parameter errors, per matched pair: `omission` (gold key missing), `surplus` (key gold
    lacks), and for a wrong value `wrong_reference` (gold is a nested "API_call_k"),
    `wrong_extraction` (the gold value appears verbatim in the query) or
    `wrong_transformation` (it had to be derived).
Outputs that do not parse are counted as `format_failures` and not analysed further.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from toollearn.core.types import Example, Ref, ToolCall
from toollearn.evaluation.metrics.matching import match_calls, values_equal
from toollearn.evaluation.metrics.seal_tools import gold_calls, strict_parse

TOOL_ERRORS = ("retriever_miss", "omitted", "duplicate", "hallucinated", "not_needed", "wrong_tool")
PARAM_ERRORS = (
    "omission",
    "surplus",
    "wrong_reference",
    "wrong_extraction",
    "wrong_transformation",
)
_SAMPLES = 5  # example ids kept per category


def seal_error_analysis(outputs: Sequence[str], examples: Sequence[Example]) -> dict[str, Any]:
    """Counts of tool and parameter errors by category, with a few example ids for each."""
    if len(outputs) != len(examples):
        raise ValueError(f"{len(outputs)} outputs but {len(examples)} examples")
    tools: Counter[str] = Counter({k: 0 for k in TOOL_ERRORS})
    params: Counter[str] = Counter({k: 0 for k in PARAM_ERRORS})
    samples: dict[str, list[str]] = {}
    failures = 0
    for text, ex in zip(outputs, examples):
        pred = strict_parse(text)
        if pred is None:
            failures += 1
            _note(samples, "format_failure", ex.id)
            continue
        found_tools, found_params = _instance_errors(pred, ex)
        tools.update(found_tools)
        params.update(found_params)
        for kind in (*found_tools, *found_params):
            _note(samples, kind, ex.id)
    return {
        "instances": len(examples),
        "format_failures": failures,
        "tool_errors": dict(tools),
        "param_errors": dict(params),
        "samples": samples,
    }


def _note(samples: dict[str, list[str]], kind: str, example_id: str) -> None:
    ids = samples.setdefault(kind, [])
    if len(ids) < _SAMPLES and example_id not in ids:
        ids.append(example_id)


def _instance_errors(pred: list[ToolCall], ex: Example) -> tuple[list[str], list[str]]:
    gold = gold_calls(ex.calls)
    pairs = match_calls(pred, gold)
    matched_p = {i for i, _ in pairs}
    matched_g = {j for _, j in pairs}
    listed = {t.name for t in ex.tools}
    gold_names = {g.name for g in gold}
    tool_errs = [
        "omitted" if g.name in listed else "retriever_miss"
        for j, g in enumerate(gold)
        if j not in matched_g
    ]
    for i, p in enumerate(pred):
        if i in matched_p:
            continue
        if p.name in gold_names:
            tool_errs.append("duplicate")
        elif not listed:
            tool_errs.append("wrong_tool")
        else:
            tool_errs.append("not_needed" if p.name in listed else "hallucinated")
    param_errs = [e for i, j in pairs for e in _param_errors(pred[i], gold[j], ex.query)]
    return tool_errs, param_errs


def _param_errors(pred: ToolCall, gold: ToolCall, query: str) -> list[str]:
    errs = ["omission" for k in gold.arguments if k not in pred.arguments]
    for k, v in pred.arguments.items():
        if k not in gold.arguments:
            errs.append("surplus")
        elif not values_equal(v, gold.arguments[k]):
            errs.append(_value_error(gold.arguments[k], query))
    return errs


def _value_error(gold_value: Any, query: str) -> str:
    if isinstance(gold_value, Ref):
        return "wrong_reference"
    return "wrong_extraction" if str(gold_value) in query else "wrong_transformation"
