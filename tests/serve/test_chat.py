"""OpenAI chat requests -> prompts and grammars, and model text -> OpenAI messages (no model)."""

from __future__ import annotations

import json

import pytest

from toollearn.serve.chat import RequestError, chat_response, parse_request

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}  # fmt: skip
TIME = {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object",
        "properties": {"zone": {"type": "string"}}}}}  # fmt: skip


def body(**kw):
    return {"model": "m", "messages": [{"role": "user", "content": "Weather in Paris?"}], **kw}


def test_auto_shows_the_tools_and_admits_calls_or_a_reply():
    job = parse_request(body(tools=[WEATHER, TIME]), "m", 512)
    assert job.messages[0].role == "system" and "get_weather" in job.messages[0].content
    assert job.constraint is not None and "get_time" in job.constraint.grammar
    assert '"[]"' in job.constraint.grammar  # the no-call branch


def test_a_gate_reads_the_users_turn_only_under_auto():
    assert parse_request(body(tools=[WEATHER]), "m", 512).gate_query == "Weather in Paris?"
    assert parse_request(body(), "m", 512).gate_query is None  # no tools
    required = parse_request(body(tools=[WEATHER], tool_choice="required"), "m", 512)
    assert required.gate_query is None
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
    }
    after = body(tools=[WEATHER], messages=[
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "18 C"}])  # fmt: skip
    assert parse_request(after, "m", 512).gate_query is None  # a tool result to read: no gate


def test_required_and_named_choice_remove_the_no_call_branch():
    required = parse_request(body(tools=[WEATHER, TIME], tool_choice="required"), "m", 512)
    assert '"[]"' not in required.constraint.grammar
    named = parse_request(body(tools=[WEATHER, TIME], tool_choice={
        "type": "function", "function": {"name": "get_time"}}), "m", 512)  # fmt: skip
    assert "get_time" in named.constraint.grammar and "get_weather" not in named.constraint.grammar
    assert "get_weather" in named.messages[0].content  # all tools still shown


def test_none_and_no_tools_are_plain_chat():
    for job in (parse_request(body(tools=[WEATHER], tool_choice="none"), "m", 512),
                parse_request(body(), "m", 512)):  # fmt: skip
        assert job.constraint is None and not job.calls_tools
        assert [m.role for m in job.messages] == ["user"]


def test_history_renders_calls_and_results_in_the_trained_format():
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },  # fmt: skip
        {"role": "tool", "tool_call_id": "c1", "content": "18 C, sunny"},
    ]
    job = parse_request({"messages": messages, "tools": [WEATHER]}, "m", 512)
    roles = [m.role for m in job.messages]
    assert roles == ["system", "user", "assistant", "tool"]
    assert job.messages[0].content.endswith("Be brief.")
    assert job.messages[2].content == '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    assert json.loads(job.messages[3].content) == {"name": "get_weather", "content": "18 C, sunny"}


@pytest.mark.parametrize(
    ("request_body", "param", "code"),
    [(body(tool_choice={"type": "function", "function": {"name": "nope"}}, tools=[WEATHER]),
      "tool_choice", "unknown_tool"),
     (body(tools=[{"type": "function", "function": {"name": "x", "parameters": {
         "type": "array"}}}]), "tools[0]", "invalid_tool_schema"),
     (body(tools=[WEATHER, WEATHER]), "tools", "invalid_request"),
     (body(tool_choice="required"), "tool_choice", "invalid_request"),
     (body(tool_choice="sometimes", tools=[WEATHER]), "tool_choice", "invalid_request"),
     ({"messages": []}, "messages", "invalid_request"),
     ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0]", "invalid_request"),
     ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
      "messages[0].content[0]", "invalid_request"),
     ({"messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "z",
       "content": "r"}]}, "messages[1].tool_call_id", "invalid_request"),
     (body(temperature=5), "temperature", "invalid_request"),
     (body(max_tokens=0), "max_tokens", "invalid_request"),
     (body(max_completion_tokens=2.5), "max_completion_tokens", "invalid_request"),
     (body(n=9), "n", "invalid_request"),
     (body(n=2, stream=True), "n", "invalid_request"),
     (body(logprobs=True, stream=True), "logprobs", "unsupported_parameter"),
     (body(top_logprobs=3), "top_logprobs", "invalid_request"),
     (body(logprobs=True, top_logprobs=30), "top_logprobs", "invalid_request"),
     (body(parallel_tool_calls="no", tools=[WEATHER]), "parallel_tool_calls",
      "invalid_request"),
     (body(response_format={"type": "yaml"}), "response_format", "invalid_request"),
     (body(response_format={"type": "json_schema", "json_schema": {"name": "x"}}),
      "response_format.json_schema.schema", "invalid_request"),
     (body(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {
         "type": "object", "properties": {"a": {"type": 3}}}}}),
      "response_format.json_schema.schema.properties.a.type", "invalid_request"),
     (body(model="gpt-4"), "model", "model_not_found")],
)  # fmt: skip
def test_bad_requests_name_the_parameter(request_body, param, code):
    with pytest.raises(RequestError) as info:
        parse_request(request_body, "m", 512)
    assert info.value.param == param and info.value.code == code
    assert info.value.body()["error"]["message"]


