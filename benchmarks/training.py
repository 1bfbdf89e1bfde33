"""Training benchmark: tokens/s and peak memory of LoRA vs full fine-tuning, fp32 vs bf16
autocast (with the frozen weights in fp32 or bf16), packed rows, against TRL's defaults
(gradient checkpointing on, fp32) as the baseline.

Every variant trains the embedded SmolLM2-135M through `toollearn.training` (TRL SFTTrainer +
PEFT) on the same samples, in its own subprocess (so each peak RSS is its own), one after the
other in one run: the baseline first, ratios against it. Tokens are real (non-padding) input
tokens; the first step is a warm-up and not timed. Samples: a `toollearn datagen` dataset
(--data; default the alpha-UMi role samples of the shipped demo trajectories). "What an hour
buys" is tokens/s x 3600 / mean tokens per sample, for this data.

bf16 autocast on a processor without bf16 instructions is emulated (and `toollearn train`
then uses fp32); the benchmark forces it anyway so the table says what it would cost.

    python benchmarks/training.py --steps 6 --batch-size 4
Writes benchmarks/results/training.json and training.md. `training-general.md` is `--data
runs/data/general-v1-compact --only 1,3,7,8 --out DIR` (renamed): the general recipe's data
(recipes/general-135m.yaml) and settings (variant 7) against TRL's defaults. `training-1-thread.md`
is `--only 2,3 --threads 1 --out DIR` on the same machine (renamed): one thread gives 0.6-0.65x of
two for one job. `training-side-by-side.md`: two such 1-thread runs of variant 3 started together
made 172 tokens/s each, 344 together, against 326-353 for one 2-thread run: no gain from splitting
the cores between two training jobs on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from _results import RESULTS, write_results
from _timed_training import timed_train

VARIANTS = {  # name: (TrainConfig overrides, force bf16 autocast)
    "TRL defaults: LoRA, fp32, gradient checkpointing": (
        {"gradient_checkpointing": True, "bf16": False}, False),
    "toollearn CPU default: LoRA, fp32, no checkpointing": ({"bf16": False}, False),
    "LoRA, bf16 autocast": ({"bf16": True}, True),
    "full fine-tuning, fp32": ({"method": "full", "bf16": False}, False),
    "full fine-tuning, bf16 autocast": ({"method": "full", "bf16": True}, True),
    "LoRA, bf16 autocast, packed rows (padding-free)": (
        {"bf16": True, "packing": True, "max_length": 2048, "pack_rows": True}, True),
    "LoRA, bf16 autocast, bf16 frozen weights": ({"bf16": True, "bf16_base": True}, True),
    "LoRA, bf16 autocast, bf16 frozen weights, packed rows": (
        {"bf16": True, "bf16_base": True, "packing": True, "max_length": 2048,
         "pack_rows": True}, True),
}  # fmt: skip


def measure(name: str, data: str, steps: int, batch_size: int, threads: int) -> dict:
    """Train `steps` + 1 steps of one variant in this process; tokens/s after the first."""
    from toollearn.training import trainer as trainer_mod

    overrides, force_bf16 = VARIANTS[name]
    if force_bf16:
        trainer_mod.cpu_has_bf16 = lambda: True  # measure autocast even where it is emulated
    overrides = dict(overrides)
    settings = {"samples": (steps + 1) * batch_size, "batch_size": batch_size}
    if overrides.pop("pack_rows", False):  # a step takes one row of packed samples
        settings = {"samples": (steps + 1) * batch_size * 2, "batch_size": 1}
    timed = timed_train(data, threads=threads, **settings, **overrides)
    return {
        "variant": name,
        "precision": timed["info"]["precision"],
        "tokens_per_s": timed["tokens_per_s"],
        "timed_steps": timed["timed_steps"],
        "timed_tokens": timed["timed_tokens"],
        "mean_tokens_per_sample": per_sample(timed["info"]["samples"]),
        "peak_rss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2),
    }


def per_sample(samples: dict) -> float:
    """Mean tokens per training sample (a packed run's mean is per row of samples)."""
    rows = samples.get("packed_rows")
    return samples["mean_tokens"] * rows / samples["train"] if rows else samples["mean_tokens"]


def default_data() -> str:
    """The role samples of the shipped demo trajectories, written once to a temp dataset."""
    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.data.trajectories import read_trajectories
    from toollearn.datagen.dataset import write_dataset
    from toollearn.datagen.umi import role_samples

    out = Path(tempfile.gettempdir()) / "toollearn-bench-train-data"
    if not (out / "data.jsonl").is_file():
        write_dataset(out, role_samples(read_trajectories(DEMO_TRAJECTORIES)), config={})
    return str(out)


def table(rows: list[dict], args: argparse.Namespace) -> str:
    from toollearn.training.trainer import cpu_has_bf16

    base = rows[0]["tokens_per_s"]
    lines = [
        f"Training throughput, SmolLM2-135M, {args.threads} threads, batch {args.batch_size}, "
        f"data {args.data_label}, {platform.processor() or 'cpu'} "
        f"({'with' if cpu_has_bf16() else 'without'} native bf16)",
        "",
        "| variant | precision | timed steps | tokens/s | vs TRL defaults | peak RSS GiB | "
        "samples per hour |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['variant']} | - | - | failed: {r['error']} | - | - | - |")
            continue
        per_hour = r["tokens_per_s"] * 3600 / r["mean_tokens_per_sample"]
        precision = r["precision"] + (" (emulated)" if r.get("emulated") else "")
        lines.append(f"| {r['variant']} | {precision} | {r['timed_steps']} | "
                     f"{r['tokens_per_s']:.0f} | {r['tokens_per_s'] / base:.2f}x | "
                     f"{r['peak_rss_gib']:.2f} | {per_hour:.0f} |")  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="a datagen dataset (default: demo role samples)")
    ap.add_argument("--steps", type=int, default=6, help="timed steps per variant")
    ap.add_argument("--emulated-steps", type=int, default=None,
                    help="timed steps for bf16 variants where the processor lacks bf16 "
                    "(emulated, many times slower; default --steps)")  # fmt: skip
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--only", default=None, help="comma-separated variant numbers (1-based)")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # a subprocess's variant
    args = ap.parse_args()
    data = args.data or default_data()
    if args.one:
        print(json.dumps(measure(args.one, data, args.steps, args.batch_size, args.threads)))
        return 0
    names = list(VARIANTS)
    if args.only:
        names = [names[int(i) - 1] for i in args.only.split(",")]
    from toollearn.training.trainer import cpu_has_bf16

    rows = []
    for name in names:
        emulated = VARIANTS[name][1] and not cpu_has_bf16()
        steps = args.emulated_steps if emulated and args.emulated_steps else args.steps
        cmd = [sys.executable, __file__, "--one", name, "--data", data, "--steps",
               str(steps), "--batch-size", str(args.batch_size), "--threads",
               str(args.threads)]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            rows.append({"variant": name, "error": proc.stderr.strip().splitlines()[-1][:120]})
        else:
            rows.append({**json.loads(proc.stdout.strip().splitlines()[-1]), "emulated": emulated})
        print(json.dumps(rows[-1]), file=sys.stderr)
    args.data_label = args.data or "demo role samples"
    write_results(args.out, "training", {"rows": rows, "args": vars(args)}, table(rows, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
