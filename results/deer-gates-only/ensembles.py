"""Averaging the trained call gates' NoCall margins: does an ensemble decide Call/NoCall better?

Reads the committed gates-only runs (each record keeps its gate's `nocall_margin` and closest
tool), averages the margins of each set of gates per query, picks the threshold on valid
(Decision-Call: the queries that need a search) and scores the unseen-tool sets at it, the
called tool being the shipped gate's (dec2000) closest one. `oracle` is the best threshold on
each set itself (a bound to read, not a setting); `decision alone` is that bound with every
call given the gold tool, what the Call/NoCall margin alone allows. P_DC as `eval deer-gate`
scores it.

    python results/deer-gates-only/ensembles.py --data-root ../shared/data > ensembles.md
"""

from __future__ import annotations

import argparse
import json
from itertools import pairwise
from pathlib import Path

from toollearn.evaluation.runners.deer import load_deer

HERE = Path(__file__).parent
GATES = {  # short name -> the gates-only runs' suffix
    "rank": "mix100-lora-e2",
    "dec1000": "mix100-lora-e2-dec1000",
    "dec2000": "mix100-lora-e2-dec2000",
    "dec4000": "mix100-lora-e2-dec4000",
    "mix212-dec1000": "mix212-lora-e2-dec1000",
}
SETS = [("dec2000",), ("dec1000", "dec2000"), ("dec1000", "dec2000", "dec4000"),
        ("dec1000", "dec2000", "dec4000", "mix212-dec1000"), tuple(GATES)]  # fmt: skip
SPLITS = ("valid", "test", "tool_bench", "tool_corpus")


def margins(split: str, gate: str) -> dict[str, dict]:
    path = HERE / f"{split}-{GATES[gate]}" / "predictions.jsonl"
    return {r["id"]: r["gates"]["call"] for r in map(json.loads, path.open())}


def cases(split: str, gates: tuple[str, ...], examples: list, runs: dict) -> list[tuple]:
    """(mean margin, needs a call, the closest tool is gold) of each query that needs a search."""
    out = []
    for ex in examples:
        if not ex.needs_tool:
            continue
        mean = sum(runs[split, g][ex.id]["nocall_margin"] for g in gates) / len(gates)
        tool = runs[split, "dec2000"][ex.id]["closest_tool"]
        out.append((mean, ex.has_suitable_tool, bool(ex.calls) and ex.calls[0].name == tool))
    return out


def p_dc(rows: list[tuple], threshold: float) -> float:
    right = sum(m <= threshold and tool if call else m > threshold for m, call, tool in rows)
    return 100 * right / len(rows)


def best(rows: list[tuple]) -> float:
    ms = sorted({m for m, _, _ in rows})
    return max(((a + b) / 2 for a, b in pairwise(ms)), key=lambda t: p_dc(rows, t))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-root", default=None)
    args = ap.parse_args()
    examples = {s: load_deer(s, args.data_root) for s in SPLITS}
    runs = {(s, g): margins(s, g) for s in SPLITS for g in GATES}
    print(
        "| gates averaged | valid threshold | valid P_DC | test | ToolBench | ToolCorpus | "
        "oracle test / ToolBench / ToolCorpus | decision alone (gold tool called), oracle |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for gates in SETS:
        rows = {s: cases(s, gates, examples[s], runs) for s in SPLITS}
        t = best(rows["valid"])
        at = [f"{p_dc(rows[s], t):.1f}" for s in SPLITS]
        oracle = " / ".join(f"{p_dc(rows[s], best(rows[s])):.1f}" for s in SPLITS[1:])
        gold = {s: [(m, call, True) for m, call, _ in rows[s]] for s in SPLITS[1:]}
        alone = " / ".join(f"{p_dc(gold[s], best(gold[s])):.1f}" for s in SPLITS[1:])
        print(f"| {' + '.join(gates)} | {t:.4f} | {' | '.join(at)} | {oracle} | {alone} |")


if __name__ == "__main__":
    main()
