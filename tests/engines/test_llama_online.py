"""Continuous batching for the server (`engines.llama_online`) on the shipped model: requests
sent together, each joining the batch as it arrives, get the answers they get one at a time;
a cancelled one frees its slot; a long one runs alone; a failing one fails alone."""

from __future__ import annotations

import threading

import pytest

from toollearn.core.errors import EngineError
from toollearn.core.types import Message
from toollearn.decoding.constraint import Constraint
from toollearn.decoding.tool_calls import tool_calls_constraint
from toollearn.engines import load_engine
from toollearn.engines.base import Completion
from toollearn.formats.answers.tool_calls import system_prompt
from toollearn.formats.schemas.openai import tool_from_openai

pytestmark = pytest.mark.model

WEATHER = tool_from_openai({"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}})  # fmt: skip


@pytest.fixture(scope="module")
def engine():
    pytest.importorskip("llama_cpp")
    return load_engine("tuned", n_threads=2, n_seq=4, seq_ctx=1024)


def requests():
    calls = tool_calls_constraint([WEATHER])
    head = Message("system", system_prompt([WEATHER]))
    asks = [("Weather in Rome?", calls), ("Is it raining in Oslo?", calls),
            ("Name three colours.", None), ("What is 2 + 2?", None),
            ("Hi there!", calls), ("Write a haiku about tea.", None)]  # fmt: skip
    return [([head, Message("user", q)] if c else [Message("user", q)], c) for q, c in asks]


def test_requests_sent_together_get_their_one_at_a_time_answers(engine):
    alone = [engine.complete([p], max_tokens=40, constraint=c)[0].text for p, c in requests()]
    batcher = engine.online_batcher()
    got: dict[int, Completion] = {}
    pieces: dict[int, list[str]] = {}

    def ask(i: int, prompt, constraint) -> None:
        pieces[i] = []
        for item in batcher.stream(prompt, max_tokens=40, constraint=constraint):
            if isinstance(item, Completion):
                got[i] = item
            else:
                pieces[i].append(item)

    threads = [threading.Thread(target=ask, args=(i, p, c)) for i, (p, c) in enumerate(requests())]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    batcher.close()
    # greedy: the same answers, up to a near-tie where the batch's rounding parts from one
    # sequence's (on the general adapter the reply to "Hi there!" parts after 7 words); the
    # call list or `[]` that opens each answer is always the same
    texts = [got[i].text for i in range(len(alone))]
    assert sum(t == a for t, a in zip(texts, alone)) >= len(alone) - 1, (texts, alone)
    assert [t.split("\n")[0] for t in texts] == [a.split("\n")[0] for a in alone]
    assert all("".join(pieces[i]) == got[i].text for i in got)  # streamed piece by piece
    assert sum(len(p) > 3 for p in pieces.values()) >= 3


def test_a_cancelled_request_frees_its_slot_and_long_or_failing_ones_do_not_stop_others(engine):
    batcher = engine.online_batcher()
    prompt, _ = requests()[5]
    cancel = threading.Event()
    stream = batcher.stream(prompt, cancel, max_tokens=200)
    next(stream)
    cancel.set()  # the client left after one piece
    long = [Message("user", "word " * 1100)]  # longer than a slot (seq_ctx 1024): alone
    assert batcher.complete(long, max_tokens=4).finish_reason in ("stop", "length")
    with pytest.raises(EngineError):
        batcher.complete(prompt, max_tokens=4, constraint=Constraint("gbnf", "root ::= ???"))
    ok = [batcher.complete(p, max_tokens=8, constraint=c) for p, c in requests()[:5]]
    assert all(c.completion_tokens > 0 for c in ok)
    batcher.close()
