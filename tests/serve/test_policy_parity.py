"""`call`, `run` and `serve` under one policy: the same first answer to the same request.

The embedded model under the default preset (its gate and plan) answers the README's and the
demo's requests three ways: `toollearn call`, the first turn of `toollearn run`, and
`toollearn serve` through the official openai client.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("llama_cpp")

from toollearn.cli.main import main  # noqa: E402
from toollearn.formats.answers import tool_calls  # noqa: E402

pytestmark = pytest.mark.model

TOOLS = Path(__file__).resolve().parents[2] / "examples" / "tools.json"
REQUESTS = [
    "What's the weather in Paris, in celsius?",
    "Book a table for 4 at Chez Marie at 19:30.",
    "Hi! How are you today?",
    "What's the weather in Paris and in Rome?",
    "Write a short poem about the sea.",
]


def _calls(calls) -> list[tuple[str, str]]:
    return sorted((c.name, json.dumps(c.arguments, sort_keys=True)) for c in calls)


@pytest.fixture(scope="module")
def served():
    from toollearn.engines import load_engine
    from toollearn.policy import preset
    from toollearn.serve.app import BackgroundServer, ServerConfig

    policy = preset()
    engine = load_engine(policy.engine, n_threads=2)
    config = ServerConfig(model_id="m", max_tokens=policy.max_tokens,
                          **policy.server_settings(engine, 2))  # fmt: skip
    with BackgroundServer(engine, config) as server:
        yield openai.OpenAI(base_url=server.url, api_key="none", max_retries=0)


@pytest.mark.parametrize("request_text", REQUESTS)
def test_call_run_and_serve_answer_alike_under_the_default_preset(request_text, served, capsys):
    assert main(["call", request_text, "--tools", str(TOOLS), "--threads", "2"]) == 0
    called = _calls(tool_calls.parse(capsys.readouterr().out).calls)

    argv = ["run", request_text, "--tools", str(TOOLS), "--threads", "2", "--max-steps", "1",
            "--json"]  # fmt: skip
    assert main(argv) == 0
    trace = json.loads(capsys.readouterr().out)
    first = next(s for s in trace["steps"] if s["role"] == "agent")
    ran = _calls(tool_calls.parse(first["content"]).calls)

    tools = json.loads(TOOLS.read_text())
    reply = (
        served.chat.completions.create(
            model="m", tools=tools, messages=[{"role": "user", "content": request_text}]
        )
        .choices[0]
        .message
    )
    from toollearn.core.types import ToolCall

    answered = _calls(ToolCall(tc.function.name, json.loads(tc.function.arguments))
                      for tc in reply.tool_calls or [])  # fmt: skip
    assert called == ran == answered
