"""Engine benchmark: prompt and decode tokens/s of each engine on the embedded model.

Measured in one run, interleaved, median over the prompts:
  raw llama_cpp (the library called directly: the baseline), toollearn's llama engine free,
  constrained with our Seal-Tools GBNF (fast argmax-first path and the library's sampler),
  llama.cpp's own JSON-schema grammar for the same answers, and (optional) the transformers
  engine (float32 / bfloat16, llguidance constraint) and the HTTP engine over llama_cpp.server.
Prompt rate = prompt tokens / time of a 1-token request; decode rate = (n - 1) / (time of the
full request - time of the 1-token request). The prompts are real Seal-Tools evaluation prompts
(bundled sample, 5 candidates each), sent as a chat user turn.

    python benchmarks/engines.py --prompts 6 --threads 2 [--hf] [--http]
Writes benchmarks/results/engines.json and engines.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable

from _results import RESULTS, write_results

from toollearn.data.registry import load_examples
from toollearn.decoding.seal_tools import seal_calls_constraint
from toollearn.engines import user
from toollearn.engines.llama import LlamaEngine, embedded_model_path, quiet_openmp


def seal_json_schema(tools) -> str:
    """A JSON Schema for the same call lists (what llama.cpp's schema converter gets)."""
    items = []
    for t in tools:
        params = {
            "type": "object",
            "properties": {k: {"type": v.get("type", "string")} for k, v in t.properties.items()},
            "required": t.required,
            "additionalProperties": False,
        }
        items.append(
            {
                "type": "object",
                "properties": {
                    "api": {"const": t.name},
                    "parameters": params,
                    "responses": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["api", "parameters", "responses"],
                "additionalProperties": False,
            }
        )
    return json.dumps({"type": "array", "items": {"anyOf": items}, "minItems": 1})


def measure(run: Callable[[int], tuple[int, int]], max_tokens: int) -> dict:
    """Time a 1-token and a full request; run(max_tokens) -> (prompt_tokens, new_tokens)."""
    t0 = time.perf_counter()
    n_prompt, _ = run(1)
    t1 = time.perf_counter()
    _, n_new = run(max_tokens)
    t2 = time.perf_counter()
    first, full = t1 - t0, t2 - t1
    decode = (n_new - 1) / (full - first) if n_new > 1 and full > first else float("nan")
    return {"prompt_tps": n_prompt / first, "decode_tps": decode, "new_tokens": n_new}


def variants(args, examples) -> dict[str, Callable]:
    """name -> function(example, max_tokens) -> (prompt_tokens, new_tokens)."""
    quiet_openmp()  # before llama_cpp loads: the same setting for raw and engine
    import llama_cpp

    path = str(embedded_model_path())
    raw = llama_cpp.Llama(
        model_path=path,
        n_ctx=4096,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        verbose=False,
    )
    eng = LlamaEngine(n_threads=args.threads)
    slow = LlamaEngine(n_threads=args.threads, fast_grammar=False)
    for e in (raw, eng.llm):
        e.reset()

    def raw_call(grammar=None):
        def go(ex, n):
            raw.reset()  # no KV reuse: every request evaluates its prompt
            text = eng.render(user(ex.metadata["prompt"]))
            g = grammar(ex) if grammar else None
            r = raw.create_completion(
                text, max_tokens=n, temperature=0.0, top_k=1, repeat_penalty=1.0, grammar=g
            )
            return r["usage"]["prompt_tokens"], r["usage"]["completion_tokens"]

        return go

    def engine_call(engine, constrained, fresh=lambda: None):
        def go(ex, n):
            engine.llm.reset() if hasattr(engine, "llm") else fresh()
            c = seal_calls_constraint(ex.tools, allow_empty=False) if constrained else None
            comp = engine.complete([user(ex.metadata["prompt"])], max_tokens=n, constraint=c)[0]
            return comp.prompt_tokens, comp.completion_tokens

        return go

    schema = lambda ex: llama_cpp.LlamaGrammar.from_json_schema(seal_json_schema(ex.tools))  # noqa: E731
    out = {
        "raw llama_cpp (baseline)": raw_call(),
        "toollearn llama": engine_call(eng, False),
        "raw llama_cpp + JSON-schema grammar": raw_call(schema),
        "toollearn llama + seal GBNF (library sampler)": engine_call(slow, True),
        "toollearn llama + seal GBNF (fast path)": engine_call(eng, True),
    }
    if args.hf:
        from toollearn.engines import load_engine

        for dtype in ("float32", "bfloat16"):
            hf = load_engine(f"hf:{embedded_model_path()}", dtype=dtype, n_threads=args.threads)
            out[f"toollearn hf {dtype}"] = engine_call(hf, False)
            out[f"toollearn hf {dtype} + seal GBNF (llguidance)"] = engine_call(hf, True)
    return out


def run(args) -> dict:
    examples = load_examples("sample/seal-tools-prompts/test_in_domain")
    examples = examples[:: max(1, len(examples) // args.prompts)][: args.prompts]
    fns = variants(args, examples)
    rows = {name: [] for name in fns}
    for ex in examples:  # interleaved, so load changes hit every variant alike
        for name, fn in fns.items():
            rows[name].append(measure(lambda n, fn=fn, ex=ex: fn(ex, n), args.max_tokens))
    base = statistics.median(r["decode_tps"] for r in rows["raw llama_cpp (baseline)"])
    table = []
    for name, rs in rows.items():
        dec = statistics.median(r["decode_tps"] for r in rs)
        table.append(
            {
                "engine": name,
                "prompt_tps": round(statistics.median(r["prompt_tps"] for r in rs), 1),
                "decode_tps": round(dec, 1),
                "vs_raw_decode": round(dec / base, 3),
                "new_tokens_median": statistics.median(r["new_tokens"] for r in rs),
            }
        )
    return {
        "config": vars(args),
        "machine": platform.platform(),
        "rows": table,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def markdown(result: dict) -> str:
    lines = [
        "| engine | prompt tok/s | decode tok/s | decode vs raw | new tokens (median) |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['engine']} | {r['prompt_tps']} | {r['decode_tps']} | "
            f"{r['vs_raw_decode']:.2f} | {r['new_tokens_median']} |"
        )
    cfg = result["config"]
    lines.append(
        f"\n{cfg['prompts']} Seal-Tools prompts, max {cfg['max_tokens']} new tokens, "
        f"{cfg['threads']} threads, {result['when']}; `python benchmarks/engines.py "
        f"--prompts {cfg['prompts']} --max-tokens {cfg['max_tokens']} --threads {cfg['threads']}"
        f"{' --hf' if cfg['hf'] else ''}`"
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--hf", action="store_true", help="also the transformers engine")
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    result = run(args)
    write_results(args.out, "engines", result, markdown(result))


if __name__ == "__main__":
    main()
