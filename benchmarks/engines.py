"""Engine benchmark: prompt and decode tokens/s per engine and per weight format, against the
processor's limit.

Measured in one run, interleaved, median over the prompts:
  raw llama_cpp on the shipped Q4_1 file (the library called directly: the baseline);
  toollearn's llama engine as it was (Q4_1 file, no flash attention) and as it is now (the
  default: prompts read by an F16 copy of the same weights, whose KV cache is handed to the
  Q4_1 file for decoding; also with flash attention on both), free and constrained with our
  Seal-Tools GBNF; one model of each weight type llama.cpp's quantizer makes of the same file
  (--weights), with and without flash attention; llama.cpp's own JSON-schema grammar;
  optionally the transformers engine (--hf).
Prompt rate = prompt tokens / time of a 1-token request; decode rate = (n - 1) / (time of the
full request - time of the 1-token request); no KV cache is reused between requests. The
prompts are real Seal-Tools evaluation prompts (bundled sample, 5 candidates each), sent as a
chat user turn. "same text" counts the prompts whose greedy output equals the old engine's.
Limit: the model's FLOPs per prompt token (matmuls over the prompt, causal attention at the
median prompt length) against the fp32 matmul peak measured in this run (torch, same threads).

    python benchmarks/engines.py --prompts 6 --threads 2 [--hf]
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
from toollearn.engines.llama import (
    EMBEDDED_PREFILL,
    FLASH_ATTN,
    LlamaEngine,
    cpu_weight_buffers,
    embedded_model_path,
    quiet_openmp,
)
from toollearn.engines.llama_weights import with_weights


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


Run = Callable[[object, int], tuple[int, int, str]]  # (example, max_tokens) -> counts, text


def measure(run: Callable[[int], tuple[int, int, str]], max_tokens: int) -> dict:
    """Time a 1-token and a full request; run(max_tokens) -> (prompt_tokens, new_tokens, text)."""
    t0 = time.perf_counter()
    n_prompt, _, _ = run(1)
    t1 = time.perf_counter()
    _, n_new, text = run(max_tokens)
    t2 = time.perf_counter()
    first, full = t1 - t0, t2 - t1
    decode = (n_new - 1) / (full - first) if n_new > 1 and full > first else float("nan")
    return {"prompt_tps": n_prompt / first, "decode_tps": decode, "new_tokens": n_new,
            "prompt_tokens": n_prompt, "text": text}  # fmt: skip


def matmul_peak_gflops(threads: int, seconds: float = 2.0) -> float:
    """Best fp32 GFLOP/s of a prompt-sized matmul (512 tokens x 576 -> 1536) on `threads`."""
    import torch

    torch.set_num_threads(threads)
    a, b = torch.randn(512, 576), torch.randn(576, 1536)
    flops, best, end = 2 * 512 * 576 * 1536, 0.0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        t = time.perf_counter()
        for _ in range(10):
            a @ b
        best = max(best, 10 * flops / (time.perf_counter() - t))
    return best / 1e9


def flops_per_prompt_token(meta: dict, n_prompt: int) -> float:
    """FLOPs per token of reading an n-token prompt: 2 x the layers' matmul weights, plus causal
    attention (QK^T and AV over the tokens before it, n/2 on average); the output head runs
    for the last token only."""
    d, ff = int(meta["llama.embedding_length"]), int(meta["llama.feed_forward_length"])
    layers, heads = int(meta["llama.block_count"]), int(meta["llama.attention.head_count"])
    kv = int(meta["llama.attention.head_count_kv"])
    weights = layers * (2 * d * d + 2 * d * (d * kv // heads) + 3 * d * ff)
    attention = layers * 4 * d * (n_prompt + 1) / 2
    return 2 * weights + attention


def variants(args) -> tuple[dict[str, Run], object]:
    """name -> run(example, max_tokens), and the baseline Llama (for the model's shape)."""
    quiet_openmp()  # before llama_cpp loads: the same setting for raw and engine
    import llama_cpp

    def raw_llama(weights: str, flash_attn: bool):
        path = with_weights(embedded_model_path(), weights)
        with cpu_weight_buffers(llama_cpp):  # the engine's buffers: raw and engine alike
            return llama_cpp.Llama(model_path=str(path), n_ctx=4096, n_threads=args.threads,
                                   n_threads_batch=args.threads, flash_attn=flash_attn,
                                   verbose=False)  # fmt: skip

    raw_old, raw_new = raw_llama("file", False), raw_llama(EMBEDDED_PREFILL, FLASH_ATTN)
    old = LlamaEngine(n_threads=args.threads, weights="file", flash_attn=False)
    new = LlamaEngine(n_threads=args.threads)  # the defaults
    slow = LlamaEngine(n_threads=args.threads, fast_grammar=False)

    def raw_call(raw, grammar=None) -> Run:
        def go(ex, n):
            raw.reset()  # no KV reuse: every request evaluates its prompt
            text = new.render(user(ex.metadata["prompt"]))
            g = grammar(ex) if grammar else None
            r = raw.create_completion(
                text, max_tokens=n, temperature=0.0, top_k=1, repeat_penalty=1.0, grammar=g
            )
            u = r["usage"]
            return u["prompt_tokens"], u["completion_tokens"], r["choices"][0]["text"]

        return go

    def engine_call(engine, constrained) -> Run:
        def go(ex, n):
            for llm in (getattr(engine, "llm", None), getattr(engine, "reader", None)):
                if llm is not None:
                    getattr(llm, "llm", llm).reset()
            c = seal_calls_constraint(ex.tools, allow_empty=False) if constrained else None
            comp = engine.complete([user(ex.metadata["prompt"])], max_tokens=n, constraint=c)[0]
            return comp.prompt_tokens, comp.completion_tokens, comp.text

        return go

    schema = lambda ex: llama_cpp.LlamaGrammar.from_json_schema(seal_json_schema(ex.tools))  # noqa: E731
    fa = ", flash attn" if FLASH_ATTN else ""
    default = f"{EMBEDDED_PREFILL} reads, Q4_1 file decodes{fa}"
    other_fa = LlamaEngine(n_threads=args.threads, flash_attn=not FLASH_ATTN)
    out: dict[str, Run] = {
        "raw llama_cpp, Q4_1 file (baseline)": raw_call(raw_old),
        "toollearn llama before (Q4_1 file)": engine_call(old, False),
        f"toollearn llama default ({default})": engine_call(new, False),
        f"toollearn llama, {EMBEDDED_PREFILL} reads, Q4_1 file decodes"
        f"{'' if fa else ', flash attn'}": engine_call(other_fa, False),
        f"raw llama_cpp, {EMBEDDED_PREFILL}{fa}": raw_call(raw_new),
    }
    for weights in args.weights.split(","):
        for fa in (False, True):
            if (weights, fa) == ("file", False):  # the engine before
                continue
            eng = LlamaEngine(n_threads=args.threads, weights=weights, flash_attn=fa)
            name = "Q4_1 file" if weights == "file" else weights
            out[f"toollearn llama, {name}{', flash attn' if fa else ''}"] = engine_call(eng, False)
    out |= {
        "raw llama_cpp + JSON-schema grammar, Q4_1 file": raw_call(raw_old, schema),
        "toollearn llama before + seal GBNF": engine_call(old, True),
        "toollearn llama default + seal GBNF (library sampler)": engine_call(slow, True),
        "toollearn llama default + seal GBNF": engine_call(new, True),
    }
    if args.hf:
        from toollearn.engines import load_engine

        for dtype in args.hf_dtypes.split(","):
            hf = load_engine(f"hf:{embedded_model_path()}", dtype=dtype, n_threads=args.threads)
            out[f"toollearn hf {dtype}"] = engine_call(hf, False)
            out[f"toollearn hf {dtype} + seal GBNF (llguidance)"] = engine_call(hf, True)
    return out, raw_old


def run(args) -> dict:
    examples = load_examples("sample/seal-tools-prompts/test_in_domain")
    examples = examples[:: max(1, len(examples) // args.prompts)][: args.prompts]
    fns, raw = variants(args)
    rows: dict[str, list[dict]] = {name: [] for name in fns}
    for ex in examples:  # interleaved, so load changes hit every variant alike
        for name, fn in fns.items():
            rows[name].append(measure(lambda n, fn=fn, ex=ex: fn(ex, n), args.max_tokens))
    peak = matmul_peak_gflops(args.threads)
    n_prompt = statistics.median(r["prompt_tokens"] for r in rows[next(iter(rows))])
    flops = flops_per_prompt_token(raw.metadata, int(n_prompt))
    limit = peak * 1e9 / flops
    base = rows["raw llama_cpp, Q4_1 file (baseline)"]
    before = rows["toollearn llama before (Q4_1 file)"]
    before_c = rows["toollearn llama before + seal GBNF"]
    base_prompt = statistics.median(r["prompt_tps"] for r in base)
    base_decode = statistics.median(r["decode_tps"] for r in base)
    table = []
    for name, rs in rows.items():
        ref = before_c if "GBNF" in name or "grammar" in name else before
        prompt = statistics.median(r["prompt_tps"] for r in rs)
        dec = statistics.median(r["decode_tps"] for r in rs)
        table.append(
            {
                "engine": name,
                "prompt_tps": round(prompt, 1),
                "prompt_vs_raw": round(prompt / base_prompt, 2),
                "prompt_of_limit": round(prompt / limit, 3),
                "decode_tps": round(dec, 1),
                "decode_vs_raw": round(dec / base_decode, 2),
                "new_tokens_median": statistics.median(r["new_tokens"] for r in rs),
                "same_text_as_before": sum(a["text"] == b["text"] for a, b in zip(rs, ref)),
            }
        )
    return {
        "config": vars(args),
        "machine": platform.platform(),
        "limit": {"fp32_matmul_peak_gflops": round(peak, 1), "prompt_tokens_median": n_prompt,
                  "flops_per_prompt_token": round(flops), "prompt_tps_limit": round(limit, 1)},
        "rows": table,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }  # fmt: skip


def markdown(result: dict) -> str:
    lim, cfg = result["limit"], result["config"]
    n = cfg["prompts"]
    lines = [
        "| engine | prompt tok/s | vs raw | of limit | decode tok/s | vs raw "
        f"| new tokens (median) | same text as before (of {n}) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['engine']} | {r['prompt_tps']} | {r['prompt_vs_raw']:.2f}x | "
            f"{100 * r['prompt_of_limit']:.0f}% | {r['decode_tps']} | {r['decode_vs_raw']:.2f}x | "
            f"{r['new_tokens_median']} | {r['same_text_as_before']} |"
        )
    lines.append(
        f"\nLimit: {lim['flops_per_prompt_token'] / 1e6:.0f} MFLOP per prompt token "
        f"(median prompt {lim['prompt_tokens_median']:.0f} tokens) against a measured fp32 "
        f"matmul peak of {lim['fp32_matmul_peak_gflops']} GFLOP/s on {cfg['threads']} threads "
        f"= {lim['prompt_tps_limit']} prompt tokens/s. {n} Seal-Tools prompts, max "
        f"{cfg['max_tokens']} new tokens, {result['when']}; `python benchmarks/engines.py "
        f"--prompts {n} --max-tokens {cfg['max_tokens']} --threads {cfg['threads']}"
        f"{' --hf --hf-dtypes ' + cfg['hf_dtypes'] if cfg['hf'] else ''}`"
    )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prompts", type=int, default=6)
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--weights", default="file,f16,q8_0,q4_0",
                   help="weight types to sweep (with and without flash attention)")  # fmt: skip
    p.add_argument("--hf", action="store_true", help="also the transformers engine")
    p.add_argument("--hf-dtypes", default="float32,bfloat16",
                   help="its dtypes (bfloat16 is slow without CPU bf16)")  # fmt: skip
    p.add_argument("--out", default=str(RESULTS))
    args = p.parse_args()
    result = run(args)
    write_results(args.out, "engines", result, markdown(result))


if __name__ == "__main__":
    main()
