"""The engine names `base` and `tuned` (the shipped adapter), resolved without a model."""

from __future__ import annotations

import pytest

import toollearn.models as models
from toollearn.cli.common import engine_options, is_llama
from toollearn.core.errors import EngineError
from toollearn.models import TUNED_ADAPTER, resolve_alias, tuned_info


def test_aliases_resolve_to_llama_specs():
    assert resolve_alias("base") == "llama"
    assert resolve_alias("base@/x.gguf") == "llama@/x.gguf"
    assert resolve_alias("tuned") == "tuned"  # merged by the engine
    assert resolve_alias("tuned@/x.gguf") == "tuned@/x.gguf"
    for other in ("llama", "llama:/m.gguf@/a.gguf", "hf:/dir", "openai:http://h/v1#m"):
        assert resolve_alias(other) == other
    assert is_llama("tuned") and is_llama("base@/x.gguf") and not is_llama("hf:/dir")
    # a newly trained adapter merged in: --threads and --n-seq must reach llama.cpp too
    assert is_llama("tuned:/a.gguf+/b.gguf") and is_llama("tuned:/a.gguf@/c.gguf")
    assert engine_options("tuned:/a.gguf", 1, n_seq=8) == {"n_threads": 1, "n_seq": 8}
    assert engine_options("hf:/dir", 1, n_seq=8) == {}


def test_the_adapter_ships_with_its_training_record():
    assert TUNED_ADAPTER.is_file() and TUNED_ADAPTER.stat().st_size < 25 * 2**20
    info = tuned_info()
    assert info["config"]["method"] == "lora" and info["datasets"]
    notice = (TUNED_ADAPTER.parent / "NOTICE").read_text()
    assert "Seal-Tools" in notice and "ToolDEER" in notice and "SmolLM2" in notice


def test_a_missing_adapter_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setattr(models, "TUNED_ADAPTER", tmp_path / "gone.gguf")
    with pytest.raises(EngineError, match="--model base"):
        resolve_alias("tuned")
    assert resolve_alias("base") == "llama"