def test_answers_become_tool_calls_or_content():
    job = parse_request(body(tools=[WEATHER]), "m", 512)
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    out = chat_response(job, [('[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
                              "stop")], usage)  # fmt: skip
    choice = out["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    (call,) = choice["message"]["tool_calls"]
    assert call["function"] == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    declined = chat_response(job, [("[]\nI can only tell the weather.", "stop")], usage)
    assert declined["choices"][0]["message"] == {
        "role": "assistant",
        "content": "I can only tell the weather.",
    }
    garbage = chat_response(job, [("[{broken", "length")], usage)["choices"][0]
    assert garbage["message"]["content"] == "[{broken" and garbage["finish_reason"] == "length"


def test_serve_model_flags_choose_the_engine(tmp_path):
    from toollearn.cli.serve import default_model_id, engine_spec
    from toollearn.core.errors import DataError

    adapter = tmp_path / "mine.gguf"
    adapter.write_bytes(b"GGUF")
    assert engine_spec(None, None) == "tuned" and default_model_id(None, None).endswith("-tools")
    assert engine_spec("base", None) == "base"
    assert engine_spec("tuned-apps", None) == "tuned-apps"
    assert default_model_id("tuned-apps", None) == "smollm2-135m-apps"
    assert engine_spec(None, str(adapter)) == f"base@{adapter}"  # an adapter goes on the base
    assert default_model_id(None, str(adapter)) == "smollm2-135m+mine"
    with pytest.raises(DataError, match="already has its adapter"):
        engine_spec("tuned", str(adapter))
    with pytest.raises(DataError, match="not found"):
        engine_spec(None, str(tmp_path / "missing.gguf"))
    assert engine_spec("tuned-deer", None) == "tuned-deer"  # every shipped adapter's name
    assert default_model_id("tuned-deer", None) == "smollm2-135m-deer"
    with pytest.raises(DataError, match="base, tuned, a tuned-\\* name or an existing .gguf"):
        engine_spec("nonsense", None)


def test_max_tokens_is_clamped_to_the_servers_cap_not_refused():
    assert parse_request(body(max_tokens=100000), "m", 512).max_tokens == 512
    assert parse_request(body(max_completion_tokens=64, max_tokens=9), "m", 512).max_tokens == 64
    assert parse_request(body(), "m", 512).max_tokens == 256


def test_a_seed_is_drawn_when_absent_and_kept_when_given():
    seeds = {parse_request(body(temperature=1.0), "m", 512).seed for _ in range(8)}
    assert len(seeds) > 1  # sampled requests do not repeat each other
    assert parse_request(body(seed=7), "m", 512).seed == 7


def test_parallel_tool_calls_false_allows_one_call_only():
    one = parse_request(body(tools=[WEATHER, TIME], parallel_tool_calls=False), "m", 512)
    many = parse_request(body(tools=[WEATHER, TIME]), "m", 512)
    assert one.max_calls == 1 and '(", " call)' not in one.constraint.grammar
    assert '(", " call){0,7}' in many.constraint.grammar
    assert one.decided("sure call").constraint.grammar.count('(", " call)') == 0


def test_response_format_constrains_the_reply_to_json():
    schema = {"type": "object", "properties": {"name": {"type": "string"},
                                               "age": {"type": "integer"}},
              "required": ["name", "age"]}  # fmt: skip
    fmt = {"type": "json_schema", "json_schema": {"name": "person", "schema": schema,
                                                  "strict": True}}  # fmt: skip
    plain = parse_request(body(response_format=fmt), "m", 512)
    assert plain.constraint is not None and not plain.calls_tools and plain.reply == schema
    assert '"\\"age\\": "' in plain.constraint.grammar
    assert parse_request(body(response_format={"type": "json_object"}), "m", 512).reply == {
        "type": "object"
    }
    assert parse_request(body(response_format={"type": "text"}), "m", 512).constraint is None
    with_tools = parse_request(body(tools=[WEATHER], response_format=fmt), "m", 512)
    assert 'answer ::= "\\n" v' in with_tools.constraint.grammar  # the reply after [] is JSON
    assert 'answer ::= "\\n" v' in with_tools.decided("no call").constraint.grammar
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    out = chat_response(with_tools, [('[]\n{"name": "Bob", "age": 42}', "stop")], usage)
    assert json.loads(out["choices"][0]["message"]["content"]) == {"name": "Bob", "age": 42}


def test_stop_cuts_the_reply_when_tools_are_shown_but_never_a_call():
    job = parse_request(body(tools=[WEATHER], stop=["END"]), "m", 512)
    assert job.engine_stop == () and job.stop == ("END",)
    usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    reply = chat_response(job, [("[]\nNo tool fits. END and more", "length")], usage)
    assert reply["choices"][0]["message"]["content"] == "No tool fits. "
    assert reply["choices"][0]["finish_reason"] == "stop"
    call = chat_response(job, [('[{"name": "get_weather", "arguments": {"city": "END"}}]',
                                "stop")], usage)["choices"][0]  # fmt: skip
    assert json.loads(call["message"]["tool_calls"][0]["function"]["arguments"]) == {"city": "END"}
    assert parse_request(body(stop="END"), "m", 512).engine_stop == ("END",)  # no tools


def test_several_choices_and_unknown_harmless_fields():
    job = parse_request(body(n=3, user="u1", metadata={"k": "v"}, store=False), "m", 512)
    assert job.n == 3
    usage = {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}
    out = chat_response(job, [("a", "stop"), ("b", "length"), ("c", "stop")], usage)
    assert [c["index"] for c in out["choices"]] == [0, 1, 2]
    assert [c["finish_reason"] for c in out["choices"]] == ["stop", "length", "stop"]
