"""Scoring continuations on llama.cpp: log p(continuation | prompt), no sampling.

Used where a decision is a choice between fixed texts (DEER's ` #CallAPI#` vs ` #NoCallAPI#`)
and the agent wants the margin between them rather than the argmax, to calibrate a threshold.
The prompt is read once; each continuation is fed one token at a time after it, rewinding the
KV cache to the shared prefix between continuations (llama-cpp-python's `eval` drops the
cache past `n_tokens`). The logits are read from the context after each `eval` (the library
keeps no rows unless the model was loaded with logits_all).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toollearn.core.errors import EngineError
from toollearn.engines.llama_prefill import common_prefix


def log_softmax_at(logits: Any, token: int) -> float:
    """log softmax(logits)[token], computed stably in float64."""
    import numpy as np

    row = np.asarray(logits, dtype=np.float64)
    top = row.max()
    return float(row[token] - top - np.log(np.exp(row - top).sum()))


def last_logits(llm: Any) -> Any:
    """The logits llama.cpp computed for the last token evaluated."""
    import numpy as np

    return np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))


def continuation_logprobs(llm: Any, text: str, continuations: Sequence[str]) -> list[float]:
    """Sum of token log-probabilities of each continuation after `text` (see the module)."""
    if not continuations:
        return []
    encode = lambda s: llm.tokenize(s.encode("utf-8"), special=True)  # noqa: E731
    full = [encode(text + c) for c in continuations]
    shared = min(common_prefix(encode(text), f) for f in full)
    if shared == 0:
        raise EngineError("cannot score a continuation of an empty prompt")
    if max(len(f) for f in full) > llm.n_ctx():
        raise EngineError(f"prompt + continuation exceed n_ctx {llm.n_ctx()}")
    context = full[0][:shared]
    # reuse what the model already holds of this context in whole n_batch chunks (as
    # llama_prefill does, so the scores do not depend on what was read before), read the rest
    keep = common_prefix(llm.input_ids[: llm.n_tokens].tolist(), context[:-1])
    llm.n_tokens = keep - keep % llm.n_batch
    llm.eval(context[llm.n_tokens :])
    after_context = last_logits(llm).copy()
    out = []
    for tokens in full:
        llm.n_tokens = shared
        logits, total = after_context, 0.0
        for i, token in enumerate(tokens[shared:]):
            total += log_softmax_at(logits, token)
            if shared + i + 1 < len(tokens):
                llm.eval([token])
                logits = last_logits(llm)
        out.append(total)
    llm.n_tokens = shared  # what follows in the cache is the last continuation's tail
    return out
