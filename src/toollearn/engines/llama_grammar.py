"""Fast greedy grammar-constrained decoding on llama.cpp ("check the argmax first").

llama-cpp-python applies a grammar to every token of the vocabulary (49k for SmolLM2) at every
step. Under greedy decoding only the argmax matters: we check that one token against the
grammar and fall back to masking the whole vocabulary only when it is rejected (llama.cpp's own
common sampler does the same). The output is identical to full masking followed by argmax.
"""

from __future__ import annotations

import ctypes
from collections.abc import Generator, Sequence
from typing import Any

from toollearn.core.errors import EngineError
from toollearn.engines.base import cut_at_stop


class GrammarMatcher:
    """A llama.cpp grammar sampler over a model's vocabulary: check, mask, accept tokens."""

    def __init__(self, llm: Any, gbnf: str, root: str = "root"):
        import llama_cpp
        import numpy as np

        self._lib, self._np = llama_cpp, np
        self.vocab = llm._model.vocab
        self.n_vocab = llm.n_vocab()
        self.smpl = llama_cpp.llama_sampler_init_grammar(
            self.vocab, gbnf.encode("utf-8"), root.encode("utf-8")
        )
        if not self.smpl:
            raise EngineError("llama.cpp could not parse the grammar (see its log for the rule)")
        dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
        self._full = np.zeros(self.n_vocab, dtype=dtype)
        self._full["id"] = np.arange(self.n_vocab, dtype=np.intc)
        self._full_arr = self._array(self._full)
        self._one = np.zeros(1, dtype=dtype)
        self._one_arr = self._array(self._one)

    def _array(self, buf: Any) -> Any:
        lib = self._lib
        return lib.llama_token_data_array(
            data=buf.ctypes.data_as(lib.llama_token_data_p),
            size=len(buf),
            selected=-1,
            sorted=False,
        )

    def allows(self, token: int) -> bool:
        """Whether the grammar admits this token next."""
        self._one[0] = (token, 0.0, 0.0)
        self._one_arr.size = 1
        self._lib.llama_sampler_apply(self.smpl, ctypes.byref(self._one_arr))
        return bool(self._np.isfinite(self._one["logit"][0]))

    def mask(self, logits: Any) -> Any:
        """The logits with every token the grammar rejects set to -inf."""
        self._full["logit"] = logits
        self._full_arr.size = self.n_vocab
        self._lib.llama_sampler_apply(self.smpl, ctypes.byref(self._full_arr))
        return self._full["logit"].copy()

    def accept(self, token: int) -> None:
        """Advance the grammar past a chosen token."""
        self._lib.llama_sampler_accept(self.smpl, token)

    def is_eog(self, token: int) -> bool:
        return bool(self._lib.llama_vocab_is_eog(self.vocab, token))

    def close(self) -> None:
        if self.smpl:
            self._lib.llama_sampler_free(self.smpl)
            self.smpl = None

    def __del__(self) -> None:
        self.close()


def generate_greedy_constrained(
    llm: Any, prompt_tokens: Sequence[int], gbnf: str, max_tokens: int, stop: Sequence[str] = ()
) -> tuple[str, str, int]:
    """Greedy decoding under a GBNF grammar; returns (text, finish_reason, completion tokens)."""
    pieces = stream_greedy_constrained(llm, prompt_tokens, gbnf, max_tokens, stop)
    while True:
        try:
            next(pieces)
        except StopIteration as done:
            return done.value


def stream_greedy_constrained(
    llm: Any, prompt_tokens: Sequence[int], gbnf: str, max_tokens: int, stop: Sequence[str] = ()
) -> Generator[str, None, tuple[str, str, int]]:
    """`generate_greedy_constrained`, yielding the text piece by piece as it decodes (held
    back where it could begin a stop string); returns (text, finish_reason, tokens). Closing
    the generator stops decoding."""
    from llama_cpp import LogitsProcessorList

    matcher = GrammarMatcher(llm, gbnf)

    def processor(_ids: Any, logits: Any) -> Any:
        if matcher.allows(int(logits.argmax())):
            return logits  # greedy will pick it: no need to look at the rest
        return matcher.mask(logits)

    out: list[int] = []
    finish, sent, hold = "length", 0, max((len(s) for s in stop), default=1) - 1
    try:
        gen = llm.generate(
            prompt_tokens,
            top_k=1,
            top_p=1.0,
            min_p=0.0,
            temp=0.0,
            repeat_penalty=1.0,
            logits_processor=LogitsProcessorList([processor]),
        )
        for token in gen:
            if matcher.is_eog(token):
                finish = "stop"
                break
            matcher.accept(token)
            out.append(token)
            text, hit = cut_at_stop(_text(llm, out), stop)
            if hit:
                finish = "stop"
                break
            if len(text) - hold > sent:
                yield text[sent : len(text) - hold]
                sent = len(text) - hold
            if len(out) >= max_tokens:
                break
    finally:
        matcher.close()
    text, _ = cut_at_stop(_text(llm, out), stop)
    if len(text) > sent:
        yield text[sent:]
    return text, finish, len(out)


def _text(llm: Any, tokens: list[int]) -> str:
    return llm.detokenize(tokens).decode("utf-8", errors="ignore")
