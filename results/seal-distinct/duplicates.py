"""Seal-Tools runs side by side under both scorers, with their duplicate calls: the authors'
scorer (official) counts every call of a gold tool as correct, however often it repeats, in
precision and in recall alike; the strict one matches calls one to one. Rescored from each
run's raw answers on the ids every run finished.

    python results/seal-distinct/duplicates.py [--data-root ../shared/data] RUN...
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toollearn.evaluation.metrics.seal_tools import is_nested, official_scores, strict_scores
from toollearn.evaluation.runners.seal_tools import load_prompts

sys.path.insert(0, str(Path(__file__).parent))
from carry import _calls  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--data-root", default="../shared/data")
    args = ap.parse_args()
    examples = {ex.id: ex for ex in load_prompts("all", args.data_root)}
    answers = {}
    for run in args.runs:
        records = map(json.loads, (run / "predictions.jsonl").read_text().splitlines())
        answers[run] = {r["id"]: r["output"] for r in records}
    ids = sorted(set.intersection(*(set(a) for a in answers.values())))
    nested = [i for i in ids if is_nested(examples[i].calls)]
    print(f"on the {len(ids)} ids every run finished ({len(nested)} nested)\n")
    head = "| run | official Tool F1 / Param F1 | nested Param F1 | strict Tool F1 / Param F1 "
    print(head + "| exact | calls | duplicate calls | queries repeating a tool |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for run, got in answers.items():
        outs, golds = [got[i] for i in ids], [examples[i].calls for i in ids]
        off, strict = official_scores(outs, golds), strict_scores(outs, golds)
        nest = official_scores([got[i] for i in nested], [examples[i].calls for i in nested])
        names = [[c.get("api") for c in _calls(o) or []] for o in outs]
        dups = sum(len(n) - len(set(n)) for n in names)
        repeating = sum(len(n) != len(set(n)) for n in names)
        print(
            f"| {run} | {100 * off['tool_f1']:.1f} / {100 * off['param_f1']:.1f} "
            f"| {100 * nest['param_f1']:.1f} "
            f"| {100 * strict['tool_f1']:.1f} / {100 * strict['param_f1']:.1f} "
            f"| {100 * strict['exact_acc']:.1f} | {sum(map(len, names))} | {dups} | {repeating} |"
        )


if __name__ == "__main__":
    main()
