"""Export a trained PEFT LoRA adapter as a GGUF LoRA for llama.cpp (the official `gguf` writer).

llama.cpp's LoRA format: `general.type = "adapter"`, `adapter.type = "lora"`,
`adapter.lora.alpha`, and per adapted weight two tensors named after the base GGUF's tensor,
`<name>.lora_a` (rank x in) and `<name>.lora_b` (out x rank). llama.cpp's converter stores the
Q and K projections of Llama models with their rows permuted (the rotary halves interleaved),
and transformers undoes that when it reads a GGUF, so the B matrices of `q_proj` and `k_proj`
are permuted back here; A matrices are unchanged. `import_lora_gguf` reads such a file back
into a PEFT adapter folder, so a shipped adapter can be trained further (`init_adapter`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError

_MODULES = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
            "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
            "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
            "mlp.down_proj": "ffn_down"}  # fmt: skip
_KEY = re.compile(r"layers\.(\d+)\.(self_attn\.\w+|mlp\.\w+)\.lora_([AB])\.weight$")


def permute_rows(weight: Any, n_head: int) -> Any:
    """llama.cpp's Q/K row order (`convert_hf_to_gguf.LlamaModel.permute`) for a matrix whose
    rows are the projection's outputs."""
    rows = weight.shape[0]
    return (weight.reshape(n_head, 2, rows // n_head // 2, *weight.shape[1:])
            .swapaxes(1, 2).reshape(weight.shape))  # fmt: skip


def unpermute_rows(weight: Any, n_head: int) -> Any:
    """The inverse of `permute_rows`: llama.cpp's Q/K row order back to transformers'."""
    rows = weight.shape[0]
    return (weight.reshape(n_head, rows // n_head // 2, 2, *weight.shape[1:])
            .swapaxes(1, 2).reshape(weight.shape))  # fmt: skip


def gguf_lora_tensors(adapter_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """({gguf tensor name: float32 numpy array}, adapter config) of a PEFT adapter folder."""
    import numpy as np
    from safetensors.numpy import load_file

    config = json.loads((adapter_dir / "adapter_config.json").read_text())
    if config.get("use_rslora") or config.get("use_dora"):
        raise DataError("rsLoRA and DoRA adapters have no llama.cpp LoRA form", str(adapter_dir))
    base_config = _base_config(config)
    n_head = base_config["num_attention_heads"]
    n_kv = base_config.get("num_key_value_heads") or n_head
    weights = load_file(str(adapter_dir / "adapter_model.safetensors"))
    out: dict[str, Any] = {}
    for key, value in weights.items():
        m = _KEY.search(key)
        if not m:
            raise DataError(f"cannot map adapter tensor {key!r} to llama.cpp", str(adapter_dir))
        layer, module, part = int(m.group(1)), m.group(2), m.group(3)
        if module not in _MODULES:
            raise DataError(f"no llama.cpp tensor for {module}", str(adapter_dir))
        array = value.astype(np.float32)
        if part == "B" and module == "self_attn.q_proj":
            array = permute_rows(array, n_head)
        elif part == "B" and module == "self_attn.k_proj":
            array = permute_rows(array, n_kv)
        out[f"blk.{layer}.{_MODULES[module]}.weight.lora_{part.lower()}"] = array
    return out, config


def import_lora_gguf(gguf_file: str | Path, out: str | Path, base: str | Path) -> Path:
    """A llama.cpp GGUF LoRA (as `export_lora_gguf` writes it) as a PEFT adapter folder over the
    Hugging Face model folder `base` (its config gives the heads for the Q/K rows); the rank,
    alpha and targets are the file's. Returns `out`."""
    import numpy as np
    from peft import LoraConfig
    from safetensors.numpy import save_file

    from toollearn.engines.llama_merge import lora_parts

    pairs, alpha = lora_parts(Path(gguf_file))
    base_config = json.loads((Path(base) / "config.json").read_text())
    n_head = base_config["num_attention_heads"]
    n_kv = base_config.get("num_key_value_heads") or n_head
    shape = _lora_shape(pairs, alpha)
    if not isinstance(shape["r"], int):
        raise DataError(f"a GGUF LoRA of one rank is needed, not {shape['r']}", str(gguf_file))
    modules = {short: long for long, short in _MODULES.items()}
    weights = {}
    for name, (a, b) in pairs.items():
        m = re.fullmatch(r"blk\.(\d+)\.(\w+)\.weight", name)
        if m is None or m.group(2) not in modules:
            raise DataError(f"no transformers module for the LoRA tensor {name!r}", str(gguf_file))
        module = modules[m.group(2)]
        if module == "self_attn.q_proj":
            b = unpermute_rows(b, n_head)
        elif module == "self_attn.k_proj":
            b = unpermute_rows(b, n_kv)
        key = f"base_model.model.model.layers.{m.group(1)}.{module}"
        weights[f"{key}.lora_A.weight"] = np.ascontiguousarray(a, dtype=np.float32)
        weights[f"{key}.lora_B.weight"] = np.ascontiguousarray(b, dtype=np.float32)
    out = Path(out)
    config = LoraConfig(**shape, lora_dropout=0.0, task_type="CAUSAL_LM",
                        base_model_name_or_path=str(base))  # fmt: skip
    config.save_pretrained(str(out))
    save_file(weights, str(out / "adapter_model.safetensors"))
    return out


def gguf_lora_shape(gguf_file: str | Path) -> dict[str, Any]:
    """{"r", "lora_alpha", "target_modules"} of a GGUF LoRA (what `init_adapter` checks)."""
    from toollearn.engines.llama_merge import lora_parts

    return _lora_shape(*lora_parts(Path(gguf_file)))


def _lora_shape(pairs: dict[str, Any], alpha: float | None) -> dict[str, Any]:
    """The rank (a sorted list where the pairs differ), alpha (the rank where the file sets
    none) and targets of GGUF LoRA pairs (`engines.llama_merge.lora_parts`)."""
    modules = {short: long.split(".")[1] for long, short in _MODULES.items()}
    ranks = {a.shape[0] for a, _ in pairs.values()}
    rank = ranks.pop() if len(ranks) == 1 else sorted(ranks)
    alpha = rank if alpha is None else int(alpha) if float(alpha).is_integer() else alpha
    return {"r": rank, "lora_alpha": alpha,
            "target_modules": sorted({modules.get(n.split(".")[2], n) for n in pairs})}  # fmt: skip


def _base_config(adapter_config: dict[str, Any]) -> dict[str, Any]:
    """The base model's config.json (heads for the Q/K permutation)."""
    base = adapter_config.get("base_model_name_or_path") or ""
    path = Path(base) / "config.json"
    if not path.is_file():
        raise DataError("the adapter's base model folder (config.json) is not found", base)
    return json.loads(path.read_text())


def export_lora_gguf(adapter_dir: str | Path, out: str | Path, dtype: str = "f16") -> Path:
    """Write the adapter as a llama.cpp GGUF LoRA (f16 or f32 tensors); returns its path."""
    import numpy as np

    adapter_dir, out = Path(adapter_dir), Path(out)
    if not (adapter_dir / "adapter_model.safetensors").is_file():
        raise DataError("not a PEFT adapter folder (adapter_model.safetensors)", str(adapter_dir))
    tensors, config = gguf_lora_tensors(adapter_dir)
    cast = np.float16 if dtype == "f16" else np.float32
    tensors = {name: array.astype(cast) for name, array in tensors.items()}
    return write_lora_gguf(out, float(config["lora_alpha"]), tensors)


def write_lora_gguf(out: Path, alpha: float, tensors: dict[str, Any],
                    strings: dict[str, str] | None = None) -> Path:  # fmt: skip
    """A llama.cpp GGUF LoRA file: its alpha, the `<weight>.lora_a/b` tensors as given and any
    extra string fields; returns its path."""
    import gguf

    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(out), "llama")
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", alpha)
    for key, value in (strings or {}).items():
        writer.add_string(key, value)
    for name in sorted(tensors):
        writer.add_tensor(name, tensors[name])
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out


def export_merged_gguf(
    base_gguf: str | Path,
    adapter_dirs: str | Path | Sequence[str | Path],
    out: str | Path,
    dtype: str = "f16",
) -> Path:
    """The base GGUF with PEFT LoRA adapters merged into its weights (several: a stack, e.g.
    GLPFT's stage-1 + role adapter), each adapted weight written as f16 or q8_0
    (`engines.llama_merge.write_merged`). A small adapter's deltas can fall below q8_0's
    rounding (measured: a few steps of training gave deltas of 1e-4 against a q8_0 error of
    1e-3), so f16 is the default; serving the adapter on the unchanged base (llama.cpp applies
    several adapters at once) loses nothing."""
    from toollearn.engines.llama_merge import write_merged

    if isinstance(adapter_dirs, (str, Path)):
        adapter_dirs = [adapter_dirs]
    deltas: dict[str, Any] = {}  # tensor -> sum of scale * B @ A (llama.cpp's row order)
    for adapter_dir in adapter_dirs:
        tensors, config = gguf_lora_tensors(Path(adapter_dir))
        scale = float(config["lora_alpha"]) / float(config["r"])
        for name in tensors:
            if name.endswith(".lora_a"):
                base = name.removesuffix(".lora_a")
                delta = scale * (tensors[f"{base}.lora_b"] @ tensors[name])
                deltas[base] = deltas[base] + delta if base in deltas else delta
    return write_merged(Path(base_gguf), deltas, Path(out), dtype)


def mix_lora_gguf(adapters: Sequence[tuple[str | Path, float]], out: str | Path) -> Path:
    """One GGUF LoRA whose delta is the weighted sum of the adapters' deltas, sum w * (alpha / r)
    * B @ A, exactly: the ranks are concatenated (PEFT's `add_weighted_adapter` with
    `combination_type="cat"`), each adapter's weight and scale folded into its B rows. Two
    adapters trained on the same base at weights 0.5 / 0.5 give their average; the file records
    its sources and weights (`toollearn.mix`). Returns its path."""
    import numpy as np

    from toollearn.engines.llama_merge import lora_parts, lora_scale
    from toollearn.engines.provenance import sha256_file

    if not adapters:
        raise DataError("a mix needs at least one adapter")
    blocks: dict[str, list[tuple[Any, Any]]] = {}  # tensor -> [(A, scaled B)]
    sources = []
    for path, weight in adapters:
        path = Path(path)
        if not path.is_file():
            raise DataError("adapter not found", str(path))
        pairs, alpha = lora_parts(path)
        for name, (a, b) in pairs.items():
            blocks.setdefault(name, []).append((a, b * (weight * lora_scale(alpha, a.shape[0]))))
        sources.append({"file": str(path), "sha256": sha256_file(path), "weight": weight})
    ranks = {name: sum(a.shape[0] for a, _ in parts) for name, parts in blocks.items()}
    alpha = float(max(ranks.values()))  # llama.cpp scales each pair by alpha / its rank
    tensors = {}
    for name, parts in blocks.items():
        a = np.concatenate([a for a, _ in parts], axis=0)
        b = np.concatenate([b for _, b in parts], axis=1) * (ranks[name] / alpha)
        tensors[f"{name}.lora_a"], tensors[f"{name}.lora_b"] = (a.astype(np.float16),
                                                                b.astype(np.float16))  # fmt: skip
    return write_lora_gguf(Path(out), alpha, tensors, {"toollearn.mix": json.dumps(sources)})
