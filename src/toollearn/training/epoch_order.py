"""A resumed run's sample order in its second epoch and later, made the same as an unbroken run's.

Batches are length-grouped (`train_sampling_strategy="group_by_length"`), and transformers'
LengthGroupedSampler draws each epoch's order from torch's global RNG when the epoch's iterator
is made. An unbroken run draws epoch k's order from the RNG state that training left at the end
of epoch k-1. A run resumed in epoch k (k >= 2) starts a fresh process, skips the trained batches
and restores the checkpoint's RNG only after the order was drawn, so it used to train epoch k in
a different order (measured: the committed umi-135m stage 1, resumed at step 60 of 100, diverged
from an unbroken run at step 62). `EpochOrder` keeps the RNG state each epoch started with,
writes it into every checkpoint (`epoch_rng.pt`) and puts it back before a resumed epoch draws.
A checkpoint without the file (written before this) resumes as before, with a warning.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import torch
from transformers import TrainerCallback

FILE = "epoch_rng.pt"


class EpochOrder(TrainerCallback):
    """`resume_from`: the checkpoint folder the Trainer resumes from (None: a fresh start)."""

    def __init__(self, resume_from: str | Path | None = None):
        self.resume_from = Path(resume_from) if resume_from else None
        self.epoch_rng: torch.Tensor | None = None

    def on_epoch_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        resumed, self.resume_from = self.resume_from, None  # only the first epoch entered
        into = state.epoch - math.floor(state.epoch + 1e-9)
        if resumed is not None and into > 1e-9:  # re-entering an epoch part-way
            saved = resumed / FILE
            if saved.is_file():
                torch.set_rng_state(torch.load(saved, weights_only=True))
            elif state.epoch >= 1:
                warnings.warn(f"{resumed} has no {FILE}: this epoch's sample order may "
                              "differ from an unbroken run's", stacklevel=1)  # fmt: skip
        elif resumed is not None and state.global_step > 0:  # resumed at an epoch's start:
            rng = resumed / "rng_state.pth"  # the Trainer draws the order after restoring it
            if rng.is_file():
                self.epoch_rng = torch.load(rng, weights_only=True)["cpu"]
                return
        self.epoch_rng = torch.get_rng_state()

    def on_save(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if self.epoch_rng is not None and folder.is_dir():
            torch.save(self.epoch_rng, folder / FILE)
