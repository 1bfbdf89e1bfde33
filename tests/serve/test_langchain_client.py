"""An agent framework as the client: LangChain's `ChatOpenAI(...).bind_tools` running its tool
loop (call, run the tool, send the result back, ask again) against `toollearn serve`."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_openai")

from langchain_core.messages import HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

from toollearn.serve.app import BackgroundServer, ServerConfig  # noqa: E402


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return f"18 degrees and sunny in {city}"


@tool
def get_time(zone: str) -> str:
    """Get the current time in a time zone."""
    return "14:05"


TOOLS = {t.name: t for t in (get_weather, get_time)}


@pytest.mark.model
def test_a_langchain_tool_loop_against_the_server():
    from toollearn.engines import load_engine

    engine = load_engine("tuned", n_threads=2)  # what `toollearn serve` runs by default
    with BackgroundServer(engine, ServerConfig(model_id="m")) as server:
        llm = ChatOpenAI(model="m", base_url=server.url, api_key="-", temperature=0,
                         max_retries=0, max_tokens=4096)  # fmt: skip
        agent = llm.bind_tools(list(TOOLS.values()))
        messages: list = [HumanMessage("What's the weather in Paris?")]
        ran = []
        for _ in range(3):  # call, result, ask again: the framework's own loop
            ai = agent.invoke(messages)
            messages.append(ai)
            if not ai.tool_calls:
                break
            for call in ai.tool_calls:
                ran.append((call["name"], call["args"]))
                result = TOOLS[call["name"]].invoke(call["args"])
                messages.append(ToolMessage(result, tool_call_id=call["id"]))
        streamed = list(agent.stream(messages[:1]))  # the same first step, streamed
    assert ran[0] == ("get_weather", {"city": "Paris"})
    assert len(ran) >= 2 or "18" in messages[-1].content  # a second step: a call or the answer
    first = streamed[0]
    for piece in streamed[1:]:
        first = first + piece  # LangChain merges the tool_call_chunks of the deltas
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [ran[0]]
