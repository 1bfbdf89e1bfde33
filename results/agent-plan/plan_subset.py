"""The trajectories whose call plan differs between two planner settings (each MARGIN/GAP:
`ClausePlanner(distinct_margin=MARGIN, unfit_gap=GAP)`, "-" for off): the only episodes the
change can change, since greedy decoding runs every other episode as before (no model; the
embedded MiniLM plans).

    python results/agent-plan/plan_subset.py TRAJECTORIES OUT A B    e.g. A = -/-, B = 0.06/-
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from toollearn.agents.clause_plan import ClausePlanner
from toollearn.data.trajectories import read_trajectories


def planner(setting: str) -> ClausePlanner:
    margin, gap = (None if v == "-" else float(v) for v in setting.split("/"))
    return ClausePlanner(distinct_margin=margin, unfit_gap=gap)


def steps(planner: ClausePlanner, trajectory: Any) -> tuple[list[str], str | None]:
    """The planned tools and where the plan ends (its unfit request)."""
    plan = planner.plan(trajectory.instruction, list(trajectory.tools))
    return plan.tools, plan.unfit


if __name__ == "__main__":
    file, out = Path(sys.argv[1]), Path(sys.argv[2])
    a, b = planner(sys.argv[3]), planner(sys.argv[4])
    ids = {t.id for t in read_trajectories(file) if steps(a, t) != steps(b, t)}
    subset = [t for t in json.loads(file.read_text()) if t["id"] in ids]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(subset))
    print(f"{out}: the plan of {len(subset)} trajectories changes")
