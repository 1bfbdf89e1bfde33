"""The zero-shot baseline table (docs/results/inference.md), from finished runs (never typed in).

Seal-Tools rows come from a `--modes free,constrained` run (OUT_ROOT/free, OUT_ROOT/constrained
over `--split all`), DEER rows from `toollearn eval deer` runs. Each paper's own numbers are
printed beside ours, with the table they come from.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError

# Seal-Tools paper (DPR top-5 candidates), official scorer: Format, Tool P/R/F1, Param P/R/F1.
# Table 2 is the whole test set; Table 3 splits it into single-tool (our "easy") and
# multi-tool ("difficult") instances; Table 4 is the nested instances.
SEAL_PAPER = {
    "all": {
        "GPT-4 (gpt-4-0613)": (97.12, 90.02, 74.71, 81.65, 80.52, 67.57, 73.48),
        "ChatGPT (gpt-3.5-turbo-0613)": (96.16, 83.20, 74.73, 78.74, 68.63, 66.85, 67.73),
        "LLaMA2-Chat 7B": (78.73, 62.10, 53.91, 57.72, 44.92, 43.24, 44.06),
        "fine-tuned LLaMA2-7B": (95.86, 82.81, 77.84, 80.25, 75.95, 70.23, 72.98),
    },
    "easy": {
        "GPT-4": (98.64, 88.16, 96.26, 92.03, 82.00, 85.16, 83.55),
        "fine-tuned LLaMA2-7B": (98.30, 93.13, 92.18, 92.65, 85.54, 85.37, 85.45),
    },
    "difficult": {
        "GPT-4": (96.70, 90.24, 72.86, 80.62, 80.37, 66.17, 72.58),
        "fine-tuned LLaMA2-7B": (95.19, 81.88, 76.61, 79.16, 75.12, 69.02, 71.94),
    },
    "nested": {
        "LLaMA2-Chat 7B (586, all splits)": (79.86, 73.04, 58.39, 64.90, 37.23, 34.66, 35.90),
        "fine-tuned LLaMA2-7B (same 586)": (96.76, 89.64, 85.82, 87.69, 77.32, 74.15, 75.70),
    },
}
SEAL_PAPER_TABLE = {
    "all": "Table 2",
    "easy": "Table 3",
    "difficult": "Table 3",
    "nested": "Table 4",
}
# DEER paper, Table 3: P_NoCall, P_Call, P_DC on (ToolDEER test, ToolBench, ToolCorpus).
DEER_PAPER = {
    "ToolDEER-13B": {
        "test": (88.0, 91.5, 89.2),
        "tool_bench": (88.5, 86.7, 87.0),
        "tool_corpus": (81.6, 97.3, 90.5),
    },  # fmt: skip
    "GPT-4 (6-shot)": {
        "test": (88.6, 89.4, 89.0),
        "tool_bench": (86.5, 84.7, 85.9),
        "tool_corpus": (74.4, 97.9, 84.2),
    },  # fmt: skip
}
DEER_SETS = {
    "test": "ToolDEER test",
    "tool_bench": "ToolBench file",
    "tool_corpus": "ToolCorpus file",
}


def load_scores(run_dir: str | Path) -> dict[str, Any]:
    """A run directory's scores.json (DataError if the run was never scored)."""
    path = Path(run_dir) / "scores.json"
    if not path.is_file():
        raise DataError(f"{run_dir} has no scores.json: run (or resume) its benchmark first")
    return json.loads(path.read_text())


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.2f}"


def _minutes(payload: Mapping[str, Any]) -> str:
    """Predict time summed from the records' session stamps; for runs written before stamps
    existed, the wall time of the last process that wrote the run, marked with *."""
    timing = payload.get("timing") or {}
    untimed = timing.get("untimed_records", payload.get("n_records"))
    if timing and timing.get("sessions"):
        text = f"{timing['predict_seconds'] / 60:.1f} min"
        return f"{text} + {untimed} untimed records" if untimed else text
    wall = payload.get("wall_seconds_predict")
    return f"{wall / 60:.1f} min*" if wall else "–"


TIME_NOTE = (
    "Time is the predicting time summed over the processes that wrote the run; * marks a run "
    "written before records were time-stamped, timed by its last process (the whole run "
    "unless it was resumed)."
)


