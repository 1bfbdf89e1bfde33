"""EpochOrder's bookkeeping without a model (the real resume is tested in test_train.py): which
RNG state each epoch started with, what a checkpoint keeps, what a resume puts back."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from toollearn.training.epoch_order import FILE, EpochOrder


def _state(epoch: float, step: int) -> SimpleNamespace:
    return SimpleNamespace(epoch=epoch, global_step=step)


def _save(order: EpochOrder, out, step: int):
    (out / f"checkpoint-{step}").mkdir()
    order.on_save(SimpleNamespace(output_dir=str(out)), _state(0, step), None)
    return out / f"checkpoint-{step}"


def test_a_checkpoint_keeps_its_epochs_starting_state_and_a_resume_restores_it(tmp_path):
    torch.manual_seed(1)
    order = EpochOrder()
    order.on_epoch_begin(None, _state(1.0, 5), None)  # epoch 2 starts
    start = torch.get_rng_state()
    torch.rand(100)  # training moves the RNG on
    checkpoint = _save(order, tmp_path, 6)
    assert torch.equal(torch.load(checkpoint / FILE, weights_only=True), start)
    torch.manual_seed(7)  # a fresh process
    EpochOrder(checkpoint).on_epoch_begin(None, _state(1.2, 6), None)
    assert torch.equal(torch.get_rng_state(), start)


def test_a_resume_at_an_epochs_start_keeps_the_checkpoints_rng(tmp_path):
    checkpoint = tmp_path / "checkpoint-5"
    checkpoint.mkdir()
    torch.manual_seed(3)
    saved = torch.get_rng_state()
    torch.save({"cpu": saved}, checkpoint / "rng_state.pth")  # what the Trainer restores
    torch.manual_seed(9)
    order = EpochOrder(checkpoint)
    order.on_epoch_begin(None, _state(1.0, 5), None)
    assert torch.equal(order.epoch_rng, saved)
    order.on_epoch_begin(None, _state(2.0, 10), None)  # later epochs: the state as it is
    assert torch.equal(order.epoch_rng, torch.get_rng_state())


def test_an_old_checkpoint_resumes_with_a_warning(tmp_path):
    with pytest.warns(UserWarning, match="sample order may differ"):
        EpochOrder(tmp_path).on_epoch_begin(None, _state(1.2, 6), None)
