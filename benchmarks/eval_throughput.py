"""Evaluation throughput of the default llama engine before and after its speed-ups.

Each evaluation runs through the real `toollearn` command, one process per core (`--shard K/N`,
`--threads 1`, model loading included), first with the old engine settings (`--weights file
--flash-attn off`: the shipped Q4_1 file as it is) and then with the defaults (an F16 copy
reads the prompts, the Q4_1 file decodes), on the same queries of the bundled samples:
  seal-tools  `toollearn eval seal-tools --sample --split all` (constrained),
  deer        `toollearn eval deer --sample` (the released prompting, DEER's decisions),
  stepwise    `toollearn eval stepwise` (the bundled multi-role trajectories, constrained calls).
Throughput = queries (or steps) / wall seconds of the whole variant; "same outputs" compares
the model's text per query with the old settings'; the scores (shards merged with `toollearn
runs merge`, rescored with `toollearn score --run`) are printed beside.

    python benchmarks/eval_throughput.py [--queries 32] [--procs 2] [--evals seal-tools,deer]
        [--also "--weights f16;--flash-attn on"]   # more rows: the defaults with these flags
Writes benchmarks/results/eval_throughput.json and eval_throughput.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _procs import run_together
from _results import RESULTS, write_results

TOOLLEARN = [sys.executable, "-m", "toollearn.cli.main"]
BEFORE = ["--weights", "file", "--flash-attn", "off"]
EVALS = {  # name -> (command after `toollearn eval`, score keys shown)
    "seal-tools": (["seal-tools", "--sample", "--split", "all", "--constrained"],
                   [("official", "all", "tool_f1"), ("official", "all", "param_f1")]),
    "deer": (["deer", "--sample", "--prompting", "released"],
             [("P_DS",), ("P_DC",)]),
    "stepwise": (["stepwise"], [("plan_acc",), ("arg_f1",)]),
}  # fmt: skip


def run_variant(cmd: list[str], work: Path, procs: int) -> tuple[float, list[Path]]:
    """Run `procs` shards of cmd together, one thread each; (wall seconds, their run dirs)."""
    outs = [work / f"shard{k}" for k in range(1, procs + 1)]
    cmds = [[*cmd, "--threads", "1", "--out", str(out), "--shard", f"{k}/{procs}"]
            for k, out in enumerate(outs, 1)]  # fmt: skip
    return run_together(cmds, " ".join(cmd)), outs


def outputs(dirs: list[Path]) -> dict[str, str]:
    """{record id: the model's text} over the shards."""
    out = {}
    for d in dirs:
        for line in (d / "predictions.jsonl").read_text().splitlines():
            r = json.loads(line)
            out[r["id"]] = json.dumps(r.get("texts") or r.get("output"), sort_keys=True)
    return out


def merged_scores(dirs: list[Path], work: Path) -> dict:
    """Merge the shards (`toollearn runs merge`) and rescore them (`toollearn score --run`)."""
    merged = work / "merged"
    subprocess.run([*TOOLLEARN, "runs", "merge", "--out", str(merged), *map(str, dirs)],
                   check=True, capture_output=True)  # fmt: skip
    out = subprocess.run([*TOOLLEARN, "score", "--run", str(merged), "--json"],
                         check=True, capture_output=True, text=True)  # fmt: skip
    return json.loads(out.stdout)


def pick(scores: dict, keys: tuple) -> float | None:
    """A nested score by its keys (scores.json nests some under "scores")."""
    node: object = scores.get("scores", scores)
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            return None
        node = node[k]
    return node if isinstance(node, int | float) else None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--queries", type=int, default=32, help="first N queries (steps) of each")
    p.add_argument("--procs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--evals", default=",".join(EVALS))
    p.add_argument("--also", default="", help="more variants: ';'-separated engine flag sets")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    rows = []
    work = Path(tempfile.mkdtemp(prefix="toollearn-evalspeed-"))
    try:
        for name in args.evals.split(","):
            sub, keys = EVALS[name]
            base = [*TOOLLEARN, "eval", *sub, "--limit", str(args.queries)]
            found = {}
            plan = [("before", BEFORE), ("after", [])]
            plan += [(f.strip(), f.split()) for f in args.also.split(";") if f.strip()]
            for variant, extra in plan:
                cmd = base + extra
                wall, dirs = run_variant(cmd, work / name / variant, args.procs)
                scores = merged_scores(dirs, work / name / variant)
                found[variant] = outputs(dirs)
                rows.append({"eval": name, "variant": variant, "wall_s": round(wall, 1),
                             "per_min": round(60 * args.queries / wall, 2),
                             "scores": {"/".join(k): pick(scores, k) for k in keys}})  # fmt: skip
                if variant != "before":
                    same = sum(found[variant].get(i) == t for i, t in found["before"].items())
                    rows[-1]["same_outputs"] = f"{same}/{len(found['before'])}"
                    rows[-1]["speedup"] = round(
                        rows[-1]["per_min"] / rows[-len(found)]["per_min"], 2
                    )
                print(f"{name} {variant}: {rows[-1]}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"queries": args.queries, "procs": args.procs, "platform": platform.platform(),
              "before_flags": BEFORE, "rows": rows,
              "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip
    write_results(args.out, "eval_throughput", result, markdown(result))


def markdown(result: dict) -> str:
    lines = [
        f"First {result['queries']} queries of each bundled sample, {result['procs']} shards x "
        f"1 thread, model loading included; before = `{' '.join(result['before_flags'])}`. "
        f"{result['platform']}, {result['when']}",
        "",
        "| eval | engine settings | wall s | queries/min | speed-up | same outputs | scores |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in result["rows"]:
        scores = ", ".join(f"{k} {v if v is None else round(100 * v, 1)}"
                           for k, v in r["scores"].items())  # fmt: skip
        lines.append(
            f"| {r['eval']} | {r['variant']} | {r['wall_s']} | {r['per_min']} | "
            f"{r.get('speedup', 1.0):.2f}x | {r.get('same_outputs', '')} | {scores} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
