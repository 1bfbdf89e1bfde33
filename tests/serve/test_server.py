"""`toollearn serve` through the official `openai` client on 127.0.0.1.

The embedded model answers the tool call, the no-call answer, the stream and the tool-result
turn; the queue and timeout tests use a slow scripted engine (logic around the model only).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

openai = pytest.importorskip("openai")

from toollearn.engines.base import Completion  # noqa: E402
from toollearn.serve.app import BackgroundServer, ServerConfig  # noqa: E402

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}  # fmt: skip
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Get the current time in a time zone",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}},
                   "required": ["zone"]}}}  # fmt: skip


MODEL = "smollm2-135m-tools"


@pytest.fixture(scope="module")
def served():
    from toollearn.engines import load_engine

    engine = load_engine("tuned", n_threads=2)  # what `toollearn serve` runs by default
    with BackgroundServer(engine, ServerConfig(model_id=MODEL, max_tokens=512)) as s:
        yield s, openai.OpenAI(base_url=s.url, api_key="none", max_retries=0)


def ask(client, content, **kw):
    return client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": content}], **kw
    )


@pytest.mark.model
def test_models_lists_the_served_model(served):
    _, client = served
    assert [m.id for m in client.models.list().data] == [MODEL]


@pytest.mark.model
def test_a_required_tool_call_names_a_listed_tool_with_typed_arguments(served):
    _, client = served
    out = ask(client, "What is the weather in Paris?", tools=[WEATHER, TIME],
              tool_choice="required", max_tokens=64)  # fmt: skip
    choice = out.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.tool_calls
    for call in choice.message.tool_calls:
        assert call.function.name in ("get_weather", "get_time")
        args = json.loads(call.function.arguments)
        assert isinstance(args, dict) and all(isinstance(v, str) for v in args.values())
    named = ask(client, "What is the weather in Paris?", tools=[WEATHER, TIME], max_tokens=64,
                tool_choice={"type": "function", "function": {"name": "get_time"}})  # fmt: skip
    assert {c.function.name for c in named.choices[0].message.tool_calls} == {"get_time"}


@pytest.mark.model
def test_tool_choice_none_and_no_tools_answer_in_text(served):
    _, client = served
    for kw in ({"tools": [WEATHER], "tool_choice": "none"}, {}):
        out = ask(client, "Say hello in one word.", max_tokens=16, **kw)
        msg = out.choices[0].message
        assert msg.tool_calls is None and msg.content and out.usage.completion_tokens > 0


@pytest.mark.model
def test_streaming_sends_the_text_in_pieces_then_stop(served):
    _, client = served
    stream = ask(client, "Count from one to ten in words.", max_tokens=40, stream=True)
    pieces, finish = [], None
    for part in stream:
        if part.choices and part.choices[0].delta.content:
            pieces.append(part.choices[0].delta.content)
        if part.choices and part.choices[0].finish_reason:
            finish = part.choices[0].finish_reason
    whole = ask(client, "Count from one to ten in words.", max_tokens=40)
    assert len(pieces) > 3 and finish == whole.choices[0].finish_reason
    assert "".join(pieces) == whole.choices[0].message.content  # greedy: the same text
    cut = ask(client, "Tell me a long story about a dragon.", max_tokens=5, stream=True)
    assert [p.choices[0].finish_reason for p in cut if p.choices][-1] == "length"


@pytest.mark.model
def test_a_streamed_tool_call_arrives_as_a_tool_calls_delta(served):
    _, client = served
    stream = ask(client, "Weather in Rome?", tools=[WEATHER], tool_choice="required",
                 max_tokens=64, stream=True)  # fmt: skip
    deltas, finish = [], None
    for part in stream:
        if part.choices and part.choices[0].delta.tool_calls:
            deltas += part.choices[0].delta.tool_calls
        if part.choices and part.choices[0].finish_reason:
            finish = part.choices[0].finish_reason
    heads = [d for d in deltas if d.id]
    assert finish == "tool_calls" and heads[0].index == 0 and heads[0].function.name
    assert len(deltas) > 2 * len(heads)  # arguments arrive in fragments
    streamed: dict[int, list[str]] = {}
    for d in deltas:
        name, args = streamed.setdefault(d.index, [d.function.name, ""])
        streamed[d.index][1] = args + d.function.arguments
    whole = ask(client, "Weather in Rome?", tools=[WEATHER], tool_choice="required",
                max_tokens=64)  # fmt: skip
    expected = [(c.function.name, json.loads(c.function.arguments))
                for c in whole.choices[0].message.tool_calls]  # fmt: skip
    assert [(n, json.loads(a)) for n, a in streamed.values()] == expected  # greedy: the same


@pytest.mark.model
def test_a_tool_result_turn_is_read(served):
    _, client = served
    messages = [
        {"role": "user", "content": "What is the weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },  # fmt: skip
        {"role": "tool", "tool_call_id": "call_1", "content": "18 degrees and sunny"},
    ]
    out = client.chat.completions.create(model=MODEL, messages=messages,
                                         tools=[WEATHER], max_tokens=48)  # fmt: skip
    assert out.choices[0].finish_reason in ("stop", "tool_calls", "length")
    assert out.usage.prompt_tokens > 60  # tools, query, call list and result were all read


@pytest.mark.model
@pytest.mark.parametrize(
    ("kw", "code"),
    [({"tools": [WEATHER], "tool_choice": {"type": "function", "function": {"name": "nope"}}},
      "unknown_tool"),
     ({"tools": [{"type": "function", "function": {"name": "bad",
                                                    "parameters": {"type": "array"}}}]},
      "invalid_tool_schema"),
     ({"tool_choice": "required"}, "invalid_request"),
     ({"max_tokens": 0}, "invalid_request")],
)  # fmt: skip
def test_bad_requests_get_a_clear_400(served, kw, code):
    _, client = served
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, "hi", **kw)
    assert info.value.status_code == 400 and info.value.body["code"] == code


@pytest.mark.model
def test_a_prompt_longer_than_the_context_is_a_400(served):
    _, client = served
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, "word " * 5000, max_tokens=16)
    assert info.value.body["code"] == "context_length_exceeded"
    assert ask(client, "Say hi.", max_tokens=4).choices[0].message.content is not None


class SlowEngine:
    """A scripted engine that takes `delay` seconds per answer."""

    name, supports_constraints = "slow", True

    def __init__(self, delay: float):
        self.delay = delay

    def complete(self, prompts, **kw):
        time.sleep(self.delay)
        return [Completion("[]\nfine", prompt_tokens=3, completion_tokens=2) for _ in prompts]


def test_a_full_queue_gets_503_and_the_server_keeps_answering():
    config = ServerConfig(model_id="slow", max_queue=2, timeout=30)
    with BackgroundServer(SlowEngine(0.5), config) as s:
        client = openai.OpenAI(base_url=s.url, api_key="none", max_retries=0)
        results: list[object] = []

        def one():
            try:
                results.append(client.chat.completions.create(
                    model="slow", messages=[{"role": "user", "content": "x"}]))  # fmt: skip
            except openai.APIStatusError as exc:
                results.append(exc.status_code)

        threads = [threading.Thread(target=one) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results.count(503) >= 1 and len(results) == 6
        ok = [r for r in results if r != 503]
        assert ok and all(r.choices[0].message.content == "[]\nfine" for r in ok)
        after = client.chat.completions.create(
            model="slow", messages=[{"role": "user", "content": "x"}]
        )
        assert after.choices[0].message.content == "[]\nfine"


def test_a_slow_answer_gets_504():
    with BackgroundServer(SlowEngine(1.5), ServerConfig(model_id="slow", timeout=0.3)) as s:
        client = openai.OpenAI(base_url=s.url, api_key="none", max_retries=0)
        with pytest.raises(openai.APIStatusError) as info:
            client.chat.completions.create(
                model="slow", messages=[{"role": "user", "content": "x"}]
            )
        assert info.value.status_code == 504 and info.value.body["code"] == "timeout"


class BrokenEngine:
    name, supports_constraints = "broken", True

    def complete(self, prompts, **kw):
        raise RuntimeError("the model file vanished")


def test_an_engine_that_raises_gets_a_500_naming_it_and_the_server_goes_on():
    with BackgroundServer(BrokenEngine(), ServerConfig(model_id="broken")) as s:
        client = openai.OpenAI(base_url=s.url, api_key="none", max_retries=0)
        for _ in range(2):
            with pytest.raises(openai.InternalServerError) as info:
                client.chat.completions.create(
                    model="broken", messages=[{"role": "user", "content": "x"}]
                )
            assert "the model file vanished" in info.value.body["message"]


class RecordingEngine:
    """Answers every request with no call and keeps the constraint each one was given."""

    name, supports_constraints = "recording", True

    def __init__(self):
        self.constraints = []

    def complete(self, prompts, constraint=None, **kw):
        self.constraints.append(constraint)
        return [Completion("[]\nno tool for that", prompt_tokens=3, completion_tokens=4)]


def test_the_call_gate_leaves_only_the_no_call_answer_where_no_tool_fits():
    """`toollearn serve --call-gate`: the shipped gate (the real MiniLM + LoRA) before a
    recording engine; tool_choice auto only."""
    from toollearn.agents.call_gate import make_gate
    from toollearn.decoding.tool_calls import no_call_constraint, tool_calls_constraint
    from toollearn.formats.schemas.openai import tool_from_openai
    from toollearn.models import deer_gates

    tools = [tool_from_openai(t) for t in (WEATHER, TIME)]
    call = deer_gates()["call"]
    engine = RecordingEngine()
    config = ServerConfig(model_id="gated", call_gate=make_gate(call["gate"]),
                          call_threshold=call["threshold"],
                          sure_call_threshold=call["sure_call_threshold"])  # fmt: skip
    with BackgroundServer(engine, config) as s:
        client = openai.OpenAI(base_url=s.url, api_key="none", max_retries=0)

        def ask_gated(content, **kw):
            return client.chat.completions.create(
                model="gated", messages=[{"role": "user", "content": content}],
                tools=[WEATHER, TIME], **kw)  # fmt: skip

        answer = ask_gated("Write a short poem about the sea.")
        assert answer.choices[0].message.content == "no tool for that"
        assert engine.constraints[-1].grammar == no_call_constraint().grammar
        ask_gated("Is it cold outside?")  # passed, not sure: the model decides, as without a gate
        assert engine.constraints[-1].grammar == tool_calls_constraint([*tools]).grammar
        ask_gated("Get the current weather for Oslo.")  # the gate is sure: only call lists
        sure = tool_calls_constraint([*tools], allow_no_call=False).grammar
        assert engine.constraints[-1].grammar == sure
        ask_gated("Write a short poem about the sea.", tool_choice="required")
        assert "get_time" in engine.constraints[-1].grammar  # required: the gate is not asked
        with urllib.request.urlopen(s.url.removesuffix("/v1") + "/health") as response:
            health = json.loads(response.read())
            assert health["gate_declined"] == 1 and health["gate_sure"] == 1


@pytest.mark.model
def test_response_format_and_parallel_tool_calls_through_the_openai_client(served):
    _, client = served
    schema = {"type": "object", "properties": {"name": {"type": "string"},
                                               "age": {"type": "integer"}},
              "required": ["name", "age"], "additionalProperties": False}  # fmt: skip
    out = ask(client, "Give me a JSON object with keys name and age for Bob, 42.",
              max_tokens=4096, response_format={"type": "json_schema", "json_schema": {
                  "name": "person", "schema": schema, "strict": True}})  # fmt: skip
    person = json.loads(out.choices[0].message.content)
    assert set(person) == {"name", "age"} and isinstance(person["age"], int)
    loose = ask(client, "A JSON object describing Paris, please.", max_tokens=64,
                response_format={"type": "json_object"})  # fmt: skip
    assert loose.choices[0].message.content.startswith("{")
    one = ask(client, "What's the weather and the time in Tokyo?", tools=[WEATHER, TIME],
              tool_choice="required", parallel_tool_calls=False, user="u1")  # fmt: skip
    assert len(one.choices[0].message.tool_calls) == 1


@pytest.mark.model
def test_several_choices_from_the_batched_server(served):
    _, client = served
    out = ask(client, "Name a colour.", n=3, max_tokens=6, temperature=1.0, seed=5)
    assert [c.index for c in out.choices] == [0, 1, 2]
    assert all(c.message.content is not None for c in out.choices)
    assert out.usage.completion_tokens >= 3


@pytest.mark.model
def test_logprobs_of_each_token_with_alternatives(served):
    _, client = served
    out = ask(client, "Name a colour.", max_tokens=6, logprobs=True, top_logprobs=2)
    scored = out.choices[0].logprobs.content
    assert "".join(t.token for t in scored).strip() == out.choices[0].message.content.strip()
    assert all(t.logprob <= 0 and len(t.top_logprobs) == 2 for t in scored)
    assert all(t.top_logprobs[0].logprob >= t.top_logprobs[1].logprob for t in scored)
