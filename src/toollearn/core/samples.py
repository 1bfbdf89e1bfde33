"""`TrainingSample`: one supervised example, exactly as the model sees it when serving.

A sample is the prompt (`messages`, before the model's turn) and the model's turn (`target`).
The target may interleave text the model writes with text the serving code inserts (DEER's
tool pool after `#SearchAPI#`, an observation): `spans` are the character ranges of `target`
the model writes, the only ones that carry loss. When serving, the model writes span k after
seeing `messages` plus `target[:start_k]` as the start of its own turn (`prompts()`), so a
trainer that renders `prompts()` through the chat template trains on exactly what the agent
sends. Nothing here knows about engines or files: plain, frozen, JSON round-trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toollearn.core.types import Message, Tool, content_hash


@dataclass(frozen=True)
class TrainingSample:
    """Prompt messages, the target turn, its loss spans and where the sample came from.

    task: the answer format (seal-tools, deer, umi-planner, umi-caller, umi-summarizer,
    umi-single, programs, tool-calls). role: the agent role it trains (agent, planner, caller,
    summarizer, single). source: the data it came from (dataset/split/id, generator name).
    """

    __hash__ = content_hash

    messages: tuple[Message, ...]
    target: str
    spans: tuple[tuple[int, int], ...] = ()
    tools: tuple[Tool, ...] = ()
    task: str = ""
    role: str = ""
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("a training sample needs at least one prompt message")
        if not self.spans:  # the whole target is the model's
            object.__setattr__(self, "spans", ((0, len(self.target)),))
        last = 0
        for start, end in self.spans:
            if not last <= start < end <= len(self.target):
                raise ValueError(
                    f"loss spans must be ordered, non-empty ranges inside the target: {self.spans}"
                )
            last = end

    def span_texts(self) -> list[str]:
        """The model-written pieces of the target, in order."""
        return [self.target[s:e] for s, e in self.spans]

    def prompts(self) -> list[list[Message]]:
        """For each span, the prompt the model answers when it writes that span: the messages,
        plus the target so far as the start of the assistant turn when the span does not begin
        the turn (engines continue a final assistant message instead of starting a new one)."""
        out = []
        for start, _ in self.spans:
            prefix = [Message("assistant", self.target[:start])] if start else []
            out.append([*self.messages, *prefix])
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": [m.to_dict() for m in self.messages],
            "target": self.target,
            "spans": [list(s) for s in self.spans],
            "tools": [t.to_dict() for t in self.tools],
            "task": self.task,
            "role": self.role,
            "source": self.source,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainingSample:
        return cls(
            messages=tuple(Message.from_dict(m) for m in d["messages"]),
            target=d["target"],
            spans=tuple((int(s), int(e)) for s, e in d.get("spans") or ()),
            tools=tuple(Tool.from_dict(t) for t in d.get("tools") or ()),
            task=d.get("task", ""),
            role=d.get("role", ""),
            source=d.get("source", ""),
            metadata=d.get("metadata") or {},
        )
