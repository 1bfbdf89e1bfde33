"""A calibrated stop for the alpha-UMi planner: conclude only when the planner is sure enough.

The 135M planner's commonest error is concluding one call early (on the query's last
sub-task). Trained planners write one fixed thought before `Next: conclusion`
(`umi.CONCLUSION_THOUGHT`), so how sure the planner is that the task is done can be read as
log p(that thought | planner prompt). The gate replaces the greedy choice between caller and
conclusion with "conclusion iff that log-probability > threshold"; a greedy `give up` stays.
The threshold is chosen on held-out steps (`threshold_sweep`), never on the test set. It reads
no label and asks the model nothing but that one score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.errors import EngineError
from toollearn.core.types import Message
from toollearn.formats.answers import umi

GATED = ("caller", "conclusion")  # the choices the gate decides between


def conclusion_logprob(engine: Any, prompt: str) -> float:
    """log p(`umi.CONCLUSION_THOUGHT` | the planner prompt), the whole thought's tokens;
    EngineError for an engine that cannot score continuations."""
    score = getattr(engine, "continuation_logprobs", None)
    if score is None:
        raise EngineError(f"{type(engine).__name__} cannot score continuations")
    return float(score([Message("user", prompt)], [umi.CONCLUSION_THOUGHT])[0])


def gated_next(greedy: str | None, logprob: float | None, threshold: float | None) -> str | None:
    """The planner's next role under the gate: caller or conclusion by the threshold when the
    greedy choice was one of them; anything else (give up, unreadable, no score) unchanged."""
    if threshold is None or logprob is None or greedy not in GATED:
        return greedy
    return "conclusion" if logprob > threshold else "caller"


@dataclass(frozen=True)
class GateStep:
    """One scored planner step: the greedy choice, the conclusion score and the gold choice."""

    greedy: str | None
    logprob: float | None
    gold: str


def accuracy(steps: Sequence[GateStep], threshold: float | None) -> float:
    """Share of steps whose gated choice is the gold one (the stepwise Plan ACC)."""
    if not steps:
        return 0.0
    right = sum(gated_next(s.greedy, s.logprob, threshold) == s.gold for s in steps)
    return right / len(steps)


def candidate_thresholds(steps: Sequence[GateStep]) -> list[float]:
    """Midpoints between neighbouring distinct scores, and one below / above them all."""
    scores = sorted({s.logprob for s in steps if s.logprob is not None})
    if not scores:
        return []
    mids = [(a + b) / 2 for a, b in zip(scores, scores[1:])]
    return [scores[0] - 1.0, *mids, scores[-1] + 1.0]


def threshold_sweep(steps: Sequence[GateStep]) -> dict[str, Any]:
    """Plan ACC at every candidate threshold, the best one (ties: the lowest threshold), and
    greedy's own accuracy for comparison."""
    rows = [{"threshold": t, "plan_acc": accuracy(steps, t)} for t in candidate_thresholds(steps)]
    best = max(rows, key=lambda r: (r["plan_acc"], -r["threshold"]), default=None)
    return {"steps": len(steps), "greedy_plan_acc": accuracy(steps, None), "best": best,
            "sweep": rows}  # fmt: skip