def _seal_group(scores: Mapping[str, Any], scorer: str, group: str) -> Mapping[str, Any] | None:
    if group.startswith("test_"):
        return scores.get(f"{scorer}_{group}")
    return scores[scorer].get(group)


def seal_table(root: str | Path, expected: int | None = 1354) -> str:
    """Two Markdown tables for ROOT/free and ROOT/constrained, by split (all, in-domain,
    out-of-domain) and by kind (easy, difficult, nested), the paper's rows under each group;
    then the run's counts (hallucinated names, truncations, errors, time)."""
    modes = {m: load_scores(Path(root) / m) for m in ("free", "constrained")}
    by_split = _seal_rows(modes, ("all", "test_in_domain", "test_out_domain"))
    by_kind = _seal_rows(modes, ("easy", "difficult", "nested"))
    notes = []
    for mode, payload in modes.items():
        scores, run = payload["scores"], payload["scores"]["run"]
        hall = scores["hallucinated_tools"]
        complete = "" if expected is None or run["n"] == expected else f" (of {expected})"
        notes.append(
            f"- {mode}: {run['n']} queries{complete}; hallucinated tool names: official "
            f"{hall['official']}, strict {hall['strict']}; truncated at the token limit "
            f"{run['truncated']}; engine errors {run['engine_errors']}; predict time "
            f"{_minutes(payload)}"
        )
    together = all(p.get("modes_together", 1) > 1 for p in modes.values())
    if together:
        notes.append(
            "- both modes came from one evaluation of each prompt, so their times are the same "
            "processes' time, not to be added"
        )
    return "\n".join([by_split, "", by_kind, "", *notes, "", TIME_NOTE])


def _seal_rows(modes: Mapping[str, Mapping[str, Any]], groups: Sequence[str]) -> str:
    lines = [
        "| group | n | scorer | mode | Format | Tool P | Tool R | Tool F1 | Param P | "
        "Param R | Param F1 | exact |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for group in groups:
        for scorer in ("official", "strict"):
            for mode, payload in modes.items():
                s = _seal_group(payload["scores"], scorer, group)
                if not s:
                    continue
                lines.append(
                    f"| {group} | {s['n']} | {scorer} | {mode} | {_pct(s['format_acc'])} | "
                    f"{_pct(s['tool_p'])} | {_pct(s['tool_r'])} | {_pct(s['tool_f1'])} | "
                    f"{_pct(s['param_p'])} | {_pct(s['param_r'])} | {_pct(s['param_f1'])} | "
                    f"{_pct(s.get('exact_acc'))} |"
                )
        for name, v in SEAL_PAPER.get(group, {}).items():
            cells = " | ".join(f"{x:.2f}" for x in v)
            source = f"*paper, {SEAL_PAPER_TABLE[group]}*: {name}"
            lines.append(f"| {group} | | official | {source} | {cells} | – |")
    return "\n".join(lines)


def deer_table(runs: Mapping[str, Sequence[tuple[str, str | Path]]]) -> str:
    """Markdown rows for DEER runs: {test set: [(label, run dir), ...]} plus the paper rows."""
    lines = [
        "| test set | run | n | P_NoSearch | P_Search | P_NoCall | P_Call | Call strict | P_DC "
        "| time |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}"

    for split, labelled in runs.items():
        for label, run_dir in labelled:
            payload = load_scores(run_dir)
            s = payload["scores"]
            lines.append(
                f"| {DEER_SETS.get(split, split)} | {label} | {s['n']} | {cell(s['P_NoSearch'])} "
                f"| {cell(s['P_Search'])} | {cell(s['P_NoCall'])} | {cell(s['P_Call'])} | "
                f"{cell(s['Call_strict'])} | {cell(s['P_DC'])} | {_minutes(payload)} |"
            )
        for name, per_set in DEER_PAPER.items():
            if split in per_set:
                nocall, call, dc = per_set[split]
                lines.append(
                    f"| {DEER_SETS[split]} | *paper, Table 3*: {name} | | | | {nocall} | {call} "
                    f"| | {dc} | |"
                )
    return "\n".join(lines + ["", TIME_NOTE])
