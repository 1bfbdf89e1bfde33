"""`TrainConfig`: one dataclass for a training run, read from YAML, overridden by flags (TRL
style: every field is a flag of `toollearn train`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError

GLPFT_MODES = ("glpft", "direct", "joint", "single")  # alpha-UMi training (training.glpft)
GLPFT_STAGES = ("single", "planner", "caller", "summarizer", "joint")
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass
class TrainConfig:
    """What to train, on what, for how long, and where the run goes.

    model: "embedded" (the packaged SmolLM2-135M GGUF, dequantised once and cached), a GGUF
    file, or a Hugging Face model folder. datasets: {data.jsonl or folder: weight, or
    {weight: W, kinds: [...]} to draw only samples of those kinds}; each dataset gives
    `weight` / total weight x `samples` samples (without replacement while it has them).
    datagen: the `toollearn datagen ...` commands that make the datasets; `toollearn train`
    runs each whose `--out` folder has no data.jsonl yet (a recipe works from a fresh clone).
    Training stops at `epochs`, at `max_tokens_seen` tokens or after `max_minutes` of
    training (resumed runs count their earlier time), whichever comes first.
    `base_adapter` merges a PEFT adapter folder into the base before training (GLPFT stage 2
    starts from the stage-1 weights); `init_adapter` instead trains a LoRA adapter further
    from its weights (a continued run on new data: its rank and targets must be the config's,
    so the result still serves as one adapter on the same base): a PEFT folder, a GGUF LoRA
    file, or `tuned` (the shipped general adapter). `glpft` (glpft | direct |
    joint | single) trains alpha-UMi's roles instead of one adapter (training.glpft; each
    stage gets these fields, `max_minutes` included, with the paper's epochs and learning
    rate; `stage_samples` gives a stage its own `samples`, and `stages` trains only those
    stages in this call, so separate processes can train a mode's stages side by side).
    `merge_turns` trains each multi-turn conversation (samples whose prompts continue each
    other) as one row with the loss on all its model turns (`training.data`); `samples` and
    `eval_samples` then count conversations. `packing` puts several samples in each row (TRL's
    best-fit-decreasing packing up to `max_length` tokens) and keeps attention within each
    sample (position ids restart, no padding: `batch_size` then counts rows of packed samples).
    """

    output_dir: str = "runs/train"
    model: str = "embedded"
    datasets: dict[str, Any] = field(default_factory=dict)
    datagen: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()  # only samples of these kinds (metadata "kind"); () = all
    samples: int | None = None  # total samples drawn from the mixture (None: all of each)
    eval_samples: int = 64  # held out from the mixture for the validation loss
    method: str = "lora"  # lora | full
    lora_r: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_targets: tuple[str, ...] = LORA_TARGETS
    base_adapter: str | None = None
    init_adapter: str | None = None
    epochs: float = 1.0
    max_tokens_seen: int | None = None
    max_minutes: float | None = None  # wall-clock budget: training stops (and saves) at it
    learning_rate: float = 2e-4
    lr_scheduler: str = "cosine"
    warmup_ratio: float = 0.03
    weight_decay: float = 0.0
    batch_size: int = 4
    grad_accum: int = 1
    max_length: int = 2048
    seed: int = 0
    device: str = "cpu"  # cpu | cuda
    bf16: bool = True  # autocast (CPU: only where the processor supports bf16)
    bf16_base: bool = False  # LoRA under bf16 autocast: keep the frozen weights in bf16
    gradient_checkpointing: bool = False
    threads: int | None = None
    save_steps: int = 50
    eval_steps: int = 50
    logging_steps: int = 5
    resume: bool = False
    loss_on: str = "spans"  # spans (the model-written parts) | target (the whole turn)
    merge_turns: bool = False  # a conversation's turns as one row (`samples` counts them)
    packing: bool = False  # several samples per row, up to max_length tokens (padding-free)
    glpft: str | None = None  # alpha-UMi mode, one of GLPFT_MODES; None: one adapter
    stage_samples: dict[str, int] = field(default_factory=dict)  # GLPFT: a stage's own `samples`
    stages: tuple[str, ...] = ()  # GLPFT: train only these stages in this call (() = all)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["lora_targets"] = list(self.lora_targets)
        d["datagen"] = list(self.datagen)
        return d


def _coerce(kind: str, value: Any) -> Any:
    """A YAML or flag value as the field's annotated type (flags arrive as strings)."""
    if kind == "dict[str, int]" and value is not None:  # stage_samples: {name: count}
        if isinstance(value, str):  # a flag's "planner=432,caller=232"
            value = dict(v.partition("=")[::2] for v in value.split(",") if v.strip())
        if not isinstance(value, dict):
            raise ValueError(f"{value!r} is not a mapping of names to counts")
        return {str(k).strip(): int(n) for k, n in value.items()}
    if value is None or not isinstance(value, str):
        return tuple(value) if kind.startswith("tuple") and isinstance(value, list) else value
    if kind.startswith("bool"):
        return value.lower() in ("1", "true", "yes")
    if kind.startswith("tuple"):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if kind.startswith("int"):
        return int(value)
    if kind.startswith("float"):
        return float(value)
    return value


