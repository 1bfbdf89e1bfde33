"""GGUF LoRA adapters on a llama.cpp model: loaded once, switched per call on a context.

The base model stays as it is (the Q4_1 GGUF); each adapter is a small GGUF
(`training.export`). Switching sets the context's adapter list and forgets every cached prompt
prefix, so no KV cache computed under one adapter is reused under another.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

from toollearn.core.errors import EngineError


class AdapterSet:
    """Named LoRA adapters of one loaded `llama_cpp.Llama` model."""

    def __init__(self, llm: Any):
        self.llm = llm
        self.loaded: dict[str, tuple[Any, Path, float]] = {}

    def load(self, name: str, path: str | Path, scale: float = 1.0) -> None:
        """Load a GGUF LoRA under `name` (EngineError if llama.cpp refuses it)."""
        import llama_cpp

        path = Path(path)
        if not path.is_file():
            raise EngineError(f"LoRA adapter not found: {path}")
        if name in self.loaded:
            return
        ptr = llama_cpp.llama_adapter_lora_init(self.llm._model.model, str(path).encode("utf-8"))
        if not ptr:
            raise EngineError(f"llama.cpp could not load the LoRA adapter {path}")
        self.loaded[name] = (ptr, path, scale)

    def apply(self, ctx: Any, name: str | None) -> None:
        """Make `name` (None: no adapter) the only adapter of a llama.cpp context."""
        import llama_cpp

        if name is None:
            rc = llama_cpp.llama_set_adapters_lora(ctx, None, 0, None)
        else:
            if name not in self.loaded:
                raise EngineError(f"no adapter named {name!r}; loaded: {sorted(self.loaded)}")
            ptr, _, scale = self.loaded[name]
            adapters = (llama_cpp.llama_adapter_lora_p_ctypes * 1)(ptr)
            scales = (ctypes.c_float * 1)(scale)
            rc = llama_cpp.llama_set_adapters_lora(ctx, adapters, 1, scales)
        if rc:
            raise EngineError(f"llama.cpp could not set the adapter {name!r} (code {rc})")

    def path(self, name: str) -> Path:
        return self.loaded[name][1]
