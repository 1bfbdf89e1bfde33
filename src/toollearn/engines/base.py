"""The engine protocol: batched text generation with stop strings and optional constraints."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, Union, runtime_checkable

from toollearn.core.types import Message

T = TypeVar("T")

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint

# A str prompt is raw text fed as-is; a message list is rendered with the model's own chat
# template (formats.chat, the one templating path every engine follows). A message list that
# ends with an assistant message asks the model to continue that message (a prefill).
Prompt = Union[str, Sequence[Message]]  # noqa: UP007 - runtime alias, py3.10


@dataclass(frozen=True)
class Completion:
    """One generated text plus accounting. `error` is set (and text may be partial or empty)
    when the engine failed on this prompt; finish_reason is "stop", "length" or "error"."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None
    # per generated token, where asked for (the batched llama path): (token text, log-prob,
    # ((alternative, log-prob), ...) most likely first)
    logprobs: tuple[tuple[str, float, tuple[tuple[str, float], ...]], ...] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@runtime_checkable
class Engine(Protocol):
    """Anything that turns a batch of prompts into a batch of completions, in order."""

    name: str
    supports_constraints: bool

    def complete(
        self,
        prompts: Sequence[Prompt],
        *,
        max_tokens: int = 256,
        stop: Sequence[str] = (),
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        constraint: Constraint | None = None,
    ) -> list[Completion]: ...


def prompt_docs(engine: Any) -> str:
    """How `engine`'s model expects tools listed in its prompts (json or compact): what its
    adapters were trained on (`load_engine` sets it; json for any other engine)."""
    return getattr(engine, "prompt_docs", None) or "json"


@dataclass(frozen=True)
class Sampling:
    """Decoding settings an agent passes to every engine call (and records in its Trace):
    temperature 0 is greedy; top_p is nucleus sampling; seed makes sampling repeatable."""

    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError("temperature must be >= 0 and top_p in (0, 1]")

    def kwargs(self) -> dict[str, float | int]:
        """As keyword arguments of `Engine.complete`."""
        return {"temperature": self.temperature, "top_p": self.top_p, "seed": self.seed}

    def to_dict(self) -> dict[str, float | int]:
        return self.kwargs()


def is_chat(prompt: Prompt) -> bool:
    """True when the prompt is a message list (to be chat-templated), False for raw text."""
    return not isinstance(prompt, str)


def as_messages(prompt: Prompt) -> list[Message]:
    """Normalise a chat prompt to Message objects (accepting {"role","content"} dicts too)."""
    if isinstance(prompt, str):
        raise TypeError("a raw-text prompt has no messages")
    out: list[Message] = []
    for m in prompt:
        out.append(m if isinstance(m, Message) else Message.from_dict(dict(m)))
    return out


def user(text: str) -> list[Message]:
    """A one-turn chat prompt: the text as a user message."""
    return [Message("user", text)]


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """Cut text at the earliest stop string; returns (text, whether a stop string was hit)."""
    cut = min((i for s in stop if s and (i := text.find(s)) >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


def adapter_view(engine: T, name: str | None, known: Iterable[str]) -> T:
    """A shallow copy of `engine` (same model, same contexts) generating under the adapter
    `name` (None: the base model); `known`: the adapter names the engine holds."""
    import copy

    from toollearn.core.errors import EngineError

    known = sorted(known)
    if name is not None and name not in known:
        raise EngineError(f"no adapter named {name!r}; loaded: {known}")
    view = copy.copy(engine)
    view.active = name  # type: ignore[attr-defined]
    base = engine.base_name  # type: ignore[attr-defined]
    view.name = base if name is None else f"{base}@{name}"  # type: ignore[attr-defined]
    return view


def stream_completion(engine: Any, prompt: Prompt, **kw: Any) -> Iterator[str | Completion]:
    """Text pieces as the engine decodes them, then the `Completion`: the engine's own
    `stream` where it has one, else its whole answer as one piece."""
    if hasattr(engine, "stream"):
        yield from engine.stream(prompt, **kw)
        return
    completion = engine.complete([prompt], **kw)[0]
    if completion.text:
        yield completion.text
    yield completion
