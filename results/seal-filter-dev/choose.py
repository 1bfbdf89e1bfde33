"""Choose the answer post-processing on Seal-Tools dev from the filtered dev runs' scores:
the tool filter's margin with the highest official Tool F1 + Param F1 (margin-*/; the smaller
margin on a tie), then ISO dates if, with that margin, they raise official Param F1
(chosen+dates/), then foreign values (optional or all: chosen+dates+foreign-*/) if one raises
official Param F1 further (the higher). Writes choice.json; every number is read from a
scores.json."""

import json
import sys
from pathlib import Path

here = Path(sys.argv[1] if len(sys.argv) > 1 else "results/seal-filter-dev")


def official(run: Path) -> dict:
    return json.loads((run / "scores.json").read_text())["scores"]["official"]["all"]


rows = []
for run in sorted(here.glob("margin-*")):
    s = official(run)
    margin = json.loads((run / "config.json").read_text())["tool_filter"]["margin"]
    rows.append({"margin": margin, "tool_f1": s["tool_f1"], "param_f1": s["param_f1"],
                 "n": s["n"], "run": str(run)})  # fmt: skip
best = max(rows, key=lambda r: (r["tool_f1"] + r["param_f1"], -r["margin"]))
choice = {"margin": best["margin"], "margin_criterion": "max official Tool F1 + Param F1 on dev",
          "margins": rows}  # fmt: skip
for r in rows:
    mark = " <- chosen" if r is best else ""
    print(f"margin {r['margin']:<5} Tool F1 {100 * r['tool_f1']:.1f}  "
          f"Param F1 {100 * r['param_f1']:.1f}{mark}")  # fmt: skip
dated = here / "chosen+dates"
if (dated / "scores.json").is_file():
    with_dates = official(dated)["param_f1"]
    choice["iso_dates"] = with_dates > best["param_f1"]
    choice["iso_dates_criterion"] = "official Param F1 on dev with the chosen margin, higher"
    choice["param_f1_with_dates"] = with_dates
    print(f"ISO dates: Param F1 {100 * best['param_f1']:.1f} -> {100 * with_dates:.1f}: "
          f"{'used' if choice['iso_dates'] else 'not used'}")  # fmt: skip
foreign = {}
for scope in ("optional", "all"):
    run = here / f"chosen+dates+foreign-{scope}"
    if (run / "scores.json").is_file():
        foreign[scope] = official(run)["param_f1"]
if foreign and "param_f1_with_dates" in choice:
    before = max(choice["param_f1_with_dates"], best["param_f1"])
    scope = max(foreign, key=foreign.get)
    choice["foreign_values"] = scope if foreign[scope] > before else None
    choice["foreign_values_criterion"] = (
        "official Param F1 on dev with the chosen margin and "
        "dates, the higher scope if it raises it"
    )
    choice["param_f1_with_foreign_values"] = foreign
    print(
        f"foreign values: Param F1 {100 * before:.1f} -> "
        + ", ".join(f"{s} {100 * v:.1f}" for s, v in foreign.items())
        + f": {choice['foreign_values']}"
    )
(here / "choice.json").write_text(json.dumps(choice, indent=2) + "\n")
