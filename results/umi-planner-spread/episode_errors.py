"""Where `toollearn eval episodes` runs go wrong: each episode's called tools against the gold.

Kinds, first match wins: right (the gold tools in order); stopped early (a prefix of the gold);
gold then extra calls; same tools in another order; calls a tool twice; other (a wrong tool);
and, for the gold give-ups, how the agent ended instead.

    python results/umi-planner-spread/episode_errors.py RUN...
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from toollearn.evaluation.runners.episodes import episode_output

KINDS = ("right", "stopped early", "gold then extra calls", "same tools, other order",
         "calls a tool twice", "other", "gold give-up")  # fmt: skip


def kind(record: dict) -> str:
    gold, calls = record["gold"]["calls"], episode_output(record)["calls"]
    if record["gold"]["give_up"]:
        return "gold give-up"
    if calls == gold:
        return "right"
    if len(calls) < len(gold) and calls == gold[: len(calls)]:
        return "stopped early"
    if len(calls) > len(gold) and calls[: len(gold)] == gold:
        return "gold then extra calls"
    if sorted(calls) == sorted(gold):
        return "same tools, other order"
    return "calls a tool twice" if len(set(calls)) < len(calls) else "other"


if __name__ == "__main__":
    print(f"| run | {' | '.join(KINDS)} |\n|---|{'---:|' * len(KINDS)}")
    for arg in sys.argv[1:]:
        lines = (Path(arg) / "predictions.jsonl").read_text().splitlines()
        counts = Counter(kind(json.loads(line)) for line in lines)
        print(f"| {Path(arg).name} | {' | '.join(str(counts[k]) for k in KINDS)} |")
