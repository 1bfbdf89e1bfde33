"""A small random model of SmolLM2's shape (2 layers of width 64) with the embedded model's
tokenizer, for checking `accelerate.sh` in one short call (9.6 MiB):
    .venv/bin/python recipes/general-135m-gpu/tiny_model.py gpu-stage/tiny
It trains nothing worth keeping: only whether a configuration trains and exports."""

from __future__ import annotations

import sys

import torch
from transformers import AutoModelForCausalLM

from toollearn.engines.hf import load_hf
from toollearn.engines.llama import embedded_model_path


def main(out: str) -> None:
    model, tok = load_hf(embedded_model_path())  # the embedded GGUF as a HF model (cached)
    config = model.config
    config.update({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16})  # fmt: skip
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).save_pretrained(out)
    tok.save_pretrained(out)


if __name__ == "__main__":
    main(sys.argv[1])
