"""transformers engine on the embedded GGUF (dequantised once, cached), with a LoRA adapter."""

from __future__ import annotations

import json

import pytest

from toollearn.core.types import Tool
from toollearn.decoding.seal_tools import seal_calls_constraint
from toollearn.engines import load_engine, user

pytestmark = [pytest.mark.model, pytest.mark.slow]


@pytest.fixture(scope="module")
def gguf(tmp_path_factory):
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    from toollearn.engines.llama import embedded_model_path

    return embedded_model_path()


@pytest.fixture(scope="module")
def engine(gguf):
    return load_engine(f"hf:{gguf}", n_threads=1)


def test_left_padded_batch_equals_one_by_one(engine):
    prompts = [user("Name a color."), "The capital of France is"]
    batch = engine.complete(prompts, max_tokens=8)
    single = [engine.complete([p], max_tokens=8)[0] for p in prompts]
    assert [b.text for b in batch] == [s.text for s in single]
    assert engine.render(prompts[0]).startswith("<|im_start|>system")


def test_llguidance_constraint_gives_candidate_calls(engine):
    tools = [Tool("getTime", "Current time", responses={"time": {"type": "str"}})]
    c = seal_calls_constraint(tools, allow_empty=False)
    out = engine.complete([user("What time is it?"), user("Hi!")], max_tokens=40, constraint=c)
    for o in out:
        assert o.finish_reason == "stop"
        assert [call["api"] for call in json.loads(o.text)] == ["getTime"] * len(json.loads(o.text))


def test_base_plus_lora_adapter(gguf, engine, tmp_path):
    peft = pytest.importorskip("peft")
    from toollearn.engines.hf import _gguf_cache_dir, load_hf

    base_dir = _gguf_cache_dir(gguf)
    fresh, _ = load_hf(base_dir)  # a separate copy: get_peft_model edits the model in place
    cfg = peft.LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"])
    peft.get_peft_model(fresh, cfg).save_pretrained(tmp_path / "adapter")
    adapted = load_engine(f"hf:{base_dir}+{tmp_path / 'adapter'}", n_threads=1)
    assert adapted.name.endswith("adapter")
    # a fresh LoRA starts as a no-op (B = 0): same greedy text as the base model
    p = ["The capital of France is"]
    assert adapted.complete(p, max_tokens=6)[0].text == engine.complete(p, max_tokens=6)[0].text


def test_missing_model_is_a_clear_error(tmp_path):
    from toollearn.core.errors import EngineError

    with pytest.raises(EngineError, match="not found"):
        load_engine(f"hf:{tmp_path / 'nothing'}")


def test_one_template_path_in_every_engine(engine, gguf):
    """The hf engine, the llama engine and a trainer reading the GGUF render the same text, and
    transformers' own templating (continue_final_message for a prefill) agrees."""
    from toollearn.core.types import Message
    from toollearn.engines.llama import LlamaEngine
    from toollearn.formats.chat import ChatTemplate

    plain = [Message("system", "Be brief."), Message("user", "Hi")]
    prefill = [Message("user", "Hi"), Message("assistant", "#Begin# Need")]
    from_file = ChatTemplate.from_gguf(gguf)
    llama = LlamaEngine(n_threads=1)
    for msgs in (plain, prefill):
        assert engine.render(msgs) == llama.render(msgs) == from_file.render(msgs)
    tok = engine.tokenizer
    dicts = [m.to_dict() for m in plain]
    assert engine.render(plain) == tok.apply_chat_template(dicts, add_generation_prompt=True,
                                                           tokenize=False)  # fmt: skip
    dicts = [m.to_dict() for m in prefill]
    assert engine.render(prefill) == tok.apply_chat_template(
        dicts, continue_final_message=True, tokenize=False
    )
    assert engine.describe()["chat_template_sha256"] == llama.describe()["chat_template_sha256"]
