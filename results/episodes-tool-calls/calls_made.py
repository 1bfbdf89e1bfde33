"""How many calls each episode made, and whether the first was the gold one (no model).

python results/episodes-tool-calls/calls_made.py results/episodes-tool-calls/{base,tuned,agent}
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from toollearn.evaluation.runners.episodes import episode_output


def summary(run: Path) -> tuple[Counter[int], int, int]:
    """(episodes by number of calls made, 5 meaning 5 or more; first call right; episodes)."""
    made: Counter[int] = Counter()
    first_right = n = 0
    for line in (run / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        calls, gold = episode_output(record)["calls"], record["gold"]["calls"]
        made[min(len(calls), 5)] += 1
        first_right += bool(calls and gold and calls[0] == gold[0])
        n += 1
    return made, first_right, n


if __name__ == "__main__":
    print("| run | episodes | 0 calls | 1 | 2 | 3 | 4 | 5+ | first call right |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for arg in sys.argv[1:]:
        made, first, n = summary(Path(arg))
        cells = " | ".join(str(made[k]) for k in range(6))
        print(f"| {Path(arg).name} | {n} | {cells} | {first} |")
