"""Two `eval episodes` runs on the same trajectories, episode by episode: how many each alone
succeeds in (the scorer's success, episode by episode), and the exact two-sided sign test on
those discordant episodes; how many episodes' model texts differ at all; then each run's
successes by the task's gold calls (give-ups apart).

    python results/episodes-tool-calls/paired.py RUN_A RUN_B
"""

from __future__ import annotations

import json
import sys
from math import comb
from pathlib import Path

from toollearn.evaluation.runners.episodes import score_records


def right(record: dict) -> bool:
    return bool(score_records([record])["counts"]["success"])


def records(run: str) -> dict[str, dict]:
    lines = (Path(run) / "predictions.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def agent_text(record: dict) -> list[str]:
    return [s["content"] for s in record["trace"]["steps"] if s["role"] == "agent"]


def kind(record: dict) -> str:
    gold = record["gold"]
    return "give-up" if gold["give_up"] else f"{len(gold['calls'])} calls"


def sign_test(a: int, b: int) -> float:
    """Two-sided exact binomial p for a vs b discordant pairs at p = 1/2."""
    n, k = a + b, min(a, b)
    return min(1.0, 2 * sum(comb(n, j) for j in range(k + 1)) / 2**n) if n else 1.0


def main(run_a: str, run_b: str) -> None:
    recs_a, recs_b = records(run_a), records(run_b)
    a = {i: right(r) for i, r in recs_a.items()}
    b = {i: right(r) for i, r in recs_b.items()}
    if a.keys() != b.keys():
        sys.exit(f"the runs hold different episodes ({len(a)} and {len(b)})")
    only_a = sum(a[i] and not b[i] for i in a)
    only_b = sum(b[i] and not a[i] for i in a)
    name_a, name_b = Path(run_a).name, Path(run_b).name
    print(f"| episodes | {name_a} succeeds | {name_b} succeeds | both | {name_a} alone | "
          f"{name_b} alone | sign test p | texts differ |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    both = sum(a[i] and b[i] for i in a)
    differ = sum(agent_text(recs_a[i]) != agent_text(recs_b[i]) for i in a)
    print(f"| {len(a)} | {sum(a.values())} | {sum(b.values())} | {both} | {only_a} | {only_b} "
          f"| {sign_test(only_a, only_b):.3f} | {differ} |")  # fmt: skip

    kinds = sorted({kind(r) for r in recs_a.values()})
    print(f"\n| successes by task | {' | '.join(kinds)} |")
    print("|---|" + "---:|" * len(kinds))
    for name, recs, ok in ((name_a, recs_a, a), (name_b, recs_b, b)):
        cells = [f"{sum(ok[i] for i, r in recs.items() if kind(r) == k)} of "
                 f"{sum(kind(r) == k for r in recs.values())}" for k in kinds]  # fmt: skip
        print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
