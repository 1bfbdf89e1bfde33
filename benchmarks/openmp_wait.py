"""llama.cpp's OpenMP threads waiting passively (toollearn's default) or spinning briefly.

Each setting runs in fresh processes (libgomp reads its environment when it loads): greedy
decode tokens/s of the default engine on Seal-Tools prompts, first alone on the machine, then
with two such processes (2 threads each) started together on the same cores.

    python benchmarks/openmp_wait.py [--prompts 3] [--threads 2]
Writes benchmarks/results/openmp_wait.json and openmp_wait.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from _results import RESULTS, write_results

SETTINGS = {  # name -> environment
    "OMP_WAIT_POLICY=PASSIVE (default)": {"OMP_WAIT_POLICY": "PASSIVE"},
    "GOMP_SPINCOUNT=1000": {"GOMP_SPINCOUNT": "1000"},
    "GOMP_SPINCOUNT=10000": {"GOMP_SPINCOUNT": "10000"},
}

CHILD = r"""
import json, statistics, sys, time
from toollearn.data.registry import load_examples
from toollearn.engines import user
from toollearn.engines.llama import LlamaEngine
n, threads = int(sys.argv[1]), int(sys.argv[2])
engine = LlamaEngine(n_threads=threads)
rates = []
for ex in load_examples("sample/seal-tools-prompts/test_in_domain")[:n]:
    prompt = [user(ex.metadata["prompt"])]
    engine.llm.reset(); t0 = time.perf_counter(); engine.complete(prompt, max_tokens=1)
    t1 = time.perf_counter(); engine.llm.reset(); t2 = time.perf_counter()
    c = engine.complete(prompt, max_tokens=64)[0]; t3 = time.perf_counter()
    rates.append((c.completion_tokens - 1) / ((t3 - t2) - (t1 - t0)))
print(json.dumps(statistics.median(rates)))
"""


def decode_rates(env: dict, procs: int, args: argparse.Namespace) -> list[float]:
    """Median decode tokens/s of each of `procs` processes started together."""
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    cmd = [sys.executable, "-c", CHILD, str(args.prompts), str(args.threads)]
    running = [
        subprocess.Popen(cmd, env={**clean, **env}, stdout=subprocess.PIPE, text=True)
        for _ in range(procs)
    ]
    return [round(json.loads(p.communicate()[0].strip().splitlines()[-1]), 1) for p in running]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prompts", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    rows = []
    for name, env in SETTINGS.items():
        alone = decode_rates(env, 1, args)[0]
        shared = decode_rates(env, 2, args)
        rows.append({"setting": name, "alone": alone, "two_processes": shared,
                     "two_processes_median": statistics.median(shared)})  # fmt: skip
        print(rows[-1], flush=True)
    base = rows[0]
    for r in rows:
        r["alone_vs_default"] = round(r["alone"] / base["alone"], 2)
        r["shared_vs_default"] = round(r["two_processes_median"] / base["two_processes_median"], 2)
    result = {"config": vars(args), "rows": rows,
              "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    write_results(args.out, "openmp_wait", result, markdown(result))


def markdown(result: dict) -> str:
    cfg = result["config"]
    lines = [
        f"| OpenMP wait | decode tok/s, alone | vs default | decode tok/s, 2 processes x "
        f"{cfg['threads']} threads | vs default |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(f"| {r['setting']} | {r['alone']} | {r['alone_vs_default']:.2f}x | "
                     f"{r['two_processes_median']} | {r['shared_vs_default']:.2f}x |")  # fmt: skip
    lines.append(f"\nDefault engine, {cfg['prompts']} Seal-Tools prompts, 64 new tokens, "
                 f"{cfg['threads']} threads, {result['when']}; "
                 f"`python benchmarks/openmp_wait.py --prompts {cfg['prompts']}`")  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
