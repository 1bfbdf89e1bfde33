"""Plan ACC of every plan-gate rule on held-out steps, and the rule chosen.

    python results/umi-plan-gate/choose.py RUN... --out CHOICE.json > CHOICE.md

Each RUN is a stepwise run folder (its config names the trajectory file). The rule fixed before
any test step was gated: the highest Plan ACC on the FIRST run, ties to the least overriding
rule (agents.plan_gate.RULES order); the other runs are shown beside it. `--compare`: the
table alone (test runs scored under every rule for the record; nothing is chosen on them).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toollearn.agents.plan_gate import RULES
from toollearn.data.trajectories import read_trajectories
from toollearn.evaluation.runners import stepwise
from toollearn.evaluation.runners.base import read_records


def rule_scores(run: Path) -> dict[str, dict]:
    config = json.loads((run / "config.json").read_text())
    cases, _ = stepwise.step_cases(read_trajectories(stepwise.trajectory_file(config["file"])))
    plans = stepwise.plan_gate_plans(cases, stepwise.plan_gate_config("plan"))
    records = read_records(run / "predictions.jsonl")
    roles = config.get("roles") or stepwise.ROLES
    out = {"greedy": stepwise.score_records(records, roles=roles)}
    for rule in RULES:
        out[rule] = stepwise.score_records(records, roles=roles, plan_gate=rule, plans=plans)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--compare", action="store_true", help="the table alone, no choice")
    args = ap.parse_args()
    table = {str(run): rule_scores(run) for run in args.runs}
    first = table[str(args.runs[0])]
    best = max(RULES, key=lambda r: (first[r]["plan_acc"], -RULES.index(r)))
    pct = lambda x: f"{100 * x:.2f}"  # noqa: E731
    print("| run | steps | greedy | " + " | ".join(RULES) + " |")
    print("|---|---:|---:|" + "---:|" * len(RULES))
    for run, scores in table.items():
        cells = " | ".join(pct(scores[r]["plan_acc"]) for r in ("greedy", *RULES))
        print(f"| {run} | {scores['greedy']['steps']} | {cells} |")
    accs = {run: {k: s["plan_acc"] for k, s in scores.items()} for run, scores in table.items()}
    if args.compare:
        print("\nfor the record: the rule was chosen on dev (choice.md), not on these runs")
        args.out.write_text(json.dumps({"plan_acc": accs}, indent=2) + "\n")
        return
    print(f"\nchosen on {args.runs[0]}: `{best}` (highest Plan ACC, ties to the least overriding)")
    choice = {"rule": best, "chosen_on": str(args.runs[0]), "plan_acc": accs}
    args.out.write_text(json.dumps(choice, indent=2) + "\n")


if __name__ == "__main__":
    main()
