"""Paired bootstrap intervals for the difference between two Seal-Tools runs.

Tool and Param F1 are micro scores: ratios of counts summed over the test queries, so two runs
on a few hundred queries can differ by a point by chance. `seal_bootstrap` resamples the queries
both runs finished, with replacement and the same draw for every run (paired), sums each run's
per-query counts (`official_counts`, `strict_counts`) over the draw and recomputes the F1s. It
reports each run's difference from the first run on all the queries, the 2.5th and 97.5th
percentiles of the resampled differences (a 95% interval), and the share of draws in which the
run scores higher.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from toollearn.core.errors import DataError
from toollearn.evaluation.rescore import benchmark_of, run_config
from toollearn.evaluation.runners.base import read_records

# metric: (scorer, index of correct, predicted, gold in the per-query counts)
SEAL_METRICS = {
    "official Tool F1": ("official", 1, 2, 3),
    "official Param F1": ("official", 4, 5, 6),
    "strict Tool F1": ("strict", 1, 2, 3),
    "strict Param F1": ("strict", 4, 5, 6),
}
Counts = dict[str, np.ndarray]  # scorer ("official", "strict") -> per-query count rows


@dataclass
class Interval:
    metric: str
    label: str
    delta: float  # percentage points, on every common query
    low: float
    high: float
    p_higher: float  # share of draws where this run beats the first

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "label": self.label, "delta": self.delta,
                "low": self.low, "high": self.high, "p_higher": self.p_higher}  # fmt: skip


def f1_of(totals: np.ndarray, correct: int, predicted: int, gold: int) -> np.ndarray:
    """Micro F1 (fractions) from summed counts, one row per draw: 2c / (pred + gold), which is
    2PR / (P + R) and 0 where nothing was predicted or nothing is gold."""
    c = totals[..., correct].astype(float)
    pred, gold_n = totals[..., predicted], totals[..., gold]
    denom = (pred + gold_n).astype(float)
    ok = (pred > 0) & (gold_n > 0) & (c > 0)
    return np.where(ok, 2 * c / np.where(denom > 0, denom, 1), 0.0)


def paired_intervals(
    counts: list[Counts], labels: list[str], draws: int = 2000, seed: int = 0
) -> list[Interval]:
    """Intervals of runs 1.. against run 0. `counts[k][scorer]`: run k's per-query count rows
    (same queries, same order, for every run)."""
    n = len(next(iter(counts[0].values())))
    if n == 0:
        raise DataError("no queries to resample")
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=draws)  # (draws, n): times drawn
    full, boot = {}, {}
    for metric, (scorer, *idx) in SEAL_METRICS.items():
        full[metric] = [f1_of(c[scorer].sum(axis=0), *idx) for c in counts]
        boot[metric] = [f1_of(weights @ c[scorer], *idx) for c in counts]
    out = []
    for k in range(1, len(counts)):
        for metric in SEAL_METRICS:
            diff = 100 * (boot[metric][k] - boot[metric][0])
            low, high = np.percentile(diff, [2.5, 97.5])
            delta = 100 * float(full[metric][k] - full[metric][0])
            higher = float((diff > 0).mean())
            out.append(Interval(metric, labels[k], round(delta, 2), round(float(low), 2),
                                round(float(high), 2), round(higher, 3)))  # fmt: skip
    return out


def seal_run_counts(run_dirs: list[Path], data_root: Any) -> tuple[list[Counts], int]:
    """Each Seal-Tools run's per-query counts under both scorers, on the ids all finished."""
    from toollearn.evaluation.metrics.seal_tools import (
        official_counts,
        official_gold,
        strict_counts,
    )
    from toollearn.evaluation.runners.seal_tools import load_prompts

    configs = [run_config(d) for d in run_dirs]
    if any(benchmark_of(c) != "seal-tools" for c in configs):
        raise DataError("bootstrap intervals are computed for Seal-Tools runs only")
    records = [{r["id"]: r for r in read_records(d / "predictions.jsonl")} for d in run_dirs]
    common = set.intersection(*(set(r) for r in records))
    if not common:
        raise DataError("the runs have no finished example in common")
    c0 = configs[0]
    examples = [ex for ex in load_prompts(c0["split"], data_root, sample=bool(c0.get("sample")))
                if ex.id in common]  # fmt: skip
    official = [official_gold(ex) for ex in examples]
    strict = [list(ex.calls) for ex in examples]
    out = []
    for recs in records:
        outs = [recs[ex.id]["output"] or "" for ex in examples]
        out.append({"official": np.array(official_counts(outs, official), dtype=np.int64),
                    "strict": np.array(strict_counts(outs, strict), dtype=np.int64)})  # fmt: skip
    return out, len(examples)


def seal_bootstrap(
    run_dirs: list[str | Path], labels: list[str], data_root: Any, draws: int = 2000, seed: int = 0
) -> tuple[list[Interval], int]:
    """Paired 95% intervals of each run's Tool and Param F1 minus the first run's."""
    counts, n = seal_run_counts([Path(d) for d in run_dirs], data_root)
    return paired_intervals(counts, labels, draws, seed), n


def intervals_markdown(intervals: list[Interval], first: str, n: int, draws: int) -> str:
    lines = [f"Paired bootstrap against {first} ({n} queries, {draws} draws; percentage points):",
             "", "| run | metric | difference | 95% interval | draws where higher |",
             "|---|---|---:|---|---:|"]  # fmt: skip
    for iv in intervals:
        lines.append(f"| {iv.label} | {iv.metric} | {iv.delta:+.1f} | [{iv.low:+.1f}, "
                     f"{iv.high:+.1f}] | {100 * iv.p_higher:.1f}% |")  # fmt: skip
    return "\n".join(lines) + "\n"
