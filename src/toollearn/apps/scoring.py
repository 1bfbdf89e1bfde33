"""Execution-judged scores of app programs: success, executability, criteria F1, complexity.

A prediction succeeds when it executes and the criteria it records equal those of a label
program (F1 = 1, as in ToolBench's evaluator); a non-executable prediction scores 0 on all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.program import run_program
from toollearn.core.types import Example


def criteria_prf(pred: dict[str, Any], label: dict[str, Any]) -> tuple[float, float, float]:
    """Precision, recall and F1 of the (key, value) pairs of two criteria dicts."""
    if not pred or not label:
        return 0.0, 0.0, 0.0
    overlap = sum(1 for k, v in pred.items() if k in label and label[k] == v)
    if overlap == 0:
        return 0.0, 0.0, 0.0
    p, r = overlap / len(pred), overlap / len(label)
    return p, r, 2 * p * r / (p + r)


def score_program(program: str, labels: Sequence[str], cls: type[App]) -> dict[str, Any]:
    """Run a predicted program and compare its criteria with the best-matching label."""
    run = run_program(program, cls)
    out: dict[str, Any] = {
        "executable": run.executable,
        "success": False,
        "precision": 0.0,
        "recall": 0.0,
        "f1": 0.0,
        "error": run.error,
        "error_kind": run.error_kind,
        "criteria": run.criteria,
        "names": run.names,
    }
    if not run.executable:
        return out
    best = -1.0
    for label in labels:
        gold = run_program(label, cls)
        if not gold.executable:
            raise ValueError(f"label program does not execute: {gold.error}")
        p, r, f1 = criteria_prf(run.criteria, gold.criteria)
        if f1 > best:
            best = f1
            out.update(precision=p, recall=r, f1=f1, success=run.criteria == gold.criteria)
            out["label_criteria"] = gold.criteria
    return out


def aggregate(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Rates in percent over scored records, plus counts of error kinds."""
    n = len(records)
    if n == 0:
        return {"n": 0}

    def pct(key: str) -> float:
        return round(100.0 * sum(float(r[key]) for r in records) / n, 2)

    kinds = Counter(r["error_kind"] for r in records if r.get("error_kind"))
    return {
        "n": n,
        "success_rate": pct("success"),
        "executability_rate": pct("executable"),
        "precision": pct("precision"),
        "recall": pct("recall"),
        "criteria_f1": pct("f1"),
        "errors": dict(sorted(kinds.items())),
    }


def complexity(cls: type[App], tests: Sequence[Example], reference: Sequence[Example]) -> float:
    """API complexity of `tests` given `reference` programs (demos or training data)."""
    from toollearn.evaluation.metrics.complexity import api_complexity

    def names(examples: Sequence[Example]) -> list[list[str]]:
        return [list(e.metadata["names"]) for e in examples]

    return round(api_complexity(names(tests), names(reference), len(cls.vocabulary())), 2)
