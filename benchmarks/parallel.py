"""Throughput of a long benchmark run: threads per process vs shards in parallel processes.

The same Seal-Tools queries (both modes from one prompt evaluation, the README's protocol) are
run three ways, one after the other in this script, each through the real `toollearn eval
seal-tools` command in a fresh run directory:
  1 process x T threads (the baseline: one process using every CPU),
  1 process x 1 thread,
  N processes x 1 thread, each on its own `--shard K/N`, started together.
Throughput = queries / wall seconds of the whole variant (model loading included); the greedy
outputs of every variant are compared with the baseline's.

    python benchmarks/parallel.py --data-root ../shared/data --queries 16 [--procs 2]
Writes benchmarks/results/parallel.json and parallel.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

from _procs import run_together
from _results import RESULTS, write_results

TOOLLEARN = [sys.executable, "-m", "toollearn.cli.main"]


def eval_cmd(args: argparse.Namespace, out_root: Path, threads: int, shard: str | None) -> list:
    cmd = [*TOOLLEARN, "eval", "seal-tools", "--split", args.split, "--limit", str(args.queries),
           "--modes", "free,constrained", "--n-seq", str(args.n_seq), "--threads", str(threads),
           "--out-root", str(out_root), "--data-root", args.data_root]  # fmt: skip
    return cmd + (["--shard", shard] if shard else [])


def run_variant(args: argparse.Namespace, work: Path, name: str, threads: int, procs: int) -> dict:
    """Start `procs` processes (shards when more than one) and time them until all end."""
    roots = [work / f"{name}-{k}" for k in range(1, procs + 1)]
    cmds = [eval_cmd(args, root, threads, f"{k}/{procs}" if procs > 1 else None)
            for k, root in enumerate(roots, 1)]  # fmt: skip
    wall = run_together(cmds, name)
    outputs = {}
    for root in roots:
        for mode in ("free", "constrained"):
            for line in (root / mode / "predictions.jsonl").read_text().splitlines():
                record = json.loads(line)
                outputs[(mode, record["id"])] = record["output"]
    return {"variant": name, "threads": threads, "processes": procs, "wall_s": round(wall, 1),
            "queries_per_min": round(60 * args.queries / wall, 2), "outputs": outputs}  # fmt: skip


def markdown(result: dict) -> str:
    lines = [
        f"Seal-Tools `{result['split']}`, first {result['queries']} queries, both modes, "
        f"n_seq {result['n_seq']}; {result['cpus']} CPUs, {result['platform']}",
        "",
        "| variant | processes x threads | wall s | queries/min | vs baseline "
        "| outputs = baseline |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for v in result["variants"]:
        lines.append(
            f"| {v['variant']} | {v['processes']} x {v['threads']} | {v['wall_s']} | "
            f"{v['queries_per_min']} | {v['speedup']:.2f}x | {v['same_outputs']} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data-root", required=True, help="folder holding seal-tools/")
    p.add_argument("--split", default="test_out_domain")
    p.add_argument("--queries", type=int, default=16)
    p.add_argument("--procs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--n-seq", type=int, default=8)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    work = Path(tempfile.mkdtemp(prefix="toollearn-parallel-"))
    try:
        plan = [
            (f"1 process, {cpus} threads (baseline)", cpus, 1),
            ("1 process, 1 thread", 1, 1),
            (f"{args.procs} shards, 1 thread each", 1, args.procs),
        ]
        variants = []
        for i, (name, threads, procs) in enumerate(plan):
            variants.append(run_variant(args, work, f"v{i}", threads, procs) | {"variant": name})
            print(f"{name}: {variants[-1]['wall_s']} s", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = variants[0]
    for v in variants:
        v["speedup"] = v["queries_per_min"] / base["queries_per_min"]
        same = sum(v["outputs"].get(k) == out for k, out in base["outputs"].items())
        v["same_outputs"] = f"{same}/{len(base['outputs'])}"
    for v in variants:
        del v["outputs"]
    result = {"split": args.split, "queries": args.queries, "n_seq": args.n_seq, "cpus": cpus,
              "platform": platform.platform(), "variants": variants}  # fmt: skip
    write_results(args.out, "parallel", result, markdown(result))


if __name__ == "__main__":
    main()
