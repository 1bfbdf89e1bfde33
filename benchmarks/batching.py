"""Batching benchmark: end-to-end Seal-Tools examples/s, sequential vs multi-sequence decoding.

All in one process and one run (so background load hits every variant alike; ratios are what
to read): the llama engine one prompt at a time (the library path, as before) and batched with
n_seq = each --batch value, free (unconstrained, --free-tokens) and constrained (the
candidates' call-list grammar, with the runner's retry plan), plus both modes generated
together from one evaluation of each prompt. Real prompts: the Seal-Tools test splits
(`--data-root`, else $TOOLLEARN_DATA), every len/N-th example. Outputs of every batched variant
are compared with the sequential ones (greedy: they should be identical).

    python benchmarks/batching.py --examples 16 --batch 4,8,16
Writes benchmarks/results/batching.json and batching.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from _results import RESULTS, write_results

from toollearn.engines.llama import LlamaEngine
from toollearn.evaluation.runners.seal_tools import SealRunOptions, load_prompts, predict_jobs


def timed(engine: LlamaEngine, n_seq: int, jobs: list) -> tuple[float, list[dict]]:
    """Seconds and records of predicting these (example, options) jobs with n_seq sequences."""
    engine.n_seq = n_seq
    engine.llm.reset()  # every variant starts cold: no cached prompt in either path
    if engine._shared["batcher"] is not None:
        engine._shared["batcher"].close()
        engine._shared["batcher"] = None
    t0 = time.perf_counter()
    records = predict_jobs(engine, jobs)
    return time.perf_counter() - t0, records


def row(name: str, secs: float, records: list[dict], n_examples: int, ref: dict) -> dict:
    """One result row; `ref` maps (id, mode) to the sequential output for the agreement count."""
    same = [r["output"] == ref[k] for k, r in records_keys(records) if k in ref]
    return {
        "variant": name,
        "examples": n_examples,
        "seconds": round(secs, 1),
        "examples_per_s": round(n_examples / secs, 4),
        "completion_tokens": sum(r["completion_tokens"] for _, r in records_keys(records)),
        "identical_to_sequential": f"{sum(same)}/{len(same)}" if same else "-",
    }


def records_keys(records: list[dict]):
    for r in records:
        yield (r["id"], r["_mode"]), r


def run(args) -> dict:
    exs = load_prompts("all", args.data_root)
    exs = exs[:: max(1, len(exs) // args.examples)][: args.examples]
    free = SealRunOptions(constrained=False, max_tokens=args.free_tokens)
    cons = SealRunOptions(constrained=True, max_tokens=args.constrained_tokens)
    engine = LlamaEngine(n_threads=args.threads)
    load0 = os.getloadavg()
    rows, ref = [], {}

    def go(name, n_seq, modes, examples):
        jobs = [(ex, o) for ex in examples for o in modes]
        secs, recs = timed(engine, n_seq, jobs)
        for (_, o), r in zip(jobs, recs):
            r["_mode"] = "constrained" if o.constrained else "free"
        if n_seq == 1:
            ref.update({k: r["output"] for k, r in records_keys(recs)})
        rows.append(row(name, secs, recs, len(examples), ref))
        print(rows[-1], flush=True)

    go("sequential free", 1, [free], exs)
    go("sequential constrained", 1, [cons], exs)
    for b in args.batch:
        go(f"batched n_seq={b} free", b, [free], exs)
        go(f"batched n_seq={b} constrained", b, [cons], exs)
    b = args.shared_seq or 2 * max(args.batch)
    go(f"shared prompt, both modes, n_seq={b}", b, [free, cons], exs)
    return {
        "config": vars(args),
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg_start": load0,
        "loadavg_end": os.getloadavg(),
        "rows": rows,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def markdown(result: dict) -> str:
    seq = {r["variant"]: r["examples_per_s"] for r in result["rows"]}
    base = {"free": seq["sequential free"], "constrained": seq["sequential constrained"]}
    both = 1 / (1 / base["free"] + 1 / base["constrained"])  # both modes, sequentially
    lines = [
        "| variant | examples | seconds | examples/s | vs sequential | identical outputs |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        mode = "free" if r["variant"].endswith("free") else "constrained"
        ref = both if r["variant"].startswith("shared") else base[mode]
        lines.append(
            f"| {r['variant']} | {r['examples']} | {r['seconds']} | {r['examples_per_s']} | "
            f"{r['examples_per_s'] / ref:.2f}x | {r['identical_to_sequential']} |"
        )
    cfg = result["config"]
    la0 = ", ".join(f"{x:.2f}" for x in result["loadavg_start"])
    la1 = ", ".join(f"{x:.2f}" for x in result["loadavg_end"])
    lines.append(
        f"\nSeal-Tools test prompts (~1,000 tokens), free max {cfg['free_tokens']} new tokens, "
        f"constrained max {cfg['constrained_tokens']}, {cfg['threads']} threads on "
        f"{result['cpus']} CPUs, {result['when']}; load average {la0} at start, {la1} at end "
        "(other jobs were running: read the ratios). The shared-prompt row is compared with "
        "running both modes sequentially (an example/s of both answers). `python "
        f"benchmarks/batching.py --examples {cfg['examples']} "
        f"--free-tokens {cfg['free_tokens']} --batch "
        f"{','.join(map(str, cfg['batch']))}`"
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=16, help="the same examples for every variant")
    p.add_argument("--shared-seq", type=int, default=None, help="n_seq of the two-mode run")
    p.add_argument("--free-tokens", type=int, default=320)
    p.add_argument("--constrained-tokens", type=int, default=320)
    p.add_argument("--batch", type=lambda s: [int(x) for x in s.split(",")], default=[4, 8, 16])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--data-root", default=None)
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    result = run(args)
    write_results(args.out, "batching", result, markdown(result))


if __name__ == "__main__":
    main()
