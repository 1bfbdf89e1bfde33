"""`toollearn train` under `accelerate launch` with 2 CPU processes (DDP over gloo): the same
data, seed and global batch as one process give the same losses within a stated tolerance, the
run's files are written once, and the adapter exports and loads in llama.cpp. The multi-GPU
configurations shipped beside it parse."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message
from toollearn.datagen.dataset import write_dataset
from toollearn.training.config import load_config

pytestmark = [pytest.mark.model, pytest.mark.slow]

RECIPES = Path(__file__).resolve().parents[2] / "recipes" / "accelerate"
TOLERANCE = 0.02  # relative, per logged step: gradients are averaged over the same global batch
QUESTIONS = ["Weather in Paris?", "Stock price of ACME?", "Convert 10 USD to EUR.",
             "Flights to Rome tomorrow?", "Translate hello to French.", "Book a table.",
             "Latest news on Mars?", "Track my parcel 123.", "Tide times in Brest?",
             "Exchange rate of JPY?", "Train times to Lyon?", "Score of the match?",
             "Open the door.", "Call mom.", "Set an alarm.", "Play jazz.", "Find a cafe.",
             "Order pizza."]  # fmt: skip


def _recipe(root: Path, name: str, grad_accum: int, threads: int) -> Path:
    config = load_config(None, output_dir=str(root / name), datasets={str(root / "data"): 1.0},
                         eval_samples=2, batch_size=1, grad_accum=grad_accum, epochs=1.0,
                         learning_rate=3e-3, lora_r=8, lora_alpha=16, save_steps=100,
                         eval_steps=100, logging_steps=1, max_length=256, threads=threads,
                         warmup_ratio=0.0, seed=0)  # fmt: skip
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config.to_dict()))
    return path


def _losses(run: Path) -> list[tuple[int, float]]:
    lines = (run / "log.jsonl").read_text().splitlines()
    return [(r["step"], r["loss"]) for r in map(json.loads, lines) if "loss" in r]


def test_two_cpu_processes_train_as_one_does(tmp_path):
    pytest.importorskip("accelerate")
    target = '[{"name": "lookup", "arguments": {"query": "it"}}]'
    samples = [TrainingSample((Message("user", q),), target, task="general",
                              metadata={"kind": "x"}) for q in QUESTIONS]  # fmt: skip
    write_dataset(tmp_path / "data", samples, config={})
    launcher = Path(sys.executable).with_name("accelerate")
    two = _recipe(tmp_path, "two", grad_accum=2, threads=1)  # 2 processes x 1 x 2 = 4 a step
    one = _recipe(tmp_path, "one", grad_accum=4, threads=2)  # 1 process x 1 x 4 = 4 a step
    subprocess.run([str(launcher), "launch", "--config_file", str(RECIPES / "cpu-2proc.yaml"),
                    "-m", "toollearn", "train", "--config", str(two)],
                   check=True, capture_output=True, timeout=900)  # fmt: skip
    subprocess.run([sys.executable, "-m", "toollearn", "train", "--config", str(one)],
                   check=True, capture_output=True, timeout=900)  # fmt: skip
    parallel, alone = _losses(tmp_path / "two"), _losses(tmp_path / "one")
    assert [s for s, _ in parallel] == [s for s, _ in alone] == [1, 2, 3, 4]  # logged once
    for (_, a), (_, b) in zip(parallel, alone):
        assert abs(a - b) <= TOLERANCE * b, (parallel, alone)
    info = json.loads((tmp_path / "two" / "train.json").read_text())
    assert info["processes"] == 2 and info["steps"] == 4
    from toollearn.engines import load_engine

    engine = load_engine(f"base@{tmp_path / 'two' / 'adapter.gguf'}", n_threads=2)
    assert engine.complete([[Message("user", "Weather in Oslo?")]], max_tokens=8)[0].text


def test_the_multi_gpu_configurations_parse():
    from accelerate.commands.config.config_args import load_config_from_file

    for name in ("cpu-2proc.yaml", "multi-gpu-ddp.yaml", "multi-gpu-fsdp.yaml"):
        config = load_config_from_file(str(RECIPES / name))
        assert config.num_processes >= 2, name
    fsdp = load_config_from_file(str(RECIPES / "multi-gpu-fsdp.yaml"))
    assert fsdp.distributed_type == "FSDP" and fsdp.fsdp_config["fsdp_version"] == 2
