"""A general call list, read as it is generated, as OpenAI stream deltas.

`CallStream.feed(piece)` reads the model's text piece by piece (the call-list format of
`formats.answers.tool_calls`: `[{"name": "f", "arguments": {...}}, ...]`, or `[]` then a
newline and a reply) and returns the deltas a streaming OpenAI client expects: for each call
first its index, id and name (as soon as the name is closed), then fragments of its arguments
as they are generated; for a reply its text (the `[]` marker never reaches the client), cut
at the first `stop` string. Text that is not a call list (an unconstrained model's) streams as
content. Nothing here evaluates model output: names are read with `json.loads`, arguments are
passed on as text.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

OPEN, FIRST, EXPECT, NAME, ARGS, SEP, NO_CALL, REPLY, RAW, DONE = range(10)


class CallStream:
    """Incremental reader of one answer's call list (see the module doc)."""

    def __init__(self, stop: Sequence[str] = ()):
        self.stop = tuple(s for s in stop if s)
        self.state, self.expect, self.after = OPEN, "", OPEN
        self.calls = 0
        self.name = ""  # the JSON text of the name being read
        self.depth, self.in_string, self.escaped = 0, False, False
        self.reply = ""  # reply text not yet sent (held back where a stop string may begin)
        self.sent_reply = 0
        self.stopped = False  # the reply reached a stop string

    def feed(self, piece: str) -> list[dict[str, Any]]:
        """The deltas for the next piece of text."""
        out: list[dict[str, Any]] = []
        args = ""
        for ch in piece:
            if self.state == ARGS:
                args += ch
                if self._args_done(ch):
                    self._literal("}", SEP)
                continue
            if args:
                out.append(self._args(args))
                args = ""
            self._step(ch, out)
        if args:
            out.append(self._args(args))
        if self.state in (REPLY, RAW):
            out += self._reply(final=False)
        return out

    def end(self, engine_finish: str = "stop") -> list[dict[str, Any]]:
        """Deltas for what was held back, at the end of the answer."""
        return self._reply(final=True) if self.state in (REPLY, RAW) else []

    def finish_reason(self, engine_finish: str) -> str:
        """The stream's last finish_reason: tool_calls for a closed call list, stop when the
        reply met a stop string, else the engine's (length when cut)."""
        if self.stopped:
            return "stop"
        if self.calls and self.state in (SEP, DONE):
            return "tool_calls"
        return "length" if engine_finish == "length" else "stop"

    def _step(self, ch: str, out: list[dict[str, Any]]) -> None:
        state = self.state
        if state == EXPECT:
            if ch != self.expect[0]:
                self.state = DONE  # not the format: ignore the rest
                return
            self.expect = self.expect[1:]
            if not self.expect:
                self.state = self.after
        elif state == OPEN:
            self.state = FIRST if ch == "[" else RAW
            if self.state == RAW:
                self.reply += ch
        elif state == FIRST:
            if ch == "]":
                self.state = NO_CALL
            elif ch == "{":
                self._literal('"name": ', NAME)
            else:
                self.state = DONE
        elif state == NAME:
            self.name += ch
            if self._string_closed(self.name):
                out.append(self._head())
                self._literal(', "arguments": ', ARGS)
                self.depth, self.in_string, self.escaped = 0, False, False
        elif state == SEP:
            if ch == ",":
                self._literal(' {"name": ', NAME)
            else:
                self.state = DONE  # "]": the list is closed
        elif state == NO_CALL:
            self.state = REPLY if ch == "\n" else DONE
        elif state in (REPLY, RAW):
            self.reply += ch

    def _literal(self, text: str, then: int) -> None:
        """Expect `text` next, then go on in state `then`."""
        self.state, self.expect, self.after = EXPECT, text, then

    @staticmethod
    def _string_closed(text: str) -> bool:
        if len(text) < 2 or not text.endswith('"'):
            return False
        backslashes = len(text[1:-1]) - len(text[1:-1].rstrip("\\"))
        return backslashes % 2 == 0

    def _args_done(self, ch: str) -> bool:
        """Track the arguments' JSON value; True once it is closed."""
        if self.in_string:
            if self.escaped:
                self.escaped = False
            elif ch == "\\":
                self.escaped = True
            elif ch == '"':
                self.in_string = False
            return False
        if ch == '"':
            self.in_string = True
        elif ch in "{[":
            self.depth += 1
        elif ch in "}]":
            self.depth -= 1
            return self.depth == 0
        return False

    def _head(self) -> dict[str, Any]:
        try:
            name = json.loads(self.name)
        except json.JSONDecodeError:
            name = self.name.strip('"')
        self.name = ""
        self.calls += 1
        return {"tool_calls": [{"index": self.calls - 1, "id": f"call_{uuid.uuid4().hex[:24]}",
                                "type": "function",
                                "function": {"name": name, "arguments": ""}}]}  # fmt: skip

    def _args(self, text: str) -> dict[str, Any]:
        return {"tool_calls": [{"index": self.calls - 1, "function": {"arguments": text}}]}

    def _reply(self, final: bool) -> list[dict[str, Any]]:
        if self.stopped:
            return []
        text = self.reply
        cut = min((i for s in self.stop if (i := text.find(s)) >= 0), default=-1)
        if cut >= 0:
            text, self.stopped = text[:cut], True
            end = cut
        else:
            hold = 0 if final else max((len(s) for s in self.stop), default=1) - 1
            end = len(text) - hold
        new = text[self.sent_reply : end] if end > self.sent_reply else ""
        self.sent_reply = max(self.sent_reply, end)
        return [{"content": new}] if new else []


class WholeAnswer:
    """A model's own call syntax (`--prompt-format template`): the answer is read when it is
    complete (`serve.chat.read_answer`), then sent as one content or tool_calls delta."""

    def __init__(self, job: Any):
        self.job, self.text, self.reason = job, "", "stop"

    def feed(self, piece: str) -> list[dict[str, Any]]:
        self.text += piece
        return []

    def end(self, engine_finish: str = "stop") -> list[dict[str, Any]]:
        from toollearn.serve.chat import read_answer

        content, calls, self.reason = read_answer(self.job, self.text, engine_finish)
        if calls:
            return [{"tool_calls": [{"index": i, **c} for i, c in enumerate(calls)]}]
        return [{"content": content}] if content else []

    def finish_reason(self, engine_finish: str) -> str:
        return self.reason


def answer_stream(job: Any) -> CallStream | WholeAnswer:
    """The reader of a streamed answer with tools: incremental for the general call list."""
    if job.dialect is not None:
        return WholeAnswer(job)
    return CallStream(job.stop if job.reply is None else ())
