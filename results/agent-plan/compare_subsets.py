"""A planner change run on the held-out episodes whose plan it changes (FOLDER/SET-plain
without it, FOLDER/SET with it), episode by episode, and each set's whole-run success with it:
the committed `--plan due` run (results/episodes-tool-calls, made before the change), its
episodes replaced by each earlier change's runs (`--over`, in order) and then by FOLDER's
(every other episode runs as before under greedy decoding).

    python results/agent-plan/compare_subsets.py results/agent-plan-distinct > .../compare.md
    python results/agent-plan/compare_subsets.py results/agent-plan-unfit \\
        --over results/agent-plan-distinct > results/agent-plan-unfit/compare.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toollearn.evaluation.runners.episodes import score_records

RUNS = Path("results/episodes-tool-calls")
COMMITTED = {
    "dev": "dev-agent-r4-all-sure-call-plan-due",
    "test": "agent-r4-all-sure-call-plan-due",
    "fresh": "fresh-agent-r4-all-sure-call-plan-due",
    "fresh2": "fresh2-agent-r4-all-sure-call-plan-due",
    "fresh3": None,  # no whole plan-due run of r4-all on it was kept
}


def successes(run: Path) -> dict[str, bool]:
    records = map(json.loads, (run / "predictions.jsonl").read_text().splitlines())
    return {r["id"]: bool(score_records([r])["counts"]["success"]) for r in records}


def give_ups(run: Path) -> int:
    lines = (run / "predictions.jsonl").read_text().splitlines()
    return sum(json.loads(line)["gold"]["give_up"] for line in lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--over", type=Path, nargs="*", default=[])
    args = ap.parse_args()
    print("| set | changed plans | give-ups among them | success without / with it | the "
          "committed run on them | whole set: committed | whole set with it |\n"
          "|---|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    for name, committed in COMMITTED.items():
        plain, changed = successes(args.folder / f"{name}-plain"), successes(args.folder / name)
        row = [name, len(plain), give_ups(args.folder / name),
               f"{sum(plain.values())} / {sum(changed.values())}"]  # fmt: skip
        if committed:
            whole = successes(RUNS / committed)
            now = dict(whole)
            for earlier in args.over:
                now.update(successes(earlier / name))
            now.update(changed)
            n = len(whole)
            row += [sum(whole[i] for i in plain), f"{sum(whole.values())} of {n}",
                    f"{sum(now.values())} of {n}"]  # fmt: skip
        else:
            row += ["", "", ""]
        print("| " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
