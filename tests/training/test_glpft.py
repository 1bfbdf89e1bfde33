"""GLPFT end to end on the shipped demo trajectories, kept tiny: stage 1, three role adapters
from the stage-1 weights, and the multi-role agent running them on one llama.cpp backbone."""

from __future__ import annotations

import json

import pytest

from toollearn.training.config import load_config

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def glpft_run(tmp_path_factory):
    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.data.trajectories import read_trajectories
    from toollearn.datagen.dataset import write_dataset
    from toollearn.datagen.umi import role_samples
    from toollearn.training.glpft import run_glpft

    root = tmp_path_factory.mktemp("glpft")
    write_dataset(root / "data", role_samples(read_trajectories(DEMO_TRAJECTORIES)), config={})
    config = load_config(None, output_dir=str(root / "run"), datasets={str(root / "data"): 1.0},
                         samples=6, eval_samples=1, max_tokens_seen=1500, batch_size=2,
                         lora_r=8, lora_alpha=16, max_length=1536, threads=2,
                         save_steps=100, eval_steps=100, logging_steps=1)  # fmt: skip
    run_glpft(config, root / "run", "glpft")
    return root / "run"


def test_stage_one_then_three_role_adapters_from_its_weights(glpft_run):
    summary = json.loads((glpft_run / "glpft.json").read_text())
    assert list(summary["runs"]) == ["single", "planner", "caller", "summarizer"]
    for stage, kind in [("single", "umi-single"), ("caller", "umi-caller")]:
        info = json.loads((glpft_run / stage / "train.json").read_text())
        assert info["config"]["kinds"] == [kind] and info["tokens_seen"] > 0
    caller = json.loads((glpft_run / "caller" / "train.json").read_text())["config"]
    assert caller["base_adapter"] == str(glpft_run / "single" / "adapter")
    assert caller["learning_rate"] == pytest.approx(1e-4)  # the paper's 1e-5, x10 for LoRA
    adapters = json.loads((glpft_run / "adapters.json").read_text())
    assert adapters["gguf"]["planner"] == ["single/adapter.gguf", "planner/adapter.gguf"]
    assert all((glpft_run / p).is_file() for st in adapters["gguf"].values() for p in st)


def test_the_multi_role_agent_switches_adapters_on_one_backbone(glpft_run):
    from toollearn.agents import MultiRoleAgent
    from toollearn.envs.demo import demo_env
    from toollearn.training.glpft import glpft_engine

    engine = glpft_engine(glpft_run, n_threads=2)
    # the model's adapter set is shared by every engine on it (other tests may add theirs)
    assert {"caller", "planner", "single", "summarizer"} <= set(engine.adapters.loaded)
    agent = MultiRoleAgent.on_adapters(engine, demo_env(), max_steps=3, constrained_caller=True)
    assert agent.planner.llm is agent.caller.llm is agent.summarizer.llm  # one backbone
    trace = agent.run("What is 17 times 23?")
    labels = {s.role: s.data["engine"] for s in trace.steps if "engine" in s.data}
    assert labels["planner"].endswith("@planner"), labels
    assert all(label.endswith(f"@{role}") for role, label in labels.items()), labels
    stack = agent.caller.describe()["adapters"]
    assert [a["path"] for a in stack] == [str(glpft_run / "single" / "adapter.gguf"),
                                          str(glpft_run / "caller" / "adapter.gguf")]  # fmt: skip
