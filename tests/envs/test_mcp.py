"""MCP: a real MCP server (examples/mcp_shop_server.py, written with the official SDK) whose
tools toollearn lists and calls, also through `toollearn run --mcp`; and toollearn's own tools
served over MCP."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from toollearn.core.types import ErrorKind, ToolCall  # noqa: E402
from toollearn.envs.environment import Environment  # noqa: E402
from toollearn.envs.mcp_client import MCPError, MCPTools  # noqa: E402

SERVER = Path(__file__).parents[2] / "examples" / "mcp_shop_server.py"  # a real MCP server


@pytest.fixture()
def server_cmd():
    return f"{sys.executable} {SERVER}"


def test_tools_are_listed_and_called_through_the_server(server_cmd):
    with MCPTools(server_cmd) as conn:
        tools = {t.name: t for t in conn.tools()}
        assert set(tools) == {"price_of", "opening_hours"}
        assert tools["price_of"].properties["quantity"]["type"] == "integer"
        assert tools["price_of"].required == ["item"]
        env = Environment(timeout=20).add_mcp(conn)
        ok = env.execute(ToolCall("price_of", {"item": "bread", "quantity": 2}))
        assert ok.ok and ok.output == {"item": "bread", "total": 4.5}
        assert env.execute(ToolCall("opening_hours", {"day": "Sunday"})).output == "closed"
        failed = env.execute(ToolCall("price_of", {"item": "caviar"}))
        assert failed.error is ErrorKind.TOOL_ERROR and "no such item" in failed.detail
        bad = env.execute(ToolCall("price_of", {"quantity": 2}))  # validated before the call
        assert bad.error is ErrorKind.MISSING_ARGUMENT
        env.close()


def test_an_unreachable_server_is_a_clear_error(tmp_path):
    with pytest.raises(MCPError, match="could not connect"):
        MCPTools(f"{sys.executable} {tmp_path / 'missing.py'}", timeout=10)


@pytest.mark.model
def test_toollearn_run_calls_the_mcp_servers_tools(server_cmd, capsys):
    from toollearn.cli.main import main

    code = main(["run", "What does 2 bread cost?", "--mcp", server_cmd, "--threads", "2",
                 "--max-steps", "2", "--json", "--timeout", "20"])  # fmt: skip
    assert code == 0
    trace = json.loads(capsys.readouterr().out)
    calls = [c for s in trace["steps"] if s["kind"] == "observation" for c in s["calls"]]
    assert calls, "the model made no call"
    assert {c["name"] for c in calls} <= {"price_of", "opening_hours"}  # only the server's tools
    first = next(s for s in trace["steps"] if s["kind"] == "observation")
    assert first["observation"] is not None or first["error"]  # executed by the server
    # under the default preset the plan (price_of) is done after the server's result, so the
    # model replies instead of calling again (what the reply says is measured, not asserted)
    assert trace["meta"]["outcome"] == "answered" and len(calls) == 1


def test_toollearn_tools_served_over_mcp_answer_an_mcp_client(tmp_path):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {
        "name": "get_weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}]))  # fmt: skip
    cmd = f"{sys.executable} -m toollearn mcp serve --tools {tools}"
    with MCPTools(cmd) as conn:
        (tool,) = conn.tools()
        assert tool.name == "get_weather" and tool.required == ["city"]
        assert conn.call("get_weather", {"city": "Paris"}) is not None  # simulated answer
        with pytest.raises(Exception, match="city"):
            conn.call("get_weather", {})  # toollearn validates: an MCP tool error
