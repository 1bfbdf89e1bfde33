"""An executable tool environment: Python callables, simulated tools and stateful apps.

`Environment.execute(call)` validates the call against the tool's schema, runs it with a
timeout, and returns a `CallResult` whose error is one of the fixed `ErrorKind`s. Nothing
here ever raises because of a model's call, and nothing is ever `eval`ed or `exec`ed:
calls arrive already parsed into `ToolCall`s and are dispatched by name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.types import ErrorKind, Tool, ToolCall
from toollearn.envs.result import CallResult, failed
from toollearn.envs.simulated import simulate
from toollearn.envs.timeouts import ISOLATIONS, run_with_timeout
from toollearn.envs.validate import validate_call


def split_outputs(tool: Tool, value: Any) -> tuple[Any, ...]:
    """A return value as its referenceable outputs (Seal-Tools response order).

    A dict holding every declared response field -> those fields in order; a tuple -> its
    items; anything else -> the value itself as output 0.
    """
    if isinstance(value, dict) and tool.responses and all(k in value for k in tool.responses):
        return tuple(value[k] for k in tool.responses)
    if isinstance(value, tuple):
        return value
    return (value,)


def tool_of(fn: Callable[..., Any]) -> Tool:
    """The `Tool` schema attached by `@tool` (bound methods: without `self`)."""
    schema = getattr(fn, "tool", None)
    if not isinstance(schema, Tool):
        raise TypeError(f"{fn!r} has no .tool schema: decorate it with toollearn's @tool")
    props = schema.properties
    if "self" not in props:
        return schema
    params = dict(schema.parameters)
    params["properties"] = {k: v for k, v in props.items() if k != "self"}
    params["required"] = [r for r in schema.required if r != "self"]
    return Tool(schema.name, schema.description, params, schema.responses, schema.category,
                schema.metadata)  # fmt: skip


@dataclass
class _Handler:
    tool: Tool
    kind: str  # "function" | "simulated" | "app"
    fn: Callable[..., Any] | None = None
    method: str = ""  # app method name


class Environment:
    """Tools the agent can call, by name; `reset()` starts a new episode.

    timeout: seconds per call (None = no limit). isolation: "thread" (default; keeps
    state, cannot kill a hung tool), "process" (kills it; picklable functions only) or
    "none". See `toollearn.envs.timeouts` for the trade-off.
    """

    def __init__(self, *, timeout: float | None = 5.0, isolation: str = "thread", seed: int = 0):
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation must be one of {ISOLATIONS}, not {isolation!r}")
        self.timeout, self.isolation, self.seed = timeout, isolation, seed
        self._handlers: dict[str, _Handler] = {}
        self._app_factories: list[Callable[[], Any]] = []
        self._apps: list[Any] = []
        self._connections: list[Any] = []

    # -- building ---------------------------------------------------------------------
    def _add(self, handler: _Handler) -> None:
        if handler.tool.name in self._handlers:
            raise ValueError(f"duplicate tool name {handler.tool.name!r}")
        self._handlers[handler.tool.name] = handler

    def add_function(self, fn: Callable[..., Any], schema: Tool | None = None) -> Environment:
        """Add a Python callable (its `@tool` schema, or an explicit one)."""
        self._add(_Handler(schema or tool_of(fn), "function", fn=fn))
        return self

    def add_simulated(self, tools: Iterable[Tool]) -> Environment:
        """Add documentation-only tools answered by `simulate` (deterministic per seed)."""
        for t in tools:
            self._add(_Handler(t, "simulated"))
        return self

    def add_app(self, factory: Callable[[], Any]) -> Environment:
        """Add a stateful app: `factory()` builds a fresh instance per episode; every method
        carrying a `.tool` schema (from `@tool`) becomes a tool."""
        probe = factory()
        index = len(self._app_factories)
        for name, member in inspect.getmembers(type(probe)):
            if callable(member) and isinstance(getattr(member, "tool", None), Tool):
                self._add(_Handler(tool_of(member), "app", method=name, fn=lambda i=index: i))
        self._app_factories.append(factory)
        self._apps.append(probe)
        return self

    def add_mcp(self, server: Any) -> Environment:
        """Add every tool of an `envs.mcp_client.MCPTools` connection, executed through it."""
        for t in server.tools():
            self._add(_Handler(t, "function", fn=server.caller(t.name)))
        self._connections.append(server)
        return self

    def close(self) -> None:
        """Close the connections the tools run through (MCP servers)."""
        for connection in self._connections:
            connection.close()
        self._connections.clear()

    @classmethod
    def from_functions(cls, fns: Sequence[Callable[..., Any]], **options: Any) -> Environment:
        env = cls(**options)
        for fn in fns:
            env.add_function(fn)
        return env

    @classmethod
    def simulated(cls, tools: Iterable[Tool], **options: Any) -> Environment:
        return cls(**options).add_simulated(tools)

    # -- using ------------------------------------------------------------------------
    @property
    def tools(self) -> list[Tool]:
        return [h.tool for h in self._handlers.values()]

    def get(self, name: str) -> Tool | None:
        handler = self._handlers.get(name)
        return handler.tool if handler else None

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode: fresh app instances (and a new simulation seed if given)."""
        if seed is not None:
            self.seed = seed
        self._apps = [factory() for factory in self._app_factories]

    def execute(self, call: ToolCall) -> CallResult:
        """Validate and run one call whose arguments hold no unresolved `Ref`s."""
        handler = self._handlers.get(call.name)
        if call.refs():
            ids = ", ".join(r.id for r in call.refs())
            detail = f"nested reference(s) {ids} used outside a plan"
            return failed(call, ErrorKind.DANGLING_REFERENCE, detail)
        problems, args = validate_call(call, handler.tool if handler else None)
        if problems:
            first = problems[0]
            return failed(call, first.kind, "; ".join(p.detail for p in problems))
        assert handler is not None
        return self._run(handler, call, args)

    def _run(self, handler: _Handler, call: ToolCall, args: dict[str, Any]) -> CallResult:
        if handler.kind == "simulated":
            output = simulate(handler.tool, args, self.seed)
            return CallResult(call, output, split_outputs(handler.tool, output), args)
        if handler.kind == "app":
            assert handler.fn is not None
            fn = getattr(self._apps[handler.fn()], handler.method)
            isolation = "thread" if self.isolation == "process" else self.isolation
        else:
            assert handler.fn is not None
            fn, isolation = handler.fn, self.isolation
        outcome = run_with_timeout(fn, args, self.timeout, isolation)
        if outcome.status == "timeout":
            return failed(call, ErrorKind.TIMEOUT, outcome.detail, outcome.seconds)
        if outcome.status == "error":
            return failed(call, ErrorKind.TOOL_ERROR, outcome.detail, outcome.seconds)
        outputs = split_outputs(handler.tool, outcome.value)
        return CallResult(call, outcome.value, outputs, args, seconds=outcome.seconds)

    def run_plan(self, calls: Sequence[ToolCall]) -> list[CallResult]:
        """Execute several calls in dependency (DAG) order; see `toollearn.envs.plan`."""
        from toollearn.envs.plan import run_plan

        return run_plan(self, calls)[0]
