"""Does the general agent's reply state the right result? The demo's 14 answerable tasks
(`envs.demo.DEMO_TASKS`, real Python tools, never in any training data), each run with
`toollearn run QUERY --only TOOLS --json --engine ENGINE` (tools executed, not simulated;
`--all-tools`: all 9 demo tools shown instead of the task's 2 or 3; `--plan due|order`: the
agent follows the query's call plan, `toollearn run --plan MODE`; the default, `none`, runs
without one, as every probe before the plan, though `toollearn run` plans by default now).

The reference values are the ones the task's answer template names (`{1}`, `{0[condition]}`),
computed by running its reference plan on the same tools. A reply is right when it states
every one of them (numbers compared to 2 decimals, words case-blind); a run is "gold calls"
when its calls are the reference plan's, arguments included.

    python results/demo-answers/probe.py --engine tuned-agent --out results/demo-answers/NAME
"""

from __future__ import annotations

import argparse
import json
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

from toollearn.agents.oracle import _resolve  # the oracle's "$k" / "$k.field" references
from toollearn.core.types import ToolCall
from toollearn.envs.demo import DEMO_TASKS, demo_env

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def reference(task: Any) -> tuple[list[tuple[str, dict]], list[str]]:
    """The reference plan's concrete calls and the values its answer template names."""
    env = demo_env()
    outputs: list[Any] = []
    calls = []
    for _, name, args in task.steps:
        concrete = {k: _resolve(v, outputs) for k, v in args.items()}
        calls.append((name, concrete))
        outputs.append(env.execute(ToolCall(name, concrete)).output)
    values = []
    for _, field, _, _ in string.Formatter().parse(task.answer):
        if field is None:
            continue
        head, _, key = field.partition("[")
        value = outputs[int(head)]
        values.append(str(value[key.rstrip("]")] if key else value))
    return calls, values


def states(reply: str, value: str) -> bool:
    """`value` appears in `reply`: as a number (2 decimals) or as a word, case-blind."""
    try:
        want = round(float(value), 2)
    except ValueError:
        return value.lower() in reply.lower()
    return any(round(float(n), 2) == want for n in NUMBER.findall(reply.replace(",", "")))


def run_task(task: Any, engine: str, all_tools: bool = False, plan: str = "none") -> dict[str, Any]:
    only = [] if all_tools else ["--only", ",".join(task.tools)]
    only += ["--plan", plan]
    cmd = [sys.executable, "-m", "toollearn", "run", task.query, *only,
           "--engine", engine, "--threads", "1", "--json"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return {"id": task.id, "error": proc.stderr[-500:]}
    trace = json.loads(proc.stdout)
    calls = [(c["name"], c["arguments"]) for s in trace["steps"] if s["kind"] == "call"
             for c in s["calls"]]  # fmt: skip
    gold_calls, values = reference(task)
    reply = trace.get("answer") or ""
    return {"id": task.id, "query": task.query, "outcome": trace["meta"].get("outcome"),
            "calls": calls, "gold_calls": gold_calls, "reply": reply, "values": values,
            "gold_calls_made": calls == gold_calls,
            "reply_right": bool(values) and all(states(reply, v) for v in values)}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="tuned-agent")
    ap.add_argument("--out", required=True)
    ap.add_argument(
        "--all-tools", action="store_true", help="show all 9 demo tools, not the task's"
    )
    ap.add_argument("--plan", choices=("due", "order", "none"), default="none",
                    help="toollearn run --plan MODE (default: none)")  # fmt: skip
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = [t for t in DEMO_TASKS if not t.give_up]
    rows = [run_task(t, args.engine, args.all_tools, args.plan) for t in tasks]
    with (out / "predictions.jsonl").open("w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    scored = [r for r in rows if "error" not in r]
    summary = {"engine": args.engine, "all_tools": args.all_tools, "tasks": len(rows),
               **({"plan": args.plan} if args.plan != "none" else {}),
               "errors": len(rows) - len(scored),
               "gold_calls": sum(r["gold_calls_made"] for r in scored),
               "reply_right": sum(r["reply_right"] for r in scored),
               "answered": sum(r["outcome"] == "answered" for r in scored)}  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary))
    for r in scored:
        mark = "right" if r["reply_right"] else "wrong"
        print(
            f"{r['id']:8} {mark:5} calls {'=' if r['gold_calls_made'] else '!'}gold "
            f"{r['reply']!r:.100} (want {r['values']})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
