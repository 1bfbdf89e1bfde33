"""toollearn tools as an MCP server (`toollearn mcp serve`), with the official `mcp` SDK.

Any `Environment` is served: `@tool` Python functions, a tool file's simulated tools, the demo
tools. `tools/list` gives each tool's JSON Schema (toollearn's `x-...` keys removed);
`tools/call` runs through `Environment.execute`, so arguments are validated against the schema
and every call has a timeout; a failed call comes back as an MCP tool error (`isError`) with
its reason, never as a crashed server. Transports: stdio (default) or streamable HTTP.
"""

from __future__ import annotations

from typing import Any

from toollearn.core.types import ToolCall
from toollearn.envs.environment import Environment
from toollearn.envs.result import to_jsonable
from toollearn.formats.schemas.openai import strip_extensions


def mcp_server(env: Environment, name: str = "toollearn") -> Any:
    """The low-level MCP `Server` exposing `env`'s tools."""
    import anyio
    import mcp.types as types
    from mcp.server import Server

    listing = [
        types.Tool(name=t.name, description=t.description or None,
                   input_schema=strip_extensions(t.parameters) or {"type": "object"})
        for t in env.tools
    ]  # fmt: skip

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listing)

    async def call_tool(_ctx: Any, params: Any) -> types.CallToolResult:
        call = ToolCall(params.name, dict(params.arguments or {}))
        result = await anyio.to_thread.run_sync(env.execute, call)
        output = to_jsonable(result.output) if result.ok else None
        structured = output if isinstance(output, dict) else None
        text = types.TextContent(type="text", text=result.observation_text())
        return types.CallToolResult(content=[text], structured_content=structured,
                                    is_error=not result.ok)  # fmt: skip

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def serve_mcp(env: Environment, transport: str = "stdio", host: str = "127.0.0.1",
              port: int = 8001) -> None:  # fmt: skip
    """Serve until the client goes away (stdio) or until interrupted (HTTP, at /mcp)."""
    import anyio

    server = mcp_server(env)
    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        async def main() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(main)
        return
    import uvicorn

    uvicorn.run(server.streamable_http_app(), host=host, port=port, log_level="warning")
