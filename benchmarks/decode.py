"""Decode speed of the default llama engine against the engine before it, over repeated rounds.

The engine table (`engines.py`) measures each variant once per prompt; decode rates there move
by about 10% between runs on a shared 2-core VM, more than the difference being asked about.
This script measures only the two engines, interleaved, `--rounds` times over the same Seal-Tools
prompts, with `engines.measure` (decode = (n - 1) / (full request - 1-token request), no KV
reuse between requests), and reports the median and the spread.

    python benchmarks/decode.py --prompts 6 --rounds 3 --threads 2
Writes benchmarks/results/decode.json and decode.md. With --tuned it compares the default engine
on the base model against the shipped tools-135m adapter applied at run time (what a LoRA costs
at decode time) and merged into the weights (the `tuned` default, engines.llama_merge), into
decode-tuned.json/.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

from _results import RESULTS, write_results
from engines import measure

from toollearn.data.registry import load_examples
from toollearn.engines import user
from toollearn.engines.llama import LlamaEngine, quiet_openmp


def call(engine: LlamaEngine):
    def go(example, n):
        for llm in (engine.llm, engine.reader):
            if llm is not None:
                getattr(llm, "llm", llm).reset()
        c = engine.complete([user(example.metadata["prompt"])], max_tokens=n)[0]
        return c.prompt_tokens, c.completion_tokens, c.text

    return go


def run(args) -> dict:
    quiet_openmp()
    examples = load_examples("sample/seal-tools-prompts/test_in_domain")
    examples = examples[:: max(1, len(examples) // args.prompts)][: args.prompts]
    if args.tuned:
        from toollearn.engines import load_engine, load_engines
        from toollearn.models import TUNED_ADAPTER

        views = load_engines({"base": "base", "runtime": f"llama@{TUNED_ADAPTER}"},
                             n_threads=args.threads)  # fmt: skip
        engines = {"base (default engine, no adapter)": views["base"],
                   "tools-135m as a runtime LoRA (llama@adapter)": views["runtime"],
                   "tuned: tools-135m merged, Q8_0 decode (default)":
                       load_engine("tuned", n_threads=args.threads)}  # fmt: skip
    else:
        engines = {
            "before (Q4_1 file, no flash attention)": LlamaEngine(
                n_threads=args.threads, weights="file", flash_attn=False),
            "default (f16 reads, Q4_1 file decodes)": LlamaEngine(n_threads=args.threads),
        }  # fmt: skip
    rows = {name: [] for name in engines}
    for _ in range(args.rounds):
        for ex in examples:
            for name, engine in engines.items():
                fn = call(engine)
                rows[name].append(measure(lambda n, fn=fn, ex=ex: fn(ex, n), args.max_tokens))
    base = statistics.median(r["decode_tps"] for r in rows[next(iter(rows))])
    out = []
    for name, rs in rows.items():
        dec = sorted(r["decode_tps"] for r in rs)
        prompt = statistics.median(r["prompt_tps"] for r in rs)
        out.append({"engine": name, "measures": len(dec),
                    "decode_median": round(statistics.median(dec), 1),
                    "decode_q1": round(dec[len(dec) // 4], 1),
                    "decode_q3": round(dec[3 * len(dec) // 4], 1),
                    "vs_first": round(statistics.median(dec) / base, 2),
                    "prompt_median": round(prompt, 1)})  # fmt: skip
    return {"rows": out, "config": vars(args), "platform": platform.platform(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}  # fmt: skip


def markdown(result: dict) -> str:
    lines = ["| engine | measures | decode tok/s (median) | quartiles | vs first | prompt tok/s |",
             "|---|---:|---:|---|---:|---:|"]  # fmt: skip
    for r in result["rows"]:
        lines.append(f"| {r['engine']} | {r['measures']} | {r['decode_median']} | "
                     f"{r['decode_q1']} to {r['decode_q3']} | {r['vs_first']:.2f}x | "
                     f"{r['prompt_median']} |")  # fmt: skip
    c = result["config"]
    lines += ["", f"{c['prompts']} Seal-Tools prompts x {c['rounds']} rounds, max "
              f"{c['max_tokens']} new tokens, {c['threads']} threads, {result['date']}; "
              f"`python benchmarks/decode.py --prompts {c['prompts']} --rounds {c['rounds']} "
              f"--threads {c['threads']}{' --tuned' if c['tuned'] else ''}`"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--tuned", action="store_true", help="base vs the shipped tuned adapter")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    result = run(args)
    name = "decode-tuned" if args.tuned else "decode"
    write_results(args.out, name, result, markdown(result))


if __name__ == "__main__":
    main()
