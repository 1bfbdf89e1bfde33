"""The trajectories whose call plan a distinct margin changes (`ClausePlanner(distinct_margin=)`
against none): the only episodes `--plan-margin` can change, since greedy decoding runs every
other episode as before (no model; the embedded MiniLM plans).

    python results/agent-plan/distinct_subset.py TRAJECTORIES MARGIN OUT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from toollearn.agents.clause_plan import ClausePlanner
from toollearn.data.trajectories import read_trajectories

if __name__ == "__main__":
    file, margin, out = Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3])
    plain, distinct = ClausePlanner(), ClausePlanner(distinct_margin=margin)
    ids = {
        t.id
        for t in read_trajectories(file)
        if plain.plan(t.instruction, list(t.tools)).tools
        != distinct.plan(t.instruction, list(t.tools)).tools
    }
    subset = [t for t in json.loads(file.read_text()) if t["id"] in ids]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(subset))
    print(f"{out}: the plan of {len(subset)} trajectories changes")
