"""How often the call plan alone (`agents.clause_plan`, no model) is the gold call sequence.

For each held-out trajectory the planner lists each query request's closest shown tool in
request order; printed per split: how often that is exactly the gold sequence, on the
trajectories that give up (gold: no call, or the calls before giving up) and on the rest.
`--min-similarity` values are compared on dev only; the default was chosen there.
`--distinct-margin` and `--unfit-gap` values ("-": none) are compared the same way
(`ClausePlanner`'s options; each is off unless given).

    python results/agent-plan/plan_probe.py --splits dev > results/agent-plan/plan_probe_dev.md
    python results/agent-plan/plan_probe.py --splits dev test fresh fresh2 fresh3 \
        --distinct-margin - 0.06 > results/agent-plan/plan_probe_distinct.md
    python results/agent-plan/plan_probe.py --splits dev test fresh fresh2 fresh3 \
        --distinct-margin 0.06 --unfit-gap - 0.1 0.15 0.2 > results/agent-plan/plan_probe_unfit.md
"""

from __future__ import annotations

import argparse

from toollearn.agents.clause_plan import ClausePlanner
from toollearn.data.trajectories import read_trajectories
from toollearn.evaluation.runners.episodes import gold_episode

FILES = {
    "dev": "results/umi-stop-gate/dev-set/trajectories_dev.json",
    "test": "results/datagen/umi/trajectories_test.json",
    "fresh": "results/datagen/umi-fresh-test/trajectories_test.json",
    "fresh2": "results/datagen/umi-fresh-test-2/trajectories_test.json",
    "fresh3": "results/datagen/umi-fresh-test-3/trajectories_test.json",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", nargs="+", default=["dev"], choices=sorted(FILES))
    ap.add_argument("--min-similarity", type=float, nargs="+", default=[0.35])
    ap.add_argument("--distinct-margin", nargs="+", default=["-"])
    ap.add_argument("--unfit-gap", nargs="+", default=["-"])
    args = ap.parse_args()
    value = lambda v: None if v == "-" else float(v)  # noqa: E731
    planners = {
        (m, d, u): ClausePlanner(min_similarity=m, distinct_margin=value(d), unfit_gap=value(u))
        for m in args.min_similarity
        for d in args.distinct_margin
        for u in args.unfit_gap
    }
    unfit = args.unfit_gap != ["-"]  # the column only where asked, as the tables before it
    print("| split | min similarity | distinct margin |" + (" unfit gap |" if unfit else "")
          + " trajectories | plan = gold | no give-up: plan = gold | give-up: plan = gold |\n"
          + "|---|---:|---:|" + ("---:|" if unfit else "") + "---:|---:|---:|---:|")  # fmt: skip
    for split in args.splits:
        trajectories = list(read_trajectories(FILES[split]))
        for (m, d, u), planner in planners.items():
            right = {True: [0, 0], False: [0, 0]}
            for traj in trajectories:
                gold = gold_episode(traj)
                plan = planner.plan(traj.instruction, list(traj.tools))
                right[gold["give_up"]][0] += plan.tools == gold["calls"]
                right[gold["give_up"]][1] += 1
            ok, gu = right[False], right[True]
            print(
                f"| {split} | {m} | {d} |"
                + (f" {u} |" if unfit else "")
                + f" {len(trajectories)} | {ok[0] + gu[0]} | "
                f"{ok[0]} of {ok[1]} | {gu[0]} of {gu[1]} |"
            )


if __name__ == "__main__":
    main()
