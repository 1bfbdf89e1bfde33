"""The bound check (`toollearn.apps.bounds`) on label programs, before any model output.

    .venv/bin/python results/apps-bounds/validate.py > results/apps-bounds/validate.md

For each app, 50 goals per train template (the templates `datagen apps` trains on, seed 0) and
the app's demo pool: the check must leave every label program as it is (changes on a right
program are false fixes), and on each label broken the way the model breaks them it must
bring back the label's criteria:
- swapped: one bound call moved to its counterpart setter (`set_min_price` for
  `set_max_price`), one program per bound call that has a counterpart;
- range end dropped: a range's max (or min) call removed, the other end kept on its setter;
- range low end on the max setter: the range's low end alone, on the max setter;
- range ends reversed: the low end on the max setter and the high end on the min setter.
The test labels are checked for false fixes only (a check, nothing tuned on them).
"""

from __future__ import annotations

import random
from collections import Counter

from toollearn.apps.base import App
from toollearn.apps.bounds import check_bounds, setter_side
from toollearn.apps.datasets import app_class, load_demos, load_tests, spec_path
from toollearn.apps.program import run_program
from toollearn.data.templates import generate, load_spec

PER_TEMPLATE = 50


def corruptions(program: str, app: type[App]) -> list[tuple[str, str]]:
    """(kind, broken program) for every bound call of a label program."""
    lines = program.split("\n")
    names = set(app.api_names())
    calls = {}
    for i, line in enumerate(lines):
        fn = line.removeprefix("API.").split("(")[0]
        if setter_side(fn):
            calls[fn] = i
    out = []
    for fn, i in calls.items():
        side, other = setter_side(fn)
        if other not in names:
            continue
        if other not in calls:
            swapped = lines.copy()
            swapped[i] = lines[i].replace(f"{fn}(", f"{other}(", 1)
            out.append(("swapped", "\n".join(swapped)))
        else:  # a range: drop this end; or put the other end's value on this setter's side
            dropped = lines[:i] + lines[i + 1 :]
            out.append(("range end dropped", "\n".join(dropped)))
            if side == "max":
                j = calls[other]
                one = lines[:i] + lines[i + 1 :]
                one[j if j < i else j - 1] = lines[j].replace(f"{other}(", f"{fn}(", 1)
                out.append(("range low end on the max setter", "\n".join(one)))
                both = lines.copy()
                both[i] = lines[i].replace(f"{fn}(", f"{other}(", 1)
                both[j] = lines[j].replace(f"{other}(", f"{fn}(", 1)
                out.append(("range ends reversed", "\n".join(both)))
    return out


def main() -> None:
    print("| app | set | programs | left as they were | false fixes |")
    print("|---|---|---:|---:|---:|")
    broken_rows = []
    for app in ("home-search", "trip-booking"):
        cls = app_class(app)
        templates, pools = load_spec(spec_path(app))
        train = generate(templates["train"], pools, PER_TEMPLATE, seed=0)
        sets = {
            "train templates": [(f.goal, f.program) for f in train],
            "demos": [(d.query, d.metadata["program"]) for d in load_demos(app)],
            "test labels": [(t.query, t.metadata["program"]) for t in load_tests(app)],
        }
        for name, pairs in sets.items():
            false = [(g, c) for g, p in pairs for c in [check_bounds(p, g, cls)[1]] if c]
            print(f"| {app} | {name} | {len(pairs)} | {len(pairs) - len(false)} | {len(false)} |")
            for goal, changes in false[:3]:
                print(f"|  | false fix: {goal} | {changes} | | |")
        fixed: Counter = Counter()
        total: Counter = Counter()
        for goal, program in sets["train templates"] + sets["demos"]:
            gold = run_program(program, cls).criteria
            for kind, broken in corruptions(program, cls):
                total[kind] += 1
                checked, _ = check_bounds(broken, goal, cls)
                run = run_program(checked, cls)
                fixed[kind] += run.executable and run.criteria == gold
        for kind in total:
            broken_rows.append((app, kind, total[kind], fixed[kind]))
    print()
    print("| app | label broken | programs | criteria restored | share |")
    print("|---|---|---:|---:|---:|")
    for app, kind, n, k in broken_rows:
        print(f"| {app} | {kind} | {n} | {k} | {100 * k / n:.1f}% |")


if __name__ == "__main__":
    random.seed(0)
    main()
