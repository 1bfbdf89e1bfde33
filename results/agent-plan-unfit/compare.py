"""Each set's subset with and without the plan's unfit gap, and the set's whole-run success
with the distinct margin and the gap both on: the committed `--plan due` run
(results/episodes-tool-calls, made without either), its episodes replaced by the distinct
margin's runs (results/agent-plan-distinct) and then by this folder's (every other episode
runs as before under greedy decoding).
    python results/agent-plan-unfit/compare.py > results/agent-plan-unfit/compare.md
"""

from __future__ import annotations

import json
from pathlib import Path

from toollearn.evaluation.runners.episodes import score_records

HERE = Path("results/agent-plan-unfit")
DISTINCT = Path("results/agent-plan-distinct")
RUNS = Path("results/episodes-tool-calls")
COMMITTED = {
    "dev": "dev-agent-r4-all-sure-call-plan-due",
    "test": "agent-r4-all-sure-call-plan-due",
    "fresh": "fresh-agent-r4-all-sure-call-plan-due",
    "fresh2": "fresh2-agent-r4-all-sure-call-plan-due",
    "fresh3": None,  # no whole plan-due run of r4-all on it was kept
}


def successes(run: Path) -> dict[str, bool]:
    lines = (run / "predictions.jsonl").read_text().splitlines()
    records = map(json.loads, lines)
    return {r["id"]: bool(score_records([r])["counts"]["success"]) for r in records}


def main() -> None:
    print("| set | changed plans | give-ups among them | without the gap: success | with it | "
          "whole set: committed | whole set, margin and gap |\n"
          "|---|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    for name, committed in COMMITTED.items():
        plain, gap = successes(HERE / f"{name}-plain"), successes(HERE / name)
        lines = (HERE / name / "predictions.jsonl").read_text().splitlines()
        give_ups = sum(json.loads(line)["gold"]["give_up"] for line in lines)
        row = [name, len(plain), give_ups, sum(plain.values()), sum(gap.values())]
        if committed:
            whole = successes(RUNS / committed)
            both = {**whole, **successes(DISTINCT / name), **gap}
            n = len(whole)
            row += [f"{sum(whole.values())} of {n}", f"{sum(both.values())} of {n}"]
        else:
            row += ["", ""]
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
