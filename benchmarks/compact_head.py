"""Compact LM-head benchmark: TRL's fused LM head on a CPU scoring every position (TRL's own
choice off Triton devices, the baseline) against only the labelled ones (`training.compact_head`,
toollearn's default since 2026-11-28).

Both train the same rows through `toollearn.training` (TRL SFTTrainer + PEFT LoRA rank 4, batch
1, the agent recipes' settings), each in its own subprocess, the baseline first. Printed:
training tokens/s over the timed steps (the first is a warm-up), the ratio, and each run's
final training loss (the two must be equal: the same loss and gradients, only fewer positions
through the head). Data: the first --trajectories trajectories of a `datagen umi --formats
umi-tool-calls` dataset (--data; default the shipped demo trajectories), one row each
(merge_turns) unless --per-turn.

    python benchmarks/compact_head.py --data runs/data/umi-tool-calls-nodev --trajectories 6
Writes benchmarks/results/compact_head.json and compact_head.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from contextlib import contextmanager

from _results import write_results
from _timed_training import timed_train
from merge_turns import default_data, subset, trajectory_args

VARIANTS = {"every position (TRL on a CPU, baseline)": False,
            "labelled positions only (compact_head)": True}  # fmt: skip


@contextmanager
def every_position():
    """compact_cpu_scoring's stand-in for the baseline: TRL's own switch, untouched."""
    import trl.trainer.utils as trl_utils

    yield trl_utils._use_triton


def measure(data: str, compact: bool, merge: bool, threads: int) -> dict:
    """Train every row of `data` once (batch 1) in this process; tokens/s after the first."""
    from toollearn.training import compact_head

    if not compact:
        compact_head.compact_cpu_scoring = every_position
    timed = timed_train(data, batch_size=1, grad_accum=1, lora_r=4, lora_alpha=8,
                        threads=threads, merge_turns=merge, logging_steps=1)  # fmt: skip
    info = timed.pop("info")
    return {"precision": info["precision"], "lm_head_scored": info["lm_head_scored"],
            "rows": info["samples"]["train"], "final_loss": info["final_loss"],
            **timed}  # fmt: skip


def table(rows: list[dict], args: argparse.Namespace) -> str:
    base = rows[0]["tokens_per_s"]
    lines = [
        f"Compact LM head, SmolLM2-135M LoRA r4, {args.threads} threads, batch 1, "
        f"{args.trajectories} trajectories of {args.data_label} "
        f"({'one row per turn' if args.per_turn else 'one row per trajectory'}); "
        f"{platform.processor() or 'cpu'}, {rows[0]['precision']}",
        "",
        "| variant | LM head scores | rows | timed tokens | tokens/s | vs baseline | final loss |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['variant']} | {r['lm_head_scored']} | {r['rows']} | "
                     f"{r['timed_tokens']:,} | {r['tokens_per_s']:.0f} | "
                     f"{r['tokens_per_s'] / base:.2f}x | {r['final_loss']} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = trajectory_args(__doc__.splitlines()[0])
    ap.add_argument("--per-turn", action="store_true", help="one row per turn, not merged")
    args = ap.parse_args()
    data = args.data or default_data()
    if args.one:
        result = measure(data, VARIANTS[args.one], not args.per_turn, args.threads)
        print(json.dumps(result))
        return 0
    small = subset(data, args.trajectories)
    rows = []
    for name in VARIANTS:
        cmd = [sys.executable, __file__, "--one", name, "--data", small, "--threads",
               str(args.threads), *(["--per-turn"] if args.per_turn else [])]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows.append({"variant": name, **json.loads(proc.stdout.strip().splitlines()[-1])})
        print(json.dumps(rows[-1]), file=sys.stderr)
    if rows[0]["final_loss"] != rows[1]["final_loss"]:
        print("warning: the final losses differ", file=sys.stderr)
    args.data_label = args.data or "demo trajectories"
    write_results(args.out, "compact_head", {"rows": rows, "args": vars(args)},
                  table(rows, args))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
