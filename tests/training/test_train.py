"""Training the real embedded model for a few steps: the loss falls, the adapter changes, the
exported GGUF adapter changes llama.cpp's output, and a killed run resumes with the same loss."""

from __future__ import annotations

import json
import shutil

import pytest
from transformers import TrainerCallback

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message
from toollearn.datagen.dataset import write_dataset
from toollearn.training.config import load_config
from toollearn.training.export import export_lora_gguf

pytestmark = [pytest.mark.model, pytest.mark.slow]

TARGET = "#Begin# Need to look up the API Pool. #SearchAPI#"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Twelve short samples with one fixed answer, easy to learn in a few steps."""
    out = tmp_path_factory.mktemp("data")
    questions = ["Weather in Paris?", "Stock price of ACME?", "Convert 10 USD to EUR.",
                 "Flights to Rome tomorrow?", "Translate hello to French.", "Book a table.",
                 "Latest news on Mars?", "Track my parcel 123.", "Tide times in Brest?",
                 "Exchange rate of JPY?", "Train times to Lyon?",
                 "Score of the match?"]  # fmt: skip
    samples = [TrainingSample((Message("user", q),), TARGET, task="deer", metadata={"kind": "x"})
               for q in questions]  # fmt: skip
    write_dataset(out, samples, config={})
    return out


def _config(tmp_path, dataset, **kw):
    base = {"output_dir": str(tmp_path / "run"), "datasets": {str(dataset): 1.0},
            "eval_samples": 2, "batch_size": 2, "epochs": 1.0, "learning_rate": 3e-3,
            "lora_r": 8, "lora_alpha": 16, "save_steps": 2, "eval_steps": 100,
            "logging_steps": 1, "max_length": 256, "threads": 2, "warmup_ratio": 0.0}  # fmt: skip
    return load_config(None, **{**base, **kw})


def _losses(run):
    lines = (run / "log.jsonl").read_text().splitlines()
    return {r["step"]: r["loss"] for r in map(json.loads, lines) if "loss" in r}


@pytest.fixture(scope="module")
def trained(tmp_path_factory, dataset):
    """One short real LoRA run (3 epochs of 10 samples) through `toollearn train --config`
    (flags over the file), which also exports the GGUF adapter."""
    import yaml

    from toollearn.cli.main import main

    root = tmp_path_factory.mktemp("trained")
    config = _config(root, dataset).to_dict()
    (root / "run.yaml").write_text(yaml.safe_dump(config))
    argv = ["train", "--config", str(root / "run.yaml"), "--epochs", "3", "--set", "eval_steps=50"]
    assert main(argv) == 0
    run = root / "run"
    config = json.loads((run / "train.json").read_text())["config"]
    assert config["epochs"] == 3.0 and config["eval_steps"] == 50  # a flag and --set
    return run


def test_train_refuses_a_set_that_names_no_field(capsys):
    from toollearn.cli.main import main

    assert main(["train", "--set", "lora_alfa=8"]) == 1
    assert "expected FIELD=VALUE with a TrainConfig field" in capsys.readouterr().err


def test_loss_falls_and_the_adapter_changes(trained):
    import numpy as np
    from safetensors.numpy import load_file

    losses = list(_losses(trained).values())
    assert losses[-1] < losses[0] / 2, losses
    weights = load_file(str(trained / "adapter" / "adapter_model.safetensors"))
    lora_b = [v for k, v in weights.items() if "lora_B" in k]
    assert lora_b and any(np.abs(v).max() > 0 for v in lora_b)  # B starts at zero
    info = json.loads((trained / "train.json").read_text())
    assert info["samples"]["train"] == 10 and info["tokens_seen"] > 0
    assert len(info["base_model"]["sha256"]) == 64 and (trained / "loss.png").stat().st_size > 0


PROMPT = [[Message("user", "Weather in Oslo?")]]


def test_the_gguf_adapter_changes_llama_cpp_output_and_switches_back(trained):
    from toollearn.engines import load_engine

    engine = load_engine("llama", n_threads=2, adapters={"tuned": trained / "adapter.gguf"})
    base = engine.complete(PROMPT, max_tokens=16)[0].text
    tuned = engine.with_adapter("tuned").complete(PROMPT, max_tokens=16)[0].text
    assert tuned != base and tuned.startswith("#Begin#"), (base, tuned)
    assert engine.complete(PROMPT, max_tokens=16)[0].text == base  # switched back
    batch = engine.with_adapter("tuned").complete(PROMPT * 3, max_tokens=16)  # batched context
    assert [c.text for c in batch] == [tuned] * 3


def test_one_backbone_serves_specs_that_differ_by_adapter(trained):
    from toollearn.engines import load_engines

    gguf = trained / "adapter.gguf"
    roles = load_engines({"planner": f"llama@{gguf}", "caller": "llama",
                          "summarizer": f"llama@{gguf}+{gguf}"}, n_threads=2)  # fmt: skip
    assert roles["planner"].llm is roles["caller"].llm is roles["summarizer"].llm
    texts = {r: e.complete(PROMPT, max_tokens=12)[0].text for r, e in roles.items()}
    assert texts["planner"].startswith("#Begin#") and texts["caller"] != texts["planner"]
    assert roles["summarizer"].describe()["adapters"][1]["path"].endswith("adapter.gguf")


def test_transformers_serves_named_adapters_and_agrees_with_llama_cpp(trained):
    from toollearn.engines import load_engine
    from toollearn.engines.hf import HFEngine
    from toollearn.engines.llama import embedded_model_path

    hf = HFEngine(embedded_model_path(), adapters={"tuned": trained / "adapter"}, n_threads=2)
    base = hf.complete(PROMPT, max_tokens=12)[0].text
    tuned = hf.with_adapter("tuned").complete(PROMPT, max_tokens=12)[0].text
    assert tuned.startswith("#Begin#") and base != tuned
    assert hf.complete(PROMPT, max_tokens=12)[0].text == base  # adapters disabled again
    llama = load_engine(f"llama@{trained / 'adapter.gguf'}", n_threads=2)
    assert llama.complete(PROMPT, max_tokens=12)[0].text == tuned


def test_the_merged_model_answers_as_the_base_with_its_adapter(trained, tmp_path):
    from toollearn.cli.main import main
    from toollearn.engines import load_engine

    out = tmp_path / "merged.gguf"
    assert main(["export", "gguf", str(trained), "--merged", "--out", str(out)]) == 0
    merged = load_engine(f"llama:{out}", n_threads=2).complete(PROMPT, max_tokens=16)[0].text
    tuned = load_engine(f"llama@{trained / 'adapter.gguf'}", n_threads=2)
    assert merged == tuned.complete(PROMPT, max_tokens=16)[0].text
    assert merged.startswith("#Begin#")


class _Kill(TrainerCallback):
    def __init__(self, step: int):
        self.step = step

    def on_step_end(self, args, state, control, **kw):
        if state.global_step == self.step:
            raise KeyboardInterrupt(f"killed at step {self.step}")


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory, dataset):
    from toollearn.training.trainer import train

    return train(_config(tmp_path_factory.mktemp("whole"), dataset, epochs=2.0))


# 5 steps per epoch: killed in the first epoch, and in the second (resumed from checkpoint-6;
# resuming there once replayed the first epoch's sample order, see trainer._EpochOrder)
@pytest.mark.parametrize(("kill", "checkpoint"), [(3, 2), (8, 6)])
def test_a_killed_run_resumes_with_identical_losses(tmp_path, dataset, whole_run, kill, checkpoint):
    from toollearn.training.trainer import train

    config = _config(tmp_path / "killed", dataset, epochs=2.0)
    with pytest.raises(KeyboardInterrupt):
        train(config, callbacks=[_Kill(kill)])
    assert (tmp_path / "killed" / "run" / "checkpoints" / f"checkpoint-{checkpoint}").is_dir()
    resumed = train(load_config(None, **{**config.to_dict(), "resume": True}))
    want, got = _losses(whole_run), _losses(resumed)
    assert set(got) >= {checkpoint + 1, 9, 10}, got
    assert all(got[s] == want[s] for s in got if s > checkpoint), (want, got)
    assert json.loads((resumed / "train.json").read_text())["resumed"] is True


def test_a_run_continues_an_adapter_from_its_weights(trained, tmp_path, dataset):
    import hashlib

    from safetensors.numpy import load_file

    from toollearn.training.trainer import train

    # the adapter as another machine saved it: its config names a base folder not here
    start = tmp_path / "start"
    shutil.copytree(trained / "adapter", start)
    config_file = start / "adapter_config.json"
    saved = json.loads(config_file.read_text())
    here = saved["base_model_name_or_path"]
    config_file.write_text(json.dumps({**saved, "base_model_name_or_path": "/elsewhere/base"}))
    run = train(_config(tmp_path, dataset, init_adapter=str(start), learning_rate=1e-3))
    first, fresh = _losses(run), _losses(trained)
    assert first[1] < fresh[1] / 4, (first, fresh)  # it starts where the trained run ended
    record = json.loads((run / "train.json").read_text())["init_adapter"]
    weights = start / "adapter_model.safetensors"
    assert record["sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    before, after = load_file(weights), load_file(run / "adapter" / "adapter_model.safetensors")
    assert before.keys() == after.keys()  # the same adapter, trained further
    assert any((before[k] != after[k]).any() for k in before)
    config = json.loads((run / "adapter" / "adapter_config.json").read_text())
    assert config["base_model_name_or_path"] == here  # this machine's base, so it exports
    assert export_lora_gguf(run / "adapter", tmp_path / "further.gguf").stat().st_size > 0


def test_a_gguf_lora_reads_back_as_the_same_adapter(trained, tmp_path):
    """`import_lora_gguf` inverts the export: the PEFT folder it writes exports to the same
    tensors (Q/K rows permuted back and forth), with the file's rank, alpha and targets."""
    import numpy as np
    from safetensors.numpy import load_file

    from toollearn.engines.llama_merge import lora_parts
    from toollearn.training.export import import_lora_gguf

    first = export_lora_gguf(trained / "adapter", tmp_path / "first.gguf", dtype="f32")
    base = json.loads((trained / "adapter" / "adapter_config.json").read_text())
    folder = import_lora_gguf(first, tmp_path / "peft", base["base_model_name_or_path"])
    saved = json.loads((folder / "adapter_config.json").read_text())
    assert (saved["r"], saved["lora_alpha"]) == (base["r"], base["lora_alpha"])
    assert sorted(saved["target_modules"]) == sorted(base["target_modules"])
    want = load_file(trained / "adapter" / "adapter_model.safetensors")
    got = load_file(folder / "adapter_model.safetensors")
    assert want.keys() == got.keys()
    assert all(np.array_equal(want[k].astype(np.float32), got[k]) for k in want)
    again, _ = lora_parts(export_lora_gguf(folder, tmp_path / "again.gguf", dtype="f32"))
    pairs, _ = lora_parts(first)
    assert all(np.array_equal(pairs[k][i], again[k][i]) for k in pairs for i in (0, 1))


def test_a_run_continues_a_gguf_lora(trained, tmp_path, dataset):
    from toollearn.training.trainer import train

    start = export_lora_gguf(trained / "adapter", tmp_path / "start.gguf", dtype="f32")
    run = train(_config(tmp_path, dataset, init_adapter=str(start), learning_rate=1e-3))
    first, fresh = _losses(run), _losses(trained)
    assert first[1] < fresh[1] / 4, (first, fresh)  # it starts where the trained run ended
    assert (run / "init-adapter" / "adapter_config.json").is_file()
    record = json.loads((run / "train.json").read_text())["init_adapter"]
    assert record["path"].endswith("start.gguf")
