"""Packed training rows (`packing: true`): several samples per row, attention kept within each
one, so a packed row gives each sample the logits it gets alone; a packed run trains."""

from __future__ import annotations

import json

import pytest

from toollearn.training.trainer import pack

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_rows_are_packed_best_fit_with_their_labels():
    rows = [{"input_ids": [1] * n, "labels": [-100] * (n - 2) + [5, 6]} for n in (6, 3, 5, 2)]
    packed = pack(rows, 8)
    for r in packed:
        assert len(r["input_ids"]) == len(r["labels"]) == sum(r["seq_lengths"]) <= 8
    assert sorted(n for r in packed for n in r["seq_lengths"]) == [2, 3, 5, 6]
    assert len(packed) == 2 and sum(r["labels"].count(5) for r in packed) == 4


def test_a_packed_row_gives_each_sample_its_own_logits():
    import torch

    from toollearn.training.config import TrainConfig
    from toollearn.training.trainer import load_base

    model, tok = load_base(TrainConfig())
    model.eval()
    a = tok("The capital of France is Paris.", return_tensors="pt").input_ids[0]
    b = tok("Call get_weather for Rome, please.", return_tensors="pt").input_ids[0]
    with torch.no_grad():
        alone = [model(input_ids=x[None]).logits[0] for x in (a, b)]
        positions = torch.cat([torch.arange(len(a)), torch.arange(len(b))])[None]
        both = model(input_ids=torch.cat([a, b])[None], position_ids=positions).logits[0]
    assert torch.allclose(both[: len(a)], alone[0], atol=1e-3)
    assert torch.allclose(both[len(a) :], alone[1], atol=1e-3)  # nothing seen across samples


def test_a_packed_run_trains(tmp_path):
    from toollearn.core.samples import TrainingSample
    from toollearn.core.types import Message
    from toollearn.datagen.dataset import write_dataset
    from toollearn.training.config import load_config
    from toollearn.training.trainer import train

    target = '[{"name": "lookup", "arguments": {"query": "it"}}]'
    questions = [f"Question number {i}: what is it?" for i in range(14)]
    samples = [TrainingSample((Message("user", q),), target, task="general",
                              metadata={"kind": "x"}) for q in questions]  # fmt: skip
    write_dataset(tmp_path / "data", samples, config={})
    config = load_config(None, output_dir=str(tmp_path / "run"), packing=True, max_length=256,
                         datasets={str(tmp_path / "data"): 1.0}, eval_samples=2, batch_size=1,
                         grad_accum=1, epochs=2.0, learning_rate=3e-3, lora_r=8, lora_alpha=16,
                         save_steps=100, eval_steps=100, logging_steps=1, threads=2,
                         warmup_ratio=0.0)  # fmt: skip
    run = train(config)
    info = json.loads((run / "train.json").read_text())
    assert info["samples"]["train"] == 12 and info["samples"]["packed_rows"] < 6
    losses = [json.loads(x)["loss"] for x in (run / "log.jsonl").read_text().splitlines()
              if "loss" in json.loads(x)]  # fmt: skip
    assert losses[-1] < losses[0] / 2
