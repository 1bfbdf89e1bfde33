"""Choose how to ask again on the apps' dev sets, before any test run; print the table.

    python results/apps-retry/choose.py results/apps-retry/dev > results/apps-retry/dev/choice.md

DEV holds <app>/greedy (the shipped apps adapter, free, bound calls checked) and
<app>/n<N>-t<T> (`toollearn eval apps-retry` on it: up to N sampled tries at temperature T).
The rule, fixed before the dev runs: the setting with the highest mean success of the two apps
wins; ties go to fewer tries, then the lower temperature; no setting above greedy, no retries.
Writes DEV/choice.json ({"retries": N, "temperature": T} or null) beside the table; a setting
run on one app only is left out.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

APPS = ("home-search", "trip-booking")
SETTING = re.compile(r"n(\d+)-t([\d.]+)")


def scores(run: Path) -> dict:
    return json.loads((run / "scores.json").read_text())


def main(dev: Path) -> None:
    names = {
        (int(m[1]), float(m[2])): p.name
        for p in dev.glob("*/n*-t*")
        if (m := SETTING.fullmatch(p.name))
    }
    settings = sorted(k for k in names if all((dev / a / names[k]).is_dir() for a in APPS))
    rows = [("greedy", None)] + [(names[k], k) for k in settings]
    print("| setting | " + " | ".join(f"{a} success" for a in APPS) + " | mean | asked again | "
          "replaced | sampled programs | seconds |")  # fmt: skip
    print("|---|" + "---:|" * (len(APPS) + 5))
    means: dict[tuple[int, float] | None, float] = {}
    for name, key in rows:
        got = [scores(dev / app / name) for app in APPS]
        success = [g["scores"]["success_rate"] for g in got]
        means[key] = sum(success) / len(success)
        counts = [sum(g.get(k, 0) for g in got) for k in ("asked_again", "replaced",
                                                          "sampled_programs")]  # fmt: skip
        seconds = sum(g["timing"].get("own_predict_seconds", g["timing"]["predict_seconds"])
                      for g in got)  # fmt: skip
        cells = [f"{s:.1f}" for s in success] + [f"{means[key]:.2f}", *map(str, counts)]
        print(f"| {name} | " + " | ".join(cells) + f" | {seconds:.0f} |")
    best = max(settings, key=lambda k: (means[k], -k[0], -k[1]), default=None)
    choice = None
    if best is not None and means[best] > means[None]:
        choice = {"retries": best[0], "temperature": best[1]}
    (dev / "choice.json").write_text(json.dumps(choice) + "\n")
    n = {app: scores(dev / app / "greedy")["scores"]["n"] for app in APPS}
    print(f"\nDev goals: {', '.join(f'{a} {n[a]}' for a in APPS)}. Seconds: generation only"
          " (greedy: every goal; a setting: its sampled tries).")  # fmt: skip
    print(f"\nChosen: {'no retries' if choice is None else names[best]}.")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
