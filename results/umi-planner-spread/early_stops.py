"""Where an alpha-UMi planner stops too early: of its gold call steps where it said conclusion,
how many are the trajectory's last call (the query's final sub-task).

    python results/umi-planner-spread/early_stops.py results/stepwise-umi-135m-p400 ...
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def early_stops(run: Path) -> tuple[int, int]:
    """(early stops at the last call, all early stops) of a stepwise run's records."""
    calls: dict[str, list[dict]] = defaultdict(list)
    for line in (run / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["gold"]["action"] == "call":
            calls[record["trajectory"]].append(record)
    last = total = 0
    for steps in calls.values():
        final_turn = max(r["turn"] for r in steps)
        for r in steps:
            if r["pred"]["action"] == "finish":
                total += 1
                last += r["turn"] == final_turn
    return last, total


if __name__ == "__main__":
    print("| run | early stops at the last call |\n|---|---:|")
    for arg in sys.argv[1:]:
        last, total = early_stops(Path(arg))
        print(f"| {Path(arg).name} | {last} of {total} |")
