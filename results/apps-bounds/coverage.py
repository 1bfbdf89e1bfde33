"""How label-free flags split a checked run's programs into successes and failures, measured.

    python results/apps-bounds/coverage.py RUN... > results/apps-bounds/coverage.md

RUN is a scored (bound-checked) app run folder. Two flags per program: "left out", a number the
goal states (`apps.bounds.goal_mentions`, both ends of a range) is not among its numeric
literals (`apps.bounds.missing_numbers`); and "retry trigger", what `toollearn eval
apps-retry` asks again on: the program does not run, leaves a number out, or passes one to
more calls than the goal states it (`apps.bounds.repeated_numbers`). The table counts flagged
and clean programs among the goals that succeed and those that fail: a flag that never fires on
a success and fires on most failures could send just those goals back to the model. No model
runs here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollearn.apps import APPS
from toollearn.apps.bounds import missing_numbers, repeated_numbers


def flags(row: dict, app: str) -> dict[str, bool]:
    program = row["output"] or ""
    left_out = bool(missing_numbers(row["goal"], program))
    repeated = bool(repeated_numbers(row["goal"], program, APPS[app]))
    return {"left out": left_out, "retry trigger": left_out or repeated or not row["executable"]}


def main(runs: list[str]) -> None:
    print("| run | flag | success, flagged | success, clean | failed, flagged | failed, clean |")
    print("|---|---|---:|---:|---:|---:|")
    for run in runs:
        app = json.loads((Path(run) / "config.json").read_text())["app"]
        rows = [json.loads(x) for x in (Path(run) / "predictions.jsonl").read_text().splitlines()]
        for flag in ("left out", "retry trigger"):
            counts = {(s, f): 0 for s in (True, False) for f in (True, False)}
            for row in rows:
                counts[(bool(row["success"]), flags(row, app)[flag])] += 1
            cells = [counts[(True, True)], counts[(True, False)], counts[(False, True)],
                     counts[(False, False)]]  # fmt: skip
            print(f"| {run} | {flag} | " + " | ".join(map(str, cells)) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
