"""Does a checked program use every number its goal states? A trigger for asking again, measured.

    python results/apps-bounds/coverage.py RUN... > results/apps-bounds/coverage.md

RUN is a scored (bound-checked) app run folder. A program is flagged when a number the goal
states (`apps.bounds.goal_mentions`, both ends of a range) is not among its numeric literals
(`apps.bounds.missing_numbers`).
The table counts flagged and clean programs among the goals that succeed and those that fail:
a flag that never fires on a success and fires on most failures could send just those goals
back to the model. No model runs here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollearn.apps.bounds import missing_numbers


def main(runs: list[str]) -> None:
    print("| run | success, flagged | success, clean | failed, flagged | failed, clean |")
    print("|---|---:|---:|---:|---:|")
    for run in runs:
        counts = {(s, f): 0 for s in (True, False) for f in (True, False)}
        for line in (Path(run) / "predictions.jsonl").read_text().splitlines():
            row = json.loads(line)
            flag = bool(missing_numbers(row["goal"], row["output"] or ""))
            counts[(bool(row["success"]), flag)] += 1
        cells = [counts[(True, True)], counts[(True, False)], counts[(False, True)],
                 counts[(False, False)]]  # fmt: skip
        print(f"| {run} | " + " | ".join(map(str, cells)) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
