"""Fine-tuning the embedded MiniLM on generated (query, tool) pairs (`toollearn retrieve train`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from toollearn.core.errors import DataError, RetrievalError

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A generated mixture for the example home tools (templates, no model)."""
    from toollearn.cli.main import main

    out = tmp_path_factory.mktemp("mix") / "home"
    assert main(["datagen", "mixture", "--tools", str(EXAMPLES / "home_tools.json"), "-n", "300",
                 "--out", str(out)]) == 0  # fmt: skip
    return out


def test_pairs_name_the_called_tools_with_a_similar_negative(generated):
    from toollearn.retrieval.train import dataset_pairs, mix_pairs

    pairs = dataset_pairs(generated)
    assert pairs and all(p.query and p.positive and p.negative for p in pairs)
    assert all(p.positive != p.negative for p in pairs)
    assert len({(p.query, p.positive) for p in pairs}) == len(pairs)
    twice, sources = mix_pairs({str(generated): 0, str(generated) + "/data.jsonl": 0})
    assert len(twice) == len(pairs)  # the same pairs from a second source are not repeated
    assert sources[0]["data"]["sha256"] and sources[1]["pairs_used"] == 0


def test_bad_input_is_a_clear_error(tmp_path):
    from toollearn.retrieval.dense import MiniLMEncoder
    from toollearn.retrieval.train import dataset_pairs

    with pytest.raises(DataError, match="no generated dataset"):
        dataset_pairs(tmp_path)
    (tmp_path / "data.jsonl").write_text("not json\n")
    with pytest.raises(DataError, match="line 1"):
        dataset_pairs(tmp_path)
    with pytest.raises(RetrievalError, match="no SentenceTransformer model"):
        MiniLMEncoder(path=tmp_path)


@pytest.fixture(scope="module")
def seal_generated(tmp_path_factory, seal_dir):
    """Seal-Tools instances generated from the real tool pool (templates, no model)."""
    from toollearn.cli.main import main

    out = tmp_path_factory.mktemp("seal") / "seal"
    assert main(["datagen", "seal", "-n", "400", "--no-tokens", "--data-root",
                 str(seal_dir.parent), "--out", str(out)]) == 0  # fmt: skip
    return out


@pytest.mark.model
def test_training_pulls_queries_to_their_tools(seal_generated, tmp_path):
    """256 generated pairs, one epoch: on the pairs it did not see, queries move nearer their
    gold tool than to a similar other tool (margin and accuracy against the embedded MiniLM)."""
    pytest.importorskip("sentence_transformers")
    from toollearn.cli.main import main
    from toollearn.retrieval.dense import MiniLMEncoder
    from toollearn.retrieval.train import dataset_pairs, mix_pairs

    out = tmp_path / "ret"
    assert main(["retrieve", "train", "--data", f"{seal_generated}:256", "--out", str(out),
                 "--batch-size", "16", "--lr", "1e-4", "--threads", "2"]) == 0  # fmt: skip
    info = json.loads((out / "train.json").read_text())
    assert info["pairs"] == 256 and info["steps"] == 16
    assert info["datasets"][0]["leakage_report"].endswith("leakage.json")
    seen = {(p.query, p.positive) for p in mix_pairs({str(seal_generated): 256})[0]}
    unseen = [p for p in dataset_pairs(seal_generated) if (p.query, p.positive) not in seen]
    assert len(unseen) >= 100

    def margin(encoder) -> tuple[float, float]:
        q = encoder.encode([p.query for p in unseen])
        pos = (q * encoder.encode([p.positive for p in unseen])).sum(1)
        neg = (q * encoder.encode([p.negative for p in unseen])).sum(1)
        return float(np.mean(pos - neg)), float(np.mean(pos > neg))

    base, tuned = MiniLMEncoder(), MiniLMEncoder(path=out / "model")
    assert tuned.model_id != base.model_id and "fine-tuned" in tuned.model_id
    (m0, acc0), (m1, acc1) = margin(base), margin(tuned)
    assert m1 > m0 + 0.01 and acc1 >= acc0, (m0, acc0, m1, acc1)


@pytest.mark.model
def test_a_lora_adapter_trains_small_and_loads_into_the_embedded_minilm(seal_generated, tmp_path):
    """`--lora`: only the adapter is written (float16, a fraction of the model's bytes), the
    encoder merges it into the embedded MiniLM, and it moves unseen queries nearer their tools."""
    pytest.importorskip("peft")
    from safetensors import safe_open

    from toollearn.cli.main import main
    from toollearn.retrieval.dense import MiniLMEncoder
    from toollearn.retrieval.train import dataset_pairs, mix_pairs

    out = tmp_path / "lora"
    args = ["--batch-size", "16", "--lr", "1e-3", "--threads", "2", "--lora", "8"]
    assert (
        main(["retrieve", "train", "--data", f"{seal_generated}:256", "--out", str(out), *args])
        == 0
    )
    model = out / "model"
    assert sorted(p.name for p in model.iterdir()) == [
        "adapter_config.json", "adapter_model.safetensors"]  # fmt: skip
    assert (model / "adapter_model.safetensors").stat().st_size < 1_000_000
    with safe_open(str(model / "adapter_model.safetensors"), "pt") as f:
        assert {str(f.get_tensor(k).dtype) for k in f.keys()} == {"torch.float16"}  # noqa: SIM118
    config = json.loads((model / "adapter_config.json").read_text())
    assert config["r"] == 8 and not config["base_model_name_or_path"].startswith("/")
    assert json.loads((out / "train.json").read_text())["config"]["lora_r"] == 8
    base, tuned = MiniLMEncoder(), MiniLMEncoder(path=model)
    assert "LoRA adapter (sha256" in tuned.model_id
    seen = {(p.query, p.positive) for p in mix_pairs({str(seal_generated): 256})[0]}
    unseen = [p for p in dataset_pairs(seal_generated) if (p.query, p.positive) not in seen]

    def margin(encoder) -> float:
        q = encoder.encode([p.query for p in unseen])
        pos = (q * encoder.encode([p.positive for p in unseen])).sum(1)
        neg = (q * encoder.encode([p.negative for p in unseen])).sum(1)
        return float(np.mean(pos - neg))

    assert margin(tuned) > margin(base) + 0.01
