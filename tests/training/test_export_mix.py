"""`toollearn export mix`: GGUF LoRA adapters mixed into one, on the shipped adapters: the mix's
delta is the weighted sum of theirs, it records its sources, llama.cpp serves it, and bad input
gets a clear error."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gguf import GGUFReader

from toollearn.cli.main import main
from toollearn.core.errors import DataError, EngineError
from toollearn.engines.llama_merge import lora_deltas
from toollearn.models import AGENT_ADAPTER, PAPERS_ADAPTER
from toollearn.training.export import mix_lora_gguf


def test_the_mix_is_the_weighted_sum_of_the_deltas_across_ranks(tmp_path):
    # tools-135m: rank 16, alpha 32; agent-135m: rank 4, alpha 8
    out = mix_lora_gguf([(PAPERS_ADAPTER, 0.3), (AGENT_ADAPTER, 0.7)], tmp_path / "mix.gguf")
    mixed, tools, agent = (lora_deltas(p) for p in (out, PAPERS_ADAPTER, AGENT_ADAPTER))
    assert set(mixed) == set(tools) == set(agent) and len(mixed) == 210
    for name, delta in mixed.items():
        want = 0.3 * tools[name] + 0.7 * agent[name]
        np.testing.assert_allclose(delta, want, atol=2e-3 * float(np.abs(want).max()))
    reader = GGUFReader(out)
    assert reader.get_field("adapter.type").contents() == "lora"
    assert {t.name for t in reader.tensors if t.name.startswith("blk.0.attn_q")} == {
        "blk.0.attn_q.weight.lora_a", "blk.0.attn_q.weight.lora_b"}  # fmt: skip
    assert next(t for t in reader.tensors if t.name == "blk.0.attn_q.weight.lora_a").shape[1] == 20
    sources = json.loads(reader.get_field("toollearn.mix").contents())
    assert [(s["weight"], len(s["sha256"])) for s in sources] == [(0.3, 64), (0.7, 64)]


def test_the_cli_splits_the_weight_evenly_unless_told(tmp_path, capsys):
    out = tmp_path / "even.gguf"
    assert main(["export", "mix", str(AGENT_ADAPTER), str(AGENT_ADAPTER), "--out", str(out)]) == 0
    assert "0.5 x" in capsys.readouterr().out
    mixed, agent = lora_deltas(out), lora_deltas(AGENT_ADAPTER)
    for name, delta in mixed.items():  # the average of an adapter with itself is the adapter
        np.testing.assert_allclose(delta, agent[name], atol=1e-3 * float(np.abs(delta).max()))
    weighted = tmp_path / "weighted.gguf"
    assert main(["export", "mix", f"{AGENT_ADAPTER}=2", "--out", str(weighted)]) == 0
    doubled = lora_deltas(weighted)
    name = "blk.3.ffn_down.weight"
    np.testing.assert_allclose(doubled[name], 2 * agent[name], rtol=0, atol=1e-5)


def test_bad_input_gets_a_clear_error(tmp_path, capsys):
    assert main(["export", "mix", f"{AGENT_ADAPTER}=half", "--out", str(tmp_path / "x.gguf")]) == 1
    assert "not a number" in capsys.readouterr().err
    with pytest.raises(DataError, match="not found"):
        mix_lora_gguf([(tmp_path / "missing.gguf", 1.0)], tmp_path / "out.gguf")
    with pytest.raises(DataError, match="at least one"):
        mix_lora_gguf([], tmp_path / "out.gguf")
    from toollearn.engines.llama import embedded_model_path

    with pytest.raises(EngineError, match="not a GGUF LoRA"):
        mix_lora_gguf([(embedded_model_path(), 1.0)], tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


@pytest.mark.model
def test_llama_cpp_serves_a_mix_of_an_adapter_with_itself_as_the_adapter(tmp_path):
    from toollearn.engines import load_engine

    mix = mix_lora_gguf([(AGENT_ADAPTER, 0.5), (AGENT_ADAPTER, 0.5)], tmp_path / "mix.gguf")
    prompt = ["<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n"]
    texts = {}
    for name, path in {"agent": AGENT_ADAPTER, "mix": mix}.items():
        engine = load_engine(f"tuned:{PAPERS_ADAPTER}+{path}", n_threads=1)
        texts[name] = engine.complete(prompt, max_tokens=24)[0].text
    assert texts["mix"] == texts["agent"] and texts["agent"].strip()
