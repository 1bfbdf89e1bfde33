"""What the sure-call threshold would force, read off the call gate's committed margins in
results/tool-calls-gate/records.jsonl (queries that need no tool against the example tool
files and random Seal-Tools sets; Seal-Tools dev tool requests against their gold tools): per
query kind, how many the gate declines, passes to the model, or is sure of (the first turn
must call). No model is run.

    python results/agent-sure-call/gate_records.py > results/agent-sure-call/gate_records.md
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from toollearn.models import deer_gates

RECORDS = Path("results/tool-calls-gate/records.jsonl")


def main() -> None:
    call = deer_gates()["call"]
    threshold, sure = call["threshold"], call["sure_call_threshold"]
    counts: dict[str, Counter] = {}
    for line in RECORDS.read_text().splitlines():
        record = json.loads(line)
        margin = record["gate"]["nocall_margin"]
        decision = "declined" if margin > threshold else "sure" if margin <= sure else "model"
        counts.setdefault(f"{record['kind']}: {record['queries']}", Counter())[decision] += 1
    print(f"Gate threshold {threshold}, sure-call threshold {sure} (`{RECORDS}`).\n")
    print("| queries | pairs | gate declines | model decides | gate sure: must call |")
    print("|---|---:|---:|---:|---:|")
    for name, c in counts.items():
        n = sum(c.values())
        print(f"| {name} | {n} | {c['declined']} | {c['model']} | {c['sure']} |")


if __name__ == "__main__":
    main()
