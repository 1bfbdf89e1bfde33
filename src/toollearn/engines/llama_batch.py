"""Multi-sequence batched decoding on llama.cpp: N sequences advance one token per decode call.

A second llama.cpp context over the same model holds up to `n_seq` sequences, each in its own
KV stream (kv_unified off, so a sequence attends only to its own cells). Requests are admitted
into free slots as others finish (continuous batching): a new prompt is prefilled in chunks of
n_batch tokens (as the sequential path does), then every live sequence feeds its last token in
one shared `llama_decode` call and reads its own logits row. Requests with the same prompt
tokens (e.g. the free and the constrained answer of one example) are prefilled once and the KV
cache is copied to the other slots (`llama_memory_seq_cp`). Greedy picks the argmax; grammar
requests use the same argmax-first check as `llama_grammar` (mask the vocabulary only when the
grammar rejects the argmax), each sequence with its own grammar; temperature > 0 samples from
the (masked) softmax with a per-request seeded generator.
"""

from __future__ import annotations

import contextlib
import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import Completion, Engine, Prompt, cut_at_stop
from toollearn.engines.llama_prefill import common_prefix

if TYPE_CHECKING:
    from toollearn.decoding.constraint import Constraint
    from toollearn.engines.llama_prefill import PromptReader


@dataclass(frozen=True)
class Request:
    """One prompt with its own generation settings (an engine-neutral batch item)."""

    prompt: Prompt
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    constraint: Constraint | None = None
    temperature: float = 0.0
    seed: int = 0
    top_p: float = 1.0


def sequential_requests(engine: Engine, requests: Sequence[Request]) -> list[Completion]:
    """Requests through `engine.complete`, those with the same settings in one call (so engines
    that batch or run prompts concurrently still can); results in request order."""
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(requests):
        key = (r.max_tokens, tuple(r.stop), r.constraint, r.temperature, r.seed, r.top_p)
        groups.setdefault(key, []).append(i)
    out: list[Completion | None] = [None] * len(requests)
    seq = getattr(engine, "complete_sequential", None)  # the llama engine without its batching
    for (max_tokens, stop, constraint, temperature, seed, top_p), idx in groups.items():
        prompts = [requests[i].prompt for i in idx]
        if seq is not None:
            comps = seq(prompts, max_tokens, stop, temperature, seed, constraint, top_p)
        else:
            comps = engine.complete(
                prompts,
                max_tokens=max_tokens,
                stop=stop,
                temperature=temperature,
                top_p=top_p,
                seed=seed,
                constraint=constraint,
            )
        for i, c in zip(idx, comps):
            out[i] = c
    return out  # type: ignore[return-value]


def complete_requests(engine: Engine, requests: Sequence[Request]) -> list[Completion]:
    """Batched when the engine can (`engine.complete_requests`), else one by one."""
    fn = getattr(engine, "complete_requests", None)
    return fn(requests) if fn is not None else sequential_requests(engine, requests)


@dataclass(frozen=True)
class SeqRequest:
    """One generation: prompt tokens, budget, stop strings, optional GBNF, sampling."""

    tokens: tuple[int, ...]
    max_tokens: int = 256
    stop: tuple[str, ...] = ()
    gbnf: str | None = None
    temperature: float = 0.0
    seed: int = 0
    top_p: float = 1.0
    logprobs: int | None = None  # record each token's log-prob and this many alternatives


@dataclass
class _Live:
    """A sequence being generated in a slot."""

    index: int
    req: SeqRequest
    slot: int
    pos: int
    matcher: Any = None
    rng: Any = None
    out: list[int] = field(default_factory=list)
    pieces: bytearray = field(default_factory=bytearray)
    seconds: float = 0.0
    last: int = -1
    scores: list[tuple[int, float, list[tuple[int, float]]]] = field(default_factory=list)


