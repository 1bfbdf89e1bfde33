"""Other weight types of a GGUF model, made by llama.cpp's own quantizer and cached.

The embedded SmolLM2 ships as Q4_1, which llama.cpp's CPU backend multiplies with its generic
kernels; F16, Q8_0 and Q4_0 copies of the same weights go through its tiled (llamafile) and
repacked kernels and read prompts about twice as fast (`benchmarks/engines.py`). A copy is made
once (`llama_model_quantize`, under a second) into $TOOLLEARN_CACHE/gguf and reused; its name
carries the source file's identity, so a changed source makes a new copy.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

from toollearn.core.errors import EngineError
from toollearn.engines.provenance import cache_dir, file_key

# llama.cpp's file types (enum llama_ftype) that toollearn offers
FTYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q8_0": 7, "q5_0": 8, "q5_1": 9, "bf16": 32}
AS_SHIPPED = "file"  # keep the GGUF as it is


def converted_path(source: Path, weights: str) -> Path:
    """Where the `weights` copy of `source` lives (made or not)."""
    return cache_dir("gguf") / f"{source.stem}-{file_key(source)}.{weights.upper()}.gguf"


def with_weights(source: str | Path, weights: str | None) -> Path:
    """`source` itself (weights None or "file"), else its copy in that type, made if missing.

    Converting from an already quantized file re-quantizes: to f16/bf16/f32/q8_0 this keeps the
    weights (to rounding), to 4- or 5-bit types it adds a second rounding error.
    """
    source = Path(source)
    if weights in (None, AS_SHIPPED):
        return source
    wtype = weights.lower()
    if wtype not in FTYPES:
        raise EngineError(
            f"unknown weight type {weights!r}; use {AS_SHIPPED!r} or one of {sorted(FTYPES)}"
        )
    target = converted_path(source, wtype)
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    quantize(source, target, FTYPES[wtype])
    return target


def quantize(source: Path, target: Path, ftype: int) -> None:
    """llama_model_quantize source -> target (atomically: a partial file is never left)."""
    import llama_cpp
    from llama_cpp._utils import suppress_stdout_stderr

    from toollearn.engines.llama import default_threads

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.allow_requantize = True
    params.nthread = default_threads()
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    with suppress_stdout_stderr(disable=False):
        rc = llama_cpp.llama_model_quantize(
            str(source).encode(), str(tmp).encode(), ctypes.byref(params)
        )
    if rc != 0 or not tmp.is_file():
        tmp.unlink(missing_ok=True)
        raise EngineError(f"llama.cpp could not convert {source} (llama_model_quantize -> {rc})")
    tmp.replace(target)
