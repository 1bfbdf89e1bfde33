"""llama.cpp's extra weight buffers (AMX, repacked) are off on CPUs with AMX, where they crash
multi-sequence decoding, and on elsewhere; models load with that setting and the library's
defaults are restored after. No model needed: a stand-in for the llama_cpp package."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from toollearn.engines.llama import _weight_buffers, extra_buffers


def fake_llama_cpp(system_info: bytes) -> SimpleNamespace:
    def defaults() -> SimpleNamespace:
        return SimpleNamespace(use_extra_bufts=True)

    bindings = SimpleNamespace(llama_model_default_params=defaults)
    return SimpleNamespace(llama_print_system_info=lambda: system_info, llama_cpp=bindings)


def test_extra_buffers_are_off_on_amx_cpus_and_on_elsewhere(monkeypatch):
    monkeypatch.delenv("TOOLLEARN_LLAMA_EXTRA_BUFFERS", raising=False)
    amx = fake_llama_cpp(b"CPU : AVX512 = 1 | AMX_INT8 = 1 | REPACK = 1 |")
    zen = fake_llama_cpp(b"CPU : AVX512 = 1 | AVX512_BF16 = 1 | REPACK = 1 |")
    assert extra_buffers(amx) is False and extra_buffers(zen) is True
    monkeypatch.setenv("TOOLLEARN_LLAMA_EXTRA_BUFFERS", "1")
    assert extra_buffers(amx) is True
    monkeypatch.setenv("TOOLLEARN_LLAMA_EXTRA_BUFFERS", "0")
    assert extra_buffers(zen) is False


def test_models_load_without_extra_buffers_and_defaults_come_back():
    lib = fake_llama_cpp(b"AMX_INT8 = 1")
    original = lib.llama_cpp.llama_model_default_params
    with _weight_buffers(lib, extra=False):
        assert lib.llama_cpp.llama_model_default_params().use_extra_bufts is False
    assert lib.llama_cpp.llama_model_default_params is original
    assert original().use_extra_bufts is True
    with pytest.raises(RuntimeError), _weight_buffers(lib, extra=False):
        raise RuntimeError("the model failed to load")
    assert lib.llama_cpp.llama_model_default_params is original
    with _weight_buffers(lib, extra=True):
        assert lib.llama_cpp.llama_model_default_params is original
