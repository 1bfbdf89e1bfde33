"""Continuous batching for a server: requests join the running batch as slots free.

One thread owns the llama engine and its multi-sequence context (`llama_batch.BatchDecoder`).
Requests arrive from any thread (`submit`); between decode steps the loop admits waiting ones
into free slots (prefill, reusing the KV of a held prompt that shares at least half of the new
one, as a prefix cache does: `BatchDecoder.reuse_prefixes`), then advances every live sequence
by one token in one `llama_decode` call, sending each request its new text as it decodes and
its `Completion` when it ends. A request whose `cancel` event is set (the client left or timed
out) is dropped at the next step and its slot reused. A request that does not fit a slot's
context (`seq_ctx`) runs alone through the engine's sequential path, in the same thread.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from toollearn.engines.base import Completion, Prompt, cut_at_stop

Sink = Callable[[Any], None]  # gets text pieces, then a Completion or an Exception


@dataclass
class Ticket:
    """One submitted request and where its output goes."""

    prompt: Prompt
    kw: dict[str, Any]
    sink: Sink
    cancels: tuple[threading.Event, ...]  # any one set: the request is dropped
    seq: Any = None  # its sequence in the batch (llama_batch._Live), once admitted
    sent: int = 0  # characters of text already sent
    hold: int = 0  # characters held back (a stop string may begin there)

    @property
    def cancelled(self) -> bool:
        return any(e.is_set() for e in self.cancels)


class OnlineBatcher:
    """The loop thread over a `LlamaEngine` with n_seq > 1 (see the module doc)."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.inbox: queue.SimpleQueue[Ticket | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="batcher", daemon=True)
        self.thread.start()

    # -- the request side ------------------------------------------------------------------

    def submit(self, prompt: Prompt, sink: Sink, *cancels: threading.Event, **kw: Any) -> None:
        """Queue one generation (kw: max_tokens, stop, temperature, top_p, seed, constraint);
        it is dropped once any of `cancels` is set."""
        self.inbox.put(Ticket(prompt, kw, sink, cancels))

    def stream(self, prompt: Prompt, cancel: threading.Event | None = None,
               **kw: Any) -> Iterator[str | Completion]:  # fmt: skip
        """Text pieces as the request decodes in the batch, then its Completion; setting
        `cancel` (shared by a request's choices) or leaving the iteration early cancels it."""
        left = threading.Event()  # this iteration's own: the caller's may outlive it
        box: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.submit(prompt, box.put, left, *([cancel] if cancel else []), **kw)
        try:
            while True:
                item = box.get()
                if isinstance(item, Exception):
                    raise item
                yield item
                if isinstance(item, Completion):
                    return
        finally:
            left.set()  # no-op once finished; stops a request whose reader left

    def complete(self, prompt: Prompt, cancel: threading.Event | None = None,
                 **kw: Any) -> Completion:  # fmt: skip
        """The request's Completion (blocking until it ends)."""
        for item in self.stream(prompt, cancel, **kw):
            if isinstance(item, Completion):
                return item
        raise RuntimeError("the batcher ended a request without a completion")

    def close(self) -> None:
        self.inbox.put(None)
        self.thread.join(timeout=10)

    # -- the loop --------------------------------------------------------------------------

    def _loop(self) -> None:
        waiting: deque[Ticket] = deque()
        live: list[Ticket] = []
        while True:
            try:
                item = self.inbox.get(block=not (waiting or live))
                while True:
                    if item is None:
                        return
                    waiting.append(item)
                    item = self.inbox.get_nowait()
            except queue.Empty:
                pass
            decoder = self._decoder()
            for t in [t for t in live if t.cancelled]:
                decoder.drop(t.seq)
                live.remove(t)
                t.sink(Completion("", "cancelled"))
            for t in [t for t in waiting if t.cancelled]:
                waiting.remove(t)
                t.sink(Completion("", "cancelled"))  # a reader still waiting is released
            while waiting and len(live) < decoder.n_seq:
                self._admit(waiting.popleft(), decoder, live)
            if live:
                self._step(decoder, live)

    def _decoder(self) -> Any:
        engine = self.engine
        engine._select()
        batcher = engine._shared["batcher"]
        if batcher is None:
            from toollearn.engines.llama_batch import BatchDecoder

            batcher = engine._shared["batcher"] = BatchDecoder(
                engine.llm, engine.n_seq, engine.seq_ctx, reader=engine.reader
            )
            engine._select()
        batcher.reuse_prefixes = True  # requests sharing a system prompt and tools share its KV
        return batcher

    def _admit(self, t: Ticket, decoder: Any, live: list[Ticket]) -> None:
        from toollearn.engines.llama_batch import SeqRequest

        engine, kw = self.engine, t.kw
        try:
            text = engine.render(t.prompt)
            tokens = tuple(engine.llm.tokenize(text.encode("utf-8"), special=True))
            max_tokens = kw.get("max_tokens", 256)
            if len(tokens) + max_tokens > decoder.n_ctx_seq:  # too long for a slot: alone
                alone = {k: v for k, v in kw.items() if k != "logprobs"}  # (none recorded)
                pieces = engine.stream(t.prompt, **alone)
                for item in pieces:
                    if t.cancelled:
                        pieces.close()
                        t.sink(Completion("", "cancelled"))
                        return
                    t.sink(item)
                return
            constraint = kw.get("constraint")
            req = SeqRequest(tokens, max_tokens, tuple(kw.get("stop") or ()),
                             engine.gbnf(constraint) if constraint is not None else None,
                             kw.get("temperature", 0.0), kw.get("seed", 0),
                             kw.get("top_p", 1.0), kw.get("logprobs"))  # fmt: skip
            slots = {x.seq.slot for x in live}
            slot = next(s for s in range(decoder.n_seq) if s not in slots)
            t.seq, logits = decoder.admit(0, req, slot)
            t.hold = max((len(s) for s in req.stop), default=1) - 1
            reason = decoder.first(t.seq, logits)
        except Exception as exc:  # this request fails; the others go on
            t.sink(exc)
            return
        self._send(t, decoder, reason)
        if reason is None:
            live.append(t)

    def _step(self, decoder: Any, live: list[Ticket]) -> None:
        try:
            done = dict((id(seq), reason) for seq, reason in decoder.step([t.seq for t in live]))
        except Exception as exc:  # a failed decode fails every live request
            for t in live:
                decoder.drop(t.seq)
                t.sink(exc)
            live.clear()
            return
        for t in list(live):
            reason = done.get(id(t.seq))
            self._send(t, decoder, reason)
            if reason is not None:
                live.remove(t)

    def _send(self, t: Ticket, decoder: Any, reason: str | None) -> None:
        """Send the request's new text (held back where a stop string may begin); at its
        end, the rest and its Completion."""
        if reason is not None:
            completion = decoder.finish(t.seq, reason)
            if len(completion.text) > t.sent:
                t.sink(completion.text[t.sent :])
            t.sink(completion)
            return
        text = self.engine.llm.detokenize(t.seq.out).decode("utf-8", errors="ignore")
        text, _ = cut_at_stop(text, t.seq.req.stop)
        end = len(text) - t.hold
        if end > t.sent:
            t.sink(text[t.sent : end])
            t.sent = end
