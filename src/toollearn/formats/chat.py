"""The one chat-templating path: messages -> the exact text a model reads.

Every engine renders chat prompts here, and so does the trainer, so a training sample and a
served prompt go through the same template code. The template is the model's own Jinja
template (a GGUF's `tokenizer.chat_template`, a tokenizer's `chat_template`), rendered in a
sandbox the way transformers does (`trim_blocks`, `lstrip_blocks`, `raise_exception`).

A message list that ends with an assistant message asks the model to continue that message:
the rest is rendered with the generation prompt and the assistant text is appended as is
(DEER inserts its tool pool this way; `TrainingSample.prompts()` builds such prompts).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from toollearn.core.errors import FormatError
from toollearn.core.types import Message


def _raise(message: str) -> None:
    raise FormatError(f"chat template: {message}")


class ChatTemplate:
    """A compiled chat template with its special tokens."""

    def __init__(self, source: str, *, bos_token: str = "", eos_token: str = ""):
        if not source or not source.strip():
            raise FormatError("empty chat template")
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        self.source, self.bos_token, self.eos_token = source, bos_token, eos_token
        self._template = env.from_string(source)

    @property
    def sha256(self) -> str:
        """Hash of the template text (recorded with every run)."""
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    def render(self, messages: Sequence[Message | dict[str, Any]]) -> str:
        """The prompt text: the conversation plus the assistant header, or, when the last
        message is the assistant's, the conversation before it plus its text to continue."""
        msgs = [m if isinstance(m, Message) else Message.from_dict(dict(m)) for m in messages]
        prefix = ""
        if msgs and msgs[-1].role == "assistant":
            prefix, msgs = msgs[-1].content, msgs[:-1]
        text = self._template.render(
            messages=[m.to_dict() for m in msgs],
            add_generation_prompt=True,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
        )
        return text + prefix

    def render_with_tools(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None
    ) -> str:
        """The prompt for the template's own tool format: message dicts (with `tool_calls`
        and `tool` results as `formats.template_tools.template_messages` shapes them) and the
        OpenAI tool dicts, as transformers' `apply_chat_template(tools=...)` passes them."""
        return self._template.render(
            messages=list(messages),
            tools=list(tools) if tools else None,
            add_generation_prompt=True,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
        )

    def turn_end(self) -> str:
        """What the template writes after an assistant turn's text (ChatML: "<|im_end|>\\n"):
        its first token is the one a tuned model must learn to stop with."""
        mark = "\x00TURN\x00"
        text = self._template.render(
            messages=[{"role": "user", "content": "u"}, {"role": "assistant", "content": mark}],
            add_generation_prompt=False,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
        )
        end = text.split(mark, 1)[1] if mark in text else ""
        return end if end.strip() else self.eos_token

    def describe(self) -> dict[str, str]:
        """What a run records about the template."""
        return {"chat_template_sha256": self.sha256}

    @classmethod
    def from_gguf(cls, path: str | Path) -> ChatTemplate:
        """The template stored in a GGUF file (read with the `gguf` package, no model load)."""
        try:
            from gguf import GGUFReader
        except ImportError as exc:
            raise FormatError("reading a GGUF's chat template needs: pip install gguf") from exc
        reader = GGUFReader(str(path))
        source = _gguf_string(reader, "tokenizer.chat_template")
        if not source:
            raise FormatError(f"{Path(path).name} has no chat template")
        tokens = reader.fields["tokenizer.ggml.tokens"]

        def token(key: str) -> str:
            f = reader.fields.get(key)
            if f is None:
                return ""
            tid = int(f.parts[f.data[0]][0])
            return bytes(tokens.parts[tokens.data[tid]]).decode("utf-8")

        return cls(
            source,
            bos_token=token("tokenizer.ggml.bos_token_id"),
            eos_token=token("tokenizer.ggml.eos_token_id"),
        )

    @classmethod
    def from_tokenizer(cls, tokenizer: Any) -> ChatTemplate:
        """The template of a transformers tokenizer."""
        source = getattr(tokenizer, "chat_template", None)
        if not source:
            raise FormatError("the tokenizer has no chat template")
        return cls(source, bos_token=tokenizer.bos_token or "", eos_token=tokenizer.eos_token or "")


def _gguf_string(reader: Any, key: str) -> str:
    f = reader.fields.get(key)
    if f is None:
        return ""
    return bytes(f.parts[f.data[0]]).decode("utf-8")
