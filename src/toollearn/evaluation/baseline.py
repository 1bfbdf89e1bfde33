"""The README's baseline table, built from finished run directories (never typed in).

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

# Seal-Tools paper, Table 2 (overall test, DPR top-5 candidates): Format, Tool P/R/F1, Param P/R/F1.
SEAL_PAPER = {
    "GPT-4 (gpt-4-0613)": (97.12, 90.02, 74.71, 81.65, 80.52, 67.57, 73.48),
    "ChatGPT (gpt-3.5-turbo-0613)": (96.16, 83.20, 74.73, 78.74, 68.63, 66.85, 67.73),
    "LLaMA2-Chat 7B": (78.73, 62.10, 53.91, 57.72, 44.92, 43.24, 44.06),
    "fine-tuned LLaMA2-7B, DPR": (95.86, 82.81, 77.84, 80.25, 75.95, 70.23, 72.98),
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
SEAL_GROUPS = ("all", "test_in_domain", "test_out_domain", "easy", "difficult", "nested")


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
    """Markdown rows: split/group x scorer x mode for ROOT/free and ROOT/constrained."""
    modes = {m: load_scores(Path(root) / m) for m in ("free", "constrained")}
    lines = [
        "| group | n | scorer | mode | Format | Tool P | Tool R | Tool F1 | Param P | "
        "Param R | Param F1 | exact |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for group in SEAL_GROUPS:
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
    for name, v in SEAL_PAPER.items():
        lines.append(
            f"| *paper, Table 2* | 1354 | official | {name} | {v[0]:.2f} | {v[1]:.2f} | "
            f"{v[2]:.2f} | {v[3]:.2f} | {v[4]:.2f} | {v[5]:.2f} | {v[6]:.2f} | – |"
        )
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
    return "\n".join(lines + [""] + notes + ["", TIME_NOTE])


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
