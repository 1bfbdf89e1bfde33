"""Runs of one benchmark side by side, scored on the examples they all finished.

A tuned model is judged against the base on the same items: `compare_runs` rescores every run
from its raw model text (`rescore.rescore_run`) restricted to the ids common to all of them,
so a tuned run over a shard of the test set is compared with the base run's records for that
shard, not with the base's score over the whole set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.evaluation.rescore import benchmark_of, rescore_run, run_config
from toollearn.evaluation.runners.base import read_records

# The headline metrics of each benchmark: (label, path into the scores, scale to percent).
METRICS: dict[str, list[tuple[str, tuple[str, ...], float]]] = {
    "seal-tools": [
        (name, ("official", "all", key), 100.0)
        for name, key in [
            ("Format ACC", "format_acc"),
            ("Tool P", "tool_p"),
            ("Tool R", "tool_r"),
            ("Tool F1", "tool_f1"),
            ("Param P", "param_p"),
            ("Param R", "param_r"),
            ("Param F1", "param_f1"),
        ]
    ],  # fmt: skip
    "deer": [
        (key, (key,), 100.0)
        for key in ("P_NoSearch", "P_Search", "P_DS", "P_NoCall", "P_Call", "P_DC", "P_DC_strict")
    ],
    "stepwise": [
        ("Plan ACC", ("plan_acc",), 100.0),
        ("Act. EM", ("act_em",), 100.0),
        ("Hallu.", ("hallucination",), 100.0),
        ("Arg. F1", ("arg_f1",), 100.0),
        ("R-L", ("rouge_l",), 100.0),
    ],  # fmt: skip
    "calls": [
        (f"{c} exact", (c, "exact"), 1.0)
        for c in (
            "simple",
            "multiple",
            "parallel",
            "parallel-multiple",
            "dependent",
            "decline",
            "chit-chat",
            "chat",
            "multi-turn",
            "formats",
            "all",
        )
    ],  # fmt: skip
    "apps": [
        ("success", ("success_rate",), 1.0),
        ("executable", ("executability_rate",), 1.0),
        ("criteria F1", ("criteria_f1",), 1.0),
    ],  # fmt: skip
}
# Config keys that define the task and must agree; the model and the settings (prompting,
# constraints, candidates) may differ, and the table notes how.
SAME = {"seal-tools": ("split",), "deer": ("split", "skip_search"), "stepwise": ("file",),
        "apps": ("app",), "calls": ("split", "suite")}  # fmt: skip
IGNORED = {"shard", "limit", "threads"}


@dataclass
class Comparison:
    benchmark: str
    n: int
    labels: list[str]
    runs: list[str]
    engines: list[str]
    scores: list[dict[str, Any]] = field(default_factory=list)
    differences: dict[str, list[Any]] = field(default_factory=dict)

    def rows(self) -> list[tuple[str, list[float | None]]]:
        """(metric, value per run in percent) for the benchmark's headline metrics."""
        out = []
        for name, path, scale in METRICS[self.benchmark]:
            values = [_get(s, path) for s in self.scores]
            out.append((name, [None if v is None else v * scale for v in values]))
        return out

    def markdown(self) -> str:
        head = f"| metric (n = {self.n}) | " + " | ".join(self.labels) + " |"
        lines = [head, "|---|" + "---:|" * len(self.labels)]
        for name, values in self.rows():
            cells = ["-" if v is None else f"{v:.1f}" for v in values]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        notes = [f"{key}: " + " / ".join(json.dumps(v) for v in values)
                 for key, values in self.differences.items()]  # fmt: skip
        return "\n".join(lines) + "\n" + ("\nSettings that differ: " + "; ".join(notes) + "\n"
                                           if notes else "")  # fmt: skip

    def plot(self, path: str | Path, metrics: list[str] | None = None, title: str = "") -> None:
        """Grouped bars: each chosen metric (default: all) for every run, in the runs' order
        (for a data-size curve, give the runs smallest first)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rows = dict(self.rows())
        names = metrics or list(rows)
        unknown = [m for m in names if m not in rows]
        if unknown:
            raise DataError(f"no metric {unknown} for {self.benchmark}; it has {list(rows)}")
        width = 0.8 / len(self.labels)
        fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(names) * len(self.labels) ** 0.5), 4))
        for i, label in enumerate(self.labels):
            xs = [k + (i - (len(self.labels) - 1) / 2) * width for k in range(len(names))]
            values = [rows[m][i] or 0.0 for m in names]
            bars = ax.bar(xs, values, width, label=label)
            ax.bar_label(bars, fmt="%.1f", fontsize=7)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names)
        ax.set_ylabel("percent")
        ax.set_ylim(0, 105)
        ax.legend(fontsize=8)
        ax.set_title(title or f"{self.benchmark}, the same {self.n} examples", fontsize=9)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "n": self.n, "labels": self.labels,
                "runs": self.runs, "engines": self.engines,
                "metrics": {name: values for name, values in self.rows()},
                "differences": self.differences,
                "scores": self.scores}  # fmt: skip


def _get(scores: dict[str, Any], path: tuple[str, ...]) -> float | None:
    value: Any = scores
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return float(value) if isinstance(value, int | float) else None


def task_setting(config: dict[str, Any], key: str) -> Any:
    """A run's task setting `key` as comparison reads it: a DEER gates-only run without a
    search gate searches every time (`eval deer-gate`), which is what `skip_search` means."""
    if key == "skip_search" and config.get("gates_only") and not config.get("search_gate"):
        return True
    return config.get(key)


def without_unwritten(scores: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """A DEER gates-only run writes no arguments, so its strict call scores mean nothing: blank."""
    if config.get("gates_only"):
        inner = scores.get("scores", scores)
        for key in ("Call_strict", "P_DC_strict"):
            if key in inner:
                inner[key] = None
    return scores


def compare_runs(
    run_dirs: list[str | Path], labels: list[str] | None = None, data_root: Any = None
) -> Comparison:
    """Score every run on the ids all of them finished. The runs must be of one benchmark
    with the same task settings (split, mode, ...); labels default to the folder names."""
    dirs = [Path(d) for d in run_dirs]
    if len(dirs) < 2:
        raise DataError("compare needs at least two run directories")
    labels = labels or [d.name for d in dirs]
    if len(labels) != len(dirs):
        raise DataError(f"{len(labels)} labels for {len(dirs)} runs")
    configs = [run_config(d) for d in dirs]
    kinds = {benchmark_of(c) for c in configs}
    if len(kinds) != 1:
        raise DataError(f"the runs are of different benchmarks: {sorted(kinds)}")
    kind = kinds.pop()
    for key in SAME[kind]:
        values = {json.dumps(task_setting(c, key)) for c in configs}
        if len(values) > 1:
            raise DataError(f"the runs differ in {key!r}: {sorted(values)}; not comparable")
    id_sets = [{r["id"] for r in read_records(d / "predictions.jsonl")} for d in dirs]
    common = set.intersection(*id_sets)
    if not common:
        raise DataError("the runs have no finished example in common")
    scores = [without_unwritten(rescore_run(d, data_root, ids=common), c)
              for d, c in zip(dirs, configs)]  # fmt: skip
    engines = [str(c.get("engine", "")) for c in configs]
    keys = sorted({k for c in configs for k in c} - IGNORED)
    differences = {k: [c.get(k) for c in configs] for k in keys
                   if len({json.dumps(c.get(k), sort_keys=True) for c in configs}) > 1}  # fmt: skip
    return Comparison(kind, len(common), labels, [str(d) for d in dirs], engines, scores,
                      differences)  # fmt: skip