def load_config(path: str | Path | None = None, **overrides: Any) -> TrainConfig:
    """A TrainConfig from a YAML file (or defaults), with the given fields overriding it.
    Unknown keys are an error naming them."""
    data: dict[str, Any] = {}
    if path:
        import yaml

        p = Path(path)
        if not p.is_file():
            raise DataError("config file not found", str(p))
        loaded = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
        if not isinstance(loaded, dict):
            raise DataError("a training config is a YAML mapping", str(p))
        data.update(loaded)
    data.update({k: v for k, v in overrides.items() if v is not None})
    known = {f.name: f for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise DataError(f"unknown training config keys: {', '.join(unknown)}")
    try:
        values = {k: _coerce(str(known[k].type), v) for k, v in data.items()}
    except ValueError as exc:
        raise DataError(f"bad training config value: {exc}") from None
    config = TrainConfig(**values)
    if config.method not in ("lora", "full"):
        raise DataError(f"method must be lora or full, not {config.method!r}")
    if config.loss_on not in ("spans", "target"):
        raise DataError(f"loss_on must be spans or target, not {config.loss_on!r}")
    if config.init_adapter is not None:
        check_init_adapter(config)
    if config.glpft is not None and config.glpft not in GLPFT_MODES:
        raise DataError(f"glpft must be glpft, direct, joint or single, not {config.glpft!r}")
    unknown = sorted({*config.stages, *config.stage_samples} - set(GLPFT_STAGES))
    if unknown:
        raise DataError(f"unknown GLPFT stages: {', '.join(unknown)} "
                        f"(stages are {', '.join(GLPFT_STAGES)})")  # fmt: skip
    return config


def init_adapter_path(spec: str) -> Path:
    """Where an `init_adapter` is: `tuned` is the shipped general adapter (a GGUF LoRA), any
    other value a PEFT adapter folder or a GGUF LoRA file."""
    if spec == "tuned":
        from toollearn.models import tuned_adapter

        return tuned_adapter()
    return Path(spec)


def check_init_adapter(config: TrainConfig) -> None:
    """An `init_adapter` must be a LoRA (a PEFT folder or a GGUF LoRA file) of the config's
    rank, alpha and targets."""
    import json

    if config.method != "lora":
        raise DataError("init_adapter continues a LoRA adapter: method must be lora")
    source = init_adapter_path(config.init_adapter or "")
    if source.suffix == ".gguf" and source.is_file():
        from toollearn.training.export import gguf_lora_shape

        saved = gguf_lora_shape(source)
    else:
        path = source / "adapter_config.json"
        if not path.is_file():
            raise DataError("init_adapter: not a PEFT adapter folder (no adapter_config.json) "
                            "nor a GGUF LoRA file", str(source))  # fmt: skip
        saved = json.loads(path.read_text(encoding="utf-8"))
    mine = {"r": config.lora_r, "lora_alpha": config.lora_alpha,
            "target_modules": sorted(config.lora_targets)}  # fmt: skip
    theirs = {"r": saved.get("r"), "lora_alpha": saved.get("lora_alpha"),
              "target_modules": sorted(saved.get("target_modules") or [])}  # fmt: skip
    if mine != theirs:
        raise DataError(f"init_adapter has {theirs}, the config {mine}: make them agree",
                        str(source))  # fmt: skip
