"""merge_turns: a multi-turn conversation trains as one row, the loss on every model turn, with
the same loss tokens as its turns trained one by one (with the embedded model's tokenizer)."""

from __future__ import annotations

import pytest

from toollearn.core.samples import TrainingSample
from toollearn.core.types import Message
from toollearn.datagen.dataset import write_dataset
from toollearn.formats.chat import ChatTemplate
from toollearn.training.data import IGNORE, SampleEncoder, load_mixture, turn_chains

SYSTEM, USER = Message("system", "Tools: add(a, b)."), Message("user", "Add 2 and 3, then 4.")
CALL1 = '[{"name": "add", "arguments": {"a": 2, "b": 3}}]'
CALL2 = '[{"name": "add", "arguments": {"a": 5, "b": 4}}]'
RESULT1, RESULT2 = Message("tool", '{"content": 5}'), Message("tool", '{"content": 9}')


def conversation(user: Message = USER) -> list[TrainingSample]:
    """One agent trajectory as the per-turn samples the generators write."""
    turns = [(CALL1, ()), (CALL2, (RESULT1,)), ("[]\nThe result is 9.", (RESULT2,))]
    out, history = [], [SYSTEM, user]
    for target, results in turns:
        if out:
            history += [Message("assistant", out[-1].target), *results]
        out.append(TrainingSample(tuple(history), target, task="tool-calls"))
    return out


def test_turns_are_grouped_by_conversation_in_turn_order():
    first, other = conversation(), conversation(Message("user", "Add 1 and 1."))
    single = TrainingSample((SYSTEM, Message("user", "Hi")), "[]\nHello.")
    chains = turn_chains([other[2], first[1], single, first[0], other[0], first[2], other[1]])
    assert chains == [tuple(other), (single,), tuple(first)]  # in the order of their last turn


def test_a_branching_conversation_shares_its_prefix_with_one_branch_only():
    a = conversation()
    b = TrainingSample((*a[1].messages, Message("assistant", CALL2), Message("tool", "error")),
                       "[]\nIt failed.")  # fmt: skip
    chains = turn_chains([*a, b])
    assert chains == [tuple(a), (b,)]  # the second branch keeps only its own last turn
    assert sorted(map(len, chains)) == [1, 3]


@pytest.fixture(scope="module")
def encoder_parts():
    from toollearn.engines.hf import load_hf
    from toollearn.engines.llama import embedded_model_path

    _, tok = load_hf(embedded_model_path(), "float32")
    return tok, ChatTemplate.from_tokenizer(tok)


def loss_tokens(row: dict[str, list[int]]) -> list[int]:
    return [t for t in row["labels"] if t != IGNORE]


@pytest.mark.model
def test_a_conversation_is_its_last_turns_row_with_every_turns_loss(encoder_parts):
    turns = conversation()
    separate = [SampleEncoder(*encoder_parts, 2048).encode(s) for s in turns]
    encoder = SampleEncoder(*encoder_parts, 2048)
    [row] = encoder.encode_all([tuple(turns)])
    assert row["input_ids"] == separate[-1]["input_ids"]
    assert loss_tokens(row) == [t for r in separate for t in loss_tokens(r)]
    assert encoder.merged == {"turns merged into a later turn's row": 2, "conversations": 1}
    text = encoder_parts[0].decode(loss_tokens(row))
    assert CALL1 in text and CALL2 in text and "The result is 9." in text


@pytest.mark.model
def test_a_conversation_over_max_length_trains_turn_by_turn(encoder_parts):
    turns = conversation()
    lengths = [len(SampleEncoder(*encoder_parts, 2048).encode(s)["input_ids"]) for s in turns]
    encoder = SampleEncoder(*encoder_parts, lengths[1])  # the last turn no longer fits
    rows = encoder.encode_all([tuple(turns)])
    assert [len(r["input_ids"]) for r in rows] == lengths[:2]
    assert encoder.dropped == {"longer than max_length": 1}
    assert encoder.merged == {"conversations over max_length, trained turn by turn": 1}


def test_the_mixture_draws_and_holds_out_whole_conversations(tmp_path):
    convs = [conversation(Message("user", f"Add {i} and 3, then 4.")) for i in range(6)]
    samples = [s for c in convs for s in c]
    write_dataset(tmp_path / "d", samples, config={})
    mix = load_mixture({str(tmp_path / "d"): 1}, 5, 2, seed=0, merge_turns=True)
    assert len(mix.eval) == 2 and len(mix.train) == 3
    assert all(isinstance(u, tuple) and len(u) == 3 for u in mix.train + mix.eval)
    source = mix.sources[str(tmp_path / "d")]
    assert source["unit"] == "conversation"
    assert (source["available"], source["available_turns"]) == (6, 18)
    assert (source["drawn"], source["drawn_turns"]) == (5, 15)
    plain = load_mixture({str(tmp_path / "d"): 1}, 5, 2, seed=0)
    assert all(isinstance(u, TrainingSample) for u in plain.train)
