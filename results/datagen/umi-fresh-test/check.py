"""A fresh trajectory test set against the sets it must not repeat: its queries, exact and near
copies (datagen.leakage.QueryIndex: word trigrams, the leakage reports' 0.7), against the
held-out test set (results/datagen/umi), the dev set (results/umi-stop-gate/dev-set) and, for
a later fresh set, the earlier ones (this folder's, umi-fresh-test-2); the tools it shows,
against the old test's (the same 109 held-out tools) and dev's (training tools: none may be
shown); and each set's tasks by gold calls (give-ups apart). Exit 1 on any repeat.
    python results/datagen/umi-fresh-test/check.py [FRESH_FILE]"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from toollearn.data.trajectories import read_trajectories
from toollearn.datagen.leakage import QueryIndex
from toollearn.evaluation.runners.episodes import gold_episode

FIRST = Path("results/datagen/umi-fresh-test/trajectories_test.json")  # from the repo root
OTHERS = {
    "test": Path("results/datagen/umi/trajectories_test.json"),
    "dev": Path("results/umi-stop-gate/dev-set/trajectories_dev.json"),
    "fresh": FIRST,
    "fresh2": Path("results/datagen/umi-fresh-test-2/trajectories_test.json"),
}


def shown_tools(trajectories) -> set[str]:
    return {tool.name for t in trajectories for tool in t.tools}


def task_kinds(trajectories) -> dict[str, int]:
    """Tasks by gold call count, give-ups apart ("give-up")."""
    golds = [gold_episode(t) for t in trajectories]
    kinds = Counter("give-up" if g["give_up"] else str(len(g["calls"])) for g in golds)
    return dict(sorted(kinds.items()))


def main(path: Path) -> int:
    fresh = read_trajectories(path)
    others = {k: p for k, p in OTHERS.items() if p.resolve() != path.resolve()}
    sets = {k: read_trajectories(p) for k, p in others.items()}
    report: dict = {"file": str(path), "trajectories": len(fresh),
                    "distinct_queries": len({t.instruction.strip() for t in fresh})}  # fmt: skip
    for name, other in sets.items():
        index = QueryIndex([t.instruction for t in other])
        found = [index.match(t.instruction) for t in fresh]
        report[name] = {"file": str(others[name]), "trajectories": len(other),
                        "exact": sum(f is not None and f[0] == "exact" for f in found),
                        "near": sum(f is not None and f[0] == "near" for f in found)}  # fmt: skip
    tools = shown_tools(fresh)
    report["tools_shown"] = len(tools)
    report["tools_shown_also_in_old_test"] = len(tools & shown_tools(sets["test"]))
    report["tools_shown_also_in_dev"] = len(tools & shown_tools(sets["dev"]))
    report["tasks_by_gold_calls"] = {"this": task_kinds(fresh)}
    report["tasks_by_gold_calls"].update({k: task_kinds(v) for k, v in sets.items()})
    print(json.dumps(report, indent=2))
    repeats = sum(report[k]["exact"] + report[k]["near"] for k in sets)
    return 1 if repeats + report["tools_shown_also_in_dev"] else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIRST))
