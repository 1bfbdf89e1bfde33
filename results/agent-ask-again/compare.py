"""The committed runs of the shipped agent against the same runs with the episodes that repeated
a call run again under --ask-again-on-repeat (`run.sh`): every other episode is decoded greedily
from the same prompts, so it stays as it was. Success is the episodes' own score
(`evaluation.runners.episodes.score_records`); "tools right, any order": the gold tools each
called once, the order aside (no model).

python results/agent-ask-again/compare.py > compare.md
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from toollearn.evaluation.runners.episodes import episode_output, score_records

HERE = Path(__file__).parent
RUNS = HERE.parent / "episodes-tool-calls"
SETS = {"dev": "dev-agent-r4-all", "test": "agent-r4-all-sure-call",
        "fresh": "fresh-agent-r4-all-sure-call",
        "fresh2": "fresh2-agent-r4-all-sure-call"}  # fmt: skip


def records(run: Path) -> dict[str, dict]:
    lines = (run / "predictions.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def tally(recs: list[dict]) -> Counter[str]:
    out: Counter[str] = Counter()
    for r in recs:
        made, gold = episode_output(r), r["gold"]["calls"]
        out["any order"] += bool(gold) and sorted(made["calls"]) == sorted(gold)
        out[made["outcome"]] += 1
        out["calls"] += len(made["calls"])
    return out


def main() -> None:
    print(
        "| held-out set | episodes | repeated a call | success before | with ask-again | "
        "of the repeaters: tools right, any order | loops + step limits | calls made |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    for name, committed in SETS.items():
        before, again = records(RUNS / committed), records(HERE / name)
        after = {**before, **again}
        old, new = tally([before[i] for i in again]), tally(list(again.values()))
        s0 = score_records(list(before.values()))["success"] * len(before)
        s1 = score_records(list(after.values()))["success"] * len(after)
        stuck = [c["loop"] + c["step_limit"] for c in (old, new)]
        print(f"| {name} | {len(before)} | {len(again)} | {s0:.0f} | {s1:.0f} | "
              f"{old['any order']} -> {new['any order']} | {stuck[0]} -> {stuck[1]} | "
              f"{old['calls']} -> {new['calls']} |")  # fmt: skip


if __name__ == "__main__":
    main()
