"""Training samples end with the chat template's end-of-turn token, whatever the tokenizer
calls its eos (transformers 5.17 reads SmolLM2's GGUF eos as <|im_start|>)."""

from __future__ import annotations

import copy

import pytest

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message
from toollearn.formats.chat import ChatTemplate
from toollearn.training.data import IGNORE, SampleEncoder

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def hf():
    from toollearn.engines.hf import load_hf
    from toollearn.engines.llama import embedded_model_path

    return load_hf(embedded_model_path(), "float32")


def test_samples_end_with_the_templates_end_of_turn_even_with_a_wrong_eos(hf):
    _, tok = hf
    tok = copy.deepcopy(tok)
    tok.eos_token = "<|im_start|>"  # what a misreading transformers version gives
    template = ChatTemplate.from_tokenizer(tok)
    assert template.turn_end() == "<|im_end|>\n"
    sample = TrainingSample((Message("user", "Hi?"),), "Hello.", task="chat")
    row = SampleEncoder(tok, template, 256).encode(sample)
    assert tok.convert_ids_to_tokens(row["input_ids"][-1]) == "<|im_end|>"
    assert row["labels"][-1] == row["input_ids"][-1] != IGNORE  # the model learns to stop


def test_a_misread_gguf_eos_is_corrected_from_the_file(hf):
    from toollearn.engines.hf import _gguf_special_tokens
    from toollearn.engines.llama import embedded_model_path

    model, tok = copy.deepcopy(hf[0]), copy.deepcopy(hf[1])
    tok.eos_token = "<|im_start|>"
    _gguf_special_tokens(model, tok, embedded_model_path())
    assert tok.eos_token == "<|im_end|>"
    assert model.generation_config.eos_token_id == tok.eos_token_id == 2
