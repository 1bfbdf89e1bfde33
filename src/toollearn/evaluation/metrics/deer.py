"""DEER decision metrics: Decision-Search, Decision-Call and the call itself.

Sample kinds come from the Example labels: NoSearch (needs_tool False), Search (needs_tool
True), NoCall (has_suitable_tool False: the pool lacks the right tool), Call
(has_suitable_tool True; gold = example.calls[0]).
  P_NoSearch / P_Search: the search decision is right; P_DS over both kinds.
  P_NoCall: the model searched and then declined to call (a no-search answer, or a search
    followed by neither #CallAPI# nor #NoCallAPI#, is wrong: the Decision-Call was skipped).
  P_Call: the model calls a tool whose NAME is the gold one (the paper; arguments unchecked).
  Call_strict: name and arguments equal (typed, metrics.matching.values_equal).
  P_DC = (correct NoCall + correct Call) / (NoCall + Call); P_DC_strict uses Call_strict.
Rates are fractions; a rate with no sample of its kind is None.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toollearn.core.types import Example, ToolCall
from toollearn.evaluation.metrics.matching import values_equal


@dataclass(frozen=True)
class DeerPrediction:
    """A model's decisions on one sample. search None = no decision could be read; `error`
    set = the call decision was not completed (searched, then neither a call nor a NoCall)."""

    search: bool | None
    call: ToolCall | None = None
    error: str = ""

    @property
    def searched(self) -> bool:
        return self.search is True or self.call is not None

    @classmethod
    def from_answer(cls, answer: Any) -> DeerPrediction:
        """From a `formats.answers.deer.DeerAnswer` (search + optional call)."""
        return cls(bool(answer.search), answer.call, getattr(answer, "error", ""))


def _rate(correct: int, total: int) -> float | None:
    return correct / total if total else None


def _gold_call(ex: Example) -> ToolCall:
    if not ex.calls:
        raise ValueError(f"example {ex.id!r} is a Call sample without a gold call")
    return ex.calls[0]


def deer_scores(preds: Sequence[DeerPrediction], examples: Sequence[Example]) -> dict[str, Any]:
    """P_NoSearch, P_Search, P_DS, P_NoCall, P_Call, Call_strict, P_DC (and P_DC_strict)."""
    if len(preds) != len(examples):
        raise ValueError(f"{len(preds)} predictions but {len(examples)} examples")
    n = dict.fromkeys(("nosearch", "search", "nocall", "call"), 0)
    ok = dict.fromkeys(("nosearch", "search", "nocall", "call", "call_strict"), 0)
    for pred, ex in zip(preds, examples):
        if ex.needs_tool is False:
            n["nosearch"] += 1
            ok["nosearch"] += pred.search is False and pred.call is None
            continue
        if ex.needs_tool is True:
            n["search"] += 1
            ok["search"] += pred.searched
        if ex.has_suitable_tool is False:
            n["nocall"] += 1
            ok["nocall"] += pred.search is True and pred.call is None and not pred.error
        elif ex.has_suitable_tool is True:
            gold = _gold_call(ex)
            n["call"] += 1
            named = pred.call is not None and pred.call.name == gold.name
            ok["call"] += named
            ok["call_strict"] += named and values_equal(pred.call.arguments, gold.arguments)
    dc = n["nocall"] + n["call"]
    return {
        "n": len(examples),
        "unreadable": sum(p.search is None and p.call is None for p in preds),
        "P_NoSearch": _rate(ok["nosearch"], n["nosearch"]),
        "P_Search": _rate(ok["search"], n["search"]),
        "P_DS": _rate(ok["nosearch"] + ok["search"], n["nosearch"] + n["search"]),
        "P_NoCall": _rate(ok["nocall"], n["nocall"]),
        "P_Call": _rate(ok["call"], n["call"]),
        "Call_strict": _rate(ok["call_strict"], n["call"]),
        "P_DC": _rate(ok["nocall"] + ok["call"], dc),
        "P_DC_strict": _rate(ok["nocall"] + ok["call_strict"], dc),
        "counts": {**{f"n_{k}": v for k, v in n.items()}, **{f"ok_{k}": v for k, v in ok.items()}},
    }
