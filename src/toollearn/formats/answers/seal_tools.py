"""The Seal-Tools answer format: the paper's prompt, and the list of calls a model answers with.

An answer is `[{"api": name, "parameters": {...}, "responses": ["API_call_0", ...]}, ...]`; a
parameter value "API_call_k" is the k-th response of an earlier call (a nested call, linked
into a `Ref`). The released targets are Python literals (single quotes); models often write JSON.

The served prompt (`render_messages`) is the paper's prompt as the user turn; `render_target`
writes gold calls exactly as the constrained decoder does (decoding.seal_tools: JSON, calls
joined by ",", parameters in each tool's declared order), which is what training targets use.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Sequence
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message, Tool, ToolCall, link_refs, unlink_refs

PROMPT_HEADER = (
    "Please chooose the needed apis and return api_calling list according to the "
    "task_instruction.\n"
    'Output format: [{"api": "", "parameters": {"": ""}, "responses": '
    '["API_call_0","API_call_1"]},{"api": "", "parameters": {"": ""}, "responses": '
    '["API_call_2"]}]\n'
    "Responses can be used as parameter value. The number of responses depends on "
    "information in api_list.\n\nInput:\n"
)


def render_prompt(query: str, tools: Sequence[Tool | dict[str, Any]]) -> str:
    """The paper's evaluation prompt (byte-equal to the dataset's human turns).

    Candidates are shown as the Python repr of Seal-Tools tool dicts; a `Tool` is converted
    with `formats.schemas.seal_tools.tool_to_seal`, a dict is shown as given.
    """
    dicts = [t if isinstance(t, dict) else _tool_to_seal(t) for t in tools]
    return f'{PROMPT_HEADER}api_list = {dicts!r}\ntask_instruction = "{query}"\nOutput:\n'


def render_messages(
    query: str, tools: Sequence[Tool | dict[str, Any]], prompt: str | None = None
) -> list[Message]:
    """The chat prompt: the paper's prompt (or the dataset's own copy of it) as the user turn."""
    return [Message("user", prompt or render_prompt(query, tools))]


def render_target(calls: Sequence[ToolCall], tools: Sequence[Tool] = ()) -> str:
    """Gold calls as the constrained decoder writes them (the training target): parameters in
    declared order, and numbers the data writes as strings ("40") written as numbers where the
    tool declares a number and the official scorer's str() comparison cannot tell them apart."""
    from toollearn.formats.schemas import order_like_schema

    items = []
    for call in calls:
        tool = next((t for t in tools if isinstance(t, Tool) and t.name == call.name), None)
        params = unlink_refs(call.arguments)
        if tool:
            params = {k: _typed(v, tool.properties.get(k)) for k, v in params.items()}
            params = order_like_schema(params, tool.parameters)
        ids = ",".join(json.dumps(r) for r in call.responses)
        items.append(
            f'{{"api": {json.dumps(call.name, ensure_ascii=False)}, "parameters": '
            f'{json.dumps(params, ensure_ascii=False)}, "responses": [{ids}]}}'
        )
    return "[" + ",".join(items) + "]"


def _typed(value: Any, spec: Any) -> Any:
    """A numeric string as the number its declared type asks for, when str() gives it back."""
    jtype = spec.get("type") if isinstance(spec, dict) else None
    if not isinstance(value, str) or jtype not in ("integer", "number"):
        return value
    try:
        number: Any = int(value) if jtype == "integer" else float(value)
    except ValueError:
        return value
    if jtype == "number" and isinstance(number, float) and number.is_integer() and "." not in value:
        number = int(number)
    return number if str(number) == value else value


def _tool_to_seal(tool: Tool) -> dict[str, Any]:
    from toollearn.formats.schemas.seal_tools import tool_to_seal

    return tool_to_seal(tool)


def parse_calls(text: str) -> list[ToolCall]:
    """Read the first list of call dicts in `text` (JSON, else a Python literal); refs linked.

    Lenient on purpose: surrounding prose, code fences and either quoting style are accepted.
    Raises FormatError if no non-empty list of call dicts is found (a bare `[]` gives []).
    """
    if not isinstance(text, str):
        raise FormatError(f"expected text, got {type(text).__name__}")
    saw_empty = False
    for value in _bracketed_literals(text):
        calls = _as_calls(value)
        if calls:
            return link_refs(calls)
        saw_empty = saw_empty or value == []
    if saw_empty:
        return []
    raise FormatError(f"no list of Seal-Tools calls found in: {_clip(text)!r}")


def parse_call_dicts(text: str) -> list[dict[str, Any]] | None:
    """The first non-empty list of call dicts in `text` as the dicts themselves (what a
    post-processing step edits and writes back); None if there is none."""
    if not isinstance(text, str):
        return None
    for value in _bracketed_literals(text):
        if _as_calls(value):
            return list(value)
    return None


def _bracketed_literals(text: str) -> Iterator[Any]:
    """The literal (or None) of each closed [...] in `text`, from each "[" in turn."""
    start = text.find("[")
    while start != -1:
        end = _closing_bracket(text, start)
        if end is not None:
            yield _load_literal(text[start : end + 1])
        start = text.find("[", start + 1)


def _closing_bracket(text: str, start: int) -> int | None:
    """Index of the bracket that closes text[start], skipping quoted strings; None if none."""
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 0:
                return i if ch == "]" else None
        i += 1
    return None


def _load_literal(snippet: str) -> Any:
    """JSON first, else a Python literal (never eval); None if neither parses."""
    try:
        return json.loads(snippet)
    except ValueError:
        pass
    try:
        return ast.literal_eval(snippet)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _as_calls(value: Any) -> list[ToolCall] | None:
    """The value as calls if it is a non-empty list of call dicts, else None."""
    if not isinstance(value, list) or not value:
        return None
    calls = [call_from_seal(item) for item in value]
    return None if any(c is None for c in calls) else calls


def call_from_seal(item: Any) -> ToolCall | None:
    """One Seal-Tools call dict (`api`/`parameters`/`responses`, or `name`/`arguments`) as an
    unlinked ToolCall; None if it is not a call dict."""
    if not isinstance(item, dict):
        return None
    name = item.get("api", item.get("name"))
    args = item.get("parameters", item.get("arguments", {}))
    responses = item.get("responses", [])
    if not isinstance(name, str) or not isinstance(args, dict):
        return None
    if isinstance(responses, str):
        responses = [responses]
    if not isinstance(responses, list | tuple) or not all(isinstance(r, str) for r in responses):
        return None
    return ToolCall(name=name, arguments=dict(args), responses=tuple(responses))


def calls_to_seal(calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
    """Calls as Seal-Tools dicts, refs rendered back to their "API_call_k" ids."""
    return [
        {"api": c.name, "parameters": unlink_refs(c.arguments), "responses": list(c.responses)}
        for c in calls
    ]


def render_calls(calls: Sequence[ToolCall], style: str = "json") -> str:
    """An answer string: JSON (default) or the released targets' Python-literal style."""
    items = calls_to_seal(calls)
    if style == "json":
        return json.dumps(items, ensure_ascii=False)
    if style == "python":
        return repr(items)
    raise ValueError(f"unknown style {style!r} (json or python)")


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[:n] + "..."
