"""TrainConfig: YAML, flags over the file, typed values, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from toollearn.core.errors import DataError
from toollearn.training.config import load_config

EXAMPLE = Path(__file__).parents[2] / "examples" / "train-deer.yaml"


def test_the_example_config_loads_and_flags_override_it():
    config = load_config(EXAMPLE, learning_rate="1e-4", lora_targets="q_proj,v_proj")
    assert config.datasets == {"runs/data/deer": 1.0}
    assert config.max_tokens_seen == 110000 and config.method == "lora"
    assert config.learning_rate == 1e-4 and config.lora_targets == ("q_proj", "v_proj")
    assert load_config(EXAMPLE, resume="true").resume is True


@pytest.mark.parametrize(
    ("text", "message"),
    [("lerning_rate: 1.0\n", "unknown training config keys: lerning_rate"),
     ("- a\n- b\n", "a YAML mapping"),
     ("method: qlora\n", "method must be lora or full"),
     ("batch_size: four\n", "bad training config value"),
     ("glpft: staged\n", "glpft must be glpft, direct, joint or single"),
     ("stages: [planer]\n", "unknown GLPFT stages: planer"),
     ("stage_samples: {planner: many}\n", "bad training config value"),
     ("stage_samples: [planner]\n", "bad training config value")],
)  # fmt: skip
def test_bad_configs_are_named(tmp_path, text, message):
    path = tmp_path / "run.yaml"
    path.write_text(text)
    with pytest.raises(DataError, match=message):
        load_config(path)


def test_a_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(DataError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_glpft_stage_samples_and_stages_from_yaml_and_flags(tmp_path):
    path = tmp_path / "umi.yaml"
    path.write_text("glpft: glpft\nsamples: 232\nstage_samples: {planner: 432}\n")
    assert load_config(path).stage_samples == {"planner": 432}
    config = load_config(path, stage_samples="planner=832,caller=300", stages="caller,summarizer")
    assert config.stage_samples == {"planner": 832, "caller": 300}
    assert config.stages == ("caller", "summarizer")


def test_a_trained_adapter_is_served_on_the_model_it_was_trained_on(tmp_path):
    from toollearn.cli.train import serving_spec
    from toollearn.models import tuned_adapter

    new = tmp_path / "adapter.gguf"
    assert serving_spec("embedded", new) == f"llama@{new}"
    assert serving_spec("tuned", new) == f"tuned:{tuned_adapter()}+{new}"
    assert serving_spec("tuned:/a.gguf+/b.gguf", new) == f"tuned:/a.gguf+/b.gguf+{new}"


def test_an_init_adapter_must_be_a_lora_folder_of_the_configs_shape(tmp_path):
    import json

    with pytest.raises(DataError, match="not a PEFT adapter folder"):
        load_config(None, init_adapter=str(tmp_path))
    targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
    saved = {"r": 4, "lora_alpha": 8, "target_modules": targets[::-1]}
    (tmp_path / "adapter_config.json").write_text(json.dumps(saved))
    config = load_config(None, init_adapter=str(tmp_path), lora_r=4, lora_alpha=8)
    assert config.init_adapter == str(tmp_path)  # the targets in any order
    with pytest.raises(DataError, match="init_adapter has .*'r': 4.*the config .*'r': 16"):
        load_config(None, init_adapter=str(tmp_path), lora_r=16, lora_alpha=8)
    with pytest.raises(DataError, match="method must be lora"):
        load_config(None, init_adapter=str(tmp_path), lora_r=4, lora_alpha=8, method="full")


def test_frozen_weights_load_in_bf16_only_for_lora_under_bf16_autocast(monkeypatch):
    from toollearn.training import trainer

    monkeypatch.setattr(trainer, "cpu_has_bf16", lambda: True)
    assert trainer.uses_bf16_base(load_config(None, bf16_base=True))
    assert not trainer.uses_bf16_base(load_config(None))  # opt-in
    assert not trainer.uses_bf16_base(load_config(None, bf16_base=True, method="full"))
    assert not trainer.uses_bf16_base(load_config(None, bf16_base=True, bf16=False))
    monkeypatch.setattr(trainer, "cpu_has_bf16", lambda: False)  # fp32 training: fp32 weights
    assert not trainer.uses_bf16_base(load_config(None, bf16_base=True))
    assert trainer.uses_bf16_base(load_config(None, bf16_base=True, device="cuda"))


def test_large_cpu_buffers_come_from_mmap_under_glibc():
    import platform

    from toollearn.training.trainer import large_buffers_from_mmap

    assert large_buffers_from_mmap() is (platform.libc_ver()[0] == "glibc")


def test_an_init_adapter_may_be_a_gguf_lora_or_the_shipped_one():
    from toollearn.models import tuned_adapter

    shipped = load_config(None, init_adapter="tuned", lora_r=32, lora_alpha=64)
    assert shipped.init_adapter == "tuned"
    file = load_config(None, init_adapter=str(tuned_adapter()), lora_r=32, lora_alpha=64)
    assert file.init_adapter == str(tuned_adapter())
    with pytest.raises(DataError, match="init_adapter has .*'r': 32.*the config .*'r': 16"):
        load_config(None, init_adapter="tuned", lora_r=16, lora_alpha=64)
