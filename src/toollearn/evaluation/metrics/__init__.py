"""Metrics as pure functions returning plain dicts (printing lives in evaluation.report)."""

from toollearn.evaluation.metrics.complexity import api_complexity
from toollearn.evaluation.metrics.deer import DeerPrediction, deer_scores
from toollearn.evaluation.metrics.seal_errors import seal_error_analysis
from toollearn.evaluation.metrics.seal_tools import (
    official_scores,
    scores_by_group,
    strict_scores,
)
from toollearn.evaluation.metrics.stepwise import StepOutput, StepTarget, stepwise_scores

__all__ = [
    "DeerPrediction",
    "StepOutput",
    "StepTarget",
    "api_complexity",
    "deer_scores",
    "official_scores",
    "scores_by_group",
    "seal_error_analysis",
    "stepwise_scores",
    "strict_scores",
]
