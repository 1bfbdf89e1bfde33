"""ToolDEER runner: the decision-aware agent on valid/test and the two baseline files.

Each example's query and its 5-tool pool go through `DecisionAgent` (Decision-Search, then
Decision-Call over the pool, then the call) in the released DEER format (or the zero-shot
prompts, `prompting`). Each record keeps the raw model texts and, for the released format,
the assistant turn as produced (`output`, comparable to the data's `target`); scores are
re-read from them with the paper's P_* metrics, so a committed run rescored gives its
scores.json again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import FormatError, ToollearnError
from toollearn.core.types import ErrorKind, Example, Step, Tool, ToolCall, Trace
from toollearn.formats.answers import deer

SPLITS = ("test", "valid", "tool_bench", "tool_corpus")


def load_deer(split: str, root: Any = None, sample: bool = False) -> list[Example]:
    """The examples of a ToolDEER split or baseline file (or the bundled sample's)."""
    from toollearn.data.registry import load_examples

    if split not in SPLITS:
        raise ValueError(f"unknown ToolDEER split {split!r}; use one of {SPLITS}")
    return load_examples(("sample/" if sample else "") + f"tooldeer/{split}", root)


def prediction_from_record(record: dict[str, Any], ex: Example) -> tuple[Any, str]:
    """(DeerPrediction, note) re-read from a record's raw model text.

    Released-format records (`prompting` "released") parse their `output`, the assistant turn
    as produced; a plain {"id", "output"} record is read the same way. Zero-shot records (and
    the runs made before `prompting` was recorded) re-read the raw texts of their Trace's
    model steps. A chosen tool whose arguments could not be read still counts as a call of
    that name (the paper's P_Call is name-level); the note says so.
    """
    from toollearn.evaluation.metrics.deer import DeerPrediction

    if record.get("prompting", "released" if "trace" not in record else "zero-shot") == "released":
        try:
            answer = deer.parse_deer(record.get("output") or "", ex.tools)
        except FormatError:
            return DeerPrediction(None), "unreadable"
        note = "call arguments unreadable" if answer.call and answer.error else ""
        return DeerPrediction(answer.search, answer.call, "" if note else answer.error), note
    return zero_shot_prediction(Trace.from_dict(record["trace"]), ex.tools)


def zero_shot_prediction(trace: Trace, pool: Sequence[Tool]) -> tuple[Any, str]:
    """Decisions of a zero-shot DecisionAgent run, re-read from its model steps' texts with
    the parsers the agent used (an unreadable search answer means search, as in the agent)."""
    from toollearn.evaluation.metrics.deer import DeerPrediction

    steps = {s.data.get("decision"): s for s in trace.steps if s.data.get("decision")}
    forced = any(s.kind == "decision" and s.detail.startswith("forced") for s in trace.steps)
    search = True
    if not forced and "needs_tool" in steps:
        try:
            search = deer.parse_yes_no(steps["needs_tool"].content)
        except FormatError:
            search = True
    choice = steps.get("has_suitable_tool")
    if not search or choice is None:
        return DeerPrediction(search, None), ""
    aliases = deer.pool_tools(pool)
    names = [t.name for t in pool] + [
        a.name for a in aliases if a.name not in {t.name for t in pool}
    ]
    try:
        name = deer.parse_choice(choice.content, names)
    except FormatError:
        name = None
    tool = next((t for t, a in zip(pool, aliases) if name in (t.name, a.name)), None)
    if tool is None:
        return DeerPrediction(True, None), ""
    written = next((s for s in trace.steps if s.kind in ("call", "error") and s.role == "agent"
                    and s.data.get("decision") is None and s.content), None)  # fmt: skip
    call = deer.read_zero_shot_call(written.content, tool)[0] if written else None
    if call is None:
        return DeerPrediction(True, ToolCall(tool.name)), "call arguments unreadable"
    return DeerPrediction(True, call), ""


def record_for(ex: Example, trace: Trace, prompting: str) -> dict[str, Any]:
    """One predictions.jsonl record: the released-format turn as produced (`output`), the raw
    text of every model call (`texts`), the decisions read from them, the Trace."""
    record = {"id": ex.id, "split": ex.split, "prompting": prompting,
              "output": trace.meta.get("deer_text"),
              "texts": [s.content for s in trace.steps if s.prompt is not None],
              "trace": trace.to_dict()}  # fmt: skip
    pred, note = prediction_from_record(record, ex)
    record.update(search=pred.search, call=pred.call.to_dict() if pred.call else None, note=note,
                  errors=[s.error.value for s in trace.errors],
                  seconds=trace.meta.get("seconds"))  # fmt: skip
    return record


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
        writer.append(record_for(ex, trace, agent.prompting))
    wanted = {ex.id for ex in examples}
    return [r for r in writer.records() if r["id"] in wanted]


def score_records(records: Sequence[dict[str, Any]], examples: Sequence[Example]) -> dict:
    """P_* scores over the examples that have a record (re-read from the raw model text),
    plus error and timing totals."""
    from toollearn.evaluation.metrics.deer import deer_scores

    by_id = {r["id"]: r for r in records}
    exs = [ex for ex in examples if ex.id in by_id]
    preds = [prediction_from_record(by_id[ex.id], ex)[0] for ex in exs]
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
