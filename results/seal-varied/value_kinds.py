"""Seal-Tools parameter values by how the query states them, per run: what `datagen seal
--phrasing varied` changes is how training queries state values, so this counts, on the ids every
run finished, the gold literal values of each kind that a run got right (official matching: a
predicted call of the gold tool with the same key and str(value)):

- date in words: an ISO date gold value that the query does not state verbatim;
- quoted: a string value the query states in quotes ('sales_data', "Project Infinite");
- unnamed: a value stated verbatim whose parameter's words do not occur in the query;
- named: a value stated verbatim whose parameter's words do;
- other: every other literal value (stated otherwise, numbers, case, ...).

    python results/seal-varied/value_kinds.py [--data-root ../shared/data] RUN...
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
KINDS = ("date in words", "quoted", "unnamed", "named", "other")


def kind(name: str, value: object, query: str) -> str:
    text = str(value)
    if isinstance(value, str) and _ISO.match(value) and value not in query:
        return "date in words"
    if text not in query:
        return "other"
    at = query.find(text)
    if isinstance(value, str) and at > 0 and query[at - 1] in "'\"":
        return "quoted"
    words = " ".join(name.replace("_", " ").split()).lower()
    return "named" if words in query.lower() else "unnamed"


def predictions(run: Path) -> dict[str, list]:
    out = {}
    for line in (run / "predictions.jsonl").read_text().splitlines():
        record = json.loads(line)
        try:
            calls = json.loads(record["output"])
        except (TypeError, ValueError):
            calls = []
        out[record["id"]] = calls if isinstance(calls, list) else []
    return out


def right(calls: list, api: str, name: str, value: object) -> bool:
    return any(
        isinstance(c, dict) and c.get("api") == api and isinstance(c.get("parameters"), dict)
        and name in c["parameters"] and str(c["parameters"][name]) == str(value)
        for c in calls
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--data-root", default="../shared/data")
    args = ap.parse_args()
    gold = {}
    for split in ("test_in_domain", "test_out_domain"):
        path = Path(args.data_root) / "seal-tools" / f"{split}.jsonl"
        for line in path.read_text().splitlines():
            item = json.loads(line)
            gold[item["id"]] = item
    runs = {run: predictions(run) for run in args.runs}
    ids = sorted(set.intersection(*(set(p) for p in runs.values())))
    totals: Counter[str] = Counter()
    hits = {run: Counter() for run in runs}
    for i in ids:
        query = gold[i]["query"]
        for call in gold[i]["calling"]:
            for name, value in call["parameters"].items():
                if isinstance(value, str) and value.startswith("API_call_"):
                    continue  # nested references: not stated in the query
                k = kind(name, value, query)
                totals[k] += 1
                for run, preds in runs.items():
                    hits[run][k] += right(preds[i], call["api"], name, value)
    print(f"gold literal values right, on the {len(ids)} ids every run finished\n")
    print("| run | " + " | ".join(f"{k} ({totals[k]})" for k in KINDS) + " |")
    print("|---|" + "---:|" * len(KINDS))
    for run in runs:
        cells = [f"{hits[run][k]} ({100 * hits[run][k] / max(1, totals[k]):.1f}%)" for k in KINDS]
        print(f"| {run} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
