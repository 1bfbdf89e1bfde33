"""Core nouns of toollearn: plain, frozen, JSON-serialisable dataclasses.

Nothing here knows about engines, prompts or files. Every type has `to_dict()` and
`from_dict()` that round-trip through `json.dumps`/`json.loads` exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")

# Seal-Tools names the k-th response of a calling list "API_call_k" (numbered across calls).
_RESPONSE_ID = re.compile(r"^API_call_(\d+)$")


def freeze(value: Any) -> Any:
    """A hashable stand-in for a JSON-like value that hashes equal whenever values compare
    equal (dicts become frozensets of items, lists and tuples tuples; numbers keep Python's
    numeric hash, so 1, 1.0 and True agree as `==` says they do)."""
    if isinstance(value, dict):
        return frozenset((k, freeze(v)) for k, v in value.items())
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    if isinstance(value, set | frozenset):
        return frozenset(freeze(v) for v in value)
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


def content_hash(self: Any) -> int:
    """`__hash__` of the frozen dataclasses below that hold dicts: by content, consistent with
    the field-by-field `==` dataclasses generate (equal objects hash equal)."""
    return hash((type(self).__name__, *(freeze(getattr(self, f.name)) for f in fields(self))))


def empty_schema() -> dict[str, Any]:
    """A JSON Schema for a tool that takes no arguments."""
    return {"type": "object", "properties": {}, "required": []}


@dataclass(frozen=True)
class Tool:
    """A callable API as a model sees it.

    `parameters` is a JSON Schema object: {"type": "object", "properties": {name: {"type":
    ..., "description": ...}}, "required": [...]}. `responses` maps output field names to
    {"type", "description"} (Seal-Tools' response fields; their order defines output indices).
    `category` is the field/cluster ("Field/Sub-field" in Seal-Tools).
    """

    __hash__ = content_hash

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=empty_schema)
    responses: dict[str, Any] = field(default_factory=dict)
    category: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def properties(self) -> dict[str, Any]:
        return self.parameters.get("properties", {})

    @property
    def required(self) -> list[str]:
        return list(self.parameters.get("required", []))

    def param_type(self, name: str) -> str | None:
        """The JSON type of a parameter, or None if unknown/untyped."""
        spec = self.properties.get(name)
        return spec.get("type") if isinstance(spec, dict) else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "responses": self.responses,
            "category": self.category,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Tool:
        return cls(
            name=d["name"],
            description=d.get("description", ""),
            parameters=d.get("parameters") or empty_schema(),
            responses=d.get("responses") or {},
            category=d.get("category", ""),
            metadata=d.get("metadata") or {},
        )


@dataclass(frozen=True)
class Ref:
    """An argument value that is an output of an earlier call (a nested call).

    `id` keeps the original identifier (Seal-Tools "API_call_k") so answers re-render
    byte-exact; `call` is the index of the producing call in the calling list and `output`
    the index among that call's responses, both None while unresolved (dangling).
    """

    id: str
    call: int | None = None
    output: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"$ref": self.id, "call": self.call, "output": self.output}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ref:
        return cls(id=d["$ref"], call=d.get("call"), output=d.get("output"))

    @staticmethod
    def is_encoded(value: Any) -> bool:
        return isinstance(value, dict) and "$ref" in value


def _encode_value(value: Any) -> Any:
    if isinstance(value, Ref):
        return value.to_dict()
    if isinstance(value, list | tuple):
        return [_encode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode_value(v) for k, v in value.items()}
    return value


def _decode_value(value: Any) -> Any:
    if Ref.is_encoded(value):
        return Ref.from_dict(value)
    if isinstance(value, list):
        return [_decode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _decode_value(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class ToolCall:
    """One call: a tool name, its arguments (values may be `Ref`s), an id, and the ids
    under which its outputs can be referenced later (Seal-Tools `responses`)."""

    __hash__ = content_hash

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""
    responses: tuple[str, ...] = ()

    def refs(self) -> list[Ref]:
        """The nested references among this call's argument values (top level and inside)."""
        found: list[Ref] = []

        def walk(v: Any) -> None:
            if isinstance(v, Ref):
                found.append(v)
            elif isinstance(v, list | tuple):
                for x in v:
                    walk(x)
            elif isinstance(v, dict):
                for x in v.values():
                    walk(x)

        walk(self.arguments)
        return found

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "arguments": _encode_value(self.arguments),
            "id": self.id,
            "responses": list(self.responses),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ToolCall:
        return cls(
            name=d["name"],
            arguments=_decode_value(d.get("arguments") or {}),
            id=d.get("id", ""),
            responses=tuple(d.get("responses") or ()),
        )


def link_refs(calls: list[ToolCall] | tuple[ToolCall, ...]) -> list[ToolCall]:
    """Turn string values like "API_call_3" into `Ref`s pointing at the call that declares
    that response id. Ids no call declares stay `Ref`s with call=None (dangling), so the
    executor can report them; values that do not look like response ids are untouched."""
    owner: dict[str, tuple[int, int]] = {}
    for i, call in enumerate(calls):
        for k, rid in enumerate(call.responses):
            owner.setdefault(rid, (i, k))

    def convert(v: Any) -> Any:
        if isinstance(v, Ref):
            return v
        if isinstance(v, str) and _RESPONSE_ID.match(v):
            call_idx, out_idx = owner.get(v, (None, None))
            return Ref(id=v, call=call_idx, output=out_idx)
        if isinstance(v, list):
            return [convert(x) for x in v]
        if isinstance(v, dict):
            return {k: convert(x) for k, x in v.items()}
        return v

    return [
        ToolCall(c.name, {k: convert(v) for k, v in c.arguments.items()}, c.id, c.responses)
        for c in calls
    ]


def unlink_refs(value: Any) -> Any:
    """The inverse of `link_refs` for one value: `Ref`s become their original id strings."""
    if isinstance(value, Ref):
        return value.id
    if isinstance(value, list | tuple):
        return [unlink_refs(v) for v in value]
    if isinstance(value, dict):
        return {k: unlink_refs(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Example:
    """One task instance: a query, the candidate tools shown to the model, the gold calls,
    DEER's decision labels and an optional gold answer.

    needs_tool: DEER Decision-Search label (None = not labelled).
    has_suitable_tool: DEER Decision-Call label (None = not labelled).
    difficulty: "easy" (one call) / "difficult" (several), or a dataset's own label.
    """

    __hash__ = content_hash

    id: str
    query: str
    tools: tuple[Tool, ...] = ()
    calls: tuple[ToolCall, ...] = ()
    needs_tool: bool | None = None
    has_suitable_tool: bool | None = None
    answer: str | None = None
    split: str = ""
    difficulty: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def nested(self) -> bool:
        """True if any gold argument references an earlier call's output."""
        return any(c.refs() for c in self.calls)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "tools": [t.to_dict() for t in self.tools],
            "calls": [c.to_dict() for c in self.calls],
            "needs_tool": self.needs_tool,
            "has_suitable_tool": self.has_suitable_tool,
            "answer": self.answer,
            "split": self.split,
            "difficulty": self.difficulty,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Example:
        return cls(
            id=d["id"],
            query=d["query"],
            tools=tuple(Tool.from_dict(t) for t in d.get("tools") or ()),
            calls=tuple(ToolCall.from_dict(c) for c in d.get("calls") or ()),
            needs_tool=d.get("needs_tool"),
            has_suitable_tool=d.get("has_suitable_tool"),
            answer=d.get("answer"),
            split=d.get("split", ""),
            difficulty=d.get("difficulty", ""),
            metadata=d.get("metadata") or {},
        )


@dataclass(frozen=True)
class Message:
    """A chat message. role: system | user | assistant | tool (or a role tag of a
    multi-role agent such as planner/caller/summarizer/observation)."""

    role: str
    content: str
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = {"role": self.role, "content": self.content}
        if self.name:
            d["name"] = self.name
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Message:
        return cls(role=d["role"], content=d.get("content", ""), name=d.get("name", ""))


class ErrorKind(str, Enum):
    """The fixed set of failure kinds recorded in Traces and error analyses."""

    FORMAT = "format"  # output could not be parsed into the expected answer format
    EMPTY_OUTPUT = "empty_output"  # the model produced nothing usable
    UNKNOWN_TOOL = "unknown_tool"  # called a tool that is not available / not a candidate
    MISSING_ARGUMENT = "missing_argument"  # a required argument is absent
    UNKNOWN_ARGUMENT = "unknown_argument"  # an argument the schema does not declare
    INVALID_ARGUMENT = "invalid_argument"  # a value of the wrong type / not allowed
    DANGLING_REFERENCE = "dangling_reference"  # a nested ref to an output nobody produces
    CYCLE = "cycle"  # nested references form a cycle
    TOOL_ERROR = "tool_error"  # the tool raised
    TIMEOUT = "timeout"  # the tool did not return in time
    REPEATED_CALL = "repeated_call"  # the same call again with no new information
    STEP_LIMIT = "step_limit"  # the agent ran out of its step budget
    ENGINE_ERROR = "engine_error"  # the engine failed (server down, ...)


@dataclass(frozen=True)
class Step:
    """One step of an agent run.

    role: who acted (agent, planner, caller, summarizer, tool, system).
    kind: decision | thought | call | observation | answer | error.
    prompt/content: the exact text in and out of the model (so Traces become training data).
    """

    __hash__ = content_hash

    role: str
    kind: str
    content: str = ""
    prompt: str | None = None
    calls: tuple[ToolCall, ...] = ()
    observation: Any = None
    error: ErrorKind | None = None
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "kind": self.kind,
            "content": self.content,
            "prompt": self.prompt,
            "calls": [c.to_dict() for c in self.calls],
            "observation": _encode_value(self.observation),
            "error": self.error.value if self.error else None,
            "detail": self.detail,
            "data": self.data,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Step:
        return cls(
            role=d["role"],
            kind=d["kind"],
            content=d.get("content", ""),
            prompt=d.get("prompt"),
            calls=tuple(ToolCall.from_dict(c) for c in d.get("calls") or ()),
            observation=_decode_value(d.get("observation")),
            error=ErrorKind(d["error"]) if d.get("error") else None,
            detail=d.get("detail", ""),
            data=d.get("data") or {},
        )


@dataclass(frozen=True)
class Trace:
    """The record of one agent run on one query: every step, the final answer, the calls
    made, and the errors met. `meta` holds the agent/engine config and timings."""

    __hash__ = content_hash

    query: str
    steps: tuple[Step, ...] = ()
    answer: str | None = None
    example_id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def calls(self) -> list[ToolCall]:
        return [c for s in self.steps if s.kind == "call" for c in s.calls]

    @property
    def errors(self) -> list[Step]:
        return [s for s in self.steps if s.error is not None]

    def decisions(self) -> dict[str, Any]:
        """Decision steps as {name: value} (e.g. {"needs_tool": True})."""
        return {k: v for s in self.steps if s.kind == "decision" for k, v in s.data.items()}

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "steps": [s.to_dict() for s in self.steps],
            "answer": self.answer,
            "example_id": self.example_id,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trace:
        return cls(
            query=d["query"],
            steps=tuple(Step.from_dict(s) for s in d.get("steps") or ()),
            answer=d.get("answer"),
            example_id=d.get("example_id", ""),
            meta=d.get("meta") or {},
        )
