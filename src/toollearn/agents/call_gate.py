"""What decides DEER's Call/NoCall branch when the agent is given a threshold: a NoCall margin.

Each gate scores (query, candidate pool, the released-format turn so far) and returns a dict
holding `nocall_margin` (higher: more reason to decline) and what it was computed from; the
agent declines when the margin exceeds its threshold (`DecisionAgent(call_threshold=...)`) and
`evaluation.calibration` picks that threshold on held-out training examples.
- `ModelGate`: log p(` #NoCallAPI#`) - log p(` #CallAPI#`) under the agent's own engine.
- `SimilarityGate`: minus the best cosine similarity between the query and a pool tool's
  text under a sentence encoder (the embedded MiniLM, or one `toollearn retrieve train`
  fine-tuned): "no tool here is close to the request", DEER's decision read off a retriever.
- `RerankGate`: minus the best logit of a cross-encoder (`retrieval.reranker`) that reads the
  query with each pool tool, trained on DEER branches.
Gates that name the closest tool (`names_tool`) can also pick the tool the agent calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from toollearn.core.types import Message, Tool
from toollearn.formats.answers import deer

GATES = ("model", "similarity", "rerank")


class CallGate(Protocol):
    name: str

    def score(self, query: str, pool: Sequence[Tool], messages: Sequence[Message]) -> dict: ...

    def describe(self) -> dict[str, Any]: ...


class ModelGate:
    """The NoCall margin as the engine's log-probability of the two branch markers."""

    name = "model"
    names_tool = False

    def __init__(self, engine: Any):
        if not hasattr(engine, "continuation_logprobs"):
            raise ValueError(
                f"the model gate needs an engine that scores continuations (llama), not "
                f"{getattr(engine, 'name', type(engine).__name__)}"
            )
        self.engine = engine

    def score(self, query: str, pool: Sequence[Tool], messages: Sequence[Message]) -> dict:
        lp_call, lp_nocall = self.engine.continuation_logprobs(
            messages, [f" {deer.CALL}", f" {deer.NOCALL}"]
        )
        return {"logprob_call": round(lp_call, 4), "logprob_nocall": round(lp_nocall, 4),
                "nocall_margin": round(lp_nocall - lp_call, 4)}  # fmt: skip

    def describe(self) -> dict[str, Any]:
        return {"gate": self.name}


class SimilarityGate:
    """The NoCall margin as minus the query's best cosine similarity to a pool tool."""

    name = "similarity"
    names_tool = True

    def __init__(self, model: str | Path | None = None, threads: int | None = 1):
        from toollearn.retrieval.dense import MiniLMEncoder
        from toollearn.retrieval.text import DEFAULT_FIELDS

        self.encoder = MiniLMEncoder(path=model, threads=threads)
        self.fields = DEFAULT_FIELDS

    def score(self, query: str, pool: Sequence[Tool], messages: Sequence[Message]) -> dict:
        from toollearn.retrieval.text import tool_text

        if not pool:
            return {"nocall_margin": float("inf"), "max_similarity": None, "closest_tool": None}
        vecs = self.encoder.encode([query, *(tool_text(t, self.fields) for t in pool)])
        sims = vecs[1:] @ vecs[0]
        best = int(sims.argmax())
        return {"max_similarity": round(float(sims[best]), 4), "closest_tool": pool[best].name,
                "nocall_margin": round(-float(sims[best]), 4)}  # fmt: skip

    def describe(self) -> dict[str, Any]:
        return {"gate": self.name, "encoder": self.encoder.model_id}


class RerankGate:
    """The NoCall margin as minus a cross-encoder's best logit over the pool."""

    name = "rerank"
    names_tool = True

    def __init__(self, model: str | Path, threads: int | None = 1):
        from toollearn.retrieval.reranker import Reranker

        self.reranker = Reranker(model, threads)

    def score(self, query: str, pool: Sequence[Tool], messages: Sequence[Message]) -> dict:
        if not pool:
            return {"nocall_margin": float("inf"), "max_logit": None, "closest_tool": None}
        logits = self.reranker.scores(query, pool)
        best = int(logits.argmax())
        return {"max_logit": round(float(logits[best]), 4), "closest_tool": pool[best].name,
                "nocall_margin": round(-float(logits[best]), 4)}  # fmt: skip

    def describe(self) -> dict[str, Any]:
        return {"gate": self.name, "encoder": self.reranker.model_id}


def gate_declines(
    gate: CallGate, threshold: float, query: str, pool: Sequence[Tool]
) -> tuple[bool, dict]:
    """(whether the gate declines: its NoCall margin for the query's first turn is above the
    threshold, and its score)."""
    score = gate.score(query, pool, [])
    return score["nocall_margin"] > threshold, score


def gate_decision(
    gate: CallGate, threshold: float, sure: float | None, query: str, pool: Sequence[Tool]
) -> tuple[str, dict]:
    """("no call" | "sure call" | "call", the gate's score): it declines above `threshold`, is
    sure a pool tool fits at or below `sure` (None: never), and leaves the choice between."""
    declines, score = gate_declines(gate, threshold, query, pool)
    if declines:
        return "no call", score
    if sure is not None and score["nocall_margin"] <= sure:
        return "sure call", score
    return "call", score


def shipped_sure_call_threshold() -> float | None:
    """The shipped gate's sure-call threshold (deer-gates.json, chosen on ToolDEER valid)."""
    from toollearn.models import deer_gates

    return deer_gates()["call"].get("sure_call_threshold")


def shipped_call_gate(engine: Any = None, threads: int | None = 1) -> tuple[CallGate, float]:
    """The call gate toollearn ships for DEER's Call/NoCall decision and its threshold
    (`toollearn.models.deer_gates()`: the MiniLM with the `deer-call-gate` LoRA adapter)."""
    from toollearn.models import deer_gates

    call = deer_gates()["call"]
    return make_gate(call["gate"], engine, threads), call["threshold"]


def make_gate(spec: str, engine: Any = None, threads: int | None = 1) -> CallGate:
    """`model`, `similarity`, `similarity:MODEL_DIR` (a fine-tuned MiniLM) or
    `rerank:MODEL_DIR` (a cross-encoder, `toollearn retrieve train-reranker`)."""
    kind, _, path = spec.partition(":")
    if kind == "model" and not path:
        return ModelGate(engine)
    if kind == "similarity":
        return SimilarityGate(path or None, threads)
    if kind == "rerank" and path:
        return RerankGate(path, threads)
    raise ValueError(
        f"unknown call gate {spec!r}: model, similarity, similarity:MODEL_DIR or rerank:MODEL_DIR"
    )
