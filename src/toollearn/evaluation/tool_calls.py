"""Held-out evaluation in the general call-list format (what `toollearn tune` reports).

Each test sample (a `datagen mixture` sample: a prompt, possibly with earlier turns, and the
turn the model should write) is answered once, grammar-constrained over the sample's tools
(calls or `[]`, as served), and compared with its target:
- decision: calling vs declining as the target does;
- exact: the right decision and, for a call turn, the same calls (names and typed argument
  values, any order);
- tool P/R/F1 over call names and argument P/R/F1 over (tool, argument, value) of calls
  matched one-to-one (`metrics.matching`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.samples import TrainingSample
from toollearn.decoding.tool_calls import tool_calls_constraint
from toollearn.evaluation.metrics.matching import (
    calls_equal,
    equal_arguments,
    match_calls,
    prf,
)
from toollearn.formats.answers import tool_calls

COUNTS = (
    "n",
    "format_ok",
    "decision",
    "exact",
    "tools_correct",
    "tools_pred",
    "tools_gold",
    "args_correct",
    "args_pred",
    "args_gold",
)


def score_turn(pred_text: str, target: str) -> dict[str, Any]:
    """Counts for one answered turn."""
    gold = tool_calls.parse(target)
    try:
        pred = tool_calls.parse(pred_text)
    except FormatError:
        pred = None
    counts = {"n": 1, "format_ok": int(pred is not None), "decision": 0, "exact": 0,
              "tools_correct": 0, "tools_pred": 0, "tools_gold": len(gold.calls),
              "args_correct": 0, "args_pred": 0,
              "args_gold": sum(len(c.arguments) for c in gold.calls)}  # fmt: skip
    if pred is None:
        return counts
    counts["decision"] = int(pred.declined == gold.declined)
    counts["tools_pred"] = len(pred.calls)
    counts["args_pred"] = sum(len(c.arguments) for c in pred.calls)
    pairs = match_calls(list(pred.calls), list(gold.calls))
    same_name = [(i, j) for i, j in pairs if pred.calls[i].name == gold.calls[j].name]
    counts["tools_correct"] = len(same_name)
    counts["args_correct"] = sum(equal_arguments(pred.calls[i], gold.calls[j])
                                 for i, j in same_name)  # fmt: skip
    all_equal = len(pred.calls) == len(gold.calls) == len(same_name) and all(
        calls_equal(pred.calls[i], gold.calls[j]) for i, j in same_name
    )
    counts["exact"] = int(counts["decision"] and (gold.declined or all_equal))
    return counts


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Percentages over the scored turns."""
    total = {k: sum(r[k] for r in rows) for k in COUNTS}
    n = max(1, total["n"])
    tool = prf(total["tools_correct"], total["tools_pred"], total["tools_gold"])
    arg = prf(total["args_correct"], total["args_pred"], total["args_gold"])
    return {"n": total["n"],
            "format": round(100 * total["format_ok"] / n, 1),
            "decision": round(100 * total["decision"] / n, 1),
            "exact": round(100 * total["exact"] / n, 1),
            "tool_f1": round(100 * tool[2], 1), "arg_f1": round(100 * arg[2], 1)}  # fmt: skip


def evaluate(engine: Any, samples: Sequence[TrainingSample], max_tokens: int = 256
             ) -> tuple[dict[str, float], list[dict[str, Any]]]:  # fmt: skip
    """(summary, per-sample records) of `engine` on the test samples, constrained."""
    records = []
    for s in samples:
        constraint = tool_calls_constraint(s.tools) if s.tools else None
        c = engine.complete([list(s.messages)], max_tokens=max_tokens, constraint=constraint)[0]
        counts = score_turn(c.text, s.target)
        records.append({"query": s.metadata.get("query", ""), "kind": s.metadata.get("kind"),
                        "target": s.target, "prediction": c.text, "error": c.error,
                        **counts})  # fmt: skip
    return summarize(records), records
