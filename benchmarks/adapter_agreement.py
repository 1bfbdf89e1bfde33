"""llama.cpp vs transformers on a trained LoRA adapter: do the two engines serve the same model?

The same adapter runs in both: the PEFT folder on the dequantised base in transformers (fp32),
the exported GGUF LoRA on the unchanged Q4_1 base in llama.cpp. For each real prompt (ToolDEER
valid queries in the released format, the data the DEER adapter was trained for) it compares
the next-token distributions at every prompt position (top-1 agreement, mean and max |delta
log p| of the transformers top-1 token) and the greedy continuations (identical text, and the
length of the common prefix). The base model without adapter is measured the same way, as the
reference for what the quantised kernels alone change.

    python benchmarks/adapter_agreement.py --run runs/train/deer-20min --prompts 16
Writes benchmarks/results/adapter_agreement.json and .md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from _results import RESULTS, write_results


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def prompts(n: int, data_root: str | None) -> list[str]:
    """Released-format DEER prompts: the query, and the model's turn up to the pool."""
    from toollearn.evaluation.runners.deer import load_deer

    examples = load_deer("valid", data_root)
    step = max(1, len(examples) // n)
    return [e.query for e in examples[::step][:n]]


def compare(hf_engine, llama_engine, scorer, queries: list[str], max_tokens: int) -> dict:
    """scorer: (llama_cpp.Llama with logits_all, its AdapterSet) for the logits."""
    import torch

    from toollearn.core.types import Message

    llm, adapters = scorer
    adapters.apply(llm._ctx.ctx, llama_engine.active)
    top1, mean_d, max_d, same, prefix = [], [], [], 0, []
    for q in queries:
        chat = [Message("user", q)]
        text = hf_engine.render(chat)
        ids = hf_engine.tokenizer(text, add_special_tokens=False)["input_ids"]
        with torch.inference_mode(), hf_engine.adapters.using(hf_engine.active):
            h = hf_engine.model(input_ids=torch.tensor([ids])).logits[0].float().numpy()
        assert llm.tokenize(text.encode(), add_bos=False, special=True) == ids
        llm.reset()
        llm.eval(ids)
        lg = np.array(llm.scores[: len(ids)])
        a, b = log_softmax(h), log_softmax(lg)
        best = a.argmax(-1)
        top1.append(float((best == b.argmax(-1)).mean()))
        d = np.abs(a[np.arange(len(ids)), best] - b[np.arange(len(ids)), best])
        mean_d.append(float(d.mean()))
        max_d.append(float(d.max()))
        x = hf_engine.complete([chat], max_tokens=max_tokens)[0].text
        y = llama_engine.complete([chat], max_tokens=max_tokens)[0].text
        same += x == y
        prefix.append(len(os.path.commonprefix([x, y])) / max(1, len(x)))
    return {"prompts": len(queries), "top1_agreement": round(float(np.mean(top1)), 4),
            "mean_abs_dlogp": round(float(np.mean(mean_d)), 4),
            "max_abs_dlogp": round(float(np.max(max_d)), 3),
            "greedy_identical": same,
            "greedy_common_prefix": round(float(np.mean(prefix)), 3)}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", required=True, help="a training run (adapter/ and adapter.gguf)")
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=48)
    ap.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    ap.add_argument("--data-root", default=None)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    from toollearn.engines.hf import HFEngine
    from toollearn.engines.llama import LlamaEngine, embedded_model_path, load_llama
    from toollearn.engines.llama_adapters import AdapterSet
    from toollearn.training.export import export_lora_gguf

    run = Path(args.run)
    gguf = run / "adapter.gguf"
    if not gguf.is_file():
        export_lora_gguf(run / "adapter", gguf)
    queries = prompts(args.prompts, args.data_root)
    hf = HFEngine(embedded_model_path(), adapters={"tuned": run / "adapter"},
                  n_threads=args.threads)  # fmt: skip
    llama = LlamaEngine(adapters={"tuned": gguf}, n_threads=args.threads, n_seq=1)
    scorer = load_llama(embedded_model_path(), 2048, args.threads, logits_all=True)
    adapters = AdapterSet(scorer)
    adapters.load("tuned", gguf)
    rows = {name: compare(hf.with_adapter(name), llama.with_adapter(name), (scorer, adapters),
                          queries, args.max_tokens) for name in (None, "tuned")}  # fmt: skip
    lines = [f"llama.cpp (Q4_1 base + GGUF LoRA f16) vs transformers (fp32 dequantised base + "
             f"PEFT), adapter {run}, {args.prompts} ToolDEER valid prompts, greedy "
             f"{args.max_tokens} tokens", "",
             "| model | top-1 agreement (all prompt positions) | mean abs dlogp | max abs dlogp "
             "| greedy text identical | common prefix |", "|---|---|---|---|---|---|"]  # fmt: skip
    for name, r in rows.items():
        lines.append(f"| {'base' if name is None else 'base + adapter'} | "
                     f"{100 * r['top1_agreement']:.1f}% | {r['mean_abs_dlogp']:.4f} | "
                     f"{r['max_abs_dlogp']:.3f} | {r['greedy_identical']}/{r['prompts']} | "
                     f"{100 * r['greedy_common_prefix']:.0f}% |")  # fmt: skip
    result = {"run": str(run), "rows": {str(k): v for k, v in rows.items()}, "args": vars(args)}
    write_results(args.out, "adapter_agreement", result, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
