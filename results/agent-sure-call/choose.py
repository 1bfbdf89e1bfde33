"""The general agent's sure-call threshold, chosen on ToolDEER's valid split (seen tools): the
highest NoCall margin of the shipped call gate at or below which at least 98% of valid's
queries that need a tool are Call queries (their pool holds a suitable tool)
(`evaluation.calibration.sure_threshold`). Below it the gate alone decides that a tool fits
and the agent's first turn must call; between it and the gate's threshold the model decides.
The margins are the committed gate-only valid run's (the run that chose the gate's own
threshold); nothing of ToolDEER's test splits is read.

    python results/agent-sure-call/choose.py [--data-root ../shared/data] > choice.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toollearn.evaluation.calibration import sure_threshold
from toollearn.evaluation.runners.base import read_records
from toollearn.evaluation.runners.deer import load_deer

PRECISION = 0.98
RUN = Path("results/deer-gates-only/valid-mix100-lora-e2-dec2000-validT")


def valid_rows(data_root: str) -> list[dict]:
    """(NoCall margin, whether a pool tool fits) of each valid query that needs a tool."""
    records = read_records(RUN / "predictions.jsonl")
    gates = {r["id"]: r.get("gates", {}).get("call") for r in records}
    examples = [ex for ex in load_deer("valid", data_root) if ex.needs_tool and gates.get(ex.id)]
    return [
        {"nocall_margin": gates[ex.id]["nocall_margin"], "call": bool(ex.has_suitable_tool)}
        for ex in examples
    ]


def choose(data_root: str) -> dict:
    rows = valid_rows(data_root)
    threshold = sure_threshold(rows, PRECISION)
    below = [r for r in rows if threshold is not None and r["nocall_margin"] <= threshold]
    calls = sum(r["call"] for r in rows)
    return {
        "sure_call_threshold": threshold,
        "precision_wanted": PRECISION,
        "valid_queries_needing_a_tool": len(rows),
        "valid_call_queries": calls,
        "at_or_below": len(below),
        "call_queries_at_or_below": sum(r["call"] for r in below),
        "share_of_call_queries_decided_by_the_gate": round(
            sum(r["call"] for r in below) / calls, 4) if calls else None,
        "margins_from": str(RUN / "predictions.jsonl"),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-root", default="../shared/data")
    print(json.dumps(choose(ap.parse_args().data_root), indent=2))


if __name__ == "__main__":
    main()
