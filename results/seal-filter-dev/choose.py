"""Pick the tool filter's margin on Seal-Tools dev: the highest official Tool F1 + Param F1 of
the filtered dev runs (margin-*/scores.json), the smaller margin on a tie; writes choice.json."""

import json
import sys
from pathlib import Path

here = Path(sys.argv[1] if len(sys.argv) > 1 else "results/seal-filter-dev")
rows = []
for run in sorted(here.glob("margin-*")):
    data = json.loads((run / "scores.json").read_text())
    s = data["scores"]["official"]["all"]
    margin = data["config"]["tool_filter"]["margin"]
    rows.append({"margin": margin, "tool_f1": s["tool_f1"], "param_f1": s["param_f1"],
                 "n": s["n"], "run": str(run)})
best = max(rows, key=lambda r: (r["tool_f1"] + r["param_f1"], -r["margin"]))
choice = {"margin": best["margin"], "criterion": "max official Tool F1 + Param F1 on dev",
          "candidates": rows}
(here / "choice.json").write_text(json.dumps(choice, indent=2) + "\n")
for r in rows:
    mark = " <- chosen" if r is best else ""
    print(f"margin {r['margin']:<5} Tool F1 {100 * r['tool_f1']:.1f}  Param F1 {100 * r['param_f1']:.1f}{mark}")
