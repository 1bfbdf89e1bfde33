"""compact_cpu_scoring: TRL's fused LM head scores only labelled positions on a CPU, with the
same loss, entropy and LoRA gradients bit for bit, and TRL's switch is put back after."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.model


def test_compact_scoring_gives_the_same_loss_and_gradients_on_fewer_positions(monkeypatch):
    import torch
    import trl.trainer.utils as trl_utils
    from peft import LoraConfig, get_peft_model

    from toollearn.agents.oracle import DEMO_TRAJECTORIES
    from toollearn.data.trajectories import read_trajectories
    from toollearn.datagen.umi import role_samples
    from toollearn.engines.hf import load_hf
    from toollearn.engines.llama import embedded_model_path
    from toollearn.formats.chat import ChatTemplate
    from toollearn.training.compact_head import compact_cpu_scoring
    from toollearn.training.data import IGNORE, SampleEncoder, turn_chains

    torch.manual_seed(0)
    model, tok = load_hf(embedded_model_path(), "float32")
    trl_utils.add_fused_lm_head(model, outputs=("log_probs", "entropy", "is_top1"))
    targets = ["q_proj", "v_proj", "down_proj"]  # B not zero: every parameter gets a gradient
    lora = LoraConfig(r=4, lora_alpha=8, target_modules=targets, init_lora_weights=False)
    model = get_peft_model(model, lora)
    turns = role_samples(read_trajectories(DEMO_TRAJECTORIES), ("umi-tool-calls",))
    row = SampleEncoder(tok, ChatTemplate.from_tokenizer(tok), 2048).encode_all(
        turn_chains(turns)[:1])[0]  # fmt: skip
    ids, labels = torch.tensor([row["input_ids"]]), torch.tensor([row["labels"]])
    n_labelled = int((labels[:, 1:] != IGNORE).sum())
    assert 0 < n_labelled < ids.shape[1] // 2  # mostly prompt, as the agent data is

    scored = []  # the positions each call projects through the LM head
    kernel = trl_utils._ChunkedLogProbFunction

    class Spy:
        @staticmethod
        def apply(hidden, *args):
            scored.append(len(hidden))
            return kernel.apply(hidden, *args)

    monkeypatch.setattr(trl_utils, "_ChunkedLogProbFunction", Spy)

    def step():
        model.zero_grad()
        out = model(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels,
                    fused_lm_head=True)  # fmt: skip
        out.loss.backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
        return out.loss.detach(), out.entropy.detach(), grads

    original = trl_utils._use_triton
    every = step()
    with compact_cpu_scoring() as compact:
        assert compact(torch.device("cpu"))
        labelled = step()
    assert trl_utils._use_triton is original
    assert scored == [ids.shape[1] - 1, n_labelled]
    for a, b in zip(every, labelled):
        assert torch.equal(a, b)
    assert every[2].abs().sum() > 0
