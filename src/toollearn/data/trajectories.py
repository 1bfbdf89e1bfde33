"""Read and write alpha-UMi's released trajectory format, and build it from our Traces.

The file is one JSON list of {"tools": [{"Name", "function", "input"}], "instruction": str,
"conversations": [{"from": user|assistant|caller|observation|conclusion, "value": str}]}.
Assistant (planner) values end with `Next: caller.` / `Next: conclusion.` / `Next: give up.`.
An optional "id" is kept when present (the released data has none; ours adds one).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toollearn.core.errors import DataError
from toollearn.core.types import Message, Tool, Trace

ROLES = ("user", "assistant", "caller", "observation", "conclusion")


@dataclass(frozen=True)
class Trajectory:
    """One multi-role episode: the instruction, the tools shown, and the role-tagged turns."""

    instruction: str
    tools: tuple[Tool, ...] = ()
    conversations: tuple[Message, ...] = ()
    id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The released JSON shape (plus "id"/"metadata" when set)."""
        from toollearn.formats.schemas.toolbench import tool_to_toolbench

        d: dict[str, Any] = {
            "tools": [tool_to_toolbench(t) for t in self.tools],
            "instruction": self.instruction,
            "conversations": [{"from": m.role, "value": m.content} for m in self.conversations],
        }
        if self.id:
            d["id"] = self.id
        if self.metadata:
            d["metadata"] = self.metadata
        return d


def trajectory_from_dict(d: Any, where: str = "", index: int = 0) -> Trajectory:
    """Parse one record; DataError naming the record for anything malformed."""
    from toollearn.formats.schemas.toolbench import tool_from_toolbench

    label = f"record {index}"
    if not isinstance(d, dict) or not isinstance(d.get("conversations"), list):
        raise DataError(f"{label}: expected an object with a 'conversations' list", where or None)
    turns = []
    for j, turn in enumerate(d["conversations"]):
        if not isinstance(turn, dict) or turn.get("from") not in ROLES:
            got = turn.get("from") if isinstance(turn, dict) else turn
            raise DataError(f"{label} turn {j}: 'from' must be one of {ROLES}, got {got!r}", where)
        turns.append(Message(turn["from"], str(turn.get("value", ""))))
    try:
        tools = tuple(tool_from_toolbench(t) for t in d.get("tools") or ())
    except Exception as exc:  # a schema converter's error, re-raised with the location
        raise DataError(f"{label}: bad tool document: {exc}", where or None) from exc
    instruction = d.get("instruction")
    if not isinstance(instruction, str):
        first_user = next((m.content for m in turns if m.role == "user"), None)
        if first_user is None:
            raise DataError(f"{label}: no 'instruction' and no user turn", where or None)
        instruction = first_user
    return Trajectory(
        instruction=instruction,
        tools=tools,
        conversations=tuple(turns),
        id=str(d.get("id", "")) or f"{index}",
        metadata=d.get("metadata") or {},
    )


def read_trajectories(path: str | Path) -> list[Trajectory]:
    """All trajectories of a released-format JSON file (a list; JSONL is accepted too)."""
    path = Path(path)
    if not path.exists():
        raise DataError("no such trajectory file", str(path))
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    data.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataError(f"bad JSON: {exc}", str(path), n) from exc
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise DataError("expected a JSON list of trajectories", str(path))
    return [trajectory_from_dict(d, str(path), i) for i, d in enumerate(data)]


def write_trajectories(trajectories: Sequence[Trajectory], path: str | Path) -> Path:
    """Write the released format (an indented JSON list)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = [t.to_dict() for t in trajectories]
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def trajectory_from_trace(trace: Trace, tools: Sequence[Tool]) -> Trajectory:
    """The alpha-UMi conversation of a multi-role agent's Trace (steps carry role tags)."""
    turns = [Message("user", trace.query)]
    for step in trace.steps:
        tag = step.data.get("umi_role") if step.data else None
        if tag in ROLES and tag != "user":
            turns.append(Message(tag, step.data.get("umi_text", step.content)))
    return Trajectory(
        instruction=trace.query,
        tools=tuple(tools),
        conversations=tuple(turns),
        id=trace.example_id,
        metadata={"outcome": trace.meta.get("outcome", "")},
    )
