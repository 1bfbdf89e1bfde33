"""--copy-strings against the plain grammar on the quarters it ran on (by default results/seal-copy:
shard 1/4, and results/seal-copy-q2/quarter: shard 2/4; 678 queries), scored on the pooled
queries, with a paired bootstrap over them (toollearn.evaluation.bootstrap).

    python results/seal-copy-q2/pooled.py [--quarter RUN ...] [--data-root ../shared/data]
        [--draws 2000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from toollearn.evaluation.bootstrap import (
    SEAL_METRICS,
    f1_of,
    intervals_markdown,
    paired_intervals,
    seal_run_counts,
)

RESULTS = Path(__file__).resolve().parents[1]
PLAIN = RESULTS / "seal-full-v3"  # the whole set: each quarter is compared on its own ids
QUARTERS = [RESULTS / "seal-copy", RESULTS / "seal-copy-q2" / "quarter"]
LABELS = ["tools-135m v3", "v3, --copy-strings"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-root", default="../shared/data")
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--quarter", action="append", type=Path, default=None,
                    help="a --copy-strings run (repeatable; default: the first two)")  # fmt: skip
    args = ap.parse_args()
    parts = [seal_run_counts([PLAIN, q], args.data_root) for q in args.quarter or QUARTERS]
    n = sum(k for _, k in parts)
    pooled = [
        {s: np.vstack([counts[run][s] for counts, _ in parts]) for s in ("official", "strict")}
        for run in range(2)
    ]
    print(f"Pooled: {' + '.join(str(k) for _, k in parts)} = {n} queries\n")
    print("| run | " + " | ".join(SEAL_METRICS) + " |")
    print("|---|" + "---:|" * len(SEAL_METRICS))
    for label, counts in zip(LABELS, pooled):
        cells = [
            100 * float(f1_of(counts[s].sum(axis=0), *idx)) for s, *idx in SEAL_METRICS.values()
        ]
        print(f"| {label} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
    print()
    print(
        intervals_markdown(paired_intervals(pooled, LABELS, args.draws), LABELS[0], n, args.draws)
    )


if __name__ == "__main__":
    main()
