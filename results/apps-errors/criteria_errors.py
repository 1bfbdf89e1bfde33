"""Where app programs go wrong, criterion by criterion.

    python results/apps-errors/criteria_errors.py RUN... > results/apps-errors/criteria_errors.md

RUN is a scored app run folder (`predictions.jsonl` of `toollearn eval home-search|trip-booking`
or `eval apps-table`). Over the programs that execute, each criterion the label or the
prediction set (`apps.scoring.set_keys`) is one of: right, missing (the label sets it, the
prediction left it at the app's default), extra (the prediction sets one the label leaves at its
default) or wrong (both set, values differ). A goal succeeds only when all are right. The
summary also counts the failed programs that run with a price criterion not right ("price
off": min/max price, room or ticket).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from toollearn.apps.datasets import app_class
from toollearn.apps.scoring import set_keys

KINDS = ("right", "missing", "extra", "wrong")


def classify(pred: dict, label: dict, cls) -> dict[str, str]:
    """criterion -> right / missing / extra / wrong, over the criteria either side set."""
    p_set, l_set = set_keys(pred, cls), set_keys(label, cls)
    out = {}
    for key in sorted(p_set | l_set):
        if pred.get(key) == label.get(key):
            out[key] = "right"
        elif key in l_set and key not in p_set:
            out[key] = "missing"
        elif key in p_set and key not in l_set:
            out[key] = "extra"
        else:
            out[key] = "wrong"
    return out


def summarize(run: Path) -> tuple[dict, Counter]:
    rows = [json.loads(line) for line in (run / "predictions.jsonl").open()]
    app = rows[0]["id"].split("/")[0]
    cls = app_class(app)
    total, per_key = Counter(), Counter()
    price_off = 0
    for r in rows:
        if not r["executable"]:
            continue
        kinds = classify(r["criteria"], r["label_criteria"], cls)
        for key, kind in kinds.items():
            total[kind] += 1
            per_key[key, kind] += 1
        price_off += not r["success"] and any(
            "price" in key and kind != "right" for key, kind in kinds.items()
        )
    head = {"run": str(run), "app": app, "goals": len(rows),
            "success": sum(r["success"] for r in rows),
            "executable": sum(r["executable"] for r in rows)}  # fmt: skip
    head.update({k: total[k] for k in KINDS})
    head["failed_running"] = sum(r["executable"] and not r["success"] for r in rows)
    head["price_off"] = price_off
    return head, per_key


def main(runs: list[str]) -> None:
    print(
        "| run | goals | success | executable | criteria right | missing | extra | wrong "
        "| failed, runs | of them price off |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    keyed = []
    for run in runs:
        head, per_key = summarize(Path(run))
        keyed.append((head, per_key))
        print(f"| {head['run']} | {head['goals']} | {head['success']} | {head['executable']} | "
              + " | ".join(str(head[k]) for k in KINDS)
              + f" | {head['failed_running']} | {head['price_off']} |")  # fmt: skip
    for head, per_key in keyed:
        print(f"\n{head['run']}: errors by criterion (missing / extra / wrong of the times set)\n")
        print("| criterion | right | missing | extra | wrong |")
        print("|---|---:|---:|---:|---:|")
        for key in sorted({k for k, _ in per_key}):
            print(f"| {key} | " + " | ".join(str(per_key[key, k]) for k in KINDS) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
