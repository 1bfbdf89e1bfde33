"""alpha-UMi static step-level metrics (teacher-forced gold history, one prediction per step).

Plan ACC: the predicted next action (call / finish / give_up) equals gold, over all steps.
Act EM: the predicted API name equals gold, over gold call steps.
Hallucination: steps whose predicted API name is not among the step's candidates, over ALL
  steps (a step without a predicted call cannot hallucinate).
Arg F1: per gold call step, 0 if the API name is wrong; otherwise each gold key earns 1 for an
  equal value (typed, metrics.matching.values_equal) and 1/2 for a present key with a wrong
  value; precision = credit / predicted keys, recall = credit / gold keys; averaged over gold
  call steps (both sides empty = 1).
Rouge-L: F-measure (the maintained `rouge-score` package) of the predicted final answer against
  gold, over gold finish steps.
Rates are fractions; a metric with no step to average over is None.
Plans: gold action -> predicted action -> steps (predicted "unreadable" where no action could be
  read): where Plan ACC's errors are (a planner that stops too early, or gives up, or never stops).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from toollearn.core.errors import ToollearnError
from toollearn.evaluation.metrics.matching import values_equal

ACTIONS = ("call", "finish", "give_up")


@dataclass(frozen=True)
class StepTarget:
    """The gold step: next action, and the call (api, arguments) or the final answer."""

    action: str
    api: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    answer: str = ""
    candidates: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"gold action must be one of {ACTIONS}, got {self.action!r}")


@dataclass(frozen=True)
class StepOutput:
    """What the model predicted at a step; None marks an unreadable part."""

    action: str | None
    api: str | None = None
    arguments: dict[str, Any] | None = None
    answer: str | None = None


def arg_f1(pred: dict[str, Any] | None, gold: dict[str, Any]) -> float:
    """Half-credit argument F1 of one call whose API name is already right."""
    pred = pred or {}
    if not pred and not gold:
        return 1.0
    credit = sum((1.0 if values_equal(pred[k], v) else 0.5) for k, v in gold.items() if k in pred)
    p = credit / len(pred) if pred else 0.0
    r = credit / len(gold) if gold else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def rouge_l(prediction: str, reference: str) -> float:
    """Rouge-L F-measure from `rouge-score` (the `eval` extra)."""
    try:
        from rouge_score import rouge_scorer
    except ImportError as exc:
        raise ToollearnError(
            "Rouge-L needs the rouge-score package: pip install 'toollearn[eval]'"
        ) from exc
    return _rouge_scorer(rouge_scorer).score(reference, prediction)["rougeL"].fmeasure


@lru_cache(maxsize=1)
def _rouge_scorer(module: Any) -> Any:
    return module.RougeScorer(["rougeL"])


def stepwise_scores(preds: Sequence[StepOutput], golds: Sequence[StepTarget]) -> dict[str, Any]:
    """Plan ACC, Act EM, Hallucination rate, Arg F1 and Rouge-L over aligned steps."""
    if len(preds) != len(golds):
        raise ValueError(f"{len(preds)} predicted steps but {len(golds)} gold steps")
    plan = sum(p.action == g.action for p, g in zip(preds, golds))
    hallu = sum(p.api is not None and p.api not in g.candidates for p, g in zip(preds, golds))
    calls = [(p, g) for p, g in zip(preds, golds) if g.action == "call"]
    act = sum(p.api == g.api for p, g in calls)
    args = [arg_f1(p.arguments, g.arguments) if p.api == g.api else 0.0 for p, g in calls]
    finals = [(p, g) for p, g in zip(preds, golds) if g.action == "finish"]
    rouge = [rouge_l(p.answer or "", g.answer) for p, g in finals]
    n = len(golds)
    plans = {g: dict.fromkeys((*ACTIONS, "unreadable"), 0) for g in ACTIONS}
    for p, g in zip(preds, golds):
        plans[g.action][p.action if p.action in ACTIONS else "unreadable"] += 1
    return {
        "steps": n,
        "call_steps": len(calls),
        "answer_steps": len(finals),
        "plan_acc": plan / n if n else None,
        "act_em": act / len(calls) if calls else None,
        "hallucination": hallu / n if n else None,
        "arg_f1": sum(args) / len(args) if args else None,
        "rouge_l": sum(rouge) / len(rouge) if rouge else None,
        "plans": plans,
    }
