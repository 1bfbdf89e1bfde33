"""How well a "counted" alpha-UMi planner numbers its steps (`datagen umi --plan-style counted`).

In the stepwise benchmark the history is gold, so from step 2 on the planner can copy the count
from its earlier turns; only the first step makes it count the query's sub-tasks. This prints,
per run: first steps whose predicted "Step 1 of N" has the gold N; later call steps whose
predicted "Step k of N" is the gold one; conclusion steps that say the gold "All N steps are
done" (or "The step is done"); and steps with no number at all where the gold has one.

    python results/umi-planner-spread/counts.py TEST_FILE RUN...
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

_STEP = re.compile(r"^Step (\d+) of (\d+):")
_DONE = re.compile(r"^(All (\d+) steps are|The step is) done;")


def number(text: str) -> tuple[str, int, int] | None:
    """("step", k, n) or ("done", n, n) from a planner turn, None when it has no number."""
    if m := _STEP.match(text.strip()):
        return "step", int(m.group(1)), int(m.group(2))
    if m := _DONE.match(text.strip()):
        n = int(m.group(2) or 1)
        return "done", n, n
    return None


def gold_plans(test_file: Path) -> dict[str, str]:
    """Step id ("trajectory:turn") -> the gold planner turn."""
    out = {}
    for traj in json.loads(test_file.read_text()):
        for turn, message in enumerate(traj["conversations"]):
            if message["from"] == "assistant":
                out[f"{traj['id']}:{turn}"] = message["value"]
    return out


def counts(test_file: Path, run: Path) -> dict[str, list[int]]:
    """Per kind of step (first, later, done): [right, all]; "unnumbered": [count, all]."""
    gold = gold_plans(test_file)
    out = {"first": [0, 0], "later": [0, 0], "done": [0, 0], "unnumbered": [0, 0]}
    for line in (run / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        want = number(gold[record["id"]])
        if want is None:  # a give-up step: never numbered
            continue
        got = number(record["texts"].get("planner") or "")
        kind = "done" if want[0] == "done" else "first" if want[1] == 1 else "later"
        out[kind][0] += got == want
        out[kind][1] += 1
        out["unnumbered"][0] += got is None
        out["unnumbered"][1] += 1
    return out


if __name__ == "__main__":
    test = Path(sys.argv[1])
    print("| run | first step: N right | later call steps: k of N right | conclusion: N right "
          "| no number |\n|---|---:|---:|---:|---:|")  # fmt: skip
    for arg in sys.argv[2:]:
        c = counts(test, Path(arg))
        cells = " | ".join(f"{r} of {n}" for r, n in c.values())
        print(f"| {Path(arg).name} | {cells} |")
