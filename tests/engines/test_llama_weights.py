"""Weight types of the embedded model made by llama.cpp's quantizer, and the engine defaults."""

from __future__ import annotations

import argparse

import pytest

from toollearn.core.errors import EngineError

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def shipped():
    pytest.importorskip("llama_cpp")
    from toollearn.engines.llama import embedded_model_path

    return embedded_model_path()


def test_file_means_the_gguf_as_shipped(shipped):
    from toollearn.engines.llama_weights import with_weights

    assert with_weights(shipped, None) == shipped
    assert with_weights(shipped, "file") == shipped


def test_an_unknown_weight_type_is_a_clear_error(shipped):
    from toollearn.engines.llama_weights import with_weights

    with pytest.raises(EngineError, match="unknown weight type 'q3_x'"):
        with_weights(shipped, "q3_x")


def test_a_copy_is_made_once_then_reused(shipped, tmp_path, monkeypatch):
    from toollearn.engines.llama_weights import with_weights

    monkeypatch.setenv("TOOLLEARN_CACHE", str(tmp_path))
    made = with_weights(shipped, "Q8_0")
    assert made.is_file() and made.parent == tmp_path / "gguf" and made.name.endswith(".Q8_0.gguf")
    stamp = made.stat().st_mtime_ns
    assert with_weights(shipped, "q8_0") == made and made.stat().st_mtime_ns == stamp
    assert not list(made.parent.glob(".*.part"))  # written atomically


def test_the_f16_copy_holds_the_shipped_weights(shipped):
    """Dequantised Q4_1 and its F16 copy agree to fp16 rounding, tensor by tensor."""
    gguf = pytest.importorskip("gguf")
    import numpy as np

    from toollearn.engines.llama_weights import with_weights

    f16 = gguf.GGUFReader(with_weights(shipped, "f16"))
    q41 = {t.name: t for t in gguf.GGUFReader(shipped).tensors}
    checked = 0
    for t in f16.tensors:
        if not t.name.startswith("blk.0.") or t.tensor_type != gguf.GGMLQuantizationType.F16:
            continue
        src = q41[t.name]
        want = gguf.quants.dequantize(src.data, src.tensor_type)
        got = np.asarray(t.data, dtype=np.float32).reshape(want.shape)
        assert np.allclose(got, want, rtol=2e-3, atol=1e-6), t.name
        checked += 1
    assert checked >= 7  # q, k, v, o, gate, up, down


def test_weights_alone_name_the_one_model_that_reads_and_generates():
    from toollearn.engines import load_engine
    from toollearn.engines.llama import EMBEDDED_GGUF

    f16 = load_engine("llama", n_threads=1, weights="f16", flash_attn=True)
    info = f16.describe()
    assert info["weights"] == "f16" and info["flash_attn"] is True and f16.reader is None
    assert info["converted_from"]["path"].endswith(EMBEDDED_GGUF) and "prefill_model" not in info
    assert info["model"]["path"].endswith(".F16.gguf") and info["model"]["sha256"]
    old = load_engine("llama", n_threads=1, weights="file", flash_attn=False)
    assert old.model_path.name == EMBEDDED_GGUF and "converted_from" not in old.describe()
    assert old.describe()["flash_attn"] is False
    assert old.complete(["The capital of France is"], max_tokens=4)[0].completion_tokens > 0


def test_cli_flags_reach_the_llama_engine_only():
    from toollearn.cli.common import add_engine_args, engine_options, llama_flags

    p = argparse.ArgumentParser()
    add_engine_args(p)
    args = p.parse_args(["--weights", "file", "--flash-attn", "off", "--threads", "1"])
    flags = llama_flags(args)
    assert flags == {"weights": "file", "flash_attn": False}
    both = llama_flags(p.parse_args(["--weights", "q4_0", "--prefill-weights", "f16"]))
    assert both == {"weights": "q4_0", "prefill_weights": "f16"}
    assert engine_options("llama", 1, **flags) == {**flags, "n_threads": 1}
    assert engine_options("hf:/m", 1, **flags) == {}
    assert llama_flags(p.parse_args([])) == {}
