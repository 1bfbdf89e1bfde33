"""merge_turns benchmark: a multi-turn agent's trajectories trained one row per turn (the
baseline) against one row per trajectory with the loss on every turn (`merge_turns: true`).

Both train the same trajectories through `toollearn.training` (TRL SFTTrainer + PEFT LoRA
rank 4, batch 1, the CPU recipes' settings), each in its own subprocess, the baseline first.
Printed: rows, tokens and loss tokens of the whole dataset each way (the loss tokens must be
equal), training tokens/s over the timed steps (the first is a warm-up), and the seconds one
trajectory costs each way, with the ratio. Data: a `datagen umi --formats umi-tool-calls`
dataset (--data; default the general-format turns of the shipped demo trajectories).

    python benchmarks/merge_turns.py --data runs/data/umi-tool-calls-nodev --trajectories 6
Writes benchmarks/results/merge_turns.json and merge_turns.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from _results import RESULTS, write_results
from _timed_training import timed_train

VARIANTS = {"one row per turn (baseline)": False, "one row per trajectory (merge_turns)": True}


def encoded(data: str, merge: bool) -> dict:
    """Rows, tokens and loss tokens of the whole dataset, encoded as the trainer encodes it."""
    from toollearn.datagen.dataset import read_dataset
    from toollearn.engines.hf import load_hf
    from toollearn.engines.llama import embedded_model_path
    from toollearn.formats.chat import ChatTemplate
    from toollearn.training.data import IGNORE, SampleEncoder, turn_chains

    _, tok = load_hf(embedded_model_path(), "float32")
    samples = read_dataset(Path(data) / "data.jsonl")
    encoder = SampleEncoder(tok, ChatTemplate.from_tokenizer(tok), 2048)
    rows = encoder.encode_all(turn_chains(samples) if merge else samples)
    return {"rows": len(rows), "tokens": sum(len(r["input_ids"]) for r in rows),
            "loss_tokens": sum(sum(t != IGNORE for t in r["labels"]) for r in rows),
            "dropped": dict(encoder.dropped)}  # fmt: skip


def measure(data: str, merge: bool, threads: int) -> dict:
    """Train every row of `data` once (batch 1) in this process; tokens/s after the first."""
    timed = timed_train(data, batch_size=1, grad_accum=1, lora_r=4, lora_alpha=8,
                        threads=threads, merge_turns=merge)  # fmt: skip
    info = timed.pop("info")
    return {"precision": info["precision"], "train_rows": info["samples"]["train"], **timed,
            "all_tokens": info["tokens_seen"]}  # fmt: skip


def subset(data: str, n: int) -> str:
    """The turns of the dataset's first n trajectories, as a dataset of their own."""
    from toollearn.datagen.dataset import read_dataset, write_dataset
    from toollearn.training.data import turn_chains

    chains = turn_chains(read_dataset(Path(data) / "data.jsonl"))[:n]
    out = Path(tempfile.mkdtemp(prefix="toollearn-bench-merge-"))
    write_dataset(out, [s for c in chains for s in c], config={"from": data, "trajectories": n})
    return str(out)


def default_data() -> str:
    """The general-format turns of the shipped demo trajectories, written once."""
    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.data.trajectories import read_trajectories
    from toollearn.datagen.dataset import write_dataset
    from toollearn.datagen.umi import role_samples

    out = Path(tempfile.gettempdir()) / "toollearn-bench-merge-turns-data"
    if not (out / "data.jsonl").is_file():
        turns = role_samples(read_trajectories(DEMO_TRAJECTORIES), ("umi-tool-calls",))
        write_dataset(out, turns, config={})
    return str(out)


def table(rows: list[dict], args: argparse.Namespace) -> str:
    base = rows[0]
    lines = [
        f"merge_turns, SmolLM2-135M LoRA r4, {args.threads} threads, batch 1, data "
        f"{args.data_label}; {platform.processor() or 'cpu'}, {rows[0]['precision']}",
        "",
        "| variant | rows | tokens | loss tokens | trained rows | tokens/s | seconds per "
        "trajectory | vs baseline | hours for the whole dataset |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        per_traj = r["tokens"] / r["trajectories"] / r["tokens_per_s"]
        hours = r["tokens"] / r["tokens_per_s"] / 3600
        speedup = (base["tokens"] / base["tokens_per_s"]) / (r["tokens"] / r["tokens_per_s"])
        lines.append(f"| {r['variant']} | {r['rows']:,} | {r['tokens']:,} | "
                     f"{r['loss_tokens']:,} | {r['train_rows']} | {r['tokens_per_s']:.0f} | "
                     f"{per_traj:.1f} | {speedup:.2f}x | {hours:.1f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def trajectory_args(description: str) -> argparse.ArgumentParser:
    """The flags of a benchmark that trains some trajectories each way (also compact_head.py)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", default=None, help="a umi-tool-calls dataset folder")
    ap.add_argument("--trajectories", type=int, default=6, help="trajectories trained each way")
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # a subprocess's variant
    return ap


def main() -> int:
    args = trajectory_args(__doc__.splitlines()[0]).parse_args()
    data = args.data or default_data()
    if args.one:
        print(json.dumps(measure(data, VARIANTS[args.one], args.threads)))
        return 0
    from toollearn.datagen.dataset import read_dataset
    from toollearn.training.data import turn_chains

    trajectories = len(turn_chains(read_dataset(Path(data) / "data.jsonl")))
    small = subset(data, args.trajectories)
    rows = []
    for name, merge in VARIANTS.items():
        cmd = [sys.executable, __file__, "--one", name, "--data", small,
               "--threads", str(args.threads)]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        timed = json.loads(proc.stdout.strip().splitlines()[-1])
        rows.append({"variant": name, "trajectories": trajectories, **encoded(data, merge),
                     **timed})  # fmt: skip
        print(json.dumps(rows[-1]), file=sys.stderr)
    if rows[0]["loss_tokens"] != rows[1]["loss_tokens"]:
        raise SystemExit("merge_turns changed the loss tokens: a bug")
    args.data_label = args.data or "demo trajectories"
    write_results(args.out, "merge_turns", {"rows": rows, "args": vars(args)}, table(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
