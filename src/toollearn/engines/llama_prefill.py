"""Read prompts with one weight type, generate with another: the KV cache changes hands.

Prompt reading is compute-bound and llama.cpp's F16 kernels are the fastest here for it;
decoding reads every weight once per token, so it is memory-bound and the shipped 4-bit file
is the fastest for it (`benchmarks/engines.py`). A `PromptReader` holds a second copy of the
model (e.g. the F16 copy of the Q4_1 GGUF): it evaluates a prompt in its own context, keeping
the longest prefix it already holds, then the prompt's KV cells are copied into a sequence of
the generating context with `llama_state_seq_get_data` / `llama_state_seq_set_data`. Both
models must have the same architecture, and both contexts the same KV types and flash-attention
setting (llama.cpp refuses a state with a different V layout). The reader applies the same LoRA
adapter as the generating context, so the cells it hands over are the adapted model's.

The cells a prompt gets depend on the prompt alone, never on what was read before: a prompt of
at least MIN_NEW_TOKENS tokens (all but its last) is read here, in the same n_batch chunks
whatever this reader held, and handed over unless the target holds exactly the cells of the
same handover; a shorter one is read by the generating model from scratch. (Reusing a longer
cached prefix and reading the rest elsewhere would change the chunks, and with them the
cells' rounding, so a greedy answer could differ with the requests made before it.)
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import EngineError

# prompts shorter than this the generating model reads itself: handing over the whole KV state
# (about 23 kB per token for SmolLM2-135M) costs more than it saves
MIN_NEW_TOKENS = 32


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the common prefix of two token sequences."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PromptReader:
    """A second `llama_cpp.Llama` of the same model that fills other contexts' KV caches.

    A prefix it already holds is reused in whole n_batch chunks, so the sequential and the
    batched paths hand over the same cells for the same prompt.
    """

    def __init__(self, llm: Any, min_new_tokens: int = MIN_NEW_TOKENS):
        import llama_cpp

        self._lib, self.llm, self.min_new_tokens = llama_cpp, llm, min_new_tokens
        self._buf: Any = None  # the last exported state (reused, grown as needed)
        self._framed: Any = None  # the same, framed for a multi-stream context
        self.tokens_read = 0  # prompt tokens this reader evaluated (for benchmarks)
        self._handed: dict[int, tuple[int, ...]] = {}  # id(target Llama) -> tokens handed last

    def reads(self, n: int) -> bool:
        """Whether a prompt of n tokens (all but the last) is read here."""
        return n >= self.min_new_tokens

    def read(self, tokens: Sequence[int]) -> tuple[Any, int]:
        """Evaluate `tokens` (reusing the prefix this reader holds); returns its KV state."""
        llm, lib = self.llm, self._lib
        keep = common_prefix(llm.input_ids[: llm.n_tokens].tolist(), tokens)
        keep -= keep % llm.n_batch  # whole n_batch chunks only: every prompt is evaluated in the
        # same chunks whatever was read before, so its cells do not depend on history
        if keep < llm.n_tokens:
            llm.n_tokens = keep  # Llama.eval drops the cells from n_tokens on
        llm.eval(list(tokens[keep:]))
        self.tokens_read += len(tokens) - keep
        ctx = llm._ctx.ctx
        size = lib.llama_state_seq_get_size(ctx, 0)
        if self._buf is None or len(self._buf) < size:
            self._buf = (ctypes.c_uint8 * size)()
        got = lib.llama_state_seq_get_data(ctx, self._buf, size, 0)
        if got == 0:
            raise EngineError("llama.cpp could not export the prompt's KV state")
        return self._buf, got

    def fill(self, ctx: Any, seq: int, tokens: Sequence[int], n_stream: int = 1) -> None:
        """Put the KV cells of `tokens` into sequence `seq` of another context (emptied first).

        n_stream: KV streams of that context (its n_seq_max when kv_unified is off). A sequence
        state is a header (ending with the writer's stream count) then one section per stream
        (a cell count, then the cells), and llama.cpp takes only a state with its own stream
        count. So the reader's one-stream state gets the header the target writes for the
        (empty) sequence, and empty sections for the other streams: set_data puts the cells of
        any section into `seq`'s stream.
        """
        buf, size = self.read(tokens)
        lib = self._lib
        lib.llama_memory_seq_rm(lib.llama_get_memory(ctx), seq, -1, -1)
        if n_stream != 1:
            buf, size = self._reframe(ctx, seq, n_stream, buf, size)
        if lib.llama_state_seq_set_data(ctx, buf, size, seq) != size:
            raise EngineError(
                "llama.cpp refused the prompt's KV state (different model, KV type or "
                "flash-attention setting between the reading and the generating context?)"
            )

    def _reframe(self, ctx: Any, seq: int, n_stream: int, state: Any, size: int):
        """The reader's one-stream `state` as a state of `seq` in an n_stream context."""
        lib = self._lib
        n = lib.llama_state_seq_get_size(ctx, seq)
        empty = (ctypes.c_uint8 * n)()
        lib.llama_state_seq_get_data(ctx, empty, n, seq)
        head = n - 4 * n_stream  # the target's header length
        count = int.from_bytes(bytes(empty[head - 4 : head]), "little")
        mine = int.from_bytes(bytes(state[head - 4 : head]), "little")
        if head < 4 or count != n_stream or mine != 1:
            raise EngineError(f"unexpected llama.cpp KV state layout ({count}, {mine} streams)")
        total = size + 4 * (n_stream - 1)
        if self._framed is None or len(self._framed) < total:
            self._framed = (ctypes.c_uint8 * total)()
        out = ctypes.addressof(self._framed)
        ctypes.memmove(out, empty, head)  # the target's header, its stream count
        ctypes.memmove(out + head, ctypes.addressof(state) + head, size - head)  # the section
        ctypes.memset(out + size, 0, total - size)  # empty sections for the other streams
        return self._framed, total

    def fill_llama(self, target: Any, tokens: Sequence[int]) -> None:
        """Prepare a `llama_cpp.Llama` to generate after `tokens`: all but the last token are
        read here and handed over, so its own `generate` evaluates only the last one; kept
        when the target holds that very handover; a short prompt it reads itself, from
        scratch (see the module docstring)."""
        n, key = len(tokens) - 1, id(target)
        prompt = tuple(tokens[:n])
        held = common_prefix(target.input_ids[: target.n_tokens].tolist(), prompt)
        if self._handed.get(key) == prompt and held == n:
            return
        self._handed.pop(key, None)
        target.n_tokens = 0  # nothing read before is reused (nor, if the handover fails, stale)
        if not self.reads(n):
            return
        self.fill(target._ctx.ctx, 0, prompt)
        target.input_ids[:n] = prompt
        target.n_tokens = n
        self._handed[key] = prompt
