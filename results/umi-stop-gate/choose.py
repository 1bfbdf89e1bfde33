"""Choose the stop gate's threshold on the dev run: the highest dev Plan ACC, ties to the
lowest threshold (the rule fixed before the dev run). Writes the choice to OUT_JSON and
prints it as markdown:

    python results/umi-stop-gate/choose.py DEV_RUN OUT_JSON > OUT.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollearn.agents.stop_gate import gated_next, threshold_sweep
from toollearn.evaluation.runners.base import read_records
from toollearn.evaluation.runners.stepwise import gate_steps


def errors(steps: list, threshold: float | None) -> tuple[int, int]:
    """(gold call -> conclusion, gold conclusion -> call) under the gate."""
    chosen = [(s.gold, gated_next(s.greedy, s.logprob, threshold)) for s in steps]
    return chosen.count(("caller", "conclusion")), chosen.count(("conclusion", "caller"))


def main(run: str, out_json: str) -> None:
    steps = gate_steps(read_records(Path(run) / "predictions.jsonl"))
    result = threshold_sweep(steps)
    best = result["best"]
    if best is None:
        raise SystemExit(f"{run}: no step has a conclusion score")
    choice = {
        "run": run, "steps": result["steps"], "threshold": round(best["threshold"], 6),
        "dev_plan_acc": best["plan_acc"], "dev_greedy_plan_acc": result["greedy_plan_acc"],
        "unscored": sum(s.logprob is None for s in steps),
        "rule": "highest dev Plan ACC, ties to the lowest threshold",
    }  # fmt: skip
    Path(out_json).write_text(json.dumps(choice, indent=2) + "\n")
    print(f"# Stop gate: the threshold chosen on dev ({result['steps']} steps)\n")
    threshold = f"{choice['threshold']:.4f}"
    print(f"Rule: {choice['rule']}. Threshold on log p(conclusion thought): **{threshold}**.\n")
    print("| dev planner | Plan ACC | call -> conclusion | answer -> call |\n|---|---:|---:|---:|")
    for label, acc, t in (("greedy", result["greedy_plan_acc"], None),
                          ("stop gate", best["plan_acc"], best["threshold"])):  # fmt: skip
        early, late = errors(steps, t)
        print(f"| {label} | {100 * acc:.2f} | {early} | {late} |")
    print("\nDev Plan ACC across thresholds (every 10th candidate):\n")
    print("| threshold | dev Plan ACC |\n|---:|---:|")
    for row in result["sweep"][::10]:
        print(f"| {row['threshold']:.4f} | {100 * row['plan_acc']:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
