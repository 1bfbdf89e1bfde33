"""GLPFT's stage bookkeeping without a model: per-stage sample counts, and stages trained by
separate calls (side by side), adapters.json written only once every stage is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toollearn.training.config import load_config
from toollearn.training.glpft import run_glpft, stage_config


@pytest.fixture
def trained(monkeypatch):
    """Replaces training and export with writing the files they leave; returns the configs
    'trained', in order."""
    seen = []

    def fake_train(config):
        run = Path(config.output_dir)
        run.mkdir(parents=True, exist_ok=True)
        (run / "train.json").write_text(json.dumps({"config": config.to_dict()}))
        seen.append(config)
        return run

    def fake_export(adapter, out, *args):
        Path(out).write_bytes(b"gguf")
        return Path(out)

    monkeypatch.setattr("toollearn.training.trainer.train", fake_train)
    monkeypatch.setattr("toollearn.training.export.export_lora_gguf", fake_export)
    return seen


def test_a_stage_gets_its_own_sample_count(tmp_path):
    base = load_config(None, samples=232, stage_samples={"planner": 432})
    assert stage_config(base, "planner", ("umi-planner",), tmp_path).samples == 432
    caller = stage_config(base, "caller", ("umi-caller",), tmp_path)
    assert caller.samples == 232 and caller.stage_samples == {}


def test_stages_trained_by_separate_calls_then_joined(tmp_path, trained):
    out = tmp_path / "run"
    common = {"samples": 232, "stage_samples": {"planner": 432}}
    first = run_glpft(load_config(None, stages=("single",), **common), out)
    assert first["runs"] == ["single"] and first["waiting"] == ["planner", "caller", "summarizer"]
    assert not (out / "adapters.json").exists()
    planner = run_glpft(load_config(None, stages=("planner",), **common), out)
    assert planner["waiting"] == ["caller", "summarizer"]
    run_glpft(load_config(None, stages=("caller", "summarizer"), **common), out)
    stages = ("single", "planner", "caller", "summarizer")
    assert [c.output_dir for c in trained] == [str(out / s) for s in stages]
    assert [c.samples for c in trained] == [232, 432, 232, 232]
    assert trained[1].base_adapter == str(out / "single" / "adapter")
    summary = run_glpft(load_config(None, **common), out)  # every stage kept, nothing trained
    assert len(trained) == 4 and "waiting" not in summary
    adapters = json.loads((out / "adapters.json").read_text())
    assert adapters["gguf"]["planner"] == ["single/adapter.gguf", "planner/adapter.gguf"]
    assert summary["base"]["stage_samples"] == {"planner": 432}


def test_stage_two_waits_for_stage_one(tmp_path, trained):
    summary = run_glpft(load_config(None, stages=("planner",)), tmp_path / "run")
    assert trained == [] and summary["waiting"] == ["single", "planner", "caller", "summarizer"]
