"""A GGUF model with LoRA adapters merged into its weights, made once and cached.

llama.cpp applies a runtime LoRA as extra matrix products beside every adapted weight; with a
rank-16 adapter on all seven projections of SmolLM2-135M that costs about a third of the decode
speed (`benchmarks/decode.py --tuned`). Merged weights cost nothing at run time: each adapted
weight becomes W + (alpha / r) * B @ A (the same sum the runtime adapter computes), written
in F16 beside the untouched tensors, and the engine then converts that file to the weight types
it runs (`llama_weights`: Q4_1 to generate, F16 to read prompts, as for the plain model). The
merged file's name carries the identities of the base and of every adapter, so changing any of
them makes a new one. Converting it to a 4-bit type rounds the merged weights once more: see
`benchmarks/decode.py --tuned` for speed and `tests/engines/test_llama_merge.py` for agreement.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import EngineError
from toollearn.engines.provenance import cache_dir, file_key


def merged_path(base: Path, adapters: Sequence[Path]) -> Path:
    """Where `base` with `adapters` merged lives (made or not)."""
    keys = "+".join(file_key(Path(a)) for a in adapters)
    return cache_dir("gguf") / f"{base.stem}-{file_key(base)}+{keys}.merged.F16.gguf"


def with_merged(base: str | Path, adapters: Sequence[str | Path]) -> Path:
    """`base` with the GGUF LoRA `adapters` merged into its weights (cached; made if missing)."""
    base, stack = Path(base), [Path(a) for a in adapters]
    for p in (base, *stack):
        if not p.is_file():
            raise EngineError(f"cannot merge: {p} not found")
    if not stack:
        return base
    target = merged_path(base, stack)
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        merge(base, stack, target)
    return target


def lora_parts(adapter: Path) -> tuple[dict[str, tuple[Any, Any]], float | None]:
    """({base tensor name: (A as float32 r x in, B as float32 out x r)}, alpha or None) of a
    GGUF LoRA."""
    import numpy as np
    from gguf import GGUFReader

    reader = GGUFReader(adapter)
    kind = reader.get_field("adapter.type")
    if kind is None or kind.contents() != "lora":
        raise EngineError(f"{adapter} is not a GGUF LoRA adapter (adapter.type != lora)")
    alpha_field = reader.get_field("adapter.lora.alpha")
    parts: dict[str, dict[str, Any]] = {}
    for t in reader.tensors:
        name, _, part = t.name.rpartition(".")
        if part not in ("lora_a", "lora_b"):
            raise EngineError(f"{adapter}: unexpected tensor {t.name}")
        parts.setdefault(name, {})[part] = np.asarray(t.data, dtype=np.float32)
    pairs = {}
    for name, ab in parts.items():
        if set(ab) != {"lora_a", "lora_b"}:
            raise EngineError(f"{adapter}: {name} lacks lora_a or lora_b")
        pairs[name] = (ab["lora_a"], ab["lora_b"])
    return pairs, float(alpha_field.contents()) if alpha_field is not None else None


def lora_scale(alpha: float | None, rank: int) -> float:
    """llama.cpp's scale of a LoRA tensor pair: alpha / r (1 when the file sets no alpha)."""
    return alpha / rank if alpha is not None else 1.0


def lora_deltas(adapter: Path) -> dict[str, Any]:
    """{base tensor name: (alpha / r) * B @ A as float32 (out x in)} of a GGUF LoRA."""
    pairs, alpha = lora_parts(adapter)
    return {name: lora_scale(alpha, a.shape[0]) * (b @ a) for name, (a, b) in pairs.items()}


def merge(base: Path, adapters: Sequence[Path], target: Path) -> None:
    """Write `base` with the GGUF LoRA `adapters` merged (atomically: no partial file)."""
    deltas: dict[str, Any] = {}
    for adapter in adapters:
        for name, delta in lora_deltas(adapter).items():
            deltas[name] = deltas[name] + delta if name in deltas else delta
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        write_merged(base, deltas, tmp)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(target)


def write_merged(base: Path, deltas: dict[str, Any], out: Path, dtype: str = "f16") -> Path:
    """`base` with `deltas` ({tensor name: float32 out x in}) added: every metadata field and
    untouched tensor copied as it is, each changed weight dequantised, summed and written as
    f16 or q8_0 (a small adapter's deltas can fall below q8_0's rounding, so f16 by default)."""
    import gguf
    import numpy as np

    reader = gguf.GGUFReader(base)
    missing = sorted(set(deltas) - {t.name for t in reader.tensors})
    if missing:
        raise EngineError(f"the adapters adapt tensors {base.name} lacks: {missing[:3]}")
    arch = str(reader.fields["general.architecture"].contents())
    writer = gguf.GGUFWriter(out, arch=arch)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        sub = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), field.types[0], sub_type=sub)
    qtype = gguf.GGMLQuantizationType.Q8_0 if dtype == "q8_0" else gguf.GGMLQuantizationType.F16
    for t in reader.tensors:
        if t.name not in deltas:
            writer.add_tensor(t.name, t.data, raw_shape=t.data.shape, raw_dtype=t.tensor_type)
            continue
        merged = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32)
        if deltas[t.name].shape != merged.shape:
            raise EngineError(
                f"{t.name}: adapter shape {deltas[t.name].shape} != base {merged.shape}"
            )
        merged += deltas[t.name]
        if qtype == gguf.GGMLQuantizationType.F16:
            writer.add_tensor(t.name, merged.astype(np.float16))
        else:
            data = gguf.quants.quantize(merged, qtype)
            writer.add_tensor(t.name, data, raw_shape=data.shape, raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out
