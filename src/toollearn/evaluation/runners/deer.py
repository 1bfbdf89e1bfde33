"""ToolDEER runner: the decision-aware agent on valid/test and the two baseline files.

Each example's query and its 5-tool pool go through `DecisionAgent` (Decision-Search, then
Decision-Call over the pool, then the call); the Trace's decisions become a
`DeerPrediction` scored with the paper's P_* metrics. Each record also keeps the answer
rendered in the released target format (`output`, comparable to `target`) and the Trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import ToollearnError
from toollearn.core.types import ErrorKind, Example, Step, ToolCall, Trace

SPLITS = ("test", "valid", "tool_bench", "tool_corpus")


def load_deer(split: str, root: Any = None, sample: bool = False) -> list[Example]:
    """The examples of a ToolDEER split or baseline file (or the bundled sample's)."""
    from toollearn.data.registry import load_examples

    if split not in SPLITS:
        raise ValueError(f"unknown ToolDEER split {split!r}; use one of {SPLITS}")
    return load_examples(("sample/" if sample else "") + f"tooldeer/{split}", root)


def prediction_from_trace(trace: Trace) -> tuple[Any, str]:
    """(DeerPrediction, note) from a DecisionAgent Trace.

    A chosen tool whose arguments could not be written still counts as a call of that
    name (the paper's P_Call is name-level); the note says so.
    """
    from toollearn.evaluation.metrics.deer import DeerPrediction

    decisions = trace.decisions()
    search = decisions.get("needs_tool")
    if trace.calls:
        return DeerPrediction(search, trace.calls[0]), ""
    tool = decisions.get("tool")
    if tool:
        return DeerPrediction(search, ToolCall(tool)), "call arguments unreadable"
    return DeerPrediction(search, None), ""


def record_for(ex: Example, trace: Trace) -> dict[str, Any]:
    """One predictions.jsonl record: decisions, call, released-format text, the Trace."""
    from toollearn.formats.answers.deer import DeerAnswer, render_deer

    pred, note = prediction_from_trace(trace)
    try:
        output = render_deer(DeerAnswer(bool(pred.search), pred.call), ex.tools)
    except Exception as exc:  # e.g. a non-identifier tool name cannot be a Python call
        output = f"<unrenderable: {exc}>"
    return {
        "id": ex.id,
        "split": ex.split,
        "search": pred.search,
        "call": pred.call.to_dict() if pred.call else None,
        "note": note,
        "output": output,
        "errors": [s.error.value for s in trace.errors],
        "seconds": trace.meta.get("seconds"),
        "trace": trace.to_dict(),
    }


def run_deer(agent: Any, examples: Sequence[Example], writer: Any) -> list[dict[str, Any]]:
    """Predict every example not yet in the writer's file; returns the records of `examples`."""
    from toollearn.evaluation.runners.base import progress

    done = writer.done_ids()
    todo = [ex for ex in examples if ex.id not in done]
    for ex in progress(todo, total=len(todo), desc="deer"):
        try:
            trace = agent.run(ex.query, ex.tools, example_id=ex.id)
        except ToollearnError as exc:  # e.g. a tool schema no prompt can show: record, go on
            step = Step(
                "agent", "error", error=ErrorKind.FORMAT, detail=f"{type(exc).__name__}: {exc}"
            )
            trace = Trace(ex.query, (step,), None, ex.id, {"outcome": "failed"})
        writer.append(record_for(ex, trace))
    wanted = {ex.id for ex in examples}
    return [r for r in writer.records() if r["id"] in wanted]


def score_records(records: Sequence[dict[str, Any]], examples: Sequence[Example]) -> dict:
    """P_* scores over the examples that have a record, plus error and timing totals."""
    from toollearn.evaluation.metrics.deer import DeerPrediction, deer_scores

    by_id = {r["id"]: r for r in records}
    exs = [ex for ex in examples if ex.id in by_id]
    preds = []
    for ex in exs:
        r = by_id[ex.id]
        call = ToolCall.from_dict(r["call"]) if r.get("call") else None
        preds.append(DeerPrediction(r.get("search"), call))
    scores = deer_scores(preds, exs)
    errors: dict[str, int] = {}
    for ex in exs:
        for kind in by_id[ex.id].get("errors") or []:
            errors[kind] = errors.get(kind, 0) + 1
    secs = sum(by_id[ex.id].get("seconds") or 0 for ex in exs)
    scores["errors"] = errors
    scores["run"] = {"n": len(exs), "agent_seconds": round(secs, 1),
                     "seconds_per_example": round(secs / len(exs), 3) if exs else None}  # fmt: skip
    return scores


PAPER = {  # Table 3 (unseen tools), P_NoCall / P_Call / P_DC, in percent
    "test": {"ToolDEER-13B": (88.0, 91.5, 89.2), "GPT-4 6-shot": (88.6, 89.4, 89.0)},
    "tool_bench": {"ToolDEER-13B": (88.5, 86.7, 87.0), "GPT-4 6-shot": (86.5, 84.7, 85.9)},
    "tool_corpus": {"ToolDEER-13B": (81.6, 97.3, 90.5), "GPT-4 6-shot": (74.4, 97.9, 84.2)},
}

COLUMNS = ["system", "n", "P_NoSearch", "P_Search", "P_DS", "P_NoCall", "P_Call",
           "Call_strict", "P_DC"]  # fmt: skip


def summary_rows(scores: dict[str, Any], split: str, label: str) -> list[dict[str, Any]]:
    """Our row (percent) and the paper's rows for the same test, for the report table."""
    pct = lambda x: None if x is None else round(100 * x, 1)  # noqa: E731
    rows = [{"system": label, "n": scores["n"], **{c: pct(scores.get(c)) for c in COLUMNS[2:]}}]
    for system, (nocall, call, dc) in PAPER.get(split, {}).items():
        rows.append({"system": f"paper: {system}", "P_NoCall": nocall, "P_Call": call,
                     "P_DC": dc})  # fmt: skip
    return rows
