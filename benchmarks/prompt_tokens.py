"""Tokens per prompt of each format, with the tool docs as JSON documents and compact.

The general tool-calling format (ours) can list its tools compactly (`docs="compact"`: a
signature line and one line per described parameter); the papers' formats keep the papers'
own prompts and are measured as they are. Token counts use the embedded model's tokenizer.
Prompts: the bundled samples, each query with the tools the benchmark shows it (Seal-Tools:
the paper's 5 retrieved candidates; ToolDEER: the 5-tool pool; alpha-UMi: the demo
trajectories' tools and history).

    python benchmarks/prompt_tokens.py
Writes benchmarks/results/prompt_tokens.json and prompt_tokens.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

from _results import RESULTS, write_results

from toollearn.data.registry import load_examples
from toollearn.engines.llama import LlamaEngine
from toollearn.formats.answers import deer, seal_tools, tool_calls


def umi_prompts(role: str) -> list[list]:
    """The prompts of every `role` step of the demo trajectories, as training renders them."""
    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.data.trajectories import read_trajectories
    from toollearn.datagen.samples import to_training_sample

    return [list(s.messages) for t in read_trajectories(DEMO_TRAJECTORIES)
            for s in to_training_sample(t, f"umi-{role}")]  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    count = LlamaEngine(n_threads=1).count_tokens
    seal = load_examples("sample/seal-tools-prompts/test_in_domain")
    seal += load_examples("sample/seal-tools-prompts/test_out_domain")
    pool = load_examples("sample/tooldeer/valid") + load_examples("sample/tooldeer/test")
    sets: dict[str, list[list]] = {
        "tool-calls, JSON docs (Seal-Tools candidates)": [
            tool_calls.render_messages(e.query, e.tools) for e in seal
        ],
        "tool-calls, compact docs (Seal-Tools candidates)": [
            tool_calls.render_messages(e.query, e.tools, docs="compact") for e in seal
        ],
        "tool-calls, JSON docs (ToolDEER pools)": [
            tool_calls.render_messages(e.query, e.tools) for e in pool
        ],
        "tool-calls, compact docs (ToolDEER pools)": [
            tool_calls.render_messages(e.query, e.tools, docs="compact") for e in pool
        ],
        "seal-tools, the paper's prompt": [
            seal_tools.render_messages(e.query, e.tools, e.metadata.get("prompt")) for e in seal
        ],
        "deer, released format (bare query)": [deer.render_messages(e.query) for e in pool],
    }
    for role in ("planner", "caller"):
        sets[f"alpha-UMi {role}, the paper's prompt (demo)"] = umi_prompts(role)
    rows = []
    for name, prompts in sets.items():
        n = [count(m) for m in prompts]
        rows.append({"format": name, "prompts": len(n), "mean": round(statistics.mean(n), 1),
                     "median": statistics.median(n), "max": max(n)})  # fmt: skip
    for row in rows:  # compact vs JSON of the same prompts
        if "compact" in row["format"]:
            ref = next(r for r in rows if r["format"] == row["format"].replace("compact", "JSON"))
            row["vs_json"] = round(row["mean"] / ref["mean"], 3)
    result = {"rows": rows, "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    write_results(args.out, "prompt_tokens", result, markdown(result))


def markdown(result: dict) -> str:
    lines = ["| format | prompts | mean tokens | median | max | vs JSON docs |",
             "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in result["rows"]:
        ratio = f"{r['vs_json']:.2f}x" if "vs_json" in r else ""
        lines.append(f"| {r['format']} | {r['prompts']} | {r['mean']} | {r['median']} | "
                     f"{r['max']} | {ratio} |")  # fmt: skip
    lines.append(f"\nEmbedded model's tokenizer, chat template included; {result['when']}; "
                 "`python benchmarks/prompt_tokens.py`")  # fmt: skip
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
