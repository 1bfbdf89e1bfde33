"""Training progress: a line per log step (loss, tokens/s, ETA) and a JSONL of every log."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from transformers import TrainerCallback


class ProgressLog(TrainerCallback):
    """Appends each Trainer log (plus tokens seen, tokens/s and ETA) to `path` and prints it."""

    def __init__(self, path: Path, total_steps: int):
        self.path, self.total = path, total_steps
        self.t0: float | None = None
        self.start_tokens = 0
        self.start_step = 0

    def on_train_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        self.t0 = time.time()
        self.start_tokens = int(state.num_input_tokens_seen)
        self.start_step = state.global_step

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kw: Any):
        if not state.is_world_process_zero:  # a distributed run logs once
            return
        elapsed = time.time() - (self.t0 or time.time())
        tokens = int(state.num_input_tokens_seen)
        rate = (tokens - self.start_tokens) / elapsed if elapsed > 0 else 0.0
        done = state.global_step - self.start_step
        eta = elapsed / done * (self.total - state.global_step) if done > 0 else None
        record = {"step": state.global_step, "tokens_seen": tokens,
                  "tokens_per_s": round(rate, 1), "elapsed_s": round(elapsed, 1),
                  "eta_s": round(eta, 1) if eta is not None else None, **(logs or {})}  # fmt: skip
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        parts = [f"step {state.global_step}/{self.total}"]
        for key in ("loss", "eval_loss"):
            if key in (logs or {}):
                parts.append(f"{key} {logs[key]:.4f}")
        parts.append(f"{rate:.0f} tok/s")
        if eta is not None:
            parts.append(f"eta {eta / 60:.1f} min")
        print("  ".join(parts), file=sys.stderr, flush=True)


def ledger_seconds(ledger: Path) -> float | None:
    """The training time a run's ledger holds (all its resumes), or None without one."""
    try:
        return float(ledger.read_text())
    except (OSError, ValueError):
        return None


class TimeBudget(TrainerCallback):
    """Stops training (saving a checkpoint) once `minutes` of training time are spent; the
    time spent is kept in `ledger`, a file in the run folder, so a resumed run counts its
    earlier time."""

    def __init__(self, minutes: float, ledger: Path):
        self.limit, self.ledger = minutes * 60, ledger
        self.spent = ledger_seconds(ledger) or 0.0
        self.t0 = time.time()
        self.stopped = False

    def elapsed(self) -> float:
        return self.spent + time.time() - self.t0

    def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        if state.is_world_process_zero:
            self.ledger.write_text(f"{self.elapsed():.1f}")
        if _any_process(self.elapsed() >= self.limit):
            control.should_training_stop = True
            control.should_save = True
            self.stopped = True


def _any_process(flag: bool) -> bool:
    """Whether `flag` holds in any process of a distributed run (all stop at the same step)."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return flag
    import torch

    on_gpu = dist.get_backend() == "nccl"  # NCCL reduces GPU tensors only
    t = torch.tensor([int(flag)], device=torch.cuda.current_device() if on_gpu else "cpu")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return bool(t.item())