class BatchDecoder:
    """A multi-sequence llama.cpp context on an already loaded `llama_cpp.Llama`."""

    def __init__(
        self,
        llm: Any,
        n_seq: int = 8,
        n_ctx_seq: int | None = None,
        n_cache: int | None = None,
        reader: PromptReader | None = None,
    ):
        import llama_cpp

        self._lib, self.llm, self.n_seq = llama_cpp, llm, max(1, n_seq)
        self.n_ctx_seq = n_ctx_seq or llm.n_ctx()
        self.n_batch = llm.n_batch
        params = llama_cpp.llama_context_params()
        ctypes.pointer(params)[0] = llm.context_params  # copy: same attention/KV types
        # after the n_seq slots: n_cache sequences holding recent prompts (prefix reuse)
        self.n_cache = max(1, n_seq if n_cache is None else n_cache)
        params.n_ctx = self.n_ctx_seq * (self.n_seq + self.n_cache)
        params.n_seq_max = self.n_seq + self.n_cache
        params.kv_unified = False
        params.n_batch = params.n_ubatch = max(self.n_batch, self.n_seq)
        self.ctx = llama_cpp.llama_init_from_model(llm._model.model, params)
        if not self.ctx:
            raise EngineError(f"llama.cpp could not create a {self.n_seq}-sequence context")
        self.mem = llama_cpp.llama_get_memory(self.ctx)
        self.vocab = llm._model.vocab
        self.n_vocab = llm.n_vocab()
        self._batch = llama_cpp.llama_batch_init(params.n_batch, 0, 1)
        self._held: dict[int, tuple[int, ...]] = {}  # cache sequence -> its prompt, LRU first
        self.adapter: str | None = None  # the LoRA adapter set on this context (engines.llama)
        self.reader = reader  # reads long new prompts with other weights (llama_prefill)
        # a server's prefix caching: with a reader, a prompt that shares at least half of
        # itself with a held one copies that prefix and evaluates the rest here (its cells then
        # depend on what was read before, as in any prefix cache); off: exact cells
        self.reuse_prefixes = False

    def forget_prompts(self) -> None:
        """Drop every cached prompt (their KV was computed under another adapter)."""
        for seq in list(self._held):
            self._lib.llama_memory_seq_rm(self.mem, seq, -1, -1)
        self._held.clear()

    def close(self) -> None:
        if getattr(self, "ctx", None):
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(self.ctx)
            self.ctx = None

    def __del__(self) -> None:
        with contextlib.suppress(TypeError, AttributeError):  # at exit the library may go first
            self.close()

    # -- low level -------------------------------------------------------------------------

    def _decode(self, items: Sequence[tuple[int, int, int, bool]]) -> None:
        """One llama_decode over (token, pos, seq, wants_logits) items."""
        b = self._batch
        for i, (tok, pos, seq, want) in enumerate(items):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = tok, pos, 1, want
            b.seq_id[i][0] = seq
        b.n_tokens = len(items)
        rc = self._lib.llama_decode(self.ctx, b)
        if rc != 0:
            raise EngineError(f"llama_decode failed with code {rc} (KV cache full?)")

    def _logits(self, i: int) -> Any:
        import numpy as np

        ptr = self._lib.llama_get_logits_ith(self.ctx, i)
        return np.ctypeslib.as_array(ptr, shape=(self.n_vocab,))

    def _prefill(self, tokens: Sequence[int], slot: int) -> Any:
        """Evaluate a prompt into a slot in n_batch chunks; returns its last logits (a copy).

        The longest prefix shared with a recently evaluated prompt (held in the cache
        sequences) is copied instead of evaluated, as the sequential path reuses its previous
        prompt; a retried prompt is copied whole. Copies between KV streams are whole-stream,
        so copy, then cut at the prefix. With a reader, only a prompt held whole (all but its
        last token) is copied, and any other is read there (all but its last token, whose
        logits this context computes) or, when short, evaluated here from scratch, so its
        cells never depend on what was read before (unless `reuse_prefixes`: a server's
        prefix cache). The prompt then goes into the cache (LRU).
        """
        lib, mem = self._lib, self.mem
        lib.llama_memory_seq_rm(mem, slot, -1, -1)
        n = len(tokens) - 1  # the last token is always evaluated here (its logits)
        src, keep = max(
            ((c, common_prefix(t, tokens)) for c, t in self._held.items()),
            key=lambda x: x[1],
            default=(-1, 0),
        )
        keep = min(keep, n)
        reuse = self.reuse_prefixes and keep >= max(self.reader.min_new_tokens, n // 2) \
            if self.reader is not None else False  # fmt: skip
        if self.reader is not None and not reuse:  # cells of the prompt alone (llama_prefill)
            long = self.reader.reads(n)  # a short prompt is evaluated here whole, each time
            same = long and keep == n and len(self._held.get(src, ())) == len(tokens)
            keep = n if same else 0
            if long and not same:
                self.reader.fill(self.ctx, slot, tokens[:-1], self.n_seq + self.n_cache)
                keep, src = n, -1
        if keep > 0 and src >= 0:
            lib.llama_memory_seq_cp(mem, src, slot, -1, -1)
            lib.llama_memory_seq_rm(mem, slot, keep, -1)
        for start in range(keep, len(tokens), self.n_batch):
            chunk = tokens[start : start + self.n_batch]
            last = start + len(chunk) == len(tokens)
            self._decode(
                [(t, start + j, slot, last and j == len(chunk) - 1) for j, t in enumerate(chunk)]
            )
        logits = self._logits(-1).copy()
        self._remember(tuple(tokens), slot, src if keep == len(tokens) - 1 else -1)
        return logits

    def _remember(self, tokens: tuple[int, ...], slot: int, same: int) -> None:
        """Keep this prompt's KV in a cache sequence (most recent last; `same` already has it)."""
        lib, mem = self._lib, self.mem
        if same >= 0 and self._held.get(same) == tokens:
            self._held[same] = self._held.pop(same)  # refresh its LRU place
            return
        free = [c for c in range(self.n_seq, self.n_seq + self.n_cache) if c not in self._held]
        cache = free[0] if free else next(iter(self._held))
        self._held.pop(cache, None)
        lib.llama_memory_seq_rm(mem, cache, -1, -1)
        lib.llama_memory_seq_cp(mem, slot, cache, -1, -1)
        self._held[cache] = tokens

    # -- sampling --------------------------------------------------------------------------

    def _pick(self, live: _Live, logits: Any) -> int:
        """The next token of one sequence: greedy (argmax-first grammar check) or sampled;
        its log-prob under the model (and the top alternatives) recorded where asked for."""
        tok = self._choose(live, logits)
        if live.req.logprobs is not None:
            live.scores.append(_scores(logits, tok, live.req.logprobs))
        return tok

    def _choose(self, live: _Live, logits: Any) -> int:
        import numpy as np

        m = live.matcher
        if live.req.temperature <= 0:
            tok = int(logits.argmax())
            if m is None or m.allows(tok):
                return tok
            return int(m.mask(logits).argmax())
        if m is not None:
            logits = m.mask(logits)
        z = (logits.astype(np.float64) - float(np.max(logits))) / live.req.temperature
        p = np.exp(z)
        p /= p.sum()
        if live.req.top_p < 1.0:  # nucleus: the smallest set of top tokens holding top_p
            order = np.argsort(-p)
            keep = order[: int(np.searchsorted(np.cumsum(p[order]), live.req.top_p)) + 1]
            q = np.zeros_like(p)
            q[keep] = p[keep]
            p = q / q.sum()
        return int(live.rng.choice(len(p), p=p))

    def _advance(self, live: _Live, tok: int) -> str | None:
        """Record a chosen token; returns the finish reason when the sequence is done."""
        if self._lib.llama_vocab_is_eog(self.vocab, tok):
            return "stop"
        if live.matcher is not None:
            live.matcher.accept(tok)
        live.out.append(tok)
        live.last = tok
        if live.req.stop:
            live.pieces += self.llm.detokenize([tok])
            if cut_at_stop(live.pieces.decode("utf-8", errors="ignore"), live.req.stop)[1]:
                return "stop"
        if len(live.out) >= live.req.max_tokens:
            return "length"
        return None

    def _piece(self, token: int) -> str:
        return self.llm.detokenize([token]).decode("utf-8", errors="replace")

    def _finish(self, live: _Live, reason: str) -> Completion:
        if live.matcher is not None:
            live.matcher.close()
        text = self.llm.detokenize(live.out).decode("utf-8", errors="ignore")
        text, _ = cut_at_stop(text, live.req.stop)
        logprobs = None
        if live.req.logprobs is not None:
            logprobs = tuple((self._piece(t), lp, tuple((self._piece(a), p) for a, p in alts))
                             for t, lp, alts in live.scores[: len(live.out)])  # fmt: skip
        return Completion(text, reason, len(live.req.tokens), len(live.out), live.seconds,
                          logprobs=logprobs)  # fmt: skip

    # -- scheduling ------------------------------------------------------------------------

    def _start(self, index: int, req: SeqRequest, slot: int) -> _Live:
        import numpy as np

        from toollearn.engines.llama_grammar import GrammarMatcher

        if len(req.tokens) + req.max_tokens > self.n_ctx_seq:
            raise EngineError(
                f"prompt of {len(req.tokens)} tokens + {req.max_tokens} new exceeds the "
                f"per-sequence context {self.n_ctx_seq}; pass a larger n_ctx"
            )
        matcher = GrammarMatcher(self.llm, req.gbnf) if req.gbnf else None
        rng = np.random.default_rng(req.seed) if req.temperature > 0 else None
        return _Live(index, req, slot, len(req.tokens), matcher, rng)

    def run(self, requests: Sequence[SeqRequest]) -> list[Completion]:
        """Generate every request, at most n_seq at a time; results in request order."""
        results: list[Completion | None] = [None] * len(requests)
        groups = _group_by_prompt(requests)
        free = list(range(self.n_seq))
        live: list[_Live] = []
        pending: list[tuple[_Live, Any]] = []  # started, first token not yet picked
        while groups or live or pending:
            while groups and len(groups[0]) <= len(free):
                pending += self._admit(groups.pop(0), requests, free)
            for seq, logits in pending:
                reason = self.first(seq, logits)
                if reason:
                    results[seq.index] = self.finish(seq, reason)
                    free.append(seq.slot)
                else:
                    live.append(seq)
            pending = []
            if live:
                for seq, reason in self.step(live):
                    live.remove(seq)
                    results[seq.index] = self.finish(seq, reason)
                    free.append(seq.slot)
            elif groups:  # a group larger than n_seq: split it
                head = groups.pop(0)
                groups[:0] = [head[: self.n_seq], head[self.n_seq :]]
        return results  # type: ignore[return-value]

    def _admit(self, group: list[int], requests: Sequence[SeqRequest], free: list[int]):
        """Prefill one prompt into a slot, copy its KV to the group's other slots."""
        t0 = time.perf_counter()
        slots = [free.pop(0) for _ in group]
        logits = self._prefill(requests[group[0]].tokens, slots[0])
        for s in slots[1:]:
            self._lib.llama_memory_seq_rm(self.mem, s, -1, -1)
            self._lib.llama_memory_seq_cp(self.mem, slots[0], s, -1, -1)
        share = (time.perf_counter() - t0) / len(group)
        out = []
        for i, s in zip(group, slots):
            seq = self._start(i, requests[i], s)
            seq.seconds = share
            out.append((seq, logits))
        return out

    # -- the online interface (a server's continuous batching: engines.llama_online) -------

    def admit(self, index: int, req: SeqRequest, slot: int) -> tuple[_Live, Any]:
        """Prefill one request into a free slot: its sequence and the logits of its first token."""
        t0 = time.perf_counter()
        seq = self._start(index, req, slot)
        logits = self._prefill(req.tokens, slot)
        seq.seconds = time.perf_counter() - t0
        return seq, logits

    def first(self, seq: _Live, logits: Any) -> str | None:
        """Pick a started sequence's first token; its finish reason when that ends it."""
        return self._advance(seq, self._pick(seq, logits)) if seq.req.max_tokens > 0 else "length"

    def step(self, live: Sequence[_Live]) -> list[tuple[_Live, str]]:
        """Feed every live sequence's last token in one decode call and pick each next token;
        (sequence, finish reason) of those that ended."""
        t0 = time.perf_counter()
        self._decode([(s.last, s.pos, s.slot, True) for s in live])
        done = []
        for i, s in enumerate(live):
            s.pos += 1
            reason = self._advance(s, self._pick(s, self._logits(i)))
            if reason:
                done.append((s, reason))
        share = (time.perf_counter() - t0) / len(live)
        for s in live:
            s.seconds += share
        return done

    def finish(self, seq: _Live, reason: str) -> Completion:
        """The Completion of an ended sequence (its grammar freed)."""
        return self._finish(seq, reason)

    def drop(self, seq: _Live) -> None:
        """Abandon a live sequence (its client left): free its grammar; its slot is reused."""
        if seq.matcher is not None:
            seq.matcher.close()


def _group_by_prompt(requests: Sequence[SeqRequest]) -> list[list[int]]:
    """Request indices grouped by identical prompt tokens, in first-seen order."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, r in enumerate(requests):
        groups.setdefault(tuple(r.tokens), []).append(i)
    return list(groups.values())


def _scores(logits: Any, tok: int, top: int) -> tuple[int, float, list[tuple[int, float]]]:
    """(token, its log-prob, the `top` most likely tokens with theirs) under the model."""
    import numpy as np

    z = logits.astype(np.float64)
    z = z - z.max()
    logp = z - np.log(np.exp(z).sum())
    best = np.argsort(-logp)[:top] if top > 0 else []
    return tok, float(logp[tok]), [(int(i), float(logp[i])) for i in best]
