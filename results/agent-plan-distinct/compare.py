"""Each set's subset with and without the plan's distinct margin, episode by episode, and the
set's whole-run success with the margin: the committed `--plan due` run (results/episodes-
tool-calls), its subset episodes replaced by this folder's (every other episode runs as
before under greedy decoding; the plain subset run shows this machine repeats the committed
episodes).
    python results/agent-plan-distinct/compare.py > results/agent-plan-distinct/compare.md
"""

from __future__ import annotations

import json
from pathlib import Path

from toollearn.evaluation.runners.episodes import score_records

HERE = Path("results/agent-plan-distinct")
RUNS = Path("results/episodes-tool-calls")
COMMITTED = {
    "dev": "dev-agent-r4-all-sure-call-plan-due",
    "test": "agent-r4-all-sure-call-plan-due",
    "fresh": "fresh-agent-r4-all-sure-call-plan-due",
    "fresh2": "fresh2-agent-r4-all-sure-call-plan-due",
    "fresh3": None,  # no whole plan-due run of r4-all on it was kept
}


def records(run: Path) -> dict[str, dict]:
    lines = (run / "predictions.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def success(record: dict) -> bool:
    return bool(score_records([record])["counts"]["success"])


def main() -> None:
    print("| set | changed plans | plain: success | margin 0.06: success | committed run on "
          "them | whole set: committed | whole set with the margin |\n"
          "|---|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    for name, committed in COMMITTED.items():
        plain, distinct = records(HERE / f"{name}-plain"), records(HERE / name)
        row = [name, len(plain), sum(map(success, plain.values())),
               sum(map(success, distinct.values()))]  # fmt: skip
        if committed:
            whole = records(RUNS / committed)
            before = sum(map(success, whole.values()))
            on_subset = sum(success(whole[i]) for i in plain)
            row += [on_subset, f"{before} of {len(whole)}",
                    f"{before - on_subset + row[3]} of {len(whole)}"]  # fmt: skip
        else:
            row += ["", "", ""]
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
