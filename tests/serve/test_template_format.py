"""`--prompt-format template`: a foreign model prompted in its own chat template's tool format
(Hermes `<tool_call>`, Llama 3 JSON), its call syntax constrained and parsed. The model is a
copy of the embedded SmolLM2 GGUF with another chat template written in, made for the test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from toollearn.core.errors import FormatError
from toollearn.core.types import ToolCall
from toollearn.decoding.template_calls import template_calls_grammar
from toollearn.formats.schemas.openai import tool_from_openai
from toollearn.formats.template_tools import dialect_of, parse, template_messages

TEMPLATES = Path(__file__).resolve().parents[1] / "data" / "templates"
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}  # fmt: skip
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Get the current time in a time zone",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}},
                   "required": ["zone"]}}}  # fmt: skip


def test_the_dialect_is_read_from_the_template():
    assert dialect_of((TEMPLATES / "hermes.jinja").read_text()) == "hermes"
    assert dialect_of((TEMPLATES / "llama3_json.jinja").read_text()) == "llama3-json"
    assert dialect_of("{% for m in messages %}{{ m.content }}{% endfor %}") is None


def test_answers_in_each_dialect_are_parsed_as_data():
    hermes = (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>'
        '\n<tool_call>\n{"name": "get_time", "arguments": {"zone": "CET"}}\n</tool_call>'
    )
    assert parse("hermes", hermes) == ([ToolCall("get_weather", {"city": "Rome"}),
                                        ToolCall("get_time", {"zone": "CET"})], "")  # fmt: skip
    assert parse("hermes", " Hello! ") == ([], "Hello!")
    assert parse("llama3-json", '<|python_tag|>{"name": "f", "parameters": {"a": 1}}') == (
        [ToolCall("f", {"a": 1})], "")  # fmt: skip
    with pytest.raises(FormatError):
        parse("hermes", "<tool_call>\n{broken\n</tool_call>")
    with pytest.raises(FormatError):
        parse("llama3-json", '{"name": "f", "parameters": [1]}')


def test_grammars_admit_calls_or_a_reply_that_does_not_start_like_one():
    tools = [tool_from_openai(WEATHER), tool_from_openai(TIME)]
    auto = template_calls_grammar("hermes", tools)
    assert '"<tool_call>\\n" call "\\n</tool_call>"' in auto and "reply ::= [^\\x3c" in auto
    required = template_calls_grammar("hermes", tools, text=False, max_calls=1)
    root = required.splitlines()[0]
    assert root == 'root ::= "<tool_call>\\n" call "\\n</tool_call>"'  # one call, no reply
    llama = template_calls_grammar("llama3-json", tools[:1])
    assert '\\"parameters\\": ' in llama and "reply ::= [^\\x7b\\x3c" in llama


def test_openai_messages_become_what_templates_read():
    msgs = template_messages([
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "18 C"}])  # fmt: skip
    assert msgs[0] == {"role": "user", "content": "Weather?"}
    assert msgs[1]["tool_calls"][0]["function"]["arguments"] == {"city": "Rome"}
    assert msgs[2]["name"] == "get_weather" and msgs[2]["content"] == "18 C"


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    """(dialect -> GGUF path): the embedded model with each template written in."""
    from toollearn.engines.llama import embedded_model_path

    out = {}
    for dialect, name in (("hermes", "hermes.jinja"), ("llama3-json", "llama3_json.jinja")):
        path = tmp_path_factory.mktemp("gguf") / f"smollm2-{dialect}.gguf"
        subprocess.run([sys.executable, "-m", "gguf.scripts.gguf_new_metadata", "--force",
                        str(embedded_model_path()), str(path),
                        "--chat-template-file", str(TEMPLATES / name)],
                       check=True, capture_output=True)  # fmt: skip
        out[dialect] = path
    return out


@pytest.mark.model
@pytest.mark.parametrize("dialect", ["hermes", "llama3-json"])
def test_a_foreign_model_is_served_in_its_own_tool_format(foreign, dialect):
    openai = pytest.importorskip("openai")
    from toollearn.cli.serve import template_prompt
    from toollearn.engines import load_engine
    from toollearn.serve.app import BackgroundServer, ServerConfig

    engine = load_engine(f"llama:{foreign[dialect]}", n_threads=2)
    template = template_prompt(engine, "auto", foreign=True)
    assert template is not None and template.dialect == dialect
    assert template_prompt(engine, "toollearn", foreign=True) is None
    with BackgroundServer(engine, ServerConfig(model_id="m", template=template)) as s:
        client = openai.OpenAI(base_url=s.url, api_key="-", max_retries=0)
        messages = [{"role": "user", "content": "What's the weather in Rome?"}]
        out = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER, TIME],
                                             tool_choice="required", max_tokens=64)  # fmt: skip
        (call, *_) = out.choices[0].message.tool_calls
        assert call.function.name in ("get_weather", "get_time")
        assert isinstance(json.loads(call.function.arguments), dict)
        assert out.choices[0].finish_reason == "tool_calls"
        messages += [
            out.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "18 C, sunny"},
        ]
        after = client.chat.completions.create(model="m", messages=messages, tools=[WEATHER],
                                               tool_choice="none", max_tokens=24)  # fmt: skip
        assert after.choices[0].message.content and not after.choices[0].message.tool_calls
        streamed = list(client.chat.completions.create(
            model="m", messages=messages[:1], tools=[WEATHER], tool_choice="required",
            max_tokens=64, stream=True))  # fmt: skip
        deltas = [d for p in streamed if p.choices for d in p.choices[0].delta.tool_calls or []]
        assert deltas[0].function.name == "get_weather"
    prompt = template.template.render_with_tools(template_messages(messages), [WEATHER])
    marker = "<tools>" if dialect == "hermes" else '"parameters"'
    assert marker in prompt and "18 C, sunny" in prompt
