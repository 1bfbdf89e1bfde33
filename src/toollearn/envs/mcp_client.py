"""Tools from an MCP server, executed through it (the official `mcp` Python SDK).

`MCPTools(target)` connects to a server given as a command line (launched as a subprocess and
spoken to over stdio) or an `http(s)://` URL (streamable HTTP), lists its tools as `Tool`s and
calls them. The SDK is asynchronous: one background thread runs an event loop whose single
long-lived task owns the connection, and the synchronous `call` hands requests to it. A tool
the server reports as failed (`isError`) raises `MCPToolError`, which an `Environment` records
as a tool error; a server that does not answer in `timeout` seconds is a timeout there too.
`Environment.add_mcp(tools)` adds every tool (`toollearn run --mcp "python server.py"`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shlex
import threading
from typing import Any

from toollearn.core.errors import SchemaError, ToollearnError
from toollearn.core.types import Tool
from toollearn.formats.schemas.openai import tool_from_openai


class MCPError(ToollearnError):
    """The MCP server could not be started, reached or listed."""


class MCPToolError(RuntimeError):
    """A tool call the MCP server answered with isError."""


def _server_param(target: str) -> Any:
    from mcp import StdioServerParameters

    if target.startswith(("http://", "https://")):
        return target
    argv = shlex.split(target)
    if not argv:
        raise MCPError("--mcp needs a server command line or an http(s) URL")
    return StdioServerParameters(command=argv[0], args=argv[1:])


def result_value(result: Any) -> Any:
    """What a CallToolResult returns: its text (the JSON value when it parses: servers write
    a dict result as JSON text), else its structured content, else the content items as
    dicts. Text comes first because servers wrap plain results as {"result": ...} in the
    structured content."""
    texts = [c.text for c in result.content if getattr(c, "type", "") == "text"]
    if texts and len(texts) == len(result.content):
        text = "\n".join(texts)
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text
    if result.structured_content is not None:
        return result.structured_content
    return [c.model_dump(mode="json", exclude_none=True) for c in result.content]


class MCPTools:
    """A live connection to one MCP server; close() (or `with`) shuts it down."""

    def __init__(self, target: str, timeout: float = 30.0):
        self.target, self.timeout = target, timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="mcp-client")  # fmt: skip
        self._thread.start()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._client: Any = None
        self._failure: BaseException | None = None
        self._owner = asyncio.run_coroutine_threadsafe(self._own(_server_param(target)),
                                                       self._loop)  # fmt: skip
        if not self._ready.wait(timeout) or self._client is None:
            self.close()
            why = f": {self._failure}" if self._failure else f" within {timeout:g} s"
            raise MCPError(f"could not connect to the MCP server {target!r}{why}")

    async def _own(self, server: Any) -> None:
        from mcp import Client

        self._stop = asyncio.Event()
        try:
            async with Client(server, read_timeout_seconds=self.timeout) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # reported by __init__ (or ignored after close)
            self._failure = exc
        finally:
            self._client = None
            self._ready.set()

    def _run(self, coro: Any) -> Any:
        if self._client is None:
            raise MCPError(f"the MCP server {self.target!r} is not connected")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(self.timeout + 5)

    def tools(self) -> list[Tool]:
        """Every tool the server lists (all pages), as toollearn Tools."""
        out, cursor = [], None
        while True:
            page = self._run(self._client.list_tools(cursor=cursor))
            for t in page.tools:
                try:
                    tool = tool_from_openai({"name": t.name, "description": t.description or "",
                                             "parameters": t.input_schema or {}})  # fmt: skip
                except SchemaError as exc:
                    raise MCPError(f"the MCP server lists an invalid tool: {exc}") from None
                out.append(tool)
            cursor = page.next_cursor
            if not cursor:
                return out

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call one tool; its value (see `result_value`), or MCPToolError."""
        result = self._run(self._client.call_tool(name, arguments))
        value = result_value(result)
        if result.is_error:
            raise MCPToolError(value if isinstance(value, str) else json.dumps(value))
        return value

    def caller(self, name: str) -> Any:
        """A plain function of keyword arguments calling tool `name` (what an Environment
        runs)."""

        def call(**arguments: Any) -> Any:
            return self.call(name, arguments)

        call.__name__ = name
        return call

    def close(self) -> None:
        if self._stop is not None and self._loop.is_running():
            self._loop.call_soon_threadsafe(self._stop.set)
            with contextlib.suppress(Exception):  # the connection is going away either way
                self._owner.result(10)
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def __enter__(self) -> MCPTools:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
