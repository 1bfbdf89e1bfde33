"""The llama.cpp engine on the embedded SmolLM2-135M model (marked `model`)."""

from __future__ import annotations

import numpy as np
import pytest

from toollearn.core.types import Tool
from toollearn.decoding.seal_tools import seal_calls_constraint
from toollearn.engines import load_engine, user

pytestmark = pytest.mark.model

TOOLS = [
    Tool(
        "getWeather",
        "Current weather of a city",
        {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
        {"temperature": {"type": "float", "description": "degrees"}},
    ),
    Tool("getTime", "Current time", responses={"time": {"type": "str", "description": "now"}}),
]


@pytest.fixture(scope="module")
def engine():
    pytest.importorskip("llama_cpp")
    return load_engine("llama", n_threads=1)


def test_chat_prompts_use_the_models_own_template(engine):
    text = engine.render(user("hello"))
    assert text.startswith("<|im_start|>system") and text.endswith("<|im_start|>assistant\n")
    assert engine.render("raw text") == "raw text"


def test_model_is_loaded_once_and_shared(engine):
    assert load_engine("llama", n_threads=1).llm is engine.llm


def test_batch_in_order_with_stop_and_token_counts(engine):
    out = engine.complete([user("Count: 1, 2, 3,"), "The capital of France is"], max_tokens=12)
    assert len(out) == 2 and all(o.completion_tokens > 0 and o.prompt_tokens > 0 for o in out)
    stopped = engine.complete(["1, 2, 3, 4, 5, 6,"], max_tokens=20, stop=[","])[0]
    assert "," not in stopped.text and stopped.finish_reason == "stop"


def test_constrained_answer_is_a_call_to_a_candidate(engine):
    import json

    c = seal_calls_constraint(TOOLS, allow_empty=False)
    out = engine.complete(
        [user("What is the weather in Paris for 3 days?")], constraint=c, max_tokens=96
    )[0]
    calls = json.loads(out.text)
    assert out.finish_reason == "stop" and calls
    assert all(call["api"] in {"getWeather", "getTime"} for call in calls)


def test_fast_grammar_path_matches_the_library_sampler(engine):
    from toollearn.engines.llama import LlamaEngine

    slow = LlamaEngine(n_threads=1, fast_grammar=False)
    c = seal_calls_constraint(TOOLS, allow_empty=True)
    p = [user("Tell me the time, then the weather in Rome.")]
    assert (
        engine.complete(p, constraint=c, max_tokens=80)[0].text
        == slow.complete(p, constraint=c, max_tokens=80)[0].text
    )


def test_json_schema_constraints_work_too(engine):
    import json

    schema = json.dumps(
        {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    )
    from toollearn.decoding import Constraint

    out = engine.complete(
        ["Answer in JSON:"], constraint=Constraint("json_schema", schema), max_tokens=20
    )[0]
    assert isinstance(json.loads(out.text)["ok"], bool)


def test_continuation_logprobs_match_the_librarys_own_and_ignore_the_cache(engine):
    from toollearn.engines.llama import load_llama

    prompt = user("Name a colour.")
    conts = [" Blue", " The colour red", " Blue"]
    scores = engine.continuation_logprobs(prompt, conts)
    assert scores[0] == pytest.approx(scores[2], abs=1e-4) and scores[1] < 0
    engine.complete([user("Something else entirely, to fill the cache.")], max_tokens=4)
    assert engine.continuation_logprobs(prompt, conts[1::-1]) == pytest.approx(
        scores[1::-1], abs=1e-3
    )
    # the reference: the whole text read in one batch by a model keeping every row of logits
    text = engine.render(prompt)
    ref = load_llama(engine.prefill_path or engine.model_path, 2048, 1, logits_all=True)
    n_prompt = len(ref.tokenize(text.encode(), special=True))
    for cont, ours in zip(conts[:2], scores):
        tokens = ref.tokenize((text + cont).encode(), special=True)
        ref.reset()
        ref.eval(tokens)
        rows = ref.scores[n_prompt - 1 : len(tokens) - 1].astype("float64")
        rows -= rows.max(axis=1, keepdims=True)
        log_probs = rows - np.log(np.exp(rows).sum(axis=1, keepdims=True))
        theirs = sum(log_probs[i, t] for i, t in enumerate(tokens[n_prompt:]))
        assert ours == pytest.approx(theirs, abs=0.05)


def _seq_cells(llm) -> bytes:
    """The KV state of sequence 0 of a llama_cpp.Llama, as llama.cpp exports it."""
    import ctypes

    import llama_cpp

    ctx = llm._ctx.ctx
    size = llama_cpp.llama_state_seq_get_size(ctx, 0)
    buf = (ctypes.c_uint8 * size)()
    return bytes(buf[: llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0)])


def test_a_prompts_cells_do_not_depend_on_the_requests_before_it(engine):
    from toollearn.core.types import Message

    assert engine.reader is not None  # the default engine reads prompts with F16 weights
    first = user("Describe the weather in Paris in two sentences.")
    text = engine.complete([first], max_tokens=24)[0].text
    # a chat's second turn: the first prompt and its answer, then a few new tokens
    follow = [*first, Message("assistant", text), Message("user", "Shorter.")]
    after = engine.complete([follow], max_tokens=16)[0].text
    cells_after = _seq_cells(engine.llm)
    for llm in (engine.llm, engine.reader.llm):
        llm.reset()
    fresh = engine.complete([follow], max_tokens=16)[0].text
    assert fresh == after and _seq_cells(engine.llm) == cells_after
    short = user("Hi")  # read by the generating model itself, from scratch each time
    assert (
        engine.complete([short], max_tokens=6)[0].text
        == engine.complete([short], max_tokens=6)[0].text
    )
