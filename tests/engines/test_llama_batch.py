"""Multi-sequence batched decoding on the embedded model: same greedy outputs as one at a time.

Marked `model` (runs SmolLM2-135M on the CPU, about a minute on 2 busy cores).
"""

from __future__ import annotations

import pytest

from toollearn.decoding.seal_tools import seal_calls_constraint
from toollearn.engines import load_engine, user
from toollearn.engines.llama_batch import Request

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def engine():
    pytest.importorskip("llama_cpp")
    return load_engine("llama", n_threads=2, n_seq=4)


@pytest.fixture(scope="module")
def seal_examples(shared_data):
    from toollearn.evaluation.runners.seal_tools import load_prompts

    exs = load_prompts("all", shared_data)
    return exs[::500][:3]  # both test splits


def _one_by_one(engine, requests):
    return [
        engine.complete_sequential([r.prompt], r.max_tokens, r.stop, 0.0, 0, r.constraint)[0]
        for r in requests
    ]


def test_batched_greedy_matches_sequential_on_seal_prompts_both_modes(engine, seal_examples):
    free = [Request(user(ex.metadata["prompt"]), 16) for ex in seal_examples]
    cons = [
        Request(user(ex.metadata["prompt"]), 40, (), seal_calls_constraint(ex.tools, False))
        for ex in seal_examples
    ]
    both = [r for pair in zip(free, cons) for r in pair]  # shared prompts: evaluated once
    want = _one_by_one(engine, both)
    got = engine.complete_requests(both)
    assert [c.text for c in got] == [c.text for c in want]
    assert [c.finish_reason for c in got] == [c.finish_reason for c in want]
    assert [c.prompt_tokens for c in got] == [c.prompt_tokens for c in want]
    assert [c.completion_tokens for c in got] == [c.completion_tokens for c in want]


def test_each_sequence_stops_on_its_own(engine):
    reqs = [
        Request("1, 2, 3, 4, 5, 6,", 20, (",",)),
        Request("The capital of France is", 3),
        Request("Count: 1, 2, 3,", 9),
        Request("a b c d e f", 5),
    ]
    got = engine.complete_requests(reqs)
    assert "," not in got[0].text and got[0].finish_reason == "stop"
    assert got[1].completion_tokens == 3 and got[1].finish_reason == "length"
    assert got[2].completion_tokens <= 9
    assert [c.text for c in got] == [c.text for c in _one_by_one(engine, reqs)]


def test_complete_with_several_prompts_is_batched_and_ordered(engine):
    prompts = [user("Say hi."), "The capital of France is", user("Say hi.")]
    got = engine.complete(prompts, max_tokens=8)
    assert got[0].text == got[2].text and len(got) == 3
    sampled = engine.complete(prompts, max_tokens=8, temperature=0.8, seed=3)
    again = engine.complete(prompts, max_tokens=8, temperature=0.8, seed=3)
    assert [c.text for c in sampled] == [c.text for c in again]  # seeded


def test_nucleus_sampling_keeps_the_smallest_set_holding_top_p():
    """The batched decoder's sampler (no model needed): tokens outside the nucleus never come."""
    import numpy as np

    from toollearn.engines.llama_batch import BatchDecoder, SeqRequest, _Live

    logits = np.log(np.array([0.6, 0.3, 0.1], dtype=np.float32))

    def draws(top_p: float) -> set[int]:
        live = _Live(0, SeqRequest((1,), temperature=1.0, top_p=top_p), 0, 1,
                     rng=np.random.default_rng(0))  # fmt: skip
        return {BatchDecoder._choose(None, live, logits) for _ in range(300)}

    assert draws(0.5) == {0}
    assert draws(0.85) == {0, 1}
    assert draws(1.0) == {0, 1, 2}
