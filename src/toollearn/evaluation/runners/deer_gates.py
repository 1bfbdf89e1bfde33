"""DEER's decisions as the gates alone make them, without the model.

With a similarity call gate and `gate_tool`, a gated `DecisionAgent` takes its Call/NoCall
decision and the tool it calls from the gate, and the model writes only the arguments (a
search gate likewise takes the Search/NoSearch decision). So P_NoSearch, P_Search, P_DS,
P_NoCall, P_Call and P_DC, which the paper scores by tool name, follow from the gates alone:
`gate_record` writes, per example, the released-format turn the agent would write, with the
chosen tool called without arguments. Whole splits score in seconds, which is what comparing
gates needs (the DEER pool-sampling fidelity check); Call_strict, which checks arguments,
means nothing here. The records rescore like any DEER run (`toollearn score`).
"""

from __future__ import annotations

import time
from typing import Any

from toollearn.core.types import Example, Message, ToolCall
from toollearn.formats.answers import deer


def gate_record(
    ex: Example,
    call_gate: Any,
    call_threshold: float,
    search_gate: Any = None,
    search_threshold: float | None = None,
) -> dict[str, Any]:
    """The record of one example decided by the gates (search forced without a search gate)."""
    t0 = time.perf_counter()
    decided: dict[str, Any] = {}
    if search_gate is not None and search_threshold is not None:
        decided["search"] = search_gate.score(ex.query)
        if decided["search"]["nosearch_margin"] > search_threshold:
            return _record(ex, deer.NO_SEARCH_SPAN, decided, t0)
    turn = deer.SEARCH_SPAN + deer.pool_text(ex.tools)
    messages = [*deer.render_messages(ex.query), Message("assistant", turn)]
    decided["call"] = scored = call_gate.score(ex.query, ex.tools, messages)
    if scored["nocall_margin"] > call_threshold or not scored.get("closest_tool"):
        return _record(ex, turn + deer.NO_CALL_SPAN, decided, t0)
    call = ToolCall(scored["closest_tool"], {})
    return _record(ex, turn + deer.call_span(call, ex.tools), decided, t0)


def _record(ex: Example, output: str, decided: dict[str, Any], t0: float) -> dict[str, Any]:
    from toollearn.evaluation.runners.deer import prediction_from_record

    record = {"id": ex.id, "split": ex.split, "prompting": "released", "output": output,
              "gates": decided}  # fmt: skip
    pred, note = prediction_from_record(record, ex)
    record.update(search=pred.search, call=pred.call.to_dict() if pred.call else None, note=note,
                  errors=[], seconds=round(time.perf_counter() - t0, 4))  # fmt: skip
    return record


def gate_stats(records: list[dict[str, Any]], examples: list[Example]) -> dict[str, Any]:
    """Threshold-free figures of the call gate over the queries that need a search: ROC AUC of
    its NoCall margin (NoCall queries against Call queries), how often its closest tool is the
    gold one (the scorer's: the first) on the Call queries, and the threshold that maximizes
    P_DC on this split (pick it on valid; on a test split it is an oracle, for reading only)."""
    from toollearn.evaluation.calibration import roc_auc

    by_id = {r["id"]: r for r in records}
    rows = []
    for ex in examples:
        gate = (by_id.get(ex.id) or {}).get("gates", {}).get("call")
        if gate is None or not ex.needs_tool:
            continue
        gold = ex.calls[0].name if ex.has_suitable_tool and ex.calls else None
        right = gold is not None and gate.get("closest_tool") == gold
        rows.append({"nocall_margin": gate["nocall_margin"], "call": bool(ex.has_suitable_tool),
                     "right": right})  # fmt: skip
    auc = roc_auc(rows)
    calls = [r for r in rows if r["call"]]
    return {"call_gate_roc_auc": None if auc is None else round(auc, 4),
            "closest_tool_right": sum(r["right"] for r in calls), "call_queries": len(calls),
            "best_threshold": best_threshold(rows)}  # fmt: skip


def best_threshold(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The NoCall-margin threshold with the most right decisions (`calibration.best_threshold`
    over the queries a threshold can get right: a Call query whose closest tool is wrong is
    wrong either way) and the P_DC it gives."""
    from toollearn.evaluation.calibration import accuracy
    from toollearn.evaluation.calibration import best_threshold as best

    decidable = [r for r in rows if r["right"] or not r["call"]]
    if not decidable:
        return None
    at = best(decidable)
    p_dc = accuracy(decidable, at) * len(decidable) / len(rows)
    # 5 places: margins have 4, so a midpoint between two must keep one more
    return {"threshold": round(at, 5), "P_DC": round(100 * p_dc, 2), "n": len(rows)}
