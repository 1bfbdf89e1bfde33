"""Execution-judged scores of app programs: success, executability, criteria P/R/F1.

A prediction succeeds when it executes and the full criteria dict it records at `search()`
equals that of a label program (defaults included: as ToolBench's evaluator). A
non-executable prediction scores 0 on all.

Criteria precision/recall/F1 count only criteria that a program set: a key is counted when its
value differs from the app's default (`App.default_criteria`, given that program's criteria)
in the label or in the prediction; a key where both sides hold the default (e.g. Home
Search's `min_price` 0, which `search()` fills in for every program) is left out, so no
program earns credit for criteria it never set. Over the counted keys, precision is the share
of the prediction's pairs that the label has, recall the share of the label's pairs that the
prediction has. A prediction that left a counted key at its default holds a wrong value there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from toollearn.apps.base import App
from toollearn.apps.program import run_program


def set_keys(criteria: dict[str, Any], app: type[App]) -> set[str]:
    """The criteria a program set: keys whose value differs from the app's default (computed
    from these criteria)."""
    defaults = app.default_criteria(criteria)
    return {k for k, v in criteria.items() if k not in defaults or defaults[k] != v}


def counted_keys(pred: dict[str, Any], label: dict[str, Any], app: type[App]) -> set[str]:
    """The criteria that the prediction or the label set (`set_keys` of each side)."""
    return set_keys(pred, app) | set_keys(label, app)


def criteria_prf(
    pred: dict[str, Any], label: dict[str, Any], app: type[App] | None = None
) -> tuple[float, float, float]:
    """Precision, recall and F1 of the (key, value) pairs of two criteria dicts; with `app`,
    over `counted_keys` only (pairs where both sides hold the app's default are left out)."""
    if not pred or not label:
        return 0.0, 0.0, 0.0
    if app is not None:
        keys = counted_keys(pred, label, app)
        if not keys:  # nothing set on either side: only defaults, which are then equal
            return (1.0, 1.0, 1.0) if pred == label else (0.0, 0.0, 0.0)
        pred = {k: v for k, v in pred.items() if k in keys}
        label = {k: v for k, v in label.items() if k in keys}
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
        p, r, f1 = criteria_prf(run.criteria, gold.criteria, cls)
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
