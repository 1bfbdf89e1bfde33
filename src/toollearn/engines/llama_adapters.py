"""GGUF LoRA adapters on a llama.cpp model: loaded once, switched per call on a context.

The base model stays as it is (the Q4_1 GGUF); each adapter is a small GGUF
(`training.export`). A named adapter may be a stack of files applied together (GLPFT's
stage-1 adapter under a role adapter: LoRA deltas add up, so this equals serving the merged
stage-1 weights). Switching sets the context's adapter list and forgets every cached prompt
prefix, so no KV cache computed under one adapter is reused under another.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import EngineError


class AdapterSet:
    """Named LoRA adapters (each one file or a stack of files) of one `llama_cpp.Llama`."""

    def __init__(self, llm: Any):
        self.llm = llm
        self.files: dict[Path, Any] = {}  # file -> llama.cpp adapter
        self.loaded: dict[str, list[Path]] = {}  # name -> the files applied together

    def _file(self, path: Path) -> Any:
        import llama_cpp

        if path not in self.files:
            if not path.is_file():
                raise EngineError(f"LoRA adapter not found: {path}")
            model = self.llm._model.model
            ptr = llama_cpp.llama_adapter_lora_init(model, str(path).encode("utf-8"))
            if not ptr:
                raise EngineError(f"llama.cpp could not load the LoRA adapter {path}")
            self.files[path] = ptr
        return self.files[path]

    def load(self, name: str, paths: str | Path | Sequence[str | Path]) -> None:
        """Register `name` as one GGUF LoRA or a stack of them (EngineError if refused)."""
        stack = [Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths)]
        if not stack:
            raise EngineError(f"adapter {name!r} names no file")
        for p in stack:
            self._file(p.resolve())
        self.loaded[name] = [p.resolve() for p in stack]

    def apply(self, ctx: Any, name: str | None) -> None:
        """Make `name`'s files (None: no adapter) the adapters of a llama.cpp context."""
        import llama_cpp

        if name is None:
            rc = llama_cpp.llama_set_adapters_lora(ctx, None, 0, None)
        else:
            if name not in self.loaded:
                raise EngineError(f"no adapter named {name!r}; loaded: {sorted(self.loaded)}")
            stack = self.loaded[name]
            ptrs = (llama_cpp.llama_adapter_lora_p_ctypes * len(stack))(
                *(self.files[p] for p in stack)
            )
            scales = (ctypes.c_float * len(stack))(*([1.0] * len(stack)))
            rc = llama_cpp.llama_set_adapters_lora(ctx, ptrs, len(stack), scales)
        if rc:
            raise EngineError(f"llama.cpp could not set the adapter {name!r} (code {rc})")

    def paths(self, name: str) -> list[Path]:
        return list(self.loaded[name])
