"""The fresh trajectory test set against the sets it must not repeat: its queries, exact and
near copies (datagen.leakage.QueryIndex: word trigrams, the leakage reports' 0.7), against the
held-out test set (results/datagen/umi) and the dev set (results/umi-stop-gate/dev-set); and
the tools it shows, against the old test's (the same 109 held-out tools) and dev's (training
tools: none may be shown); and each set's tasks by gold calls (give-ups apart). Exit 1 on any
repeat.
    python results/datagen/umi-fresh-test/check.py"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from toollearn.data.trajectories import read_trajectories
from toollearn.datagen.leakage import QueryIndex
from toollearn.evaluation.runners.episodes import gold_episode

HERE = Path(__file__).parent
OLD_TEST = "results/datagen/umi/trajectories_test.json"
DEV = "results/umi-stop-gate/dev-set/trajectories_dev.json"


def shown_tools(trajectories) -> set[str]:
    return {tool.name for t in trajectories for tool in t.tools}


def task_kinds(trajectories) -> dict[str, int]:
    """Tasks by gold call count, give-ups apart ("give-up")."""
    golds = [gold_episode(t) for t in trajectories]
    kinds = Counter("give-up" if g["give_up"] else str(len(g["calls"])) for g in golds)
    return dict(sorted(kinds.items()))


def main() -> int:
    fresh = read_trajectories(HERE / "trajectories_test.json")
    report: dict = {"trajectories": len(fresh),
                    "distinct_queries": len({t.instruction.strip() for t in fresh})}  # fmt: skip
    for name, path in {"test": OLD_TEST, "dev": DEV}.items():
        other = read_trajectories(path)
        index = QueryIndex([t.instruction for t in other])
        found = [index.match(t.instruction) for t in fresh]
        report[name] = {"file": path, "trajectories": len(other),
                        "exact": sum(f is not None and f[0] == "exact" for f in found),
                        "near": sum(f is not None and f[0] == "near" for f in found)}  # fmt: skip
    tools = shown_tools(fresh)
    report["tools_shown"] = len(tools)
    report["tools_shown_also_in_old_test"] = len(tools & shown_tools(read_trajectories(OLD_TEST)))
    report["tools_shown_also_in_dev"] = len(tools & shown_tools(read_trajectories(DEV)))
    report["tasks_by_gold_calls"] = {
        "fresh": task_kinds(fresh),
        "test": task_kinds(read_trajectories(OLD_TEST)),
        "dev": task_kinds(read_trajectories(DEV)),
    }
    print(json.dumps(report, indent=2))
    repeats = sum(report[k]["exact"] + report[k]["near"] for k in ("test", "dev"))
    repeats += report["tools_shown_also_in_dev"]
    return 1 if repeats else 0


if __name__ == "__main__":
    sys.exit(main())
