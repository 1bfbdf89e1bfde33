"""The shipped DEER call gate in front of the general tool-calling agent (`toollearn call`,
`toollearn run`): how often it declines queries that need no tool, and queries that need one.

    .venv/bin/python results/tool-calls-gate/run.py [--model-queries 30] [--threads 1]

No-tool queries: ToolDEER valid's queries that need no tool (real instructions from WizardLM's
data, the first 100; valid's Call/NoCall threshold was picked on its tool queries only) and
100 each of toollearn's generated general queries, plain and Evol-Instruct style (seed 0), each
against the three example tool files and three random 5-tool sets of Seal-Tools' library.
Tool queries: the first 500 Seal-Tools dev queries (never used for the gate), shown their gold
tools and random other tools up to 5. The gate's decision is computed for every pair; the
tuned model (`tuned`, greedy, constrained, nothing executed) answers the first
`--model-queries` of each query set without the gate, with two of the example tool files.
The gate runs before the model and does not change its prompt, so the gated agent's answer is
the model's unless the gate declines (then it is a no-call): the gated rows follow from the
two. Writes `records.jsonl` (one per
(query, tool set): gate score, and the model's answer where it ran), `summary.json` and
`summary.md` beside this file.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

HERE = Path(__file__).parent
DATA = Path("../shared/data")
TOOL_FILES = ("tools", "travel_tools", "home_tools")
MODEL_TOOL_FILES = ("examples/tools.json", "examples/travel_tools.json")  # the model runs here


def query_sets(n: int = 100) -> dict[str, list[str]]:
    """The no-tool query sets and the Seal-Tools dev tool queries (ids kept for the latter)."""
    from toollearn.data.tooldeer import load_split
    from toollearn.datagen.general_queries import general_queries

    valid = [e.query for e in load_split(DATA, "valid") if not e.needs_tool][:n]
    return {"deer-valid-no-tool": valid, "generated-plain": general_queries(n, 0, "plain"),
            "generated-evol": general_queries(n, 0, "evol")}  # fmt: skip


def tool_sets(rng: random.Random) -> dict[str, list]:
    from toollearn.data.seal_tools import load_tools
    from toollearn.formats.convert import read_tools

    sets = {f"examples/{f}.json": read_tools(f"examples/{f}.json", "auto") for f in TOOL_FILES}
    pool = load_tools(DATA)
    for k in range(3):
        sets[f"seal-tools random 5 ({k})"] = rng.sample(pool, 5)
    return sets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-queries", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    from toollearn.agents import ToolCallsAgent
    from toollearn.agents.call_gate import shipped_call_gate
    from toollearn.cli.common import load_engine_spec
    from toollearn.data.seal_tools import load_split, load_tools
    from toollearn.formats.answers import tool_calls
    from toollearn.models import deer_gates

    call = deer_gates()["call"]
    gate, threshold = shipped_call_gate(None, args.threads)
    agent = ToolCallsAgent(load_engine_spec("tuned", args.threads), execute=False)
    rng = random.Random(0)
    pairs = []  # (kind, query set, tool set name, query, tools)
    sets = tool_sets(rng)
    for qset, queries in query_sets().items():
        for name, tools in sets.items():
            pairs += [("no-tool", qset, name, q, tools, i) for i, q in enumerate(queries)]
    pool = load_tools(DATA)
    for i, ex in enumerate(load_split(DATA, "dev")[:500]):
        others = [t for t in pool if t.name not in {g.name for g in ex.tools}]
        tools = list(ex.tools) + rng.sample(others, max(0, 5 - len(ex.tools)))
        rng.shuffle(tools)
        pairs.append(("tool", "seal-tools-dev", "gold + random to 5", ex.query, tools, i))
    out = HERE / "records.jsonl"
    t0 = time.time()
    with out.open("w", encoding="utf-8") as fh:
        for kind, qset, name, query, tools, i in pairs:
            score = gate.score(query, tools, [])
            rec = {"kind": kind, "queries": qset, "tools": name, "query": query,
                   "tool_names": [t.name for t in tools], "gate": score,
                   "gate_declines": score["nocall_margin"] > threshold}  # fmt: skip
            if i < args.model_queries and (kind == "tool" or name in MODEL_TOOL_FILES):
                trace = agent.run(query, tools)
                text = next((s.content for s in reversed(trace.steps) if s.prompt), "")
                try:
                    calls = [c.name for c in tool_calls.parse(text).calls]
                except Exception as exc:  # noqa: BLE001 - garbage model output is data
                    calls, rec["parse_error"] = [], str(exc)
                rec.update(model_output=text, model_calls=calls)
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    summarize(out, threshold, call, time.time() - t0)


def summarize(path: Path, threshold: float, call: dict, seconds: float) -> None:
    """summary.json and summary.md from records.jsonl."""
    recs = [json.loads(line) for line in path.open(encoding="utf-8")]
    gate_rows, model_rows = {}, {}
    for r in recs:
        key = (r["kind"], r["queries"], r["tools"])
        g = gate_rows.setdefault(key, [0, 0])
        g[0] += r["gate_declines"]
        g[1] += 1
        if "model_calls" in r:
            m = model_rows.setdefault(key, [0, 0, 0])
            m[0] += bool(r["model_calls"])  # the model alone calls
            m[1] += bool(r["model_calls"]) and not r["gate_declines"]  # the gated agent calls
            m[2] += 1
    summary = {"threshold": threshold, "gate_model": call["gate"].rsplit("/", 1)[-1],
               "seconds": round(seconds), "records": len(recs),
               "gate": [{"kind": k[0], "queries": k[1], "tools": k[2], "declined": v[0],
                         "n": v[1]} for k, v in gate_rows.items()],
               "model": [{"kind": k[0], "queries": k[1], "tools": k[2], "calls_alone": v[0],
                          "calls_gated": v[1], "n": v[2]}
                         for k, v in model_rows.items()]}  # fmt: skip
    (HERE / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [f"Call gate `{call['gate'].rsplit('/', 1)[-1]}`, threshold {threshold} "
             f"(declines when no tool's cosine reaches {-threshold}); {len(recs)} (query, tool "
             f"set) pairs, {round(seconds)} s.", "",
             "| queries | tool set | need a tool | gate declines |",
             "|---|---|---|---:|"]  # fmt: skip
    for k, v in gate_rows.items():
        lines.append(f"| {k[1]} | {k[2]} | {'yes' if k[0] == 'tool' else 'no'} | "
                     f"{v[0]} of {v[1]} ({100 * v[0] / v[1]:.1f}%) |")  # fmt: skip
    lines += ["", "The tuned model (greedy, constrained), alone and behind the gate:", "",
              "| queries | tool set | need a tool | answers with calls, model alone | "
              "with the gate |", "|---|---|---|---:|---:|"]  # fmt: skip
    for k, v in model_rows.items():
        lines.append(f"| {k[1]} | {k[2]} | {'yes' if k[0] == 'tool' else 'no'} | "
                     f"{v[0]} of {v[2]} | {v[1]} of {v[2]} |")  # fmt: skip
    (HERE / "summary.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
