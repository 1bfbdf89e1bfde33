"""How far the query's clauses alone point to the gold call sequence (dev only, no model).

For each held-out dev trajectory (`results/umi-stop-gate/dev-set`) that does not give up, the
query is split into clauses (`agents.tool_filter.clauses`) and each clause's closest shown tool
(the embedded MiniLM, `ToolFilter.similarities`) is listed in clause order, repeats dropped.
Printed: how often that list is the gold call sequence, the same set, the same length. It
measures what a check "every clause's tool is called before the reply" could reach, before any
such check is built or run on test.

    python results/episodes-tool-calls/clause_probe.py > results/episodes-tool-calls/clause_probe.md
"""

from __future__ import annotations

from toollearn.agents.tool_filter import ToolFilter
from toollearn.data.trajectories import read_trajectories
from toollearn.evaluation.runners.episodes import gold_episode

DEV = "results/umi-stop-gate/dev-set/trajectories_dev.json"


def clause_tools(tool_filter: ToolFilter, query: str, tools: list) -> list[str]:
    """Each clause's closest tool, in clause order, repeats dropped."""
    _, sims = tool_filter.similarities(query, tools)
    out: list[str] = []
    for row in sims:
        name = tools[int(row.argmax())].name
        if name not in out:
            out.append(name)
    return out


def main() -> None:
    tool_filter = ToolFilter(None)
    n = in_order = same_set = same_count = 0
    for traj in read_trajectories(DEV):
        gold = gold_episode(traj)
        if gold["give_up"]:
            continue
        got = clause_tools(tool_filter, traj.instruction, list(traj.tools))
        n += 1
        in_order += got == gold["calls"]
        same_set += set(got) == set(gold["calls"])
        same_count += len(got) == len(gold["calls"])
    print("| dev trajectories (no give-up) | clause tools = gold calls in order | same set | "
          "same number |\n|---:|---:|---:|---:|")  # fmt: skip
    print(f"| {n} | {in_order} | {same_set} | {same_count} |")


if __name__ == "__main__":
    main()
