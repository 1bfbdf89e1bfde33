"""Streaming as OpenAI streams: the call-list reader on its own (any split of the text), and
the server's events through the openai client and raw HTTP with scripted engines."""

from __future__ import annotations

import json
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toollearn.core.types import ToolCall
from toollearn.engines.base import Completion
from toollearn.formats.answers.tool_calls import render_calls
from toollearn.serve.stream import CallStream

openai = pytest.importorskip("openai")

from toollearn.serve.app import BackgroundServer, ServerConfig  # noqa: E402

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}  # fmt: skip


def read(text: str, cuts: list[int], stop: tuple[str, ...] = ()) -> tuple[list, str, str]:
    """(calls as (name, arguments), content, finish_reason) from `text` fed in pieces."""
    stream, deltas, start = CallStream(stop), [], 0
    for cut in sorted(set(cuts)) + [len(text)]:
        deltas += stream.feed(text[start:cut])
        start = cut
    deltas += stream.end()
    calls: dict[int, list[str]] = {}
    content = ""
    for d in deltas:
        content += d.get("content", "")
        for c in d.get("tool_calls", []):
            fn = c["function"]
            if "id" in c:
                assert c["index"] not in calls and fn["arguments"] == "" and c["id"]
                calls[c["index"]] = [fn["name"], ""]
            else:
                assert "name" not in fn and c["index"] in calls
            calls[c["index"]][1] += fn["arguments"]
    return [(n, json.loads(a)) for n, a in calls.values()], content, stream.finish_reason("stop")


names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8)
values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=6),
                      lambda kids: st.lists(kids, max_size=3)
                      | st.dictionaries(st.text(max_size=4), kids, max_size=3),
                      max_leaves=6)  # fmt: skip
call_lists = st.lists(
    st.tuples(names, st.dictionaries(st.text(max_size=5), values, max_size=3)),
    min_size=1,
    max_size=3,
)


@settings(max_examples=200, deadline=None)
@given(calls=call_lists, cuts=st.lists(st.integers(0, 400), max_size=12))
def test_any_split_of_a_call_list_gives_its_calls_then_tool_calls(calls, cuts):
    text = render_calls([ToolCall(n, a) for n, a in calls])
    got, content, finish = read(text, cuts)
    assert got == [tuple(c) for c in calls] and content == "" and finish == "tool_calls"


@settings(max_examples=100, deadline=None)
@given(reply=st.text(max_size=40), cuts=st.lists(st.integers(0, 60), max_size=8))
def test_a_reply_streams_without_the_no_call_marker_and_stops_at_a_stop_string(reply, cuts):
    got, content, _ = read("[]\n" + reply, cuts)
    assert got == [] and content == reply
    _, cut, finish = read("[]\n" + reply + "STOP and more", cuts, stop=("STOP",))
    assert cut == reply.split("STOP")[0] and finish == "stop"


def test_text_that_is_not_a_call_list_streams_as_content():
    assert read("Sure, here it is.", [3, 7]) == ([], "Sure, here it is.", "stop")
    assert read("[]", [1]) == ([], "", "stop")


class StreamingEngine:
    """A scripted engine that streams `pieces` `delay` seconds apart; records closes."""

    name, supports_constraints = "scripted", True

    def __init__(self, pieces: list[str], finish: str = "stop", delay: float = 0.0):
        self.pieces, self.finish, self.delay = pieces, finish, delay
        self.closed = threading.Event()
        self.sent = 0

    def complete(self, prompts, **kw):
        return [Completion("".join(self.pieces), self.finish, 5, len(self.pieces))
                for _ in prompts]  # fmt: skip

    def stream(self, prompt, **kw):
        try:
            for piece in self.pieces:
                time.sleep(self.delay)
                self.sent += 1
                yield piece
            yield Completion("".join(self.pieces), self.finish, 5, len(self.pieces))
        finally:
            self.closed.set()


def events(engine, **kw):
    with BackgroundServer(engine, ServerConfig(model_id="m")) as s:
        client = openai.OpenAI(base_url=s.url, api_key="-", max_retries=0)
        messages = [{"role": "user", "content": "hi"}]
        return list(client.chat.completions.create(model="m", messages=messages, stream=True,
                                                   **kw))  # fmt: skip


def test_a_reply_under_auto_streams_as_text_with_its_finish_reason_and_usage():
    engine = StreamingEngine(["[", "]\n", "Hel", "lo", " there"], finish="length")
    parts = events(engine, tools=[WEATHER], stream_options={"include_usage": True})
    text = "".join(p.choices[0].delta.content or "" for p in parts if p.choices)
    assert text == "Hello there"
    assert [p.choices[0].finish_reason for p in parts if p.choices][-1] == "length"
    assert parts[-1].usage.prompt_tokens == 5 and parts[-1].usage.completion_tokens == 5


def test_a_call_list_streams_its_name_first_then_argument_fragments():
    pieces = ['[{"name": "get_', 'weather", "argu', 'ments": {"ci', 'ty": "Ro', 'me"}}]']
    parts = events(StreamingEngine(pieces), tools=[WEATHER])
    deltas = [d for p in parts if p.choices for d in p.choices[0].delta.tool_calls or []]
    assert deltas[0].function.name == "get_weather" and deltas[0].function.arguments == ""
    assert [d.function.arguments for d in deltas[1:]] == ['{"ci', 'ty": "Ro', 'me"}']
    assert parts[-1].choices[0].finish_reason == "tool_calls"


def test_a_client_that_leaves_stops_the_generation():
    import httpx

    engine = StreamingEngine(["tick "] * 200, delay=0.02)
    with BackgroundServer(engine, ServerConfig(model_id="m")) as s:
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
        with httpx.stream("POST", f"{s.url}/chat/completions", json=body, timeout=10) as r:
            for line in r.iter_lines():
                if "tick" in line:
                    break  # read one piece, then hang up
        assert engine.closed.wait(5)
        assert engine.sent < 150
        health = httpx.get(s.url.removesuffix("/v1") + "/health").json()
        assert health["cancelled"] == 1 and health["pending"] == 0
